/**
 * One record inside a v2 (magic 2) record batch, encoded with zig-zag varints
 * exactly as Kafka's DefaultRecord:
 *
 *   length          varint   bytes that follow (attributes .. headers)
 *   attributes      int8     unused, 0
 *   timestampDelta  varlong  timestamp - batch baseTimestamp
 *   offsetDelta     varint   offset - batch baseOffset
 *   keyLength       varint   -1 for a null key
 *   key             bytes
 *   valueLength     varint   -1 for a null value
 *   value           bytes
 *   headerCount     varint
 *   headers         [keyLength varint, key utf8, valueLength varint (-1 null), value bytes]
 *
 * Encoding is two-pass (measure, then write into one preallocated Buffer).
 * Byte lengths of string fields are measured once and queued in a
 * `LengthQueue` so the write pass does not re-scan the strings.
 *
 * Decoding validates every length against the bytes left in the record
 * before using it and throws DecodeError; it never reads outside the buffer
 * and never sizes an allocation from an unchecked count. Keys, values and
 * header values are zero-copy `subarray` views of the input buffer.
 */
import { invariant } from '../../util/assert.js';
import { DecodeError } from '../primitives/decode-error.js';
import {
  readVarint,
  readVarlong,
  varintSize,
  varlongSize,
  writeVarint,
  writeVarlong,
  type VarintCursor,
  type VarlongCursor,
} from '../primitives/varint.js';

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

/**
 * A decoded record. Named KafkaRecord rather than Record so that importing
 * it does not shadow TypeScript's built-in `Record<K, V>`.
 */
