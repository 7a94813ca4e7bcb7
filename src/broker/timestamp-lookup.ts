/**
 * Record-exact answers for ListOffsets by timestamp. Storage indexes whole
 * batches (records are opaque there), so it finds the batch; this decodes
 * that one batch to find the exact record, as Kafka does. Off the hot path:
 * one batch per lookup.
 */
import type { Partition } from '../replication/partition.js';
import { decodeRecordBatch, splitBatches, recordOffset, recordTimestamp } from '../protocol/record-batch/reader.js';

export interface TimestampAndOffset {
  offset: bigint;
  timestampMs: bigint;
}

async function batchAt(p: Partition, offset: bigint) {
  const r = p.log.read(offset, 1, { maxOffsetExclusive: p.highWatermark, minOneBatch: true });
  if (r.kind !== 'records' || r.chunks.length === 0) return null;
  const first = splitBatches(r.chunks.length === 1 ? (r.chunks[0] as Buffer) : Buffer.concat(r.chunks))[0];
  return first ? decodeRecordBatch(first) : null;
}

/** The first record at or after `timestampMs` (below the high watermark), or null. */
export async function offsetForTimestamp(p: Partition, timestampMs: bigint): Promise<TimestampAndOffset | null> {
  let candidate = p.log.offsetForTimestamp(timestampMs);
  // The batch found may hold only earlier records (its max is >= target but
  // a later batch is where the exact record is); walk forward a bounded number of batches.
  for (let hops = 0; candidate && candidate.offset < p.highWatermark && hops < 16; hops++) {
    const batch = await batchAt(p, candidate.offset);
    if (!batch) return null;
    for (const rec of batch.records) {
      const offset = recordOffset(batch.header, rec);
      const ts = recordTimestamp(batch.header, rec);
      if (offset >= candidate.offset && ts >= timestampMs) return { offset, timestampMs: ts };
    }
    const next = batch.header.baseOffset + BigInt(batch.header.lastOffsetDelta) + 1n;
    candidate = next < p.highWatermark ? { offset: next, timestampMs: -1n } : null;
  }
  return null;
}

/** The record with the largest timestamp (the first such), or null for an empty log. */
export async function maxTimestampOffset(p: Partition): Promise<TimestampAndOffset | null> {
  const found = p.log.maxTimestamp();
  if (!found || found.offset >= p.highWatermark) return null;
  const batch = await batchAt(p, found.offset);
  if (!batch) return null;
  let best: TimestampAndOffset | null = null;
  for (const rec of batch.records) {
    const ts = recordTimestamp(batch.header, rec);
    if (best === null || ts > best.timestampMs) best = { offset: recordOffset(batch.header, rec), timestampMs: ts };
  }
  return best;
}
