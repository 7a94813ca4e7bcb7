/**
 * The single message transform and predicate interfaces (Kafka's
 * `Transformation` and `Predicate`), and the `$Key`/`$Value` operand that
 * lets one transform class work on either side of a record.
 */
import type { ConfigDef } from '../config-def.js';
import { DataError, Schemas, Struct, isPlainObject, type Schema } from '../data/schema.js';
import { withChanges, type ConnectRecord } from '../spi.js';

export interface Transformation {
  configure(props: Readonly<Record<string, string>>): void;
  /** The transformed record, or null to drop it. */
  apply<R extends ConnectRecord>(record: R): R | null;
  config(): ConfigDef;
  close?(): void;
}

export interface Predicate {
  configure(props: Readonly<Record<string, string>>): void;
  test(record: ConnectRecord): boolean;
  config(): ConfigDef;
}

export type TransformationClass = new () => Transformation;
export type PredicateClass = new () => Predicate;

/** The key or the value of a record. */
export interface Operand {
  readonly name: 'key' | 'value';
  schema(record: ConnectRecord): Schema | null;
  value(record: ConnectRecord): unknown;
  with<R extends ConnectRecord>(record: R, schema: Schema | null, value: unknown): R;
}

export const KEY: Operand = {
  name: 'key',
  schema: (r) => r.keySchema,
  value: (r) => r.key,
  with: (r, schema, value) => withChanges(r, { keySchema: schema, key: value }),
};

export const VALUE: Operand = {
  name: 'value',
  schema: (r) => r.valueSchema,
  value: (r) => r.value,
  with: (r, schema, value) => withChanges(r, { valueSchema: schema, value }),
};

/** Kafka's Requirements.requireStruct: the error names the transform's purpose. */
export function requireStruct(value: unknown, purpose: string): Struct {
  if (!(value instanceof Struct)) throw new DataError(`Only Struct objects supported for [${purpose}], found: ${describe(value)}`);
  return value;
}

/** Kafka's Requirements.requireMap. */
export function requireMap(value: unknown, purpose: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new DataError(`Only Map objects supported in absence of schema for [${purpose}], found: ${describe(value)}`);
  return value;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'java.util.ArrayList';
  if (value instanceof Struct) return 'org.apache.kafka.connect.data.Struct';
  return typeof value;
}

/** Builds a transform class pair `X$Key`/`X$Value` from a factory taking the operand. */
export function keyValuePair(make: (operand: Operand) => TransformationClass): { Key: TransformationClass; Value: TransformationClass } {
  return { Key: make(KEY), Value: make(VALUE) };
}

/** A struct schema with these fields and the basics (name, version, doc, parameters) of `base` (Kafka's SchemaUtil.copySchemaBasics). */
export function structWithBasics(base: Schema, fields: readonly (readonly [string, Schema])[], optional = false): Schema {
  return Schemas.struct(fields, {
    optional,
    ...(base.name !== undefined ? { name: base.name } : {}),
    ...(base.version !== undefined ? { version: base.version } : {}),
    ...(base.doc !== undefined ? { doc: base.doc } : {}),
    ...(base.parameters !== undefined ? { parameters: { ...base.parameters } } : {}),
  });
}
