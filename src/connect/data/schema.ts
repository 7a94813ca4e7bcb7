/**
 * Connect's data model, as Kafka's `org.apache.kafka.connect.data`: a
 * `Schema` describes a key or value (primitive, array, map or struct, optional
 * or not, with an optional name, version, doc, parameters and default), and a
 * `Struct` is a value of a struct schema. Schemaless data (a converter with
 * schemas disabled) uses plain JS values: objects for maps, arrays, strings,
 * numbers, booleans, Buffers, null.
 *
 * Numbers: every integer and float type is a JS number (int64 beyond 2^53
 * loses precision, as it would in any JSON reader of JS); `bytes` is a Buffer.
 */

export type SchemaType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

export const PRIMITIVE_TYPES: readonly SchemaType[] = ['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string', 'bytes'];

export interface Field {
  readonly name: string;
  readonly index: number;
  readonly schema: Schema;
}

export interface Schema {
  readonly type: SchemaType;
  readonly optional: boolean;
  readonly name?: string;
  readonly version?: number;
  readonly doc?: string;
  readonly parameters?: Readonly<Record<string, string>>;
  readonly defaultValue?: unknown;
  /** Struct fields, in order. */
  readonly fields?: readonly Field[];
  /** Map keys. */
  readonly keySchema?: Schema;
  /** Array items and map values. */
  readonly valueSchema?: Schema;
}

export type ConnectValue = unknown;

/** Options shared by the schema constructors below. */
export interface SchemaOptions {
  optional?: boolean;
  name?: string;
  version?: number;
  doc?: string;
  parameters?: Record<string, string>;
  defaultValue?: unknown;
}

function withOptions(type: SchemaType, o: SchemaOptions, extra: Partial<Schema> = {}): Schema {
  const s: { -readonly [K in keyof Schema]: Schema[K] } = { type, optional: o.optional ?? false, ...extra };
  if (o.name !== undefined) s.name = o.name;
  if (o.version !== undefined) s.version = o.version;
  if (o.doc !== undefined) s.doc = o.doc;
  if (o.parameters !== undefined) s.parameters = o.parameters;
  if (o.defaultValue !== undefined) s.defaultValue = o.defaultValue;
  return s;
}

/** Schema constructors, as Kafka's SchemaBuilder (`Schemas.struct([['id', Schemas.int32()]])`). */
export const Schemas = {
  primitive: (type: SchemaType, o: SchemaOptions = {}): Schema => withOptions(type, o),
  int8: (o: SchemaOptions = {}): Schema => withOptions('int8', o),
  int16: (o: SchemaOptions = {}): Schema => withOptions('int16', o),
  int32: (o: SchemaOptions = {}): Schema => withOptions('int32', o),
  int64: (o: SchemaOptions = {}): Schema => withOptions('int64', o),
  float32: (o: SchemaOptions = {}): Schema => withOptions('float32', o),
  float64: (o: SchemaOptions = {}): Schema => withOptions('float64', o),
  boolean: (o: SchemaOptions = {}): Schema => withOptions('boolean', o),
  string: (o: SchemaOptions = {}): Schema => withOptions('string', o),
  bytes: (o: SchemaOptions = {}): Schema => withOptions('bytes', o),
  array: (items: Schema, o: SchemaOptions = {}): Schema => withOptions('array', o, { valueSchema: items }),
  map: (keys: Schema, values: Schema, o: SchemaOptions = {}): Schema => withOptions('map', o, { keySchema: keys, valueSchema: values }),
  struct: (fields: readonly (readonly [string, Schema])[], o: SchemaOptions = {}): Schema =>
    withOptions('struct', o, { fields: fields.map(([name, schema], index) => ({ name, index, schema })) }),
} as const;

/** The same schema, optional (Kafka's `SchemaBuilder.optional()` on a copy). */
export function asOptional(schema: Schema): Schema {
  return schema.optional ? schema : { ...schema, optional: true };
}

export function fieldOf(schema: Schema, name: string): Field | undefined {
  return schema.fields?.find((f) => f.name === name);
}

/** A value of a struct schema: field values by name, checked against the schema. */
export class Struct {
  readonly schema: Schema;
  private readonly values = new Map<string, unknown>();

