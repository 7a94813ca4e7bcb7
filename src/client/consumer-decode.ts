/**
 * The Consumer's lean decoding path: one partition's record data from a Fetch
 * response straight into ConsumerRecord objects, with no intermediate
 * KafkaRecord, a chunk at a time (`PartitionDecoder.read(max)`). Per record:
 * a few varints and ONE object, a `LazyConsumerRecord`: its key and value
 * (without deserializers) become `subarray` views only when read, and its
 * bigint offset is computed only when read (batch base offset + delta), so a
 * consumer that looks at values only allocates no Buffer view or bigint per
 * record it does not touch. Deserializers, when set, run at decode time (a
 * failure surfaces from the fetch, as before); headers are decoded only when
 * a record has some.
 *
 * Rules (as records.ts `decodeRecords` and the Java Fetcher):
 * - each whole batch is checked (magic 2, length, CRC-32C); a truncated
 *   trailing batch ends the data (the broker cut it at the byte limit);
 * - records before the fetch offset are skipped (a batch, compressed or not,
 *   may start earlier than the offset asked for);
 * - control batches are skipped; with read_committed the records of aborted
 *   transactions (abortedTransactions of the response, sorted by first
 *   offset) are dropped until the producer's ABORT marker;
 * - compressed batches are decompressed on the libuv pool (`decompress`),
 *   and uncompressed ones are read in place.
 *
 * Bytes are validated, never asserted: a malformed record is a DecodeError.
 */
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { ControlRecordType } from '../protocol/record-batch/builder.js';
import { DECOMPRESSED_BYTES_MAX, decompress } from '../protocol/record-batch/compression.js';
import {
  ATTR_COMPRESSION_MASK,
  ATTR_CONTROL,
  ATTR_TIMESTAMP_LOG_APPEND,
  ATTR_TRANSACTIONAL,
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  Offsets,
  batchCrcIsValid,
} from '../protocol/record-batch/header.js';
import { batchEndAt } from '../protocol/record-batch/reader.js';
import type { RecordHeader } from '../protocol/record-batch/record.js';
import type { Deserializer, DeserializerContext } from './serde.js';

/** A record as the Consumer hands it out. */
export interface ConsumerRecord<K = Buffer | null, V = Buffer | null> {
  topic: string;
  partition: number;
  offset: bigint;
  /** Epoch milliseconds (CreateTime, or LogAppendTime when the topic uses it). */
  timestamp: number;
  key: K;
  value: V;
  /** In record order; shared empty array when the record has none. */
  headers: readonly RecordHeader[];
  /** The partition leader epoch the batch was written in (-1 when unknown). */
  leaderEpoch: number;
}

/** What the records of one batch share (one object per batch, not per record). */
export interface RecordBatchRef {
  buf: Buffer;
  baseOffset: bigint;
}

/** Marks a key or value not read yet. */
const UNREAD: unique symbol = Symbol('unread');

/**
 * The Consumer's record: `topic`, `partition`, `timestamp`, `headers` and
 * `leaderEpoch` are plain fields; `offset`, `key` and `value` are accessors
 * computed on first read (then cached) from the batch's bytes, which the
 * record keeps alive. Assigning them works, as on a plain object. Spread
 * (`{ ...record }`) copies only the plain fields: use `toObject()` for a
 * plain copy.
 */
export class LazyConsumerRecord<K = Buffer | null, V = Buffer | null> implements ConsumerRecord<K, V> {
  readonly #batch: RecordBatchRef;
  readonly #offsetDelta: number;
  /** Byte range of the key and value in the batch buffer; start -1 is null. */
  readonly #keyStart: number;
  readonly #keyEnd: number;
  readonly #valueStart: number;
  readonly #valueEnd: number;
  #key: K | typeof UNREAD;
  #value: V | typeof UNREAD;
  #offset: bigint | undefined = undefined;

  /**
   * @param key the deserialized key, or UNREAD for a Buffer view of [keyStart, keyEnd) (null when keyStart is -1)
   */
  constructor(
    public topic: string,
    public partition: number,
    public timestamp: number,
    public headers: readonly RecordHeader[],
    public leaderEpoch: number,
    batch: RecordBatchRef,
    offsetDelta: number,
    keyStart: number,
    keyEnd: number,
    valueStart: number,
    valueEnd: number,
    key: K | typeof UNREAD,
    value: V | typeof UNREAD,
  ) {
    this.#batch = batch;
    this.#offsetDelta = offsetDelta;
    this.#keyStart = keyStart;
    this.#keyEnd = keyEnd;
    this.#valueStart = valueStart;
    this.#valueEnd = valueEnd;
    this.#key = key;
    this.#value = value;
  }

