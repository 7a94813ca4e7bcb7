/**
 * PostgreSQL column types <-> Connect schemas and values.
 *
 * Both sources read values as PostgreSQL's text output (the JDBC-style source
 * asks `pg` for raw text; pgoutput sends text), so one decoder serves both.
 * The JDBC flavour maps temporal types to Kafka's logical types
 * (`org.apache.kafka.connect.data.Date|Time|Timestamp`, epoch days / ms), as
 * Confluent's JDBC source does; the Debezium flavour to Debezium's
 * (`io.debezium.time.Date`, `MicroTime`, `MicroTimestamp`, `ZonedTimestamp`).
 * NUMERIC with a declared scale is Kafka's `Decimal` logical type (unscaled
 * two's-complement bytes, `scale` parameter) in both; an unbounded NUMERIC
 * has no fixed scale and is sent as its decimal text (a string).
 * Sessions run with TimeZone=UTC, so timestamptz text ends in +00.
 */
import { DataError, Schemas, type Schema } from '../data/schema.js';

export type TypeFlavour = 'jdbc' | 'debezium';

export const DECIMAL = 'org.apache.kafka.connect.data.Decimal';
export const KAFKA_DATE = 'org.apache.kafka.connect.data.Date';
export const KAFKA_TIME = 'org.apache.kafka.connect.data.Time';
export const KAFKA_TIMESTAMP = 'org.apache.kafka.connect.data.Timestamp';

/** Type OIDs of the built-in types (pg_type.oid, stable across versions). */
export const Oid = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  float4: 700,
  float8: 701,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

/** The scale of a NUMERIC typmod, or null for an unbounded NUMERIC. */
export function numericScale(typmod: number): number | null {
  return typmod < 4 ? null : (typmod - 4) & 0xffff;
}

/** The Connect schema of a column of this type (optional when the column is nullable). */
export function columnSchema(typeOid: number, typmod: number, optional: boolean, flavour: TypeFlavour): Schema {
  const o = { optional };
  switch (typeOid) {
    case Oid.bool:
      return Schemas.boolean(o);
    case Oid.int2:
      return Schemas.int16(o);
    case Oid.int4:
      return Schemas.int32(o);
    case Oid.int8:
    case Oid.oid:
      return Schemas.int64(o);
    case Oid.float4:
      return Schemas.float32(o);
    case Oid.float8:
      return Schemas.float64(o);
    case Oid.bytea:
      return Schemas.bytes(o);
    case Oid.numeric: {
      const scale = numericScale(typmod);
      return scale === null ? Schemas.string(o) : Schemas.bytes({ ...o, name: DECIMAL, version: 1, parameters: { scale: String(scale) } });
    }
    case Oid.date:
      return Schemas.int32({ ...o, name: flavour === 'jdbc' ? KAFKA_DATE : 'io.debezium.time.Date', version: 1 });
    case Oid.time:
      return flavour === 'jdbc' ? Schemas.int32({ ...o, name: KAFKA_TIME, version: 1 }) : Schemas.int64({ ...o, name: 'io.debezium.time.MicroTime', version: 1 });
    case Oid.timestamp:
      return flavour === 'jdbc' ? Schemas.int64({ ...o, name: KAFKA_TIMESTAMP, version: 1 }) : Schemas.int64({ ...o, name: 'io.debezium.time.MicroTimestamp', version: 1 });
    case Oid.timestamptz:
      return flavour === 'jdbc' ? Schemas.int64({ ...o, name: KAFKA_TIMESTAMP, version: 1 }) : Schemas.string({ ...o, name: 'io.debezium.time.ZonedTimestamp', version: 1 });
    default:
      return Schemas.string(o);
  }
}

const TS_RE = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

/** Microseconds since the epoch of a timestamp[tz] text (no zone: UTC). */
export function timestampMicros(text: string): bigint {
  const m = TS_RE.exec(text);
  if (m === null) throw new DataError(`cannot read timestamp '${text}'`);
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const offsetS = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0));
  const micros = BigInt(((frac ?? '') + '000000').slice(0, 6));
  return BigInt(ms - offsetS * 1000) * 1000n + micros;
}

/** Days since the epoch of a date text. */
export function dateDays(text: string): number {
  const m = /^(\d{4,})-(\d\d)-(\d\d)$/.exec(text);
  if (m === null) throw new DataError(`cannot read date '${text}'`);
  return Math.round(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000);
}

/** Microseconds since midnight of a time text. */
export function timeMicros(text: string): number {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/.exec(text);
  if (m === null) throw new DataError(`cannot read time '${text}'`);
  return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1_000_000 + Number(((m[4] ?? '') + '000000').slice(0, 6));
}

/** The unscaled two's-complement big-endian bytes of a decimal text at `scale` (Kafka's Decimal.fromLogical). */
export function decimalBytes(text: string, scale: number): Buffer {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (m === null) throw new DataError(`cannot read numeric '${text}' as a decimal`);
  const frac = (m[3] ?? '').padEnd(scale, '0');
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new DataError(`numeric '${text}' has more than ${scale} decimals`);
  let n = BigInt((m[2] || '0') + frac.slice(0, scale));
  if (m[1] === '-') n = -n;
  return bigintBytes(n);
}

function bigintBytes(n: bigint): Buffer {
  const bytes: number[] = [];
  let v = n;
  for (;;) {
    bytes.unshift(Number(v & 0xffn));
    const sign = bytes[0]! & 0x80;
    v >>= 8n;
    if ((v === 0n && sign === 0) || (v === -1n && sign !== 0)) break;
  }
  return Buffer.from(bytes);
}

/** The decimal text of Kafka Decimal bytes at `scale` (Decimal.toLogical). */
export function decimalText(bytes: Buffer, scale: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (bytes.length > 0 && (bytes[0]! & 0x80) !== 0) n -= 1n << BigInt(bytes.length * 8);
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${text}` : text;
}

function bytea(text: string): Buffer {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex');
  throw new DataError('bytea in escape format is not supported (bytea_output must be hex)');
}

/** The Connect value of a column's text output, for the schema columnSchema gave (null stays null). */
export function decodeText(schema: Schema, text: string | null, typeOid: number): unknown {
  if (text === null) return null;
  switch (schema.type) {
    case 'boolean':
      return text === 't' || text === 'true';
    case 'int16':
    case 'int32':
      if (schema.name === KAFKA_DATE || schema.name === 'io.debezium.time.Date') return dateDays(text);
      if (schema.name === KAFKA_TIME) return Math.floor(timeMicros(text) / 1000);
      return Number(text);
    case 'int64':
      if (schema.name === KAFKA_TIMESTAMP) return Number(timestampMicros(text) / 1000n);
      if (schema.name === 'io.debezium.time.MicroTimestamp') return Number(timestampMicros(text));
      if (schema.name === 'io.debezium.time.MicroTime') return timeMicros(text);
      return Number(text);
    case 'float32':
    case 'float64':
      return Number(text);
    case 'bytes':
      return schema.name === DECIMAL ? decimalBytes(text, Number(schema.parameters?.scale ?? 0)) : bytea(text);
    default:
      return typeOid === Oid.timestamptz ? new Date(Number(timestampMicros(text) / 1000n)).toISOString() : text;
  }
}
