/**
 * fast-check arbitraries for any message schema, driven by the schema DSL
 * alone (no knowledge of particular APIs): for a (schema, version) they build
 * random values holding exactly the fields that exist in that version, with
 * nulls only where that version allows them, integers within their wire
 * range, int64 as bigint, uuids as 22-character base64url strings, strings
 * with non-ASCII text, records as random Buffers or null. Tagged fields are
 * sometimes left out, sometimes set to their default and sometimes random.
 * With `boundaryLengths`, one string, bytes field or top-level array in
 * BOUNDARY_WEIGHT takes a length where a compact length prefix (uvarint of
 * length + 1) grows by a byte: 127/128 (two bytes) and 16383/16384 (three
 * bytes), so multi-byte prefixes are on the wire, not only one-byte ones
 * (opt-in: such values make the every-truncation checks quadratic).
 */
import fc from 'fast-check';
import { inRange, parseVersionRange, type FieldSpec, type MessageSchema, type TypeSpec } from '../../../src/protocol/schema.js';

export interface ArbitraryLimits {
  /** Longest array at the top level; nested arrays get shorter. */
  readonly arrayLengthMax: number;
  /** Longest string in UTF-16 code units (classic strings must stay under 32 KiB of UTF-8). */
  readonly stringLengthMax: number;
  readonly bytesLengthMax: number;
  /** Sometimes use lengths around the compact-prefix steps (see above). */
  readonly boundaryLengths?: boolean;
}

const DEFAULT_LIMITS: ArbitraryLimits = { arrayLengthMax: 4, stringLengthMax: 16, bytesLengthMax: 48 };
/** DEFAULT_LIMITS plus lengths around the compact-prefix steps. */
export const BOUNDARY_LIMITS: ArbitraryLimits = { ...DEFAULT_LIMITS, boundaryLengths: true };

/** Lengths around the 1->2 and 2->3 byte steps of a compact length prefix. */
const STRING_BOUNDARY_LENGTHS = [126, 127, 128, 16382, 16383, 16384] as const;
/** Array elements cost more: only the 1->2 byte step. */
const ARRAY_BOUNDARY_LENGTHS = [126, 127, 128] as const;
/** One value in this many takes a boundary length. */
const BOUNDARY_WEIGHT = 20;

/** Printable ASCII (one UTF-8 byte a character, so the byte length is the length) of a boundary length. */
const boundaryString = fc.tuple(fc.constantFrom(...STRING_BOUNDARY_LENGTHS), fc.integer({ min: 0x20, max: 0x7e }), fc.string({ maxLength: 4, unit: 'grapheme-ascii' }))
  .map(([n, c, tail]) => String.fromCharCode(c).repeat(n - tail.length) + tail);
const boundaryBytes = fc.tuple(fc.constantFrom(...STRING_BOUNDARY_LENGTHS), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 4 }))
  .map(([n, b, tail]) => Buffer.concat([Buffer.alloc(n - tail.length, b), Buffer.from(tail)]));

/** `usual` most of the time, `boundary` one time in BOUNDARY_WEIGHT. */
function oneInWeight<T>(usual: fc.Arbitrary<T>, boundary: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: BOUNDARY_WEIGHT - 1 }, { arbitrary: boundary, weight: 1 });
}

/** Nested arrays shrink by one element a level, but never below this. */
const NESTED_ARRAY_LENGTH_MIN = 2;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export type MessageValue = Record<string, unknown>;

export function messageArbitrary(schema: MessageSchema, version: number, limits: ArbitraryLimits = DEFAULT_LIMITS): fc.Arbitrary<MessageValue> {
  if (version < schema.minVersion || version > schema.maxVersion) {
    throw new RangeError(`${schema.name} has no version ${version}`);
  }
  const ctx: Context = { version, flexible: inRange(schema.flexible, version), limits };
  return structArbitrary(schema.fields, ctx, 0);
}

interface Context {
  readonly version: number;
  readonly flexible: boolean;
  readonly limits: ArbitraryLimits;
}

/** Marks a tagged field the generated value leaves out. */
const OMIT: unique symbol = Symbol('omit');

function structArbitrary(fields: readonly FieldSpec[], ctx: Context, depth: number): fc.Arbitrary<MessageValue> {
  const entries: fc.Arbitrary<readonly [string, unknown]>[] = [];
  for (const f of fields) {
    if (!isPresentIn(f, ctx.version)) continue;
    const tagged = f.options.tag !== undefined && isTaggedIn(f, ctx.version);
    if (tagged && !ctx.flexible) continue; // a tagged field has no place in a classic version
    const value = typeArbitrary(f.type, isNullableIn(f, ctx.version), ctx, depth);
    const withTagChoice: fc.Arbitrary<unknown> = tagged
      ? fc.oneof(fc.constant(OMIT), fc.constant(null).map(() => defaultValueOf(f)), value)
      : value;
    entries.push(withTagChoice.map((v) => [f.name, v] as const));
  }
  return fc.tuple(...entries).map((pairs) => {
    const out: MessageValue = {};
    for (const [name, v] of pairs) if (v !== OMIT) out[name] = v;
    return out;
  });
}