  get offset(): bigint {
    if (this.#offset === undefined) this.#offset = this.#batch.baseOffset + BigInt(this.#offsetDelta);
    return this.#offset;
  }

  set offset(offset: bigint) {
    this.#offset = offset;
  }

  get key(): K {
    if (this.#key === UNREAD) this.#key = (this.#keyStart < 0 ? null : this.#batch.buf.subarray(this.#keyStart, this.#keyEnd)) as K;
    return this.#key;
  }

  set key(key: K) {
    this.#key = key;
  }

  get value(): V {
    if (this.#value === UNREAD) this.#value = (this.#valueStart < 0 ? null : this.#batch.buf.subarray(this.#valueStart, this.#valueEnd)) as V;
    return this.#value;
  }

  set value(value: V) {
    this.#value = value;
  }

  /** A plain object with every field (for spread, `assert.deepEqual`, logging). */
  toObject(): ConsumerRecord<K, V> {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: this.offset,
      timestamp: this.timestamp,
      key: this.key,
      value: this.value,
      headers: this.headers,
      leaderEpoch: this.leaderEpoch,
    };
  }
}

export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

export interface DecodeTarget<K, V> {
  topic: string;
  partition: number;
  /** The offset fetched from: earlier records are skipped. */
  fetchOffset: bigint;
  keyDeserializer: Deserializer<K> | null;
  valueDeserializer: Deserializer<V> | null;
}

export interface DecodedPartition<K, V> {
  records: ConsumerRecord<K, V>[];
  /** Where the next fetch starts: past the last whole batch (control batches included). */
  nextOffset: bigint;
  /** Bytes of whole batches read. */
  bytes: number;
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** Reused cursor of the varint readers (single-threaded, not re-entrant). */
let cursor = 0;

/** A zig-zag varint (int32) at `position`, not past `end`; sets `cursor`. */
function varint(buf: Buffer, position: number, end: number): number {
  let result = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (position >= end) throw new DecodeError('truncated varint in a record');
    const byte = buf[position++] as number;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      cursor = position;
      return (result >>> 1) ^ -(result & 1);
    }
  }
  throw new DecodeError('varint longer than 5 bytes in a record');
}

/** A zig-zag varlong as a number (exact up to 2^53; timestamp deltas are far smaller); sets `cursor`. */
function varlongNumber(buf: Buffer, position: number, end: number): number {
  let result = 0;
  let multiplier = 1;
  for (let i = 0; i < 10; i++) {
    if (position >= end) throw new DecodeError('truncated varlong in a record');
    const byte = buf[position++] as number;
    result += (byte & 0x7f) * multiplier;
    if (byte < 0x80) {
      cursor = position;
      return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    }
    multiplier *= 128;
  }
  throw new DecodeError('varlong longer than 10 bytes in a record');
}

/** A length-prefixed byte field as a view, or null; sets `cursor`. */
function bytesField(buf: Buffer, position: number, end: number): Buffer | null {
  const length = varint(buf, position, end);
  const start = cursor;
  if (length === -1) return null;
  if (length < -1 || length > end - start) throw new DecodeError(`record field length ${length} does not fit the record`);
  cursor = start + length;
  // A view, as subarray(), but about twice as fast (no species lookup).
  return buf.subarray(start, cursor);
}

/** A length-prefixed byte field: returns where its bytes start (-1 for null) and sets `cursor` past them. */
function fieldStart(buf: Buffer, position: number, end: number): number {
  const length = varint(buf, position, end);
  const start = cursor;
  if (length === -1) return -1;
  if (length < -1 || length > end - start) throw new DecodeError(`record field length ${length} does not fit the record`);
  cursor = start + length;
  return start;
}

function readHeaders(buf: Buffer, position: number, end: number): readonly RecordHeader[] {
  const count = varint(buf, position, end);
  position = cursor;
  if (count === 0) return NO_HEADERS;
  if (count < 0 || count > (end - position) / 2) throw new DecodeError(`record header count ${count} does not fit the record`);
  const headers: RecordHeader[] = [];
  for (let i = 0; i < count; i++) {
    const keyLength = varint(buf, position, end);
    const keyStart = cursor;
    if (keyLength < 0 || keyLength > end - keyStart) throw new DecodeError(`header key length ${keyLength} does not fit the record`);
    const key = buf.toString('utf8', keyStart, keyStart + keyLength);
    const value = bytesField(buf, keyStart + keyLength, end);
    position = cursor;
    headers.push({ key, value });
  }
  cursor = position;
  return headers;
}

/** Aborted-transaction bookkeeping for read_committed (Java's Fetcher). */
class AbortFilter {
  private readonly pending: AbortedTransaction[];
  private readonly aborted = new Set<bigint>();

