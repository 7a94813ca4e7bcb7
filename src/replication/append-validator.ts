/**
 * What a client batch must pass before it reaches a partition log (Kafka's
 * LogValidator), in three steps the ReplicaManager runs in order:
 *
 * 1. `checkClientBatch`, synchronous, header only: one whole v2 batch, CRC-32C,
 *    counts, sizes against max.message.bytes and segment.bytes, a producer
 *    id on transactional batches (their transaction checks are in
 *    txn-verification.ts and the producer state).
 * 2. `prepareBatch`, asynchronous and only for some topics: a compacted topic
 *    needs a key on every record (the batch is decompressed to look), a topic
 *    whose compression.type names a codec gets batches in another codec
 *    rebuilt in its own (recompress.ts; the size limits apply to the result).
 * 3. `stampBatch`, synchronous, just before the append: LogAppendTime topics
 *    get maxTimestamp stamped (CRC recomputed), CreateTime batches must be
 *    inside the topic's timestamp window; the leader epoch goes into the
 *    header (outside the CRC).
 *
 * The batch stays opaque except in step 2 (principle 2 in
 * docs/architecture.md). Failures carry the Kafka error code the Produce
 * response answers and a message for the debug log.
 */
import { ErrorCode } from '../protocol/errors.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import {
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  Offsets,
  batchCrcIsValid,
  isTransactionalBatch,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  type BatchHeader,
  type Compression,
} from '../protocol/record-batch/header.js';
import { MAX_SAFE_BIGINT, readInt64BE } from '../protocol/primitives/int64.js';
import { isBatchHeader, validateSingleProducedBatch, type BatchValidationError } from '../protocol/record-batch/validate.js';
import { batchHasNullKey } from '../storage/cleaner/keys.js';
import { needsRecompression, recompressBatch, topicCodec } from './recompress.js';
import type { TopicRules } from './topic-rules.js';

export interface AppendFailure {
  readonly ok: false;
  readonly errorCode: number;
  readonly message: string;
}

export interface CheckedBatch {
  readonly ok: true;
  readonly batch: Buffer;
  readonly header: BatchHeader;
  /** The codec the topic stores when it differs from the batch's (step 2 rebuilds it), else null. */
  readonly recompressTo: Compression | null;
}

const VALIDATION_CODES: Record<BatchValidationError, number> = {
  corrupt_message: ErrorCode.CORRUPT_MESSAGE,
  invalid_record: ErrorCode.INVALID_RECORD,
  unsupported_magic: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
  unsupported_compression_type: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
};

export function appendFailure(errorCode: number, message: string): AppendFailure {
  return { ok: false, errorCode, message };
}

/**
 * Step 1: the header checks every client batch passes, synchronously.
 * `produceVersion`: v7+ may carry zstd (KIP-110); v3+ may only carry magic 2
 * (INVALID_RECORD), older versions get UNSUPPORTED_FOR_MESSAGE_FORMAT.
 */
export function checkClientBatch(records: unknown, rules: TopicRules, produceVersion: number): CheckedBatch | AppendFailure {
  if (!Buffer.isBuffer(records) || records.length === 0) return appendFailure(ErrorCode.CORRUPT_MESSAGE, 'no record batch');
  const header = validateSingleProducedBatch(records, produceVersion >= 7);
  if (!isBatchHeader(header)) {
    const code = header.error === 'unsupported_magic' && produceVersion >= 3 ? ErrorCode.INVALID_RECORD : VALIDATION_CODES[header.error];
    return appendFailure(code, header.message);
  }
  // A transactional batch needs a producer id (Kafka's LogValidator: INVALID_RECORD otherwise).
  if (header.producerId < 0n && isTransactionalBatch(header.attributes)) {
    return appendFailure(ErrorCode.INVALID_RECORD, 'a transactional batch needs a producer id');
  }
  const sizeFailure = checkBatchSize(BATCH_LOG_OVERHEAD + header.batchLength, rules);
  if (sizeFailure !== null) return sizeFailure;
  const codec = topicCodec(rules.compressionType);
  return { ok: true, batch: records, header, recompressTo: needsRecompression(header.attributes, codec) ? codec : null };
}