export interface KafkaRecord {
  attributes: number;
  /** Relative to the batch's baseTimestamp; may be negative. */
  timestampDelta: bigint;
  /** Relative to the batch's baseOffset. */
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** Byte fields as callers may supply them when encoding. */
export type BytesInput = Buffer | string | null | undefined;

export interface RecordHeaderInput {
  key: string;
  value: BytesInput;
}

/** Smallest encoded record: seven one-byte fields (length .. header count). */
export const RECORD_BYTES_MIN = 7;
/** Smallest record body (after the length varint). */
const RECORD_BODY_BYTES_MIN = 6;
/** Smallest encoded header: empty key (1 byte) + null value (1 byte). */
const HEADER_BYTES_MIN = 2;

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

/** Byte lengths of string fields, measured in pass 1 and consumed in pass 2. */
export interface LengthQueue {
  lengths: number[];
  index: number;
}

export function newLengthQueue(): LengthQueue {
  return { lengths: [], index: 0 };
}

// ---------------------------------------------------------------- encoding

/** Size of a zig-zag varlong; int32-range numbers take the cheap path. */
export function timestampDeltaSize(delta: number | bigint): number {
  if (typeof delta === 'number' && delta >= INT32_MIN && delta <= INT32_MAX) return varintSize(delta);
  if (typeof delta === 'bigint' && delta >= -0x80000000n && delta <= 0x7fffffffn) return varintSize(Number(delta));
  return varlongSize(BigInt(delta));
}

/** Zig-zag of an int32-range value is the same for varint and varlong. */
export function writeTimestampDelta(buf: Buffer, position: number, delta: number | bigint): number {
  if (typeof delta === 'number' && delta >= INT32_MIN && delta <= INT32_MAX) return writeVarint(buf, position, delta);
  if (typeof delta === 'bigint' && delta >= -0x80000000n && delta <= 0x7fffffffn) {
    return writeVarint(buf, position, Number(delta));
  }
  return writeVarlong(buf, position, BigInt(delta));
}

function bytesFieldSize(value: BytesInput, queue: LengthQueue): number {
  if (value === null || value === undefined) return 1;
  let length: number;
  if (typeof value === 'string') {
    length = Buffer.byteLength(value, 'utf8');
    queue.lengths.push(length);
  } else {
    length = value.length;
  }
  return varintSize(length) + length;
}

function writeBytesField(buf: Buffer, position: number, value: BytesInput, queue: LengthQueue): number {
  if (value === null || value === undefined) {
    buf[position] = 1; // zig-zag(-1)
    return position + 1;
  }
  if (typeof value === 'string') {
    const length = queue.lengths[queue.index++] as number;
    position = writeVarint(buf, position, length);
    buf.write(value, position, length, 'utf8');
    return position + length;
  }
  position = writeVarint(buf, position, value.length);
  value.copy(buf, position);
  return position + value.length;
}

/**
 * Pass 1: the body size of a record (everything after its length varint).
 * Pushes the byte length of each string field onto `queue`, in write order.
 */
export function measureRecordBody(
  timestampDelta: number | bigint,
  offsetDelta: number,
  key: BytesInput,
  value: BytesInput,
  headers: readonly RecordHeaderInput[] | undefined,
  queue: LengthQueue,
): number {
  let size =
    1 + // attributes
    timestampDeltaSize(timestampDelta) +
    varintSize(offsetDelta) +
    bytesFieldSize(key, queue) +
    bytesFieldSize(value, queue);
  const headerCount = headers === undefined ? 0 : headers.length;
  size += varintSize(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const header = (headers as readonly RecordHeaderInput[])[i] as RecordHeaderInput;
    size += bytesFieldSize(header.key, queue) + bytesFieldSize(header.value, queue);
  }
  return size;
}

/**
 * Pass 2: writes a record measured by measureRecordBody (same arguments, in
 * the same order) at `position`; returns the position after it.
 */
export function writeMeasuredRecord(
  buf: Buffer,
  position: number,
  bodyBytes: number,
  attributes: number,
  timestampDelta: number | bigint,
  offsetDelta: number,
  key: BytesInput,
  value: BytesInput,
  headers: readonly RecordHeaderInput[] | undefined,
  queue: LengthQueue,
): number {
  position = writeVarint(buf, position, bodyBytes);
  buf.writeInt8(attributes, position++);
  position = writeTimestampDelta(buf, position, timestampDelta);
  position = writeVarint(buf, position, offsetDelta);
  position = writeBytesField(buf, position, key, queue);
  position = writeBytesField(buf, position, value, queue);
  const headerCount = headers === undefined ? 0 : headers.length;
  position = writeVarint(buf, position, headerCount);
  for (let i = 0; i < headerCount; i++) {
    const header = (headers as readonly RecordHeaderInput[])[i] as RecordHeaderInput;
    position = writeBytesField(buf, position, header.key, queue);
    position = writeBytesField(buf, position, header.value, queue);
  }
  return position;
}

/** Encoded size of a record, length varint included. */
export function recordSize(record: KafkaRecord): number {
  const body = measureRecordBody(
    record.timestampDelta,
    record.offsetDelta,
    record.key,
    record.value,
    record.headers,
    newLengthQueue(),
  );
  return varintSize(body) + body;
}

/** Encodes one record at `position` (the buffer must have room); returns the end position. */
export function writeRecord(buf: Buffer, position: number, record: KafkaRecord): number {
  const queue = newLengthQueue();
  const body = measureRecordBody(
    record.timestampDelta,
    record.offsetDelta,
    record.key,
    record.value,
    record.headers,
    queue,
  );
  return writeMeasuredRecord(
    buf,
    position,
    body,
    record.attributes,
    record.timestampDelta,
    record.offsetDelta,
    record.key,
    record.value,
    record.headers,
    queue,
  );
}

export function encodeRecord(record: KafkaRecord): Buffer {
  const buf = Buffer.allocUnsafe(recordSize(record));
  const end = writeRecord(buf, 0, record);
  invariant(end === buf.length, `record size ${end} == measured ${buf.length}`);
  return buf;
}

// ---------------------------------------------------------------- decoding

/** Reused by the decoder (single-threaded, not re-entrant). */
const varintOut: VarintCursor = { value: 0, position: 0 };
const varlongOut: VarlongCursor = { value: 0n, position: 0 };

/**
 * Reads a zig-zag varlong. Up to 7 bytes (49 bits) are accumulated in a
 * double, which is exact; longer encodings take the bigint path.
 */
function readTimestampDelta(buf: Buffer, position: number): bigint {
  let result = 0;
  let multiplier = 1;
  const fastEnd = Math.min(buf.length, position + 7);
  for (let p = position; p < fastEnd; p++) {
    const byte = buf[p] as number;
    result += (byte & 0x7f) * multiplier;
    if (byte < 0x80) {
      varlongOut.position = p + 1;
      return BigInt(result % 2 === 0 ? result / 2 : -(result + 1) / 2);
    }
    multiplier *= 128;
  }
  readVarlong(buf, position, varlongOut);
  return varlongOut.value;
}

/** A position within [.., end) of `buf`, advanced as fields are read. */
export interface RecordCursor {
  position: number;
}

function readBytesField(buf: Buffer, cursor: RecordCursor, recordEnd: number, what: string): Buffer | null {
  readVarint(buf, cursor.position, varintOut);
  const length = varintOut.value;
  const start = varintOut.position;
  if (length === -1) {
    cursor.position = start;
    return null;
  }
  if (length < -1) throw new DecodeError(`record ${what} length ${length} is negative`);
  if (length > recordEnd - start) {
    throw new DecodeError(`record ${what} length ${length} exceeds the ${Math.max(0, recordEnd - start)} bytes left`);
  }
  cursor.position = start + length;
  return buf.subarray(start, start + length);
}

function readHeaders(buf: Buffer, cursor: RecordCursor, recordEnd: number): RecordHeader[] {
  readVarint(buf, cursor.position, varintOut);
  const count = varintOut.value;
  cursor.position = varintOut.position;
  if (count < 0) throw new DecodeError(`record header count ${count} is negative`);
  if (count > (recordEnd - cursor.position) / HEADER_BYTES_MIN) {
    throw new DecodeError(`record header count ${count} cannot fit in the bytes left`);
  }
  const headers: RecordHeader[] = [];
  for (let i = 0; i < count; i++) {
    readVarint(buf, cursor.position, varintOut);
    const keyLength = varintOut.value;
    const keyStart = varintOut.position;
    if (keyLength < 0) throw new DecodeError(`record header key length ${keyLength} is negative`);
    if (keyLength > recordEnd - keyStart) throw new DecodeError(`record header key length ${keyLength} exceeds the bytes left`);
    const key = buf.toString('utf8', keyStart, keyStart + keyLength);
    cursor.position = keyStart + keyLength;
    const value = readBytesField(buf, cursor, recordEnd, 'header value');
    headers.push({ key, value });
  }
  return headers;
}

/**
 * Decodes the record at `cursor.position`, which must end at or before `end`;
 * advances the cursor past it.
 */
export function readRecord(buf: Buffer, cursor: RecordCursor, end: number): KafkaRecord {
  if (end > buf.length) throw new RangeError('end is past the buffer');
  readVarint(buf, cursor.position, varintOut);
  const bodyBytes = varintOut.value;
  const start = varintOut.position;
  if (bodyBytes < RECORD_BODY_BYTES_MIN) throw new DecodeError(`record length ${bodyBytes} is below the minimum`);
  if (bodyBytes > end - start) {
    throw new DecodeError(`record length ${bodyBytes} exceeds the ${Math.max(0, end - start)} bytes left`);
  }
  const recordEnd = start + bodyBytes;
  const attributes = buf.readInt8(start);
  const timestampDelta = readTimestampDelta(buf, start + 1);
  readVarint(buf, varlongOut.position, varintOut);
  const offsetDelta = varintOut.value;
  cursor.position = varintOut.position;
  const key = readBytesField(buf, cursor, recordEnd, 'key');
  const value = readBytesField(buf, cursor, recordEnd, 'value');
  const headers = readHeaders(buf, cursor, recordEnd);
  if (cursor.position !== recordEnd) {
    throw new DecodeError(`record length ${bodyBytes} does not match the ${cursor.position - start} bytes its fields use`);
  }
  return { attributes, timestampDelta, offsetDelta, key, value, headers };
}

/**
 * Decodes exactly `count` records filling [start, end) of `buf`: fewer bytes
 * than the records need, or bytes left over, is a DecodeError.
 */
export function readRecords(buf: Buffer, start: number, end: number, count: number): KafkaRecord[] {
  if (start < 0 || end > buf.length || start > end) throw new RangeError('records range is outside the buffer');
  if (!Number.isInteger(count) || count < 0) throw new DecodeError(`records count ${count} is negative`);
  if (count > (end - start) / RECORD_BYTES_MIN) {
    throw new DecodeError(`records count ${count} cannot fit in ${end - start} bytes`);
  }
  const records: KafkaRecord[] = [];
  const cursor: RecordCursor = { position: start };
  for (let i = 0; i < count; i++) records.push(readRecord(buf, cursor, end));
  if (cursor.position !== end) {
    throw new DecodeError(`${end - cursor.position} bytes left after ${count} records`);
  }
  return records;
}
