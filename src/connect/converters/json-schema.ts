/**
 * Connect schemas as the JSON of Kafka's JsonConverter envelope
 * (`{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"x"}`)
 * and back. Key order follows Kafka's `asJsonSchema`: type, then
 * items/keys/values/fields, optional, name, version, doc, parameters,
 * default; a field's schema gets its `field` name last.
 */
import { DataError, PRIMITIVE_TYPES, type Schema, type SchemaType } from '../data/schema.js';
import { JsonNumber, type JsonNode } from './java-json.js';
import { valueFromJson, valueToJson } from './json-values.js';

/** Kafka's JSON names of the float types ("float", "double"); the others are the type's name. */
const JSON_TYPE_NAME: Partial<Record<SchemaType, string>> = { float32: 'float', float64: 'double' };
const TYPE_FROM_JSON: Readonly<Record<string, SchemaType>> = Object.fromEntries(
  [...PRIMITIVE_TYPES, 'array', 'map', 'struct'].map((t) => [JSON_TYPE_NAME[t as SchemaType] ?? t, t as SchemaType]),
);

export function schemaToJson(schema: Schema): { [key: string]: JsonNode } {
  const out: { [key: string]: JsonNode } = { type: JSON_TYPE_NAME[schema.type] ?? schema.type };
  if (schema.type === 'array') out.items = schemaToJson(need(schema.valueSchema, 'array items'));
  if (schema.type === 'map') {
    out.keys = schemaToJson(need(schema.keySchema, 'map keys'));
    out.values = schemaToJson(need(schema.valueSchema, 'map values'));
  }
  if (schema.type === 'struct') out.fields = (schema.fields ?? []).map((f) => ({ ...schemaToJson(f.schema), field: f.name }));
  out.optional = schema.optional;
  if (schema.name !== undefined) out.name = schema.name;
  if (schema.version !== undefined) out.version = new JsonNumber(schema.version, 'int');
  if (schema.doc !== undefined) out.doc = schema.doc;
  if (schema.parameters !== undefined) out.parameters = { ...schema.parameters };
  if (schema.defaultValue !== undefined && schema.defaultValue !== null) out.default = valueToJson(schema, schema.defaultValue);
  return out;
}

function need(schema: Schema | undefined, what: string): Schema {
  if (schema === undefined) throw new DataError(`schema without ${what}`);
  return schema;
}

function obj(node: unknown, what: string): Record<string, unknown> {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new DataError(`${what} must be a JSON object`);
  return node as Record<string, unknown>;
}

/** A schema from the envelope's `schema` JSON (as parsed by JSON.parse); throws DataError when malformed. */
export function schemaFromJson(node: unknown): Schema {
  const o = obj(node, 'Schema');
  const type = typeof o.type === 'string' ? TYPE_FROM_JSON[o.type] : undefined;
  if (type === undefined) throw new DataError(`Unknown schema type: ${String(o.type)}`);
  const s: { -readonly [K in keyof Schema]: Schema[K] } = { type, optional: o.optional === true };
  if (type === 'array') s.valueSchema = schemaFromJson(o.items);
  if (type === 'map') {
    s.keySchema = schemaFromJson(o.keys);
    s.valueSchema = schemaFromJson(o.values);
  }
  if (type === 'struct') {
    if (!Array.isArray(o.fields)) throw new DataError('Struct schema\'s "fields" argument is not an array.');
    s.fields = o.fields.map((f, index) => {
      const fo = obj(f, 'Struct field');
      if (typeof fo.field !== 'string') throw new DataError('Struct schema\'s field name not specified properly');
      return { name: fo.field, index, schema: schemaFromJson(fo) };
    });
  }
  if (typeof o.name === 'string') s.name = o.name;
  if (typeof o.version === 'number') s.version = o.version;
  if (typeof o.doc === 'string') s.doc = o.doc;
  if (o.parameters !== undefined && o.parameters !== null) {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(o.parameters, 'Schema parameters'))) params[k] = String(v);
    s.parameters = params;
  }
  if (o.default !== undefined && o.default !== null) s.defaultValue = valueFromJson({ ...s }, o.default);
  return s;
}