function checkBatchSize(batchBytes: number, rules: TopicRules): AppendFailure | null {
  if (batchBytes > rules.maxMessageBytes) return appendFailure(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${batchBytes} bytes exceeds max.message.bytes ${rules.maxMessageBytes}`);
  if (batchBytes > rules.segmentBytes) return appendFailure(ErrorCode.RECORD_LIST_TOO_LARGE, `batch of ${batchBytes} bytes exceeds segment.bytes ${rules.segmentBytes}`);
  return null;
}

/** Whether step 2 has work for this batch (it then runs on the partition's append queue). */
export function needsPreparation(checked: CheckedBatch, rules: TopicRules): boolean {
  return rules.compacted || checked.recompressTo !== null;
}

/** Step 2: recompression and the compacted-topic key rule; both read the records. */
export async function prepareBatch(checked: CheckedBatch, rules: TopicRules): Promise<CheckedBatch | AppendFailure> {
  try {
    if (checked.recompressTo !== null) {
      const rebuilt = await recompressBatch(checked.batch, checked.recompressTo);
      const sizeFailure = checkBatchSize(rebuilt.batch.length, rules);
      if (sizeFailure !== null) return sizeFailure;
      if (rules.compacted && rebuilt.records.some((r) => r.key === null)) return appendFailure(ErrorCode.INVALID_RECORD, 'compacted topics need a key on every record');
      return { ok: true, batch: rebuilt.batch, header: rebuilt.header, recompressTo: null };
    }
    if (rules.compacted && (await batchHasNullKey(checked.batch))) return appendFailure(ErrorCode.INVALID_RECORD, 'compacted topics need a key on every record');
    return checked;
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    return appendFailure(ErrorCode.CORRUPT_MESSAGE, err.message);
  }
}

/** stampBatch's answer for a CreateTime topic (a constant: no BigInt made per append). */
const NOT_LOG_APPEND_TIME = -1n;

/**
 * Step 3: timestamps and the leader epoch, written into the batch in place.
 * Returns the LogAppendTime stamped (-1 for CreateTime topics) or a failure.
 */
export function stampBatch(batch: Buffer, header: BatchHeader, rules: TopicRules, nowMs: number, leaderEpoch: number): bigint | AppendFailure {
  let logAppendTimeMs = NOT_LOG_APPEND_TIME;
  if (rules.messageTimestampType === 'LogAppendTime') {
    logAppendTimeMs = BigInt(nowMs);
    setLogAppendTime(batch, logAppendTimeMs);
  } else {
    // CreateTime: the batch's first and largest timestamps must be within the
    // topic's window (message.timestamp.before.max.ms / after.max.ms, KIP-937).
    // The header holds maxTimestamp as the bytes do (prepareBatch re-reads a rebuilt batch's).
    const outside = outsideTimestampWindow(header.baseTimestamp, nowMs, rules) ? header.baseTimestamp
      : outsideTimestampWindow(header.maxTimestamp, nowMs, rules) ? header.maxTimestamp : null;
    if (outside !== null) return appendFailure(ErrorCode.INVALID_TIMESTAMP, `timestamp ${outside} is outside the topic's allowed window around ${nowMs}`);
  }
  setPartitionLeaderEpoch(batch, leaderEpoch);
  return logAppendTimeMs;
}

/** Whether `ts` (negative: none, never outside) is outside the topic's window around `nowMs`. */
function outsideTimestampWindow(ts: bigint, nowMs: number, rules: TopicRules): boolean {
  if (ts < 0n) return false;
  if (ts <= MAX_SAFE_BIGINT) {
    // Both in [0, 2^53]: their difference is an exact double, and comparing it with
    // the limits is exact too, so numbers give the BigInt answer without BigInt arithmetic.
    const t = Number(ts);
    return nowMs - t > rules.timestampBeforeMaxMs || t - nowMs > rules.timestampAfterMaxMs;
  }
  const now = BigInt(nowMs);
  return now - ts > BigInt(rules.timestampBeforeMaxMs) || ts - now > BigInt(rules.timestampAfterMaxMs);
}

export interface ReplicatedBatches {
  readonly ok: true;
  /** The first batch's base offset (where the leader put it). */
  readonly baseOffset: bigint;
  /** Offsets the batches span (sum of lastOffsetDelta + 1; compaction may have removed records inside). */
  readonly offsetCount: number;
  /** Bytes of whole batches: a fetch cut by its byte limit may end inside a batch, which the next fetch gets whole. */
  readonly wholeBytes: number;
}

/**
 * A follower's check of what it fetched from the leader: whole magic-2
 * batches whose CRC-32C holds, nothing else. A fetch answer cut by its byte
 * limit may end inside a batch; that partial batch is left for the next
 * fetch (Kafka's followers skip it the same way), but the first batch must
 * be whole (a leader always sends one whole batch). The client rules do not apply:
 * the leader already validated them, control batches (transaction markers)
 * are legitimate, and compacted batches have fewer records than their offset
 * span.
 */
export function checkReplicatedBatches(buf: Buffer): ReplicatedBatches | AppendFailure {
  let position = 0;
  let offsetCount = 0;
  while (position < buf.length) {
    const left = buf.length - position;
    if (left < BATCH_HEADER_BYTES) {
      if (position > 0) break; // a partial trailing batch
      return appendFailure(ErrorCode.CORRUPT_MESSAGE, `${left} bytes are not a record batch`);
    }
    const size = BATCH_LOG_OVERHEAD + buf.readInt32BE(position + Offsets.batchLength);
    if (size < BATCH_HEADER_BYTES) return appendFailure(ErrorCode.CORRUPT_MESSAGE, `a batch of ${size} bytes at ${position} is too small`);
    if (size > left) {
      if (position > 0) break; // a partial trailing batch
      return appendFailure(ErrorCode.CORRUPT_MESSAGE, `the first batch, of ${size} bytes, does not fit the ${left} fetched`);
    }
    if (buf.readInt8(position + Offsets.magic) !== 2) return appendFailure(ErrorCode.CORRUPT_MESSAGE, `batch at ${position} is not magic 2`);
    if (!batchCrcIsValid(buf, position, size)) return appendFailure(ErrorCode.CORRUPT_MESSAGE, `batch at ${position} fails its CRC-32C`);
    const lastOffsetDelta = buf.readInt32BE(position + Offsets.lastOffsetDelta);
    if (lastOffsetDelta < 0) return appendFailure(ErrorCode.CORRUPT_MESSAGE, `batch at ${position} has lastOffsetDelta ${lastOffsetDelta}`);
    offsetCount += lastOffsetDelta + 1;
    position += size;
  }
  if (offsetCount === 0) return appendFailure(ErrorCode.CORRUPT_MESSAGE, 'no record batch');
  return { ok: true, baseOffset: readInt64BE(buf, Offsets.baseOffset), offsetCount, wholeBytes: position };
}
