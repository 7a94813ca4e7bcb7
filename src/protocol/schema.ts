/**
 * The declarative schema language for Kafka messages. One schema per API key
 * and direction covers every version (as Kafka's message JSON files do); the
 * generic codec in codec.ts compiles it once per version. Written from the
 * public protocol specification.
 *
 *   export const HeartbeatRequest = request(12, { versions: '0-4', flexible: '4+' }, [
 *     field('groupId', 'string'),
 *     field('generationId', 'int32'),
 *     field('groupInstanceId', 'nullableString', { versions: '3+' }),
 *   ]);
 *   export type HeartbeatRequest = Infer<typeof HeartbeatRequest>;
 *
 * Version ranges are written as Kafka writes them: '3+', '0-4', '5', 'none'.
 */

export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'nullableString'
  | 'bytes'
  | 'nullableBytes'
  | 'uuid'
  | 'records';

export interface ArrayType<E = unknown> {
  readonly kind: 'array';
  readonly element: E;
}

export interface StructType<F extends readonly FieldSpec[] = readonly FieldSpec[]> {
  readonly kind: 'struct';
  readonly fields: F;
}

export type TypeSpec = PrimitiveType | ArrayType<unknown> | StructType<readonly FieldSpec[]>;

export interface FieldOptions {
  /** Versions in which the field is on the wire (default: all of the message's). */
  readonly versions?: string;
  /** Versions in which null is allowed (strings, bytes, arrays, records). */
  readonly nullableVersions?: string;
  /** Tagged field number (flexible versions only, KIP-482). */
  readonly tag?: number;
  /** Versions in which the field is sent as a tagged field. */
  readonly taggedVersions?: string;
  /** Value used when the field is absent from a version, or omitted on encode. */
  readonly default?: unknown;
}

export interface FieldSpec<
  N extends string = string,
  T extends TypeSpec = TypeSpec,
  Nullable extends boolean = boolean,
  Optional extends boolean = boolean,
> {
  readonly name: N;
  readonly type: T;
  readonly options: FieldOptions;
  /** Type-level markers only. */
  readonly nullable?: Nullable;
  readonly optional?: Optional;
}

/** Records data: a Buffer on decode; on encode also a list of chunks (zero-copy fetch). */
export interface RecordChunks {
  readonly chunks: readonly Buffer[];
  readonly byteLength: number;
}
export type RecordsValue = Buffer | RecordChunks | null;

type PrimitiveValue<T extends PrimitiveType> = T extends 'bool'
  ? boolean
  : T extends 'int64'
    ? bigint
    : T extends 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float64'
      ? number
      : T extends 'string' | 'uuid'
        ? string
        : T extends 'nullableString'
          ? string | null
          : T extends 'bytes'
            ? Buffer
            : T extends 'nullableBytes'
              ? Buffer | null
              : T extends 'records'
                ? RecordsValue
                : never;

export type InferType<T> = T extends PrimitiveType
  ? PrimitiveValue<T>
  : T extends ArrayType<infer E>
    ? InferType<E>[]
    : T extends StructType<infer F>
      ? InferFields<F>
      : never;

type FieldValue<F> = F extends FieldSpec<string, infer T, infer Nullable, boolean>
  ? Nullable extends true
    ? InferType<T> | null
    : InferType<T>
  : never;

type RequiredNames<F extends readonly FieldSpec[]> = {
  [K in keyof F]: F[K] extends FieldSpec<infer N, TypeSpec, boolean, false> ? N : never;
}[number];

type OptionalNames<F extends readonly FieldSpec[]> = {
  [K in keyof F]: F[K] extends FieldSpec<infer N, TypeSpec, boolean, true> ? N : never;
}[number];

type FieldByName<F extends readonly FieldSpec[], N> = Extract<F[number], { readonly name: N }>;

/** The decoded shape: every field present (defaults fill absent versions). */
export type InferFields<F extends readonly FieldSpec[]> = {
  [N in F[number]['name']]: FieldValue<FieldByName<F, N>>;
};

/**
 * The shape accepted by the encoder: fields that have a default, exist only in
 * some versions, or are tagged may be left out.
 */
