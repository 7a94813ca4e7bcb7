/**
 * Walking the buffer of consecutive batches handed to PartitionLog.append:
 * checking it holds whole batches and summing what the append needs before
 * writing (offsets taken, largest timestamp, whether the producer state must
 * follow), then handing each batch with a producer id to the producer state.
 * Separate from partition-log.ts so `append` reads as its steps. The batches
 * were validated by the caller; a malformed buffer is misuse (an invariant).
 */
import { BATCH_HEADER_BYTES, Offsets, batchSizeAt } from '../protocol/record-batch/header.js';
import { readInt64BE } from '../protocol/primitives/int64.js';
import { invariant } from '../util/assert.js';
import { producerBatchAt, type LogProducerState } from './producer-state/log-producer-state.js';
import type { TransactionIndex } from './txn-index.js';

/**
 * What PartitionLog.append needs to know about its batches before writing.
 * One per log, refilled by every append (summarizeAppendBatches): appends are
 * synchronous, so no result object is made per append.
 */
export class AppendBatchesSummary {
  /** Offsets the batches take (sum of lastOffsetDelta + 1). */
  records = 0;
  /** Largest batch maxTimestamp, -1 when none has one. */
  maxTimestampMs = NO_TIMESTAMP;
  /** Some batch has a producer id, so the producer state follows the append. */
  producerBatches = false;
}

const NO_TIMESTAMP = -1n;

/** Sums the batches of `batches` into `into`, asserting they are whole and at least one. */
export function summarizeAppendBatches(batches: Buffer, into: AppendBatchesSummary): AppendBatchesSummary {
  let p = 0;
  let records = 0;
  let maxTimestampMs = NO_TIMESTAMP;
  let producerBatches = false;
  while (p < batches.length) {
    invariant(p + BATCH_HEADER_BYTES <= batches.length, 'append takes whole batches');
    const size = batchSizeAt(batches, p);
    invariant(size >= BATCH_HEADER_BYTES && p + size <= batches.length, 'append takes whole batches');
    const lastOffsetDelta = batches.readInt32BE(p + Offsets.lastOffsetDelta);
    invariant(lastOffsetDelta >= 0, 'lastOffsetDelta is not negative');
    records += lastOffsetDelta + 1;
    const ts = readInt64BE(batches, p + Offsets.maxTimestamp);
    if (ts > maxTimestampMs) maxTimestampMs = ts;
    // producerId >= 0 (its high word is not negative): the producer state follows it below.
    if (batches.readInt32BE(p + Offsets.producerId) >= 0) producerBatches = true;
    p += size;
  }
  invariant(records > 0, 'append takes at least one batch');
  into.records = records;
  into.maxTimestampMs = maxTimestampMs;
  into.producerBatches = producerBatches;
  return into;
}

/**
 * Hands every batch of `batches` (base offsets already assigned) that has a
 * producer id to the producer state: a plain loop, no callback closure per append.
 */
export function applyProducerBatches(batches: Buffer, producers: LogProducerState, appendMs: number, txnIndex: TransactionIndex): void {
  for (let p = 0; p < batches.length; p += batchSizeAt(batches, p)) {
    const b = producerBatchAt(batches, p);
    if (b !== null) producers.apply(b, appendMs, txnIndex);
  }
}