  constructor(list: readonly AbortedTransaction[]) {
    this.pending = [...list].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  }

  /** Whether the (transactional) batch's records are dropped; control batches end a producer's abort. */
  skipBatch(batch: Buffer, position: number, attributes: number, lastOffset: bigint): boolean {
    while (this.pending.length > 0 && (this.pending[0] as AbortedTransaction).firstOffset <= lastOffset) {
      this.aborted.add((this.pending.shift() as AbortedTransaction).producerId);
    }
    const producerId = batch.readBigInt64BE(position + Offsets.producerId);
    if ((attributes & ATTR_CONTROL) !== 0) {
      // The first record's key holds the control type; ABORT ends the producer's aborted transaction.
      const recordStart = position + BATCH_HEADER_BYTES;
      const end = position + BATCH_LOG_OVERHEAD + batch.readInt32BE(position + Offsets.batchLength);
      if ((attributes & ATTR_COMPRESSION_MASK) === 0 && batch.readInt32BE(position + Offsets.recordsCount) > 0) {
        varint(batch, recordStart, end); // record length
        varlongNumber(batch, cursor + 1, end); // after attributes: timestamp delta
        varint(batch, cursor, end); // offset delta
        const key = bytesField(batch, cursor, end);
        if (key !== null && key.length >= 4 && key.readInt16BE(2) === ControlRecordType.Abort) this.aborted.delete(producerId);
      }
      return true;
    }
    return (attributes & ATTR_TRANSACTIONAL) !== 0 && this.aborted.has(producerId);
  }
}

/** The batch being read: where its records are (maybe decompressed) and what each record needs from its header. */
interface OpenBatch {
  buf: Buffer;
  /** Shared by the batch's records: the (maybe decompressed) bytes and the base offset. */
  ref: RecordBatchRef;
  /** Records with an offset delta below this are before the fetch offset (skipped). */
  minDelta: number;
  at: number;
  stop: number;
  remaining: number;
  baseOffset: bigint;
  leaderEpoch: number;
  logAppend: boolean;
  baseTimestamp: number;
}

/**
 * Reads one partition's record data incrementally: `read(max)` decodes at
 * most `max` records, so only what is handed out is alive (a 1 MiB fetch is
 * about 10,000 records of 100 B; decoding them all at once makes the young
 * generation copy them on every scavenge).
 */
export class PartitionDecoder<K, V> {
  /** Past the last whole batch opened so far (the next fetch offset once `finished`). */
  nextOffset: bigint;
  private position = 0;
  private batch: OpenBatch | null = null;
  private readonly filter: AbortFilter | null;
  private readonly keyContext: DeserializerContext;
  private readonly valueContext: DeserializerContext;

  constructor(
    private readonly target: DecodeTarget<K, V>,
    private readonly data: Buffer,
    aborted: readonly AbortedTransaction[] | null,
  ) {
    this.nextOffset = target.fetchOffset;
    this.filter = aborted === null ? null : new AbortFilter(aborted);
    this.keyContext = { topic: target.topic, partition: target.partition, isKey: true };
    this.valueContext = { topic: target.topic, partition: target.partition, isKey: false };
  }

  /** True when no record is left (no open batch and no further whole batch). */
  get finished(): boolean {
    return this.batch === null && batchEndAt(this.data, this.position) < 0;
  }

  /** Bytes of whole batches opened so far. */
  get bytes(): number {
    return this.position;
  }

  /** Up to `max` records; an empty array means the data is exhausted. */
  async read(max: number): Promise<ConsumerRecord<K, V>[]> {
    const out: ConsumerRecord<K, V>[] = [];
    while (out.length < max) {
      if (this.batch === null && !(await this.openNextBatch())) break;
      this.readRecords(this.batch as OpenBatch, max, out);
    }
    return out;
  }

