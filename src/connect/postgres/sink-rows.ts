/**
 * From sink records to row operations: which table, insert/upsert or delete,
 * which columns (with the Connect schema each came from, or none when the
 * record is schemaless) and which primary key, following Confluent's JDBC
 * sink rules for pk.mode and pk.fields. Values become SQL parameters here:
 * Kafka's logical types (Decimal, Date, Time, Timestamp) become the text
 * PostgreSQL reads, structs, maps and arrays become JSON.
 */
import { Struct, type Schema } from '../data/schema.js';
import { ConnectError, type SinkRecord } from '../spi.js';
import { DECIMAL, KAFKA_DATE, KAFKA_TIME, KAFKA_TIMESTAMP, decimalText } from './types.js';

export type PkMode = 'none' | 'record_key' | 'record_value';

export interface SinkRowRules {
  tableFormat: string;
  pkMode: PkMode;
  pkFields: string[];
  upsert: boolean;
  deleteEnabled: boolean;
}

export interface Column {
  name: string;
  /** null: schemaless (the SQL type is guessed from the value). */
  schema: Schema | null;
  value: unknown;
}

export interface RowOp {
  table: string;
  kind: 'insert' | 'upsert' | 'delete';
  /** Every column written (key columns first); for deletes, the key columns only. */
  columns: Column[];
  /** Names of the primary key columns (empty for pk.mode=none). */
  pk: string[];
}

/** The fields of a struct, or the entries of a schemaless map, as columns. */
function columnsOf(value: unknown, schema: Schema | null, what: string): Column[] {
  if (value instanceof Struct) return (value.schema.fields ?? []).map((f) => ({ name: f.name, schema: f.schema, value: value.get(f.name) }));
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) {
    const fieldSchema = (name: string): Schema | null => schema?.fields?.find((f) => f.name === name)?.schema ?? null;
    return Object.entries(value as Record<string, unknown>).map(([name, v]) => ({ name, schema: fieldSchema(name), value: v }));
  }
  throw new ConnectError(`the record ${what} must be a struct or a map to be written as a row, got ${value === null ? 'null' : typeof value}`);
}

function pick(columns: Column[], names: string[], what: string): Column[] {
  if (names.length === 0) return columns;
  return names.map((n) => {
    const c = columns.find((x) => x.name === n);
    if (c === undefined) throw new ConnectError(`pk.fields names ${n}, which the record ${what} does not have`);
    return c;
  });
}

/** The key columns of a record under pk.mode. */
function keyColumns(record: SinkRecord, rules: SinkRowRules, valueColumns: Column[] | null): Column[] {
  switch (rules.pkMode) {
    case 'none':
      return [];
    case 'record_key': {
      if (record.key === null || record.key === undefined) throw new ConnectError(`pk.mode=record_key needs a record key (topic ${record.topic}, partition ${record.kafkaPartition}, offset ${record.kafkaOffset})`);
      const isMap = record.key instanceof Struct || (typeof record.key === 'object' && !Buffer.isBuffer(record.key) && !Array.isArray(record.key));
      if (!isMap) return [{ name: rules.pkFields[0] ?? '__connect_key', schema: record.keySchema, value: record.key }];
      return pick(columnsOf(record.key, record.keySchema, 'key'), rules.pkFields, 'key');
    }
    case 'record_value':
      return pick(valueColumns ?? [], rules.pkFields, 'value');
  }
}

/** The row operation of one record. */
export function rowOp(record: SinkRecord, rules: SinkRowRules): RowOp {
  const table = rules.tableFormat.replace(/\$\{topic\}/g, record.topic);
  if (record.value === null || record.value === undefined) {
    if (!rules.deleteEnabled) throw new ConnectError(`a record with a null value (a tombstone) at ${record.topic}-${record.kafkaPartition}@${record.kafkaOffset} needs delete.enabled=true to be written`);
    const key = keyColumns(record, rules, null);
    return { table, kind: 'delete', columns: key, pk: key.map((c) => c.name) };
  }
  const values = columnsOf(record.value, record.valueSchema, 'value');
  const key = keyColumns(record, rules, values);
  const pk = key.map((c) => c.name);
  const columns = rules.pkMode === 'record_key' ? [...key, ...values.filter((v) => !pk.includes(v.name))] : values;
  return { table, kind: rules.upsert ? 'upsert' : 'insert', columns, pk };
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function plain(value: unknown): unknown {
  if (value instanceof Struct) return Object.fromEntries((value.schema.fields ?? []).map((f) => [f.name, plain(value.get(f.name))]));
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** A column value as a pg query parameter. */
export function sqlParam(c: Column): unknown {
  const v = c.value;
  if (v === null || v === undefined) return null;
  switch (c.schema?.name) {
    case DECIMAL:
      return decimalText(v as Buffer, Number(c.schema.parameters?.scale ?? 0));
    case KAFKA_DATE:
      return new Date((v as number) * 86_400_000).toISOString().slice(0, 10);
    case KAFKA_TIME: {
      const ms = v as number;
      return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
    }
    case KAFKA_TIMESTAMP:
      return new Date(v as number).toISOString();
  }
  if (Buffer.isBuffer(v) || typeof v !== 'object') return v;
  return JSON.stringify(plain(v));
}

/** The PostgreSQL type of a column for CREATE TABLE / ADD COLUMN: from its schema, or guessed from a schemaless value. */
export function sqlType(c: Column): string {
  const s = c.schema;
  if (s === null) {
    const v = c.value;
    if (typeof v === 'boolean') return 'BOOLEAN';
    if (typeof v === 'number') return Number.isInteger(v) ? 'BIGINT' : 'DOUBLE PRECISION';
    if (Buffer.isBuffer(v)) return 'BYTEA';
    if (v !== null && typeof v === 'object') return 'JSONB';
    return 'TEXT';
  }
  switch (s.name) {
    case DECIMAL:
      return 'NUMERIC';
    case KAFKA_DATE:
      return 'DATE';
    case KAFKA_TIME:
      return 'TIME';
    case KAFKA_TIMESTAMP:
      return 'TIMESTAMP';
  }
  const byType: Record<string, string> = { int8: 'SMALLINT', int16: 'SMALLINT', int32: 'INT', int64: 'BIGINT', float32: 'REAL', float64: 'DOUBLE PRECISION', boolean: 'BOOLEAN', string: 'TEXT', bytes: 'BYTEA', struct: 'JSONB', map: 'JSONB', array: 'JSONB' };
  return byType[s.type] ?? 'TEXT';
}
