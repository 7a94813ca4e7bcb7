/**
 * Cleaning one record batch: which records survive, and the bytes of the
 * batch that holds them. Compaction is one of the few places that
 * rebuild batches (docs/architecture.md).
 *
 * A record is removed when
 *   - a later record with the same key was mapped (offset < map[key]);
 *   - it has no key (Kafka's cleaner drops those too; the produce path
 *     rejects them on compacted topics);
 *   - it is a tombstone (null value) and its batch's delete horizon has
 *     passed (KIP-534: attribute bit 6, horizon in baseTimestamp).
 * Records at or after `endOffset` (beyond what the offset map saw) are kept
 * untouched. The data batches of aborted transactions go whole, as in
 * Kafka's cleaner. A transaction marker (control batch) is kept while any
 * batch of its transaction is left before it; after that it gets a delete
 * horizon (KIP-534, as tombstones do) and goes once the horizon has passed
 * (cleaned-transactions.ts decides; markers at or after `endOffset` are
 * left as they are).
 *
 * A rebuilt batch keeps: baseOffset, lastOffsetDelta (so offsets never move
 * and the batch still ends where it did), partitionLeaderEpoch, codec,
 * timestamp type, transactional bit, producerId, producerEpoch and
 * baseSequence (each record's sequence is baseSequence + offsetDelta, and
 * offsetDeltas are kept), and every surviving record's offsetDelta, key,
 * value and headers. recordsCount becomes the survivors; maxTimestamp is
 * recomputed for CreateTime (kept for LogAppendTime); the CRC is recomputed.
 * baseTimestamp stays as it was (so surviving records are copied byte for
 * byte) unless the delete horizon is set or cleared: then it becomes the
 * horizon (or the first survivor's timestamp) and the timestamp deltas are
 * re-encoded.
 */
import { invariant } from '../../util/assert.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { decompress, compress, DECOMPRESSED_BYTES_MAX } from '../../protocol/record-batch/compression.js';
import {
  ATTR_COMPRESSION_MASK,
  ATTR_DELETE_HORIZON,
  ATTR_TIMESTAMP_LOG_APPEND,
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  Compression,
  Offsets,
  compressionOf,
  computeBatchCrc,
  isControlBatch,
  type BatchHeader,
} from '../../protocol/record-batch/header.js';
import { checkBatch } from '../../protocol/record-batch/reader.js';
import { readRecord, recordSize, writeRecord, type KafkaRecord, type RecordCursor } from '../../protocol/record-batch/record.js';
import type { OffsetMap } from './offset-map.js';
import type { CleanedTransactions } from './cleaned-transactions.js';

export interface FilterContext {
  map: OffsetMap;
  /** The map covers offsets below this; later records are kept as they are. */
  endOffset: bigint;
  nowMs: number;
  deleteRetentionMs: number;
  decompressedBytesMax?: number;
  /**
   * The transaction state of the pass, fed every batch in offset order:
   * aborted transactions' data goes whole, markers with no data left go
   * after their delete horizon. Absent: every batch counts as non-transactional
   * and control batches are kept verbatim.
   */
  txns?: CleanedTransactions;
}

export interface FilterOutcome {
  /** The batch to write (the input itself when unchanged), or null when it goes. */
  batch: Buffer | null;
  changed: boolean;
  recordsKept: number;
  recordsRemoved: number;
  /**
   * Delete horizon of the tombstones (or marker) kept in this batch, or null;
   * also null when that horizon had passed before this cleaning: such a
   * record is kept only because this job could not remove it (at or after
   * its end offset), and reporting it would make the log due again at once,
   * spinning while the LSO or high watermark holds the bound.
   */
  horizonMs: number | null;
  /** Size of the (decompressed) records section: the work this batch cost. */
  plainBytes: number;
}

interface ParsedRecord {
  record: KafkaRecord;
  /** Byte range of the encoded record in the records section. */
  start: number;
  end: number;
  timestampMs: bigint;
}

export function hasDeleteHorizon(header: Pick<BatchHeader, 'attributes'>): boolean {
  return (header.attributes & ATTR_DELETE_HORIZON) !== 0;
}

