/**
 * Connect values to and from the JSON of Kafka's JsonConverter payload,
 * driven by the schema (Kafka's `convertToJson`/`convertToConnect`): bytes
 * as base64, maps with string keys as objects and other maps as arrays of
 * `[key, value]` pairs, structs as objects in field order, and a null with a
 * default written as the default (replace.null.with.default, on by default).
 */
import { DataError, Struct, isPlainObject, type Schema } from '../data/schema.js';
import { JsonNumber, toJsonNode, type JsonNode } from './java-json.js';

const NUMBER_KIND = { int8: 'int', int16: 'int', int32: 'int', int64: 'int', float32: 'float', float64: 'double' } as const;

export function valueToJson(schema: Schema | null, value: unknown, replaceNullWithDefault = true): JsonNode {
  if (schema === null) return toJsonNode(value);
  if (value === null || value === undefined) {
    if (replaceNullWithDefault && schema.defaultValue !== undefined && schema.defaultValue !== null) return valueToJson(schema, schema.defaultValue);
    if (schema.optional) return null;
    throw new DataError('Conversion error: null value for field that is required and has no default value');
  }
  const bad = (): never => {
    throw new DataError(`Invalid type for ${schema.type.toUpperCase()}: ${typeof value}`);
  };
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
      if (typeof value !== 'number') bad();
      return new JsonNumber(value as number, NUMBER_KIND[schema.type]);
    case 'boolean':
      return typeof value === 'boolean' ? value : bad();
    case 'string':
      return typeof value === 'string' ? value : bad();
    case 'bytes':
      return Buffer.isBuffer(value) ? value.toString('base64') : bad();
    case 'array': {
      if (!Array.isArray(value)) bad();
      const items = schema.valueSchema ?? null;
      return (value as unknown[]).map((v) => valueToJson(items, v, replaceNullWithDefault));
    }
    case 'map':
      return mapToJson(schema, value, replaceNullWithDefault);
    case 'struct': {
      if (!(value instanceof Struct)) return bad();
      const out: { [key: string]: JsonNode } = {};
      for (const f of schema.fields ?? []) out[f.name] = valueToJson(f.schema, value.get(f.name), replaceNullWithDefault);
      return out;
    }
  }
}

function mapToJson(schema: Schema, value: unknown, replace: boolean): JsonNode {
  const entries: [unknown, unknown][] = value instanceof Map ? [...(value as Map<unknown, unknown>).entries()] : isPlainObject(value) ? Object.entries(value) : [];
  if (!(value instanceof Map) && !isPlainObject(value)) throw new DataError('Invalid type for MAP');
  const keySchema = schema.keySchema ?? null;
  const valueSchema = schema.valueSchema ?? null;
  if (keySchema === null || keySchema.type === 'string') {
    const out: { [key: string]: JsonNode } = {};
    for (const [k, v] of entries) out[String(k)] = valueToJson(valueSchema, v, replace);
    return out;
  }
  return entries.map(([k, v]) => [valueToJson(keySchema, k, replace), valueToJson(valueSchema, v, replace)]);
}

function integer(schema: Schema, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new DataError(`Invalid type for ${schema.type.toUpperCase()}: ${typeof v}`);
  return v;
}

/** A Connect value from parsed JSON, checked against the schema. */
export function valueFromJson(schema: Schema | null, json: unknown): unknown {
  if (schema === null) return json;
  if (json === null || json === undefined) {
    if (schema.defaultValue !== undefined) return schema.defaultValue;
    if (schema.optional) return null;
    throw new DataError(`Invalid null value for required ${schema.type.toUpperCase()} field`);
  }
  const bad = (): never => {
    throw new DataError(`Invalid type for ${schema.type.toUpperCase()}: ${Array.isArray(json) ? 'array' : typeof json}`);
  };
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return integer(schema, json);
    case 'float32':
      return typeof json === 'number' ? Math.fround(json) : bad();
    case 'float64':
      return typeof json === 'number' ? json : bad();
    case 'boolean':
      return typeof json === 'boolean' ? json : bad();
    case 'string':
      return typeof json === 'string' ? json : bad();
    case 'bytes':
      return typeof json === 'string' ? Buffer.from(json, 'base64') : bad();
    case 'array':
      return Array.isArray(json) ? json.map((v) => valueFromJson(schema.valueSchema ?? null, v)) : bad();
    case 'map':
      return mapFromJson(schema, json);
    case 'struct': {
      if (typeof json !== 'object' || Array.isArray(json)) return bad();
      const struct = new Struct(schema);
      const o = json as Record<string, unknown>;
      for (const f of schema.fields ?? []) struct.put(f.name, valueFromJson(f.schema, o[f.name]));
      return struct;
    }
  }
}

function mapFromJson(schema: Schema, json: unknown): unknown {
  const keySchema = schema.keySchema ?? null;
  const valueSchema = schema.valueSchema ?? null;
  if (keySchema === null || keySchema.type === 'string') {
    if (!isPlainObject(json)) throw new DataError('Maps with string fields should be encoded as JSON objects');
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(json)) out[k] = valueFromJson(valueSchema, v);
    return out;
  }
  if (!Array.isArray(json)) throw new DataError('Maps with non-string fields should be encoded as JSON array of tuples');
  const out = new Map<unknown, unknown>();
  for (const pair of json) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new DataError('Found invalid map entry instead of array tuple');
    out.set(valueFromJson(keySchema, pair[0]), valueFromJson(valueSchema, pair[1]));
  }
  return out;
}
