/**
 * InsertField$Key / InsertField$Value (Kafka's InsertField): adds the
 * record's topic, partition, offset (sink records only), timestamp and a
 * static string to a struct or map. A field name ending in `!` is required,
 * `?` (the default) optional. Tombstones pass unchanged.
 */
import { ConfigDef, ConfigException, ParsedConfig } from '../config-def.js';
import { DataError, Schemas, Struct, type Schema } from '../data/schema.js';
import type { ConnectRecord } from '../spi.js';
import { keyValuePair, requireMap, requireStruct, structWithBasics, type Operand, type Transformation } from './transformation.js';

const PURPOSE = 'field insertion';
export const TIMESTAMP_SCHEMA_NAME = 'org.apache.kafka.connect.data.Timestamp';

interface InsertionSpec {
  name: string;
  optional: boolean;
}

function spec(raw: string | null): InsertionSpec | null {
  if (raw === null || raw === '') return null;
  if (raw.endsWith('!')) return { name: raw.slice(0, -1), optional: false };
  if (raw.endsWith('?')) return { name: raw.slice(0, -1), optional: true };
  return { name: raw, optional: true };
}

const doc = (what: string): string => `Field name for ${what}. Suffix with ! to make this a required field, or ? to keep it optional (the default).`;
const DEF = new ConfigDef()
  .define({ name: 'topic.field', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: doc('Kafka topic') })
  .define({ name: 'partition.field', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: doc('Kafka partition') })
  .define({ name: 'offset.field', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: doc('Kafka offset (sink connectors only)') })
  .define({ name: 'timestamp.field', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: doc('record timestamp') })
  .define({ name: 'static.field', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: doc('static data') })
  .define({ name: 'static.value', type: 'STRING', defaultValue: null, importance: 'MEDIUM', documentation: 'Static field value, if field name configured.' })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

interface Insertion {
  spec: InsertionSpec;
  schema: Schema;
  value: (record: ConnectRecord) => unknown;
}

function make(operand: Operand): new () => Transformation {
  return class InsertField implements Transformation {
    private insertions: Insertion[] = [];

    config(): ConfigDef {
      return DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      const c = ParsedConfig.of(DEF, props);
      const staticValue = c.stringOrNull('static.value');
      const add = (key: string, schema: Schema, value: (r: ConnectRecord) => unknown): void => {
        const s = spec(c.stringOrNull(key));
        if (s !== null) this.insertions.push({ spec: s, schema: s.optional ? { ...schema, optional: true } : schema, value });
      };
      add('topic.field', Schemas.string(), (r) => r.topic);
      add('partition.field', Schemas.int32(), (r) => r.kafkaPartition);
      add('offset.field', Schemas.int64(), (r) => {
        if (!('kafkaOffset' in r)) throw new DataError('Offset insertion is only supported for sink connectors, record is of type source record');
        return Number(r.kafkaOffset);
      });
      add('timestamp.field', Schemas.int64({ name: TIMESTAMP_SCHEMA_NAME, version: 1 }), (r) => r.timestamp);
      add('static.field', Schemas.string(), () => staticValue);
      if (this.insertions.length === 0) throw new ConfigException('No field insertion configured');
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      if (value === null || value === undefined) return record;
      const schema = operand.schema(record);
      if (schema === null) {
        const updated = { ...requireMap(value, PURPOSE) };
        for (const ins of this.insertions) updated[ins.spec.name] = ins.value(record);
        return operand.with(record, null, updated);
      }
      const struct = requireStruct(value, PURPOSE);
      const fields: [string, Schema][] = (schema.fields ?? []).map((f) => [f.name, f.schema]);
      for (const ins of this.insertions) fields.push([ins.spec.name, ins.schema]);
      const newSchema = structWithBasics(schema, fields);
      const out = new Struct(newSchema);
      for (const f of schema.fields ?? []) out.put(f.name, struct.get(f.name));
      for (const ins of this.insertions) {
        const v = ins.value(record);
        if (v !== null && v !== undefined) out.put(ins.spec.name, v);
        else if (!ins.spec.optional) throw new DataError(`Required field ${ins.spec.name} has no value`);
      }
      return operand.with(record, newSchema, out);
    }
  };
}

export const InsertField = keyValuePair(make);