export type InputFields<F extends readonly FieldSpec[]> = {
  [N in RequiredNames<F>]: InputValue<FieldByName<F, N>>;
} & {
  [N in OptionalNames<F>]?: InputValue<FieldByName<F, N>>;
};

type InputType<T> = T extends PrimitiveType
  ? PrimitiveValue<T>
  : T extends ArrayType<infer E>
    ? readonly InputType<E>[]
    : T extends StructType<infer F>
      ? InputFields<F>
      : never;

type InputValue<F> = F extends FieldSpec<string, infer T, infer Nullable, boolean>
  ? Nullable extends true
    ? InputType<T> | null
    : InputType<T>
  : never;

type IsNullable<T, O> = T extends 'nullableString' | 'nullableBytes' | 'records'
  ? true
  : O extends { readonly nullableVersions: string }
    ? true
    : false;

type IsOptional<O> = O extends { readonly default: unknown }
  ? true
  : O extends { readonly versions: string }
    ? true
    : O extends { readonly tag: number }
      ? true
      : false;

export function field<const N extends string, const T extends TypeSpec, const O extends FieldOptions = {}>(
  name: N,
  type: T,
  options?: O,
): FieldSpec<N, T, IsNullable<T, O> extends true ? (T extends 'records' ? false : true) : false, IsOptional<O>> {
  return { name, type, options: options ?? {} };
}

export function array<const E extends TypeSpec>(element: E): ArrayType<E> {
  return { kind: 'array', element };
}

export function struct<const F extends readonly FieldSpec[]>(fields: F): StructType<F> {
  return { kind: 'struct', fields };
}

export interface MessageSchema<F extends readonly FieldSpec[] = readonly FieldSpec[]> {
  readonly apiKey: number;
  readonly kind: 'request' | 'response' | 'data';
  readonly name: string;
  /** Inclusive version range. */
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly flexible: VersionRange;
  readonly fields: F;
}

interface MessageOptions {
  readonly versions: string;
  readonly flexible: string;
  readonly name?: string;
}

function message<const F extends readonly FieldSpec[]>(
  kind: MessageSchema['kind'],
  apiKey: number,
  options: MessageOptions,
  fields: F,
): MessageSchema<F> {
  const range = parseVersionRange(options.versions);
  return {
    apiKey,
    kind,
    name: options.name ?? `${kind} ${apiKey}`,
    minVersion: range.min,
    maxVersion: range.max,
    flexible: parseVersionRange(options.flexible),
    fields,
  };
}

export function request<const F extends readonly FieldSpec[]>(apiKey: number, options: MessageOptions, fields: F): MessageSchema<F> {
  return message('request', apiKey, options, fields);
}

export function response<const F extends readonly FieldSpec[]>(apiKey: number, options: MessageOptions, fields: F): MessageSchema<F> {
  return message('response', apiKey, options, fields);
}

/** A versioned data structure that is not a request or response (metadata records, group metadata). */
export function data<const F extends readonly FieldSpec[]>(options: MessageOptions & { name: string }, fields: F): MessageSchema<F> {
  return message('data', -1, options, fields);
}

/** The decoded value of a message schema. */
export type Infer<S> = S extends MessageSchema<infer F> ? InferFields<F> : never;
/** What the encoder accepts for a message schema. */
export type Input<S> = S extends MessageSchema<infer F> ? InputFields<F> : never;

export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

const NO_VERSIONS: VersionRange = { min: 0, max: -1 };

/** Parses '3+', '0-4', '5' or 'none'. */
export function parseVersionRange(text: string): VersionRange {
  const t = text.trim();
  if (t === 'none' || t === '') return NO_VERSIONS;
  if (t.endsWith('+')) return { min: parseVersion(t.slice(0, -1), text), max: Number.MAX_SAFE_INTEGER };
  const dash = t.indexOf('-');
  if (dash >= 0) return { min: parseVersion(t.slice(0, dash), text), max: parseVersion(t.slice(dash + 1), text) };
  const v = parseVersion(t, text);
  return { min: v, max: v };
}

function parseVersion(part: string, whole: string): number {
  const n = Number(part);
  if (!Number.isInteger(n) || n < 0) throw new Error(`bad version range '${whole}'`);
  return n;
}

export function inRange(range: VersionRange, version: number): boolean {
  return version >= range.min && version <= range.max;
}
