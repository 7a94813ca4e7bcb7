/**
 * MaskField$Key / MaskField$Value (Kafka's MaskField): replaces the listed
 * fields with the "empty" value of their type (0, false, "", empty bytes,
 * list or map), or with `replacement` parsed as the field's type (numbers
 * and strings only, as Kafka).
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import { DataError, Struct, type SchemaType } from '../data/schema.js';
import type { ConnectRecord } from '../spi.js';
import { keyValuePair, requireMap, requireStruct, type Operand, type Transformation } from './transformation.js';

const PURPOSE = 'mask fields';

const DEF = new ConfigDef()
  .define({ name: 'fields', type: 'LIST', importance: 'HIGH', documentation: 'Names of fields to mask.', validator: Validators.nonEmptyList() })
  .define({ name: 'replacement', type: 'STRING', defaultValue: null, importance: 'LOW', documentation: 'Custom value replacement, that will be applied to all \'fields\' values (numeric or non-empty string values only).' })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

/** The type of a schemaless value, in schema terms. */
function typeOfValue(v: unknown): SchemaType | null {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (Buffer.isBuffer(v)) return 'bytes';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object' && v !== null) return 'map';
  return null;
}

function emptyOf(type: SchemaType | null): unknown {
  switch (type) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'bytes':
      return Buffer.alloc(0);
    case 'array':
      return [];
    case 'map':
      return {};
    case null:
    case 'struct':
      return null;
    default:
      return 0;
  }
}

function replacementOf(type: SchemaType | null, replacement: string): unknown {
  if (type === 'string') return replacement;
  if (type !== null && ['int8', 'int16', 'int32', 'int64', 'float32', 'float64'].includes(type)) {
    const n = Number(replacement);
    const integer = type.startsWith('int');
    if (replacement.trim() === '' || Number.isNaN(n) || (integer && !Number.isInteger(n))) {
      throw new DataError(`Unable to convert ${replacement} (${replacement}) to number`);
    }
    return n;
  }
  throw new DataError(`Cannot mask value of type ${String(type)} with custom replacement.`);
}

function make(operand: Operand): new () => Transformation {
  return class MaskField implements Transformation {
    private fields = new Set<string>();
    private replacement: string | null = null;

    config(): ConfigDef {
      return DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      const c = ParsedConfig.of(DEF, props);
      this.fields = new Set(c.list('fields'));
      this.replacement = c.stringOrNull('replacement');
    }

    private masked(type: SchemaType | null, value: unknown): unknown {
      if (value === null || value === undefined) return value;
      return this.replacement === null ? emptyOf(type) : replacementOf(type, this.replacement);
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      if (value === null || value === undefined) return record;
      const schema = operand.schema(record);
      if (schema === null) {
        const out = { ...requireMap(value, PURPOSE) };
        for (const f of this.fields) if (f in out) out[f] = this.masked(typeOfValue(out[f]), out[f]);
        return operand.with(record, null, out);
      }
      const struct = requireStruct(value, PURPOSE);
      const out = new Struct(schema);
      for (const f of schema.fields ?? []) {
        const v = struct.get(f.name);
        out.put(f.name, this.fields.has(f.name) ? this.masked(f.schema.type, v) : v);
      }
      return operand.with(record, schema, out);
    }
  };
}

export const MaskField = keyValuePair(make);