function typeArbitrary(type: TypeSpec, nullable: boolean, ctx: Context, depth: number): fc.Arbitrary<unknown> {
  const base = nonNullArbitrary(type, ctx, depth);
  return nullable ? fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : base;
}

function nonNullArbitrary(type: TypeSpec, ctx: Context, depth: number): fc.Arbitrary<unknown> {
  if (typeof type !== 'string') {
    if (type.kind === 'array') {
      const maxLength = Math.max(NESTED_ARRAY_LENGTH_MIN, ctx.limits.arrayLengthMax - depth);
      const element = typeArbitrary(type.element as TypeSpec, false, ctx, depth + 1);
      const usual = fc.array(element, { maxLength });
      if (depth > 0 || ctx.limits.boundaryLengths !== true) return usual;
      // The elements of a long array keep their usual sizes (bounded cost).
      const plain: Context = { ...ctx, limits: { ...ctx.limits, boundaryLengths: false } };
      const plainElement = typeArbitrary(type.element as TypeSpec, false, plain, depth + 1);
      const long = fc.constantFrom(...ARRAY_BOUNDARY_LENGTHS).chain((n) => fc.array(plainElement, { minLength: n, maxLength: n }));
      return oneInWeight(usual, long);
    }
    return structArbitrary(type.fields as readonly FieldSpec[], ctx, depth + 1);
  }
  const { stringLengthMax, bytesLengthMax } = ctx.limits;
  const sometimesBoundary = <T>(usual: fc.Arbitrary<T>, boundary: fc.Arbitrary<T>): fc.Arbitrary<T> =>
    ctx.limits.boundaryLengths === true ? oneInWeight(usual, boundary) : usual;
  switch (type) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -0x80, max: 0x7f });
    case 'int16':
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case 'uint16':
      return fc.integer({ min: 0, max: 0xffff });
    case 'int32':
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    case 'uint32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'int64':
      return fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
    case 'float64':
      return fc.double();
    case 'string':
    case 'nullableString':
      // ASCII most of the time; any Unicode scalar value (multi-byte UTF-8,
      // astral planes) otherwise. Lone surrogates cannot survive UTF-8 and
      // are not generated.
      return sometimesBoundary(
        fc.oneof(
          fc.string({ maxLength: stringLengthMax }),
          fc.string({ unit: 'binary', maxLength: stringLengthMax }),
          fc.string({ unit: 'grapheme', maxLength: stringLengthMax }),
        ),
        boundaryString,
      );
    case 'bytes':
    case 'nullableBytes':
    case 'records':
      return sometimesBoundary(fc.uint8Array({ maxLength: bytesLengthMax }).map((a) => Buffer.from(a)), boundaryBytes);
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((a) => Buffer.from(a).toString('base64url'));
    default:
      return assertNever(type);
  }
}

function assertNever(type: never): never {
  throw new Error(`arbitrary: unknown primitive type ${String(type)}`);
}

export function isPresentIn(f: FieldSpec, version: number): boolean {
  return f.options.versions === undefined || inRange(parseVersionRange(f.options.versions), version);
}

function isTaggedIn(f: FieldSpec, version: number): boolean {
  return f.options.taggedVersions === undefined || inRange(parseVersionRange(f.options.taggedVersions), version);
}

export function isNullableIn(f: FieldSpec, version: number): boolean {
  if (f.type === 'nullableString' || f.type === 'nullableBytes' || f.type === 'records') return true;
  return f.options.nullableVersions !== undefined && inRange(parseVersionRange(f.options.nullableVersions), version);
}

/** The value a field takes when absent, by the DSL's rules (schema.ts FieldOptions.default). */
export function defaultValueOf(f: FieldSpec): unknown {
  if (f.options.default !== undefined) {
    const d = f.options.default;
    return typeof d === 'object' && d !== null ? structuredClone(d) : d;
  }
  if (isNullableType(f.type) || f.options.nullableVersions !== undefined) return null;
  return typeDefaultOf(f.type);
}

function isNullableType(type: TypeSpec): boolean {
  return type === 'nullableString' || type === 'nullableBytes' || type === 'records';
}

function typeDefaultOf(type: TypeSpec): unknown {
  if (typeof type !== 'string') {
    if (type.kind === 'array') return [];
    const out: MessageValue = {};
    for (const f of type.fields as readonly FieldSpec[]) out[f.name] = defaultValueOf(f);
    return out;
  }
  switch (type) {
    case 'bool':
      return false;
    case 'int64':
      return 0n;
    case 'string':
      return '';
    case 'uuid':
      return 'AAAAAAAAAAAAAAAAAAAAAA';
    case 'bytes':
      return Buffer.alloc(0);
    case 'nullableString':
    case 'nullableBytes':
    case 'records':
      return null;
    default:
      return 0;
  }
}
