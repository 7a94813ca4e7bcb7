/**
 * Walking the buffer of consecutive batches handed to PartitionLog.append:
 * checking it holds whole batches and summing what the append needs before
 * writing (offsets taken, largest timestamp, whether the producer state must
 * follow), then handing each batch with a producer id to the producer state.
 * Separate from partition-log.ts so `append` reads as its steps. The batches
 * were validated by the caller; a malformed buffer is misuse (an invariant).
 */
import { BATCH_HEADER_BYTES, Offsets, batchSizeAt } from '../protocol/record-batch/header.js';
import { invariant } from '../util/assert.js';
import { producerBatchAt } from './producer-state/log-producer-state.js';
import type { AppliedBatch } from './producer-state/producer-state.js';

export interface AppendBatchesSummary {
  /** Offsets the batches take (sum of lastOffsetDelta + 1). */
  records: number;
  /** Largest batch maxTimestamp, -1 when none has one. */
  maxTimestampMs: bigint;
  /** Some batch has a producer id, so the producer state follows the append. */
  producerBatches: boolean;
}

/** Sums the batches of `batches`, asserting they are whole and at least one. */
export function summarizeAppendBatches(batches: Buffer): AppendBatchesSummary {
  let p = 0;
  let records = 0;
  let maxTimestampMs = -1n;
  let producerBatches = false;
  while (p < batches.length) {
    invariant(p + BATCH_HEADER_BYTES <= batches.length, 'append takes whole batches');
    const size = batchSizeAt(batches, p);
    invariant(size >= BATCH_HEADER_BYTES && p + size <= batches.length, 'append takes whole batches');
    const lastOffsetDelta = batches.readInt32BE(p + Offsets.lastOffsetDelta);
    invariant(lastOffsetDelta >= 0, 'lastOffsetDelta is not negative');
    records += lastOffsetDelta + 1;
    const ts = batches.readBigInt64BE(p + Offsets.maxTimestamp);
    if (ts > maxTimestampMs) maxTimestampMs = ts;
    // producerId >= 0 (its high word is not negative): the producer state follows it below.
    if (batches.readInt32BE(p + Offsets.producerId) >= 0) producerBatches = true;
    p += size;
  }
  invariant(records > 0, 'append takes at least one batch');
  return { records, maxTimestampMs, producerBatches };
}

/** Calls `apply` for every batch of `batches` (base offsets already assigned) that has a producer id. */
export function forEachProducerBatch(batches: Buffer, apply: (batch: AppliedBatch) => void): void {
  for (let p = 0; p < batches.length; p += batchSizeAt(batches, p)) {
    const b = producerBatchAt(batches, p);
    if (b !== null) apply(b);
  }
}
