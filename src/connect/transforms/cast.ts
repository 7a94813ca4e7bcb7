/**
 * Cast$Key / Cast$Value (Kafka's Cast): `spec=int32` casts a whole primitive
 * key or value, `spec=a:int64,b:string` casts fields of a struct or map.
 * Targets: int8, int16, int32, int64, float32, float64, boolean, string.
 * Numbers narrow as Java's casts do (truncate, then wrap); strings parse;
 * booleans become 1/0; anything becomes its Java string form (bytes as
 * base64).
 */
import { ConfigDef, ConfigException, ParsedConfig, Validators } from '../config-def.js';
import { DataError, Struct, isPlainObject, type Schema, type SchemaType } from '../data/schema.js';
import { javaDouble, javaFloat } from '../converters/java-json.js';
import type { ConnectRecord } from '../spi.js';
import { keyValuePair, requireStruct, structWithBasics, type Operand, type Transformation } from './transformation.js';

const TARGETS = new Set<SchemaType>(['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string']);
const WHOLE = '';

const DEF = new ConfigDef()
  .define({ name: 'spec', type: 'LIST', importance: 'HIGH', documentation: 'List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or Structs. A single type to cast the entire value.', validator: Validators.nonEmptyList() })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

function parseSpec(items: string[]): Map<string, SchemaType> {
  const casts = new Map<string, SchemaType>();
  for (const item of items) {
    const parts = item.split(':');
    const [field, type] = parts.length === 1 ? [WHOLE, parts[0] ?? ''] : [parts[0] ?? '', parts[1] ?? ''];
    const t = type.trim().toLowerCase() as SchemaType;
    if (parts.length > 2 || !TARGETS.has(t)) throw new ConfigException(`Invalid value ${items.join(',')} for configuration spec: Invalid cast mapping: ${item}`);
    casts.set(field.trim(), t);
  }
  if (casts.has(WHOLE) && casts.size > 1) throw new ConfigException('Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec');
  return casts;
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const n = Number(value.trim());
    if (value.trim() === '' || Number.isNaN(n)) throw new DataError(`Unexpected type in Cast transformation: cannot parse "${value}" as a number`);
    return n;
  }
  throw new DataError(`Unexpected type in Cast transformation: ${typeof value}`);
}

/** Casts one value (null stays null). `from` is the source schema type when known, for the string form of floats. */
export function castValue(value: unknown, target: SchemaType, from: SchemaType | null = null): unknown {
  if (value === null || value === undefined) return null;
  switch (target) {
    case 'int8':
      return (Math.trunc(toNumber(value)) << 24) >> 24;
    case 'int16':
      return (Math.trunc(toNumber(value)) << 16) >> 16;
    case 'int32':
      return Math.trunc(toNumber(value)) | 0;
    case 'int64':
      return Math.trunc(toNumber(value));
    case 'float32':
      return Math.fround(toNumber(value));
    case 'float64':
      return toNumber(value);
    case 'boolean':
      if (typeof value === 'string') return value.trim().toLowerCase() === 'true';
      return toNumber(value) !== 0;
    case 'string':
      if (Buffer.isBuffer(value)) return value.toString('base64');
      if (typeof value === 'number') return from === 'float32' ? javaFloat(value) : from === 'float64' || !Number.isInteger(value) ? javaDouble(value) : String(value);
      return String(value);
    default:
      throw new DataError(`Cannot cast to ${target}`);
  }
}

function make(operand: Operand): new () => Transformation {
  return class Cast implements Transformation {
    private casts = new Map<string, SchemaType>();

    config(): ConfigDef {
      return DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      this.casts = parseSpec(ParsedConfig.of(DEF, props).list('spec'));
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      const schema = operand.schema(record);
      const whole = this.casts.get(WHOLE);
      if (whole !== undefined) {
        const newSchema = schema === null ? null : { type: whole, optional: schema.optional };
        return operand.with(record, newSchema, castValue(value, whole, schema?.type ?? null));
      }
      if (value === null || value === undefined) return record;
      if (schema === null) {
        if (!isPlainObject(value)) throw new DataError('Only Map objects supported in absence of schema for [cast types], found: ' + typeof value);
        const out = { ...value };
        for (const [f, t] of this.casts) if (f in out) out[f] = castValue(out[f], t);
        return operand.with(record, null, out);
      }
      return this.castStruct(record, schema, requireStruct(value, 'cast types'));
    }

    private castStruct<R extends ConnectRecord>(record: R, schema: Schema, struct: Struct): R {
      const fields = (schema.fields ?? []).map((f) => {
        const t = this.casts.get(f.name);
        return [f.name, t === undefined ? f.schema : ({ type: t, optional: f.schema.optional } as Schema)] as const;
      });
      const newSchema = structWithBasics(schema, fields, schema.optional);
      const out = new Struct(newSchema);
      for (const f of schema.fields ?? []) {
        const t = this.casts.get(f.name);
        const v = struct.get(f.name);
        out.put(f.name, t === undefined ? v : castValue(v, t, f.schema.type));
      }
      return operand.with(record, newSchema, out);
    }
  };
}

export const Cast = keyValuePair(make);
