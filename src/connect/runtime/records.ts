/**
 * Between Connect records and Kafka records: a source record becomes a
 * producer record through the key, value and header converters; a consumed
 * record becomes a sink record through them. Headers are written as Kafka's
 * SimpleHeaderConverter writes simple values (strings as UTF-8, numbers and
 * booleans as their text, bytes as they are, others as JSON) and read back
 * as strings typed like a literal (numbers, booleans, else text).
 */
import type { ConsumerRecord, ProducerRecord } from '../../client/index.js';
import type { Converter } from '../converters/converter.js';
import { Schemas, Struct } from '../data/schema.js';
import type { ConnectHeader, SinkRecord, SourceRecord } from '../spi.js';
import { parseLiteral } from '../transforms/headers.js';

export interface RecordConverters {
  key: Converter;
  value: Converter;
}

export function headerBytes(h: ConnectHeader): Buffer | string | null {
  const v = h.value;
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v) || typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Struct) return JSON.stringify(Object.fromEntries((v.schema.fields ?? []).map((f) => [f.name, v.get(f.name)])));
  return JSON.stringify(v);
}

export function headerFromBytes(key: string, value: Buffer | null): ConnectHeader {
  if (value === null) return { key, schema: null, value: null };
  return { key, ...parseLiteral(value.toString('utf8')) };
}

export type RawRecord = ProducerRecord<Buffer | null, Buffer | null>;

export function keyBytes(c: RecordConverters, r: SourceRecord): Buffer | null {
  return c.key.fromConnectData(r.topic, r.keySchema, r.key);
}

export function valueBytes(c: RecordConverters, r: SourceRecord): Buffer | null {
  return c.value.fromConnectData(r.topic, r.valueSchema, r.value);
}

export function producerRecord(r: SourceRecord, key: Buffer | null, value: Buffer | null): RawRecord {
  const out: RawRecord = { topic: r.topic, key, value, headers: r.headers.map((h) => ({ key: h.key, value: headerBytes(h) })) };
  if (r.kafkaPartition !== null) out.partition = r.kafkaPartition;
  if (r.timestamp !== null) out.timestamp = r.timestamp;
  return out;
}

/** A consumed record with raw key and value, as a sink record (key and value filled in by the caller's converters). */
export function sinkRecordBase(r: ConsumerRecord<Buffer | null, Buffer | null>): SinkRecord {
  return {
    topic: r.topic,
    kafkaPartition: r.partition,
    kafkaOffset: r.offset,
    timestampType: 'CreateTime',
    timestamp: r.timestamp,
    keySchema: null,
    key: null,
    valueSchema: Schemas.bytes({ optional: true }),
    value: null,
    headers: r.headers.map((h) => headerFromBytes(h.key, h.value)),
  };
}
