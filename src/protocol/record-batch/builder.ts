/**
 * Builds complete v2 record batches (the producer's side; also control
 * batches for the transaction coordinator).
 *
 * Two passes over the records: measure every record (sizes, string byte
 * lengths, timestamps), allocate one Buffer, write. Uncompressed records are
 * written straight into the batch buffer after the 61-byte header; compressed
 * ones into one records buffer that is compressed as a whole and copied once.
 * Timestamps are kept as doubles when they are safe integers (every realistic
 * epoch-millisecond value), so the common path does no bigint work per record.
 */
import { invariant } from '../../util/assert.js';
import { DecodeError } from '../primitives/decode-error.js';
import {
  ATTR_CONTROL,
  ATTR_TIMESTAMP_LOG_APPEND,
  ATTR_TRANSACTIONAL,
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  Compression,
  Offsets,
  computeBatchCrc,
} from './header.js';
import { compress, compressSync, isKnownCodec, SyncCodecUnsupportedError } from './compression.js';
import {
  measureRecordBody,
  newLengthQueue,
  writeMeasuredRecord,
  type BytesInput,
  type LengthQueue,
  type RecordHeaderInput,
} from './record.js';
import { varintSize } from '../primitives/varint.js';
import { writeInt64BE } from '../primitives/int64.js';

export const MAGIC_V2 = 2;
/** Largest batch the builder writes: batchLength is an int32. */
export const BATCH_BYTES_MAX = 0x7fffffff;
const NUMERIC_TIMESTAMP_MAX = 2 ** 52;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export interface RecordInput {
  key?: BytesInput;
  value: BytesInput;
  /** Absent or undefined for none (the Producer builds `{ key, value }` or all four fields, never adding one later). */
  headers?: readonly RecordHeaderInput[] | undefined;
  /** Epoch milliseconds; defaults to the batch's `timestampMs`. */
  timestamp?: bigint | number | undefined;
}

export type TimestampType = 'create_time' | 'log_append_time';

export interface BuildBatchOptions {
  records: readonly RecordInput[];
  baseOffset?: bigint;
  compression?: number;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
  isControl?: boolean;
  partitionLeaderEpoch?: number;
  timestampType?: TimestampType;
  /** Timestamp for records without one; defaults to Date.now() once per batch. */
  timestampMs?: bigint | number;
  /** Supplies the batch's Buffer of exactly the given size (default: a fresh one), e.g. a BufferPool's `allocate`. */
  allocate?: (length: number) => Buffer;
}

interface Plan {
  opts: BuildBatchOptions;
  bodySizes: number[];
  queue: LengthQueue;
  recordsBytes: number;
  /** Safe-integer timestamps (fast path) or bigint timestamps (fallback). */
  numericTimestamps: number[] | null;
  bigintTimestamps: bigint[] | null;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
}

