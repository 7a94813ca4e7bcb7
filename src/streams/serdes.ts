/**
 * Serdes: how keys and values cross the wire. Each writes the byte layout of
 * the Java serializer of the same name (`Serdes.Long()` is an 8-byte
 * big-endian two's-complement integer, as `LongSerializer`), so Java and
 * librdkafka applications read what a topology writes and the other way round.
 * null always maps to null (a tombstone) and back.
 */
import { StreamsError, StreamsErrorCode } from './errors.js';

/** A serializer and a deserializer for one type. */
export interface Serde<T> {
  /** Bytes for `data` (null for null). `topic` is where they go. */
  serialize(topic: string, data: T | null): Buffer | null;
  /** The value for `data` (null for null). */
  deserialize(topic: string, data: Buffer | null): T | null;
}

function fixed<T>(name: string, size: number, write: (buf: Buffer, v: T) => void, read: (buf: Buffer) => T, check: (v: unknown) => v is T): Serde<T> {
  return {
    serialize(topic, data) {
      if (data === null || data === undefined) return null;
      if (!check(data)) throw new StreamsError(StreamsErrorCode.SERDE, `Serdes.${name}() cannot serialize ${describe(data)} for topic '${topic}'`);
      const buf = Buffer.allocUnsafe(size);
      write(buf, data);
      return buf;
    },
    deserialize(topic, data) {
      if (data === null) return null;
      if (data.length !== size) throw new StreamsError(StreamsErrorCode.SERDE, `Serdes.${name}() expects ${size} bytes, got ${data.length} from topic '${topic}'`);
      return read(data);
    },
  };
}

function describe(v: unknown): string {
  if (typeof v === 'object') return v === null ? 'null' : v.constructor?.name ?? 'object';
  return `${typeof v} ${String(v)}`;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const stringSerde: Serde<string> = {
  serialize(topic, data) {
    if (data === null || data === undefined) return null;
    if (typeof data !== 'string') throw new StreamsError(StreamsErrorCode.SERDE, `Serdes.String() cannot serialize ${describe(data)} for topic '${topic}'`);
    return Buffer.from(data, 'utf8');
  },
  deserialize: (_topic, data) => (data === null ? null : data.toString('utf8')),
};

/**
 * Whether `serde` writes a string as exactly its UTF-8 bytes (Serdes.String):
 * the runtime then hands the string to the Producer, which encodes it into
 * the batch directly, instead of allocating a Buffer per key and value.
 */
export function writesUtf8(serde: Serde<unknown>): boolean {
  return serde === (stringSerde as Serde<unknown>);
}

const longSerde = fixed<bigint>(
  'Long',
  8,
  (buf, v) => buf.writeBigInt64BE(v),
  (buf) => buf.readBigInt64BE(0),
  (v): v is bigint => typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX,
);
const integerSerde = fixed<number>(
  'Integer',
  4,
  (buf, v) => buf.writeInt32BE(v),
  (buf) => buf.readInt32BE(0),
  (v): v is number => Number.isInteger(v) && (v as number) >= INT32_MIN && (v as number) <= INT32_MAX,
);
const doubleSerde = fixed<number>(
  'Double',
  8,
  (buf, v) => buf.writeDoubleBE(v),
  (buf) => buf.readDoubleBE(0),
  (v): v is number => typeof v === 'number',
);

const byteArraySerde: Serde<Buffer> = {
  serialize(topic, data) {
    if (data === null || data === undefined) return null;
    if (!Buffer.isBuffer(data)) throw new StreamsError(StreamsErrorCode.SERDE, `Serdes.ByteArray() cannot serialize ${describe(data)} for topic '${topic}' (configure a key/value serde)`);
    return data;
  },
  // Copy: the consumer hands out views into a fetch response that is reused.
  deserialize: (_topic, data) => (data === null ? null : Buffer.from(data)),
};

/**
 * Whether `serde` turns every input into a value without throwing
 * (Serdes.String: invalid UTF-8 becomes U+FFFD; Serdes.ByteArray: a copy).
 * The runtime may then deserialize such a topic's records as the Consumer
 * decodes them: no deserialization handler can be skipped by doing so.
 */
export function deserializesInfallibly(serde: Serde<unknown>): boolean {
  return serde === (stringSerde as Serde<unknown>) || serde === (byteArraySerde as Serde<unknown>);
}

/** The built-in serdes, by the Java class names (`Serdes.String()`, `Serdes.Long()`, ...). */
export const Serdes = {
  /** UTF-8 text. */
  String: (): Serde<string> => stringSerde,
  /** 8-byte big-endian signed integers as `bigint` (Java's LongSerializer). */
  Long: (): Serde<bigint> => longSerde,
  /** 4-byte big-endian signed integers (Java's IntegerSerializer). */
  Integer: (): Serde<number> => integerSerde,
  /** 8-byte big-endian IEEE 754 doubles (Java's DoubleSerializer). */
  Double: (): Serde<number> => doubleSerde,
  /** The bytes as they are (copied on read). */
  ByteArray: (): Serde<Buffer> => byteArraySerde,
  /** JSON text in UTF-8; the type parameter is what the application promises the JSON holds. */
  Json: <T>(): Serde<T> => ({
    serialize: (_topic, data) => (data === null || data === undefined ? null : Buffer.from(JSON.stringify(data), 'utf8')),
    deserialize(topic, data) {
      if (data === null) return null;
      try {
        return JSON.parse(data.toString('utf8')) as T;
      } catch (err) {
        throw new StreamsError(StreamsErrorCode.SERDE, `Serdes.Json() cannot parse a record of topic '${topic}': ${(err as Error).message}`, { cause: err });
      }
    },
  }),
  /** A serde from your own functions. */
  from: <T>(serialize: (data: T, topic: string) => Buffer, deserialize: (data: Buffer, topic: string) => T): Serde<T> => ({
    serialize: (topic, data) => (data === null || data === undefined ? null : serialize(data, topic)),
    deserialize: (topic, data) => (data === null ? null : deserialize(data, topic)),
  }),
} as const;