/** Decompressed records section and each record with its byte range. */
async function parseRecords(batch: Buffer, header: BatchHeader, maxBytes: number): Promise<{ section: Buffer; records: ParsedRecord[] }> {
  const codec = compressionOf(header.attributes);
  const raw = batch.subarray(BATCH_HEADER_BYTES);
  const section = codec === Compression.None ? raw : await decompress(codec, raw, maxBytes);
  const records: ParsedRecord[] = [];
  const cursor: RecordCursor = { position: 0 };
  for (let i = 0; i < header.recordsCount; i++) {
    const start = cursor.position;
    const record = readRecord(section, cursor, section.length);
    records.push({ record, start, end: cursor.position, timestampMs: header.baseTimestamp + record.timestampDelta });
  }
  if (cursor.position !== section.length) throw new DecodeError(`${section.length - cursor.position} bytes left after ${header.recordsCount} records`);
  return { section, records };
}

/**
 * Cleans one whole batch (exactly `batch`, read from a segment). `isLast`:
 * it ends its segment, so it is never dropped (an empty batch replaces it) and
 * the segment keeps its end offset. Throws DecodeError on corrupt bytes.
 */
export async function filterBatch(batch: Buffer, isLast: boolean, ctx: FilterContext): Promise<FilterOutcome> {
  const header = checkBatch(batch);
  let plainBytes = batch.length - BATCH_HEADER_BYTES;
  const unchanged = (kept: number, horizonMs: number | null): FilterOutcome =>
    ({ batch, changed: false, recordsKept: kept, recordsRemoved: 0, horizonMs, plainBytes });
  if (isControlBatch(header.attributes)) return filterMarker(batch, header, isLast, ctx);
  if (ctx.txns?.onDataBatch(batch, 0) === true) {
    const gone = { changed: true, recordsKept: 0, recordsRemoved: header.recordsCount, horizonMs: null, plainBytes };
    return { batch: isLast ? emptyBatchLike(batch, header) : null, ...gone };
  }
  if (header.recordsCount === 0) {
    return isLast ? unchanged(0, null) : { batch: null, changed: true, recordsKept: 0, recordsRemoved: 0, horizonMs: null, plainBytes };
  }
  const { section, records } = await parseRecords(batch, header, ctx.decompressedBytesMax ?? DECOMPRESSED_BYTES_MAX);
  plainBytes = section.length;
  const base = Number(header.baseOffset);
  const end = Number(ctx.endOffset);
  const hadHorizon = hasDeleteHorizon(header);
  const now = BigInt(ctx.nowMs);
  const kept: ParsedRecord[] = [];
  let tombstonesKept = 0;
  for (const p of records) {
    const offset = base + p.record.offsetDelta;
    if (offset >= end) {
      kept.push(p);
      if (p.record.value === null) tombstonesKept++;
      continue;
    }
    const key = p.record.key;
    if (key === null) continue;
    const latest = ctx.map.get(key);
    if (latest !== undefined && latest > offset) continue;
    if (p.record.value === null) {
      if (hadHorizon && header.baseTimestamp <= now) continue;
      tombstonesKept++;
    }
    kept.push(p);
  }
  const removed = records.length - kept.length;
  const needsHorizon = tombstonesKept > 0 && !hadHorizon;
  const horizonMs = tombstonesKept === 0 ? null : hadHorizon ? Number(header.baseTimestamp) : ctx.nowMs + ctx.deleteRetentionMs;
  const reportedHorizonMs = hadHorizon && header.baseTimestamp <= now ? null : horizonMs;
  if (removed === 0 && !needsHorizon) return unchanged(kept.length, reportedHorizonMs);
  if (kept.length === 0) {
    return { batch: isLast ? emptyBatchLike(batch, header) : null, changed: true, recordsKept: 0, recordsRemoved: removed, horizonMs: null, plainBytes };
  }
  const rebuilt = await rebuildBatch(batch, header, section, kept, horizonMs);
  return { batch: rebuilt, changed: true, recordsKept: kept.length, recordsRemoved: removed, horizonMs: reportedHorizonMs, plainBytes };
}

/**
 * A control batch: kept verbatim while its transaction has data left (or it
 * is at or after `endOffset`); otherwise stamped with a delete horizon
 * (now + delete.retention.ms) the first time, and removed (an empty batch if
 * it ends its segment) once that horizon has passed, except in the pass that
 * drops its `.txnindex` entry (cleaned-transactions.ts says why).
 */