function checkInt(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} ${value} is not an integer in [${min}, ${max}]`);
  }
}

/** Resolves every record's timestamp, as doubles when all are safe integers. */
function resolveTimestamps(opts: BuildBatchOptions): Pick<
  Plan,
  'numericTimestamps' | 'bigintTimestamps' | 'baseTimestamp' | 'maxTimestamp'
> {
  const fallback = opts.timestampMs ?? Date.now();
  const records = opts.records;
  const numeric: number[] = [];
  for (let i = 0; i < records.length; i++) {
    const ts = (records[i] as RecordInput).timestamp ?? fallback;
    const n = typeof ts === 'number' ? ts : Number(ts);
    // |ts| <= 2^52 keeps every difference of two timestamps exact in a double.
    if (!Number.isSafeInteger(n) || Math.abs(n) > NUMERIC_TIMESTAMP_MAX || (typeof ts === 'bigint' && BigInt(n) !== ts)) {
      break;
    }
    numeric.push(n);
  }
  if (numeric.length === records.length) {
    let max = numeric[0] as number;
    for (const ts of numeric) if (ts > max) max = ts;
    return {
      numericTimestamps: numeric,
      bigintTimestamps: null,
      baseTimestamp: BigInt(numeric[0] as number),
      maxTimestamp: BigInt(max),
    };
  }
  const bigints = records.map((r) => {
    const ts = r.timestamp ?? fallback;
    if (typeof ts === 'number' && !Number.isInteger(ts)) throw new RangeError(`timestamp ${ts} is not an integer`);
    return BigInt(ts);
  });
  const base = bigints[0] as bigint;
  let max = base;
  for (const ts of bigints) {
    if (ts > max) max = ts;
    const delta = ts - base;
    if (delta < INT64_MIN || delta > INT64_MAX) throw new RangeError(`timestamp ${ts} is too far from ${base}`);
  }
  return { numericTimestamps: null, bigintTimestamps: bigints, baseTimestamp: base, maxTimestamp: max };
}

function timestampDeltaOf(plan: Plan, index: number): number | bigint {
  if (plan.numericTimestamps !== null) {
    return (plan.numericTimestamps[index] as number) - (plan.numericTimestamps[0] as number);
  }
  const ts = plan.bigintTimestamps as bigint[];
  return (ts[index] as bigint) - (ts[0] as bigint);
}

function planBatch(opts: BuildBatchOptions): Plan {
  const count = opts.records.length;
  if (count === 0) throw new RangeError('a record batch needs at least one record');
  checkInt(count, 1, 0x7fffffff, 'record count');
  const plan: Plan = {
    opts,
    bodySizes: [],
    queue: newLengthQueue(),
    recordsBytes: 0,
    ...resolveTimestamps(opts),
  };
  for (let i = 0; i < count; i++) {
    const r = opts.records[i] as RecordInput;
    const body = measureRecordBody(timestampDeltaOf(plan, i), i, r.key, r.value, r.headers, plan.queue);
    plan.bodySizes.push(body);
    plan.recordsBytes += varintSize(body) + body;
  }
  return plan;
}

function writeRecordsSection(plan: Plan, buf: Buffer, position: number): number {
  const records = plan.opts.records;
  plan.queue.index = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as RecordInput;
    position = writeMeasuredRecord(
      buf,
      position,
      plan.bodySizes[i] as number,
      0,
      timestampDeltaOf(plan, i),
      i,
      r.key,
      r.value,
      r.headers,
      plan.queue,
    );
  }
  return position;
}

function attributesOf(opts: BuildBatchOptions, codec: number): number {
  let attributes = codec;
  if (opts.timestampType === 'log_append_time') attributes |= ATTR_TIMESTAMP_LOG_APPEND;
  if (opts.transactional === true) attributes |= ATTR_TRANSACTIONAL;
  if (opts.isControl === true) attributes |= ATTR_CONTROL;
  return attributes;
}

/** Writes the 61-byte header (CRC last: it covers [21, end)). */
function writeHeader(plan: Plan, batch: Buffer, codec: number): void {
  const opts = plan.opts;
  const producerEpoch = opts.producerEpoch ?? -1;
  const baseSequence = opts.baseSequence ?? -1;
  const partitionLeaderEpoch = opts.partitionLeaderEpoch ?? -1;
  checkInt(producerEpoch, -0x8000, 0x7fff, 'producerEpoch');
  checkInt(baseSequence, -0x80000000, 0x7fffffff, 'baseSequence');
  checkInt(partitionLeaderEpoch, -0x80000000, 0x7fffffff, 'partitionLeaderEpoch');
  const count = opts.records.length;
  writeInt64BE(batch, opts.baseOffset ?? 0n, Offsets.baseOffset);
  batch.writeInt32BE(batch.length - BATCH_LOG_OVERHEAD, Offsets.batchLength);
  batch.writeInt32BE(partitionLeaderEpoch, Offsets.partitionLeaderEpoch);
  batch.writeInt8(MAGIC_V2, Offsets.magic);
  batch.writeInt16BE(attributesOf(opts, codec), Offsets.attributes);
  batch.writeInt32BE(count - 1, Offsets.lastOffsetDelta);
  writeInt64BE(batch, plan.baseTimestamp, Offsets.baseTimestamp);
  writeInt64BE(batch, plan.maxTimestamp, Offsets.maxTimestamp);
  writeInt64BE(batch, opts.producerId ?? -1n, Offsets.producerId);
  batch.writeInt16BE(producerEpoch, Offsets.producerEpoch);
  batch.writeInt32BE(baseSequence, Offsets.baseSequence);
  batch.writeInt32BE(count, Offsets.recordsCount);
  batch.writeUInt32BE(computeBatchCrc(batch, 0, batch.length), Offsets.crc);
}

function allocBatch(recordsBytes: number, allocate: ((length: number) => Buffer) | undefined): Buffer {
  const total = BATCH_HEADER_BYTES + recordsBytes;
  if (total > BATCH_BYTES_MAX) throw new RangeError(`batch of ${total} bytes exceeds ${BATCH_BYTES_MAX}`);
  return allocate === undefined ? Buffer.allocUnsafe(total) : allocate(total);
}

function codecOf(opts: BuildBatchOptions): number {
  const codec = opts.compression ?? Compression.None;
  if (!isKnownCodec(codec)) throw new RangeError(`unknown compression codec ${codec}`);
  return codec;
}

/** Encodes the records section uncompressed, for a codec to compress. */
function plainRecords(plan: Plan): Buffer {
  const records = Buffer.allocUnsafe(plan.recordsBytes);
  const end = writeRecordsSection(plan, records, 0);
  invariant(end === records.length, `records size ${end} == measured ${records.length}`);
  return records;
}

function assemble(plan: Plan, codec: number, section: Buffer | null): Buffer {
  const batch = allocBatch(section === null ? plan.recordsBytes : section.length, plan.opts.allocate);
  if (section === null) {
    const end = writeRecordsSection(plan, batch, BATCH_HEADER_BYTES);
    invariant(end === batch.length, `batch size ${end} == measured ${batch.length}`);
  } else {
    section.copy(batch, BATCH_HEADER_BYTES);
  }
  writeHeader(plan, batch, codec);
  return batch;
}

/** Builds a batch synchronously; zstd throws SyncCodecUnsupportedError. */
export function buildRecordBatchSync(opts: BuildBatchOptions): Buffer {
  const codec = codecOf(opts);
  if (codec === Compression.Zstd) throw new SyncCodecUnsupportedError(codec);
  const plan = planBatch(opts);
  if (codec === Compression.None) return assemble(plan, codec, null);
  return assemble(plan, codec, compressSync(codec, plainRecords(plan)));
}

export async function buildRecordBatch(opts: BuildBatchOptions): Promise<Buffer> {
  const codec = codecOf(opts);
  const plan = planBatch(opts);
  if (codec === Compression.None) return assemble(plan, codec, null);
  return assemble(plan, codec, await compress(codec, plainRecords(plan)));
}

// ------------------------------------------------------------ control batches

/** Control record types (the int16 in the control record key). */
export const ControlRecordType = { Abort: 0, Commit: 1 } as const;
export type ControlRecordType = (typeof ControlRecordType)[keyof typeof ControlRecordType];

export interface ControlBatchOptions {
  type: ControlRecordType;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
  timestampMs?: bigint | number;
}

/**
 * A transaction marker: one control record, key = int16 version 0 + int16
 * type, value = int16 version 0 + int32 coordinatorEpoch; attributes
 * control + transactional, uncompressed.
 */
export function buildControlBatch(opts: ControlBatchOptions): Buffer {
  checkInt(opts.coordinatorEpoch, -0x80000000, 0x7fffffff, 'coordinatorEpoch');
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(opts.type, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(opts.coordinatorEpoch, 2);
  const batch: BuildBatchOptions = {
    records: [{ key, value }],
    producerId: opts.producerId,
    producerEpoch: opts.producerEpoch,
    baseSequence: -1,
    transactional: true,
    isControl: true,
  };
  if (opts.baseOffset !== undefined) batch.baseOffset = opts.baseOffset;
  if (opts.partitionLeaderEpoch !== undefined) batch.partitionLeaderEpoch = opts.partitionLeaderEpoch;
  if (opts.timestampMs !== undefined) batch.timestampMs = opts.timestampMs;
  return buildRecordBatchSync(batch);
}

export interface ControlRecord {
  version: number;
  type: number;
  /** Present for ABORT/COMMIT markers. */
  coordinatorEpoch: number | undefined;
}

/** Parses a control record's key (and, for transaction markers, its value). */
export function parseControlRecord(key: Buffer | null, value: Buffer | null): ControlRecord {
  if (key === null || key.length < 4) throw new DecodeError('control record key is shorter than 4 bytes');
  const version = key.readInt16BE(0);
  const type = key.readInt16BE(2);
  if (type !== ControlRecordType.Abort && type !== ControlRecordType.Commit) {
    return { version, type, coordinatorEpoch: undefined };
  }
  if (value === null || value.length < 6) throw new DecodeError('transaction marker value is shorter than 6 bytes');
  return { version, type, coordinatorEpoch: value.readInt32BE(2) };
}
