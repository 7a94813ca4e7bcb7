/**
 * Flatten$Key / Flatten$Value (Kafka's Flatten): nested structs (or maps,
 * without a schema) become top-level fields named with the path joined by
 * `delimiter` (default "."). A field under an optional struct becomes
 * optional. Arrays and maps with a schema are kept as they are.
 */
import { ConfigDef, ParsedConfig } from '../config-def.js';
import { Struct, isPlainObject, type Schema } from '../data/schema.js';
import type { ConnectRecord } from '../spi.js';
import { keyValuePair, requireMap, requireStruct, structWithBasics, type Operand, type Transformation } from './transformation.js';

const DEF = new ConfigDef().define({ name: 'delimiter', type: 'STRING', defaultValue: '.', importance: 'MEDIUM', documentation: 'Delimiter to insert between field names from the input record when generating field names for the output record' });

function flattenMap(map: Record<string, unknown>, prefix: string, delimiter: string, out: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(map)) {
    const name = prefix === '' ? k : `${prefix}${delimiter}${k}`;
    if (isPlainObject(v)) flattenMap(v, name, delimiter, out);
    else out[name] = v;
  }
}

function flattenSchema(schema: Schema, prefix: string, optional: boolean, delimiter: string, out: [string, Schema][]): void {
  for (const f of schema.fields ?? []) {
    const name = prefix === '' ? f.name : `${prefix}${delimiter}${f.name}`;
    if (f.schema.type === 'struct') flattenSchema(f.schema, name, optional || f.schema.optional, delimiter, out);
    else out.push([name, optional && !f.schema.optional ? { ...f.schema, optional: true } : f.schema]);
  }
}

function flattenStruct(struct: Struct | null, schema: Schema, prefix: string, delimiter: string, out: Struct): void {
  for (const f of schema.fields ?? []) {
    const name = prefix === '' ? f.name : `${prefix}${delimiter}${f.name}`;
    const v = struct === null ? null : struct.get(f.name);
    if (f.schema.type === 'struct') flattenStruct(v instanceof Struct ? v : null, f.schema, name, delimiter, out);
    else if (v !== null && v !== undefined) out.put(name, v);
  }
}

function make(operand: Operand): new () => Transformation {
  return class Flatten implements Transformation {
    private delimiter = '.';

    config(): ConfigDef {
      return DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      this.delimiter = ParsedConfig.of(DEF, props).string('delimiter');
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      const schema = operand.schema(record);
      if (schema === null) {
        if (value === null || value === undefined) return record;
        const out: Record<string, unknown> = {};
        flattenMap(requireMap(value, 'flattening'), '', this.delimiter, out);
        return operand.with(record, null, out);
      }
      const fields: [string, Schema][] = [];
      flattenSchema(schema, '', false, this.delimiter, fields);
      const newSchema = structWithBasics(schema, fields, schema.optional);
      if (value === null || value === undefined) return operand.with(record, newSchema, null);
      const out = new Struct(newSchema);
      flattenStruct(requireStruct(value, 'flattening'), schema, '', this.delimiter, out);
      return operand.with(record, newSchema, out);
    }
  };
}

export const Flatten = keyValuePair(make);