async function filterMarker(batch: Buffer, header: BatchHeader, isLast: boolean, ctx: FilterContext): Promise<FilterOutcome> {
  const plainBytes = batch.length - BATCH_HEADER_BYTES;
  const kept = (horizonMs: number | null): FilterOutcome =>
    ({ batch, changed: false, recordsKept: header.recordsCount, recordsRemoved: 0, horizonMs, plainBytes });
  const verdict = ctx.txns?.onControlBatch(batch, 0);
  const lastOffset = header.baseOffset + BigInt(header.lastOffsetDelta);
  if (verdict === undefined || !verdict.noDataLeft || lastOffset >= ctx.endOffset) return kept(null);
  if (header.recordsCount === 0) {
    return isLast ? kept(null) : { batch: null, changed: true, recordsKept: 0, recordsRemoved: 0, horizonMs: null, plainBytes };
  }
  if (!hasDeleteHorizon(header)) {
    const horizonMs = ctx.nowMs + ctx.deleteRetentionMs;
    const { section, records } = await parseRecords(batch, header, ctx.decompressedBytesMax ?? DECOMPRESSED_BYTES_MAX);
    const rebuilt = await rebuildBatch(batch, header, section, records, horizonMs);
    return { batch: rebuilt, changed: true, recordsKept: records.length, recordsRemoved: 0, horizonMs, plainBytes };
  }
  const horizonMs = Number(header.baseTimestamp);
  if (horizonMs > ctx.nowMs) return kept(horizonMs);
  if (verdict.indexEntryDropped) return kept(null); // goes at the log's next cleaning
  const removed = { changed: true, recordsKept: 0, recordsRemoved: header.recordsCount, horizonMs: null, plainBytes };
  return { batch: isLast ? emptyBatchLike(batch, header) : null, ...removed };
}

/** The header fields a cleaned batch keeps, written into `out` (CRC left for last). */
function copyHeader(src: Buffer, out: Buffer): void {
  src.copy(out, 0, 0, BATCH_HEADER_BYTES);
  out.writeInt32BE(out.length - BATCH_LOG_OVERHEAD, Offsets.batchLength);
}

async function rebuildBatch(
  src: Buffer,
  header: BatchHeader,
  section: Buffer,
  kept: readonly ParsedRecord[],
  horizonMs: number | null,
): Promise<Buffer> {
  const hadHorizon = hasDeleteHorizon(header);
  const setsHorizon = horizonMs !== null;
  const first = kept[0] as ParsedRecord;
  // The horizon lives in baseTimestamp; otherwise keep the base when we can.
  const baseTimestamp = setsHorizon ? BigInt(horizonMs) : hadHorizon ? first.timestampMs : header.baseTimestamp;
  const reencode = baseTimestamp !== header.baseTimestamp;
  let plainBytes = 0;
  for (const p of kept) {
    if (reencode) p.record.timestampDelta = p.timestampMs - baseTimestamp;
    plainBytes += reencode ? recordSize(p.record) : p.end - p.start;
  }
  let plain: Buffer = Buffer.allocUnsafe(plainBytes);
  let pos = 0;
  for (const p of kept) pos = reencode ? writeRecord(plain, pos, p.record) : pos + section.copy(plain, pos, p.start, p.end);
  invariant(pos === plainBytes, 'cleaned records fill the section');
  const codec = compressionOf(header.attributes);
  if (codec !== Compression.None) plain = await compress(codec, plain);
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES + plain.length);
  copyHeader(src, out);
  plain.copy(out, BATCH_HEADER_BYTES);
  const attributes = (header.attributes & ~ATTR_DELETE_HORIZON) | (setsHorizon ? ATTR_DELETE_HORIZON : 0);
  out.writeInt16BE(attributes, Offsets.attributes);
  out.writeBigInt64BE(baseTimestamp, Offsets.baseTimestamp);
  if ((header.attributes & ATTR_TIMESTAMP_LOG_APPEND) === 0) {
    let max = first.timestampMs;
    for (const p of kept) if (p.timestampMs > max) max = p.timestampMs;
    out.writeBigInt64BE(max, Offsets.maxTimestamp);
  }
  out.writeInt32BE(kept.length, Offsets.recordsCount);
  out.writeUInt32BE(computeBatchCrc(out), Offsets.crc);
  return out;
}

/**
 * A batch with no records that keeps the offsets of `src` (Kafka's
 * writeEmptyHeader): uncompressed (nothing to decompress), no horizon,
 * base and max timestamp = the original max timestamp.
 */
export function emptyBatchLike(src: Buffer, header: BatchHeader): Buffer {
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES);
  copyHeader(src, out);
  out.writeInt16BE(header.attributes & ~(ATTR_COMPRESSION_MASK | ATTR_DELETE_HORIZON), Offsets.attributes);
  out.writeBigInt64BE(header.maxTimestamp, Offsets.baseTimestamp);
  out.writeInt32BE(0, Offsets.recordsCount);
  out.writeUInt32BE(computeBatchCrc(out), Offsets.crc);
  return out;
}