  constructor(schema: Schema) {
    if (schema.type !== 'struct') throw new DataError(`Struct needs a struct schema, got ${schema.type}`);
    this.schema = schema;
  }

  put(name: string, value: unknown): this {
    const field = fieldOf(this.schema, name);
    if (field === undefined) throw new DataError(`${name} is not a valid field name`);
    validateValue(field.schema, value, name);
    this.values.set(name, value);
    return this;
  }

  /** The field's value, or its schema's default when unset. */
  get(name: string): unknown {
    const field = fieldOf(this.schema, name);
    if (field === undefined) throw new DataError(`${name} is not a valid field name`);
    return this.values.has(name) ? this.values.get(name) : (field.schema.defaultValue ?? null);
  }

  /** Fails when a required field is unset (Kafka's Struct.validate). */
  validate(): void {
    for (const f of this.schema.fields ?? []) validateValue(f.schema, this.get(f.name), f.name);
  }

  equals(other: unknown): boolean {
    if (!(other instanceof Struct) || !schemaEquals(this.schema, other.schema)) return false;
    return (this.schema.fields ?? []).every((f) => valueEquals(this.get(f.name), other.get(f.name)));
  }
}

/** A value that does not fit its schema, or data a converter cannot read (Kafka's DataException). */
export class DataError extends Error {
  override readonly name = 'DataException';
}

const INT_RANGES: Partial<Record<SchemaType, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** Throws DataError when value does not match schema (Kafka's ConnectSchema.validateValue). */
export function validateValue(schema: Schema, value: unknown, where = 'value'): void {
  if (value === null || value === undefined) {
    if (schema.optional || schema.defaultValue !== undefined) return;
    throw new DataError(`Invalid value: null used for required field: "${where}", schema type: ${schema.type.toUpperCase()}`);
  }
  const bad = (): never => {
    throw new DataError(`Invalid Java object for schema with type ${schema.type.toUpperCase()}: ${typeof value} for field: "${where}"`);
  };
  const range = INT_RANGES[schema.type];
  if (range !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range[0] || value > range[1]) bad();
    return;
  }
  switch (schema.type) {
    case 'float32':
    case 'float64':
      if (typeof value !== 'number') bad();
      return;
    case 'boolean':
      if (typeof value !== 'boolean') bad();
      return;
    case 'string':
      if (typeof value !== 'string') bad();
      return;
    case 'bytes':
      if (!Buffer.isBuffer(value)) bad();
      return;
    case 'array':
      if (!Array.isArray(value)) bad();
      return;
    case 'map':
      if (typeof value !== 'object' || Array.isArray(value) || Buffer.isBuffer(value) || value instanceof Struct) bad();
      return;
    case 'struct':
      if (!(value instanceof Struct) || !schemaEquals(value.schema, schema)) bad();
      return;
    default:
      bad();
  }
}

export function schemaEquals(a: Schema | null | undefined, b: Schema | null | undefined): boolean {
  if (a === b) return true;
  if (a == null || b == null) return false;
  if (a.type !== b.type || a.optional !== b.optional || a.name !== b.name || a.version !== b.version || a.doc !== b.doc) return false;
  if (JSON.stringify(a.parameters ?? null) !== JSON.stringify(b.parameters ?? null)) return false;
  if (!valueEquals(a.defaultValue ?? null, b.defaultValue ?? null)) return false;
  if (!schemaEquals(a.keySchema, b.keySchema) || !schemaEquals(a.valueSchema, b.valueSchema)) return false;
  const fa = a.fields ?? [];
  const fb = b.fields ?? [];
  return fa.length === fb.length && fa.every((f, i) => f.name === fb[i]?.name && schemaEquals(f.schema, fb[i]?.schema));
}

export function valueEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Struct) return a.equals(b);
  if (Buffer.isBuffer(a)) return Buffer.isBuffer(b) && a.equals(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => valueEquals(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    const ob = b as Record<string, unknown>;
    return ka.length === Object.keys(b).length && ka.every((k) => valueEquals((a as Record<string, unknown>)[k], ob[k]));
  }
  return false;
}

/** A plain object (a schemaless map), narrowed. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value) && !(value instanceof Struct);
}