  /** Opens the next batch that has records to hand out; false at the end of the data. */
  private async openNextBatch(): Promise<boolean> {
    const { data, target } = this;
    for (;;) {
      const position = this.position;
      const end = batchEndAt(data, position);
      if (end < 0) return false;
      if (end - position < BATCH_HEADER_BYTES) throw new DecodeError(`record batch of ${end - position} bytes is shorter than its header`);
      const magic = data.readInt8(position + Offsets.magic);
      if (magic !== 2) throw new DecodeError(`unsupported record batch magic ${magic}`);
      if (!batchCrcIsValid(data, position, end - position)) throw new DecodeError(`record batch CRC-32C mismatch (${target.topic}-${target.partition})`);
      const baseOffset = data.readBigInt64BE(position);
      const lastOffset = baseOffset + BigInt(data.readInt32BE(position + Offsets.lastOffsetDelta));
      const attributes = data.readInt16BE(position + Offsets.attributes);
      this.position = end;
      if (lastOffset + 1n > this.nextOffset) this.nextOffset = lastOffset + 1n;
      if (lastOffset < target.fetchOffset) continue;
      const skip = this.filter !== null ? this.filter.skipBatch(data, position, attributes, lastOffset) : (attributes & ATTR_CONTROL) !== 0;
      if (skip) continue;
      const count = data.readInt32BE(position + Offsets.recordsCount);
      const logAppend = (attributes & ATTR_TIMESTAMP_LOG_APPEND) !== 0;
      let buf = data;
      let at = position + BATCH_HEADER_BYTES;
      let stop = end;
      const codec = attributes & ATTR_COMPRESSION_MASK;
      if (codec !== 0) {
        buf = await decompress(codec, data.subarray(at, end), DECOMPRESSED_BYTES_MAX);
        at = 0;
        stop = buf.length;
      }
      if (count < 0 || count > (stop - at) / 7) throw new DecodeError(`records count ${count} cannot fit in the batch`);
      if (count === 0) continue;
      const below = target.fetchOffset - baseOffset;
      this.batch = {
        buf,
        ref: { buf, baseOffset },
        minDelta: below <= 0n ? 0 : below > 0x7fffffffn ? 0x7fffffff : Number(below),
        at,
        stop,
        remaining: count,
        baseOffset,
        leaderEpoch: data.readInt32BE(position + Offsets.partitionLeaderEpoch),
        logAppend,
        baseTimestamp: Number(data.readBigInt64BE(position + (logAppend ? Offsets.maxTimestamp : Offsets.baseTimestamp))),
      };
      return true;
    }
  }

  /** Decodes records of the open batch into `out` until `max` or the batch ends (then closes it). */
  private readRecords(b: OpenBatch, max: number, out: ConsumerRecord<K, V>[]): void {
    const { topic, partition, keyDeserializer, valueDeserializer } = this.target;
    const { buf, ref, minDelta, stop, leaderEpoch, logAppend, baseTimestamp } = b;
    let at = b.at;
    let remaining = b.remaining;
    while (remaining > 0 && out.length < max) {
      remaining--;
      const bodyBytes = varint(buf, at, stop);
      const start = cursor;
      const recordEnd = start + bodyBytes;
      if (bodyBytes < 6 || recordEnd > stop) throw new DecodeError(`record length ${bodyBytes} does not fit the batch`);
      const timestampDelta = varlongNumber(buf, start + 1, recordEnd);
      const offsetDelta = varint(buf, cursor, recordEnd);
      const keyStart = fieldStart(buf, cursor, recordEnd);
      const keyEnd = cursor;
      const valueStart = fieldStart(buf, cursor, recordEnd);
      const valueEnd = cursor;
      let headers = NO_HEADERS;
      if (cursor < recordEnd && buf[cursor] === 0) cursor++;
      else headers = readHeaders(buf, cursor, recordEnd);
      if (cursor !== recordEnd) throw new DecodeError(`record length ${bodyBytes} does not match its fields`);
      at = recordEnd;
      if (offsetDelta < minDelta) continue;
      const key: K | typeof UNREAD =
        keyDeserializer === null ? UNREAD : keyDeserializer(keyStart < 0 ? null : buf.subarray(keyStart, keyEnd), this.keyContext);
      const value: V | typeof UNREAD =
        valueDeserializer === null ? UNREAD : valueDeserializer(valueStart < 0 ? null : buf.subarray(valueStart, valueEnd), this.valueContext);
      out.push(
        new LazyConsumerRecord<K, V>(
          topic,
          partition,
          logAppend ? baseTimestamp : baseTimestamp + timestampDelta,
          headers,
          leaderEpoch,
          ref,
          offsetDelta,
          keyStart,
          keyEnd,
          valueStart,
          valueEnd,
          key,
          value,
        ),
      );
    }
    b.at = at;
    b.remaining = remaining;
    if (remaining === 0) {
      if (at !== stop) throw new DecodeError(`${stop - at} bytes left after the batch's records`);
      this.batch = null;
    }
  }
}

/**
 * Decodes one partition's record data at once (tests, tools). `aborted` is
 * null for read_uncommitted.
 */
export async function decodePartition<K, V>(
  target: DecodeTarget<K, V>,
  data: Buffer,
  aborted: readonly AbortedTransaction[] | null,
): Promise<DecodedPartition<K, V>> {
  const decoder = new PartitionDecoder(target, data, aborted);
  const records = await decoder.read(Number.MAX_SAFE_INTEGER);
  return { records, nextOffset: decoder.nextOffset, bytes: decoder.bytes };
}
