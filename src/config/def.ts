/**
 * A config-definition framework in the spirit of Kafka's ConfigDef: every key
 * has Kafka's name, a type, a default, a validator, an importance, a doc
 * string and an update mode. Definitions are data; one generic parser turns a
 * map of strings into typed values, reporting every bad key at once.
 *
 * Types and how strings parse (values are trimmed first, as Kafka does):
 * - boolean: `true`/`false`, any case.
 * - int: a decimal 32-bit signed integer.
 * - long: a decimal 64-bit signed integer, held as a JS number. Values beyond
 *   Number.MAX_SAFE_INTEGER (2^53-1) are clamped to it, so Kafka's
 *   Long.MAX_VALUE defaults ("never", "unlimited") become MAX_SAFE_INTEGER —
 *   about 285,000 years in ms or 8 PiB in bytes, which means the same thing.
 *   `9223372036854775807` in a file is accepted and clamped the same way.
 * - double: a finite decimal number (`0.5`, `1e-3`).
 * - string, password: the trimmed text. A password is wrapped in `Password`,
 *   which prints as `[hidden]` so it never reaches a log line.
 * - list: comma-separated, blanks around commas ignored; the empty string is
 *   the empty list; empty items are refused.
 * - enum: a string from a fixed set (Kafka's ValidString): case-sensitive like
 *   Kafka unless the key says otherwise; a near miss gets a suggestion.
 *
 * A default of `null` means "not set" (Kafka's null default): the value type
 * then includes null. `fallback` lets a key take its value from older or
 * coarser keys when it is not set itself (log.retention.ms <- minutes <- hours).
 */
import type { ConfigProblem } from './errors.js';
import { closest } from './suggest.js';

export type ConfigType = 'boolean' | 'int' | 'long' | 'double' | 'string' | 'list' | 'password' | 'enum';
export type Importance = 'high' | 'medium' | 'low';
/**
 * Kafka's dynamic update modes: `read-only` needs a restart; `per-broker` and
 * `cluster-wide` can later be changed with IncrementalAlterConfigs. Topic
 * configs are all dynamic (they are per-topic overrides).
 */
export type UpdateMode = 'read-only' | 'per-broker' | 'cluster-wide';

/** Kafka's ConfigSource names, as DescribeConfigs reports them (ids in CONFIG_SOURCE_ID). */
export type ConfigSource =
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG';

export const CONFIG_SOURCE_ID: Readonly<Record<ConfigSource, number>> = {
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
};

/** DescribeConfigs' configType ids (Kafka's ConfigDef.Type); enums are strings on the wire. */
export const CONFIG_TYPE_ID: Readonly<Record<ConfigType, number>> = {
  boolean: 1, string: 2, enum: 2, int: 3, long: 5, double: 6, list: 7, password: 9,
};

/** Kafka's Long.MAX_VALUE, as our longs hold it (see the header comment). */
export const LONG_MAX = Number.MAX_SAFE_INTEGER;
export const INT_MAX = 2 ** 31 - 1;

/** A secret. Prints as `[hidden]`; read `.value` to use it. */
export class Password {
  constructor(readonly value: string) {}
  toString(): string {
    return '[hidden]';
  }
  toJSON(): string {
    return '[hidden]';
  }
}

export type Decoded<V> = { ok: true; value: V } | { ok: false; reason?: string };

/** "Take my value from `key` times `factor` when I am not set myself." */
export interface ConfigFallback {
  readonly key: string;
  readonly factor: number;
}

export interface ConfigSpec<V> {
  readonly type: ConfigType;
  readonly default: V;
  readonly doc: string;
  readonly importance: Importance;
  readonly dynamic: UpdateMode;
  /** What a valid value looks like: "an integer >= -1", "one of delete, compact". */
  readonly expected: string;
  /** The allowed values of an enum or enum list (for suggestions and docs). */
  readonly allowed?: readonly string[];
  readonly fallback?: readonly ConfigFallback[];
  /** Kafka's default where ours differs on purpose (documented in the doc string). */
  readonly kafkaDefault?: string;
  readonly sensitive: boolean;
  /** Parses a trimmed string. */
  decode(raw: string): Decoded<V>;
  /** The value as a config string (what DescribeConfigs and a properties file show). */
  encode(value: V): string;
}

export interface ConfigKey<V> extends ConfigSpec<V> {
  readonly name: string;
}

export type AnyConfigDefs = Readonly<Record<string, ConfigKey<unknown>>>;
export type ValueOf<S> = S extends ConfigSpec<infer V> ? V : never;
/** The typed values of a set of definitions: `{ 'log.retention.ms': number, ... }`. */
export type ConfigValues<D> = { readonly [K in keyof D]: ValueOf<D[K]> };

/** Attaches each key's name to its spec; the object keys are Kafka's names. */
export function defineConfigs<S extends Record<string, ConfigSpec<unknown>>>(specs: S): { readonly [K in keyof S]: S[K] & { readonly name: K } } {
  const out: Record<string, ConfigKey<unknown>> = {};
  for (const [name, spec] of Object.entries(specs)) out[name] = Object.freeze({ ...spec, name });
  return Object.freeze(out) as { readonly [K in keyof S]: S[K] & { readonly name: K } };
}

// ---------------------------------------------------------------- builders

type Nullable<D, T> = null extends D ? T | null : T;

interface CommonOptions {
  readonly doc: string;
  readonly importance?: Importance;
  readonly dynamic?: UpdateMode;
  readonly fallback?: readonly ConfigFallback[];
  readonly kafkaDefault?: string;
}

interface NumberOptions<D> extends CommonOptions {
  readonly default: D;
  readonly min?: number;
  readonly max?: number;
  /** Extra rule; returns why the value is wrong, or undefined. */
  readonly validate?: (value: number) => string | undefined;
  /** Overrides the generated "an integer >= 0" text. */
  readonly expected?: string;
}

function common<V>(type: ConfigType, o: CommonOptions, rest: Omit<ConfigSpec<V>, keyof CommonOptions | 'type' | 'importance' | 'dynamic' | 'sensitive'> & { sensitive?: boolean }): ConfigSpec<V> {
  const spec: ConfigSpec<V> = {
    type,
    doc: o.doc,
    importance: o.importance ?? 'medium',
    dynamic: o.dynamic ?? 'read-only',
    sensitive: rest.sensitive ?? false,
    ...(o.fallback === undefined ? {} : { fallback: o.fallback }),
    ...(o.kafkaDefault === undefined ? {} : { kafkaDefault: o.kafkaDefault }),
    default: rest.default,
    expected: rest.expected,
    ...(rest.allowed === undefined ? {} : { allowed: rest.allowed }),
    decode: rest.decode,
    encode: rest.encode,
  };
  return spec;
}

function rangeText(noun: string, min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `${noun} in [${min}, ${max}]`;
  if (min !== undefined) return `${noun} >= ${min}`;
  if (max !== undefined) return `${noun} <= ${max}`;
  return noun;
}

const INTEGER_RE = /^[+-]?\d+$/;
const DOUBLE_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INT_RANGE = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const LONG_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function decodeInteger(raw: string, type: 'int' | 'long'): Decoded<number> {
  if (!INTEGER_RE.test(raw)) return { ok: false };
  const big = BigInt(raw);
  const [lo, hi] = type === 'int' ? INT_RANGE : LONG_RANGE;
  if (big < lo || big > hi) return { ok: false, reason: `out of range for a ${type === 'int' ? '32-bit int' : '64-bit long'}` };
  if (big > SAFE) return { ok: true, value: Number.MAX_SAFE_INTEGER };
  if (big < -SAFE) return { ok: true, value: -Number.MAX_SAFE_INTEGER };
  return { ok: true, value: Number(big) };
}

function numberSpec<D extends number | null>(type: 'int' | 'long' | 'double', o: NumberOptions<D>): ConfigSpec<Nullable<D, number>> {
  const noun = type === 'double' ? 'a number' : 'an integer';
  const decode = (raw: string): Decoded<number> => {
    let d: Decoded<number>;
    if (type === 'double') d = DOUBLE_RE.test(raw) && Number.isFinite(Number(raw)) ? { ok: true, value: Number(raw) } : { ok: false };
    else d = decodeInteger(raw, type);
    if (!d.ok) return d;
    if ((o.min !== undefined && d.value < o.min) || (o.max !== undefined && d.value > o.max)) return { ok: false };
    const reason = o.validate?.(d.value);
    return reason === undefined ? d : { ok: false, reason };
  };
  return common<Nullable<D, number>>(type, o, {
    default: o.default as Nullable<D, number>,
    expected: o.expected ?? rangeText(noun, o.min, o.max),
    decode: decode as (raw: string) => Decoded<Nullable<D, number>>,
    encode: (v) => (v === null ? '' : String(v)),
  });
}

export function int<D extends number | null>(o: NumberOptions<D>): ConfigSpec<Nullable<D, number>> {
  return numberSpec('int', o);
}

export function long<D extends number | null>(o: NumberOptions<D>): ConfigSpec<Nullable<D, number>> {
  return numberSpec('long', o);
}

export function double<D extends number | null>(o: NumberOptions<D>): ConfigSpec<Nullable<D, number>> {
  return numberSpec('double', o);
}

export function bool(o: CommonOptions & { readonly default: boolean }): ConfigSpec<boolean> {
  return common<boolean>('boolean', o, {
    default: o.default,
    expected: 'true or false',
    decode: (raw) => {
      const lower = raw.toLowerCase();
      return lower === 'true' || lower === 'false' ? { ok: true, value: lower === 'true' } : { ok: false };
    },
    encode: (v) => String(v),
  });
}

interface StringOptions<D> extends CommonOptions {
  readonly default: D;
  readonly validate?: (value: string) => string | undefined;
  readonly expected?: string;
}

export function str<D extends string | null>(o: StringOptions<D>): ConfigSpec<Nullable<D, string>> {
  return common<Nullable<D, string>>('string', o, {
    default: o.default as Nullable<D, string>,
    expected: o.expected ?? 'a string',
    decode: ((raw: string): Decoded<string> => {
      const reason = o.validate?.(raw);
      return reason === undefined ? { ok: true, value: raw } : { ok: false, reason };
    }) as (raw: string) => Decoded<Nullable<D, string>>,
    encode: (v) => v ?? '',
  });
}

export function password(o: CommonOptions & { readonly default: null }): ConfigSpec<Password | null> {
  return common<Password | null>('password', o, {
    default: null,
    expected: 'a string',
    sensitive: true,
    decode: (raw) => ({ ok: true, value: new Password(raw) }),
    encode: (v) => (v === null ? '' : v.value),
  });
}

function quoteList(values: readonly string[]): string {
  return values.join(', ');
}

/** Why `raw` is not one of `values`, with a suggestion when it is close to one. */
function notAllowed(raw: string, values: readonly string[]): string | undefined {
  const near = closest(raw, values);
  return near === undefined ? undefined : `did you mean "${near}"?`;
}

interface EnumOptions<A extends string, D> extends CommonOptions {
  readonly values: readonly A[];
  readonly default: D;
  /** Accept any case and store the canonical spelling (Kafka is case-sensitive by default). */
  readonly caseInsensitive?: boolean;
}

export function enumOf<const A extends string>(o: EnumOptions<A, A>): ConfigSpec<A>;
export function enumOf<const A extends string>(o: EnumOptions<A, null>): ConfigSpec<A | null>;
export function enumOf<const A extends string, D extends A | null>(o: EnumOptions<A, D>): ConfigSpec<Nullable<D, A>> {
  const find = (raw: string): A | undefined =>
    o.values.find((v) => v === raw || (o.caseInsensitive === true && v.toLowerCase() === raw.toLowerCase()));
  return common<Nullable<D, A>>('enum', o, {
    default: o.default as Nullable<D, A>,
    expected: `one of ${quoteList(o.values)}`,
    allowed: o.values,
    decode: ((raw: string): Decoded<A> => {
      const value = find(raw);
      if (value !== undefined) return { ok: true, value };
      const reason = notAllowed(raw, o.values);
      return reason === undefined ? { ok: false } : { ok: false, reason };
    }) as (raw: string) => Decoded<Nullable<D, A>>,
    encode: (v) => v ?? '',
  });
}

/** Splits a list value the way Kafka does: blanks around commas go; "" is []. */
export function splitList(raw: string): string[] {
  const trimmed = raw.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}

interface ListOptions<D> extends CommonOptions {
  readonly default: D;
  /** Rule for each item; returns why it is wrong, or undefined. */
  readonly validateItem?: (item: string) => string | undefined;
  readonly expected?: string;
}

function decodeList(raw: string, check: (item: string) => string | undefined): Decoded<string[]> {
  const items = splitList(raw);
  for (const item of items) {
    if (item === '') return { ok: false, reason: 'empty item' };
    const reason = check(item);
    if (reason !== undefined) return { ok: false, reason };
  }
  return { ok: true, value: items };
}

export function list<D extends readonly string[] | null>(o: ListOptions<D>): ConfigSpec<Nullable<D, readonly string[]>> {
  return common<Nullable<D, readonly string[]>>('list', o, {
    default: o.default as Nullable<D, readonly string[]>,
    expected: o.expected ?? 'a comma-separated list',
    decode: ((raw: string) => decodeList(raw, (item) => o.validateItem?.(item))) as (raw: string) => Decoded<Nullable<D, readonly string[]>>,
    encode: (v) => (v === null ? '' : v.join(',')),
  });
}

/** A list whose items come from a fixed set (Kafka's ValidList.in). */
export function listOf<const A extends string>(o: CommonOptions & { readonly values: readonly A[]; readonly default: readonly A[]; readonly nonEmpty?: boolean }): ConfigSpec<readonly A[]> {
  const check = (item: string): string | undefined =>
    (o.values as readonly string[]).includes(item) ? undefined : (notAllowed(item, o.values) ?? `"${item}" is not allowed`);
  return common<readonly A[]>('list', o, {
    default: o.default,
    expected: `a comma-separated list of ${quoteList(o.values)}${o.nonEmpty === true ? ' (at least one)' : ''}`,
    allowed: o.values,
    decode: (raw) => {
      const d = decodeList(raw, check);
      if (d.ok && o.nonEmpty === true && d.value.length === 0) return { ok: false };
      return d as Decoded<readonly A[]>;
    },
    encode: (v) => v.join(','),
  });
}

// ---------------------------------------------------------------- parsing

/** The message for a value that does not parse: `key: expected X, got "raw" (reason)`. */
export function invalidValueMessage(key: ConfigKey<unknown>, raw: string, reason?: string): string {
  const shown = key.sensitive ? '[hidden]' : raw;
  return `${key.name}: expected ${key.expected}, got "${shown}"${reason === undefined ? '' : ` (${reason})`}`;
}

/** Parses one value for one key. */
export function parseValue<V>(key: ConfigKey<V>, raw: string): { ok: true; value: V } | { ok: false; message: string } {
  const d = key.decode(raw.trim());
  return d.ok ? d : { ok: false, message: invalidValueMessage(key, raw, d.reason) };
}

/** Keys accepted for compatibility with Kafka config files, and ignored with a warning. */
export interface IgnoredKeys {
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
}

export interface ParseOptions {
  readonly ignored?: IgnoredKeys;
  /** Advice for particular unknown keys ("retention.ms" at broker level -> "log.retention.ms"). */
  readonly hints?: Readonly<Record<string, string>>;
  /** Where each key was set, for messages. */
  readonly origins?: ReadonlyMap<string, string>;
  /** What to call the place unknown keys were found in ("broker config"). */
  readonly what?: string;
}

export interface ParsedConfigs<D> {
  /** Every defined key: parsed, defaulted, fallbacks resolved. Complete only when `problems` is empty. */
  readonly values: ConfigValues<D>;
  /** Keys given explicitly in the input. */
  readonly explicit: ReadonlySet<string>;
  /** Keys whose value came from a fallback key: key -> the key that supplied it. */
  readonly derivedFrom: ReadonlyMap<string, string>;
  /** Accept-and-ignore keys found in the input. */
  readonly ignored: readonly string[];
  readonly problems: readonly ConfigProblem[];
}

function isIgnored(key: string, ignored: IgnoredKeys | undefined): boolean {
  if (ignored === undefined) return false;
  return ignored.keys.includes(key) || ignored.prefixes.some((p) => key.startsWith(p));
}

function unknownKeyMessage(key: string, defs: AnyConfigDefs, options: ParseOptions): string {
  const hint = options.hints?.[key];
  if (hint !== undefined) return `${key}: unknown ${options.what ?? 'config'} key; ${hint}`;
  const near = closest(key, Object.keys(defs));
  const advice = near === undefined ? 'remove it or check the spelling' : `did you mean "${near}"?`;
  return `${key}: unknown ${options.what ?? 'config'} key; ${advice}`;
}

/**
 * Applies `fallback` chains: a key not set explicitly takes the value of the
 * first explicitly set fallback key, times its factor. When none is set the
 * key keeps its own default, which definitions keep equal to the chain's
 * default (log.retention.ms 604800000 = log.retention.hours 168).
 */
function resolveFallbacks(defs: AnyConfigDefs, values: Record<string, unknown>, explicit: ReadonlySet<string>): Map<string, string> {
  const derivedFrom = new Map<string, string>();
  for (const def of Object.values(defs)) {
    if (def.fallback === undefined || explicit.has(def.name)) continue;
    const fb = def.fallback.find((f) => explicit.has(f.key));
    const source = fb === undefined ? undefined : values[fb.key];
    if (fb === undefined || typeof source !== 'number') continue;
    // A negative coarse value means "unlimited" (Kafka: millis < 0 -> -1).
    values[def.name] = source < 0 ? -1 : Math.min(source * fb.factor, LONG_MAX);
    derivedFrom.set(def.name, fb.key);
  }
  return derivedFrom;
}

/**
 * Parses a whole map of raw strings against `defs`. Never throws: every bad
 * value and unknown key is in `problems`, in input order.
 */
export function parseConfigs<D extends AnyConfigDefs>(defs: D, raw: Readonly<Record<string, string>>, options: ParseOptions = {}): ParsedConfigs<D> {
  const values: Record<string, unknown> = {};
  for (const def of Object.values(defs)) values[def.name] = def.default;
  const explicit = new Set<string>();
  const ignored: string[] = [];
  const problems: ConfigProblem[] = [];
  for (const [key, text] of Object.entries(raw)) {
    const origin = options.origins?.get(key);
    const at = origin === undefined ? {} : { origin };
    const def = Object.hasOwn(defs, key) ? defs[key] : undefined;
    if (def === undefined) {
      if (isIgnored(key, options.ignored)) ignored.push(key);
      else problems.push({ key, message: unknownKeyMessage(key, defs, options), ...at });
      continue;
    }
    const parsed = parseValue(def, text);
    if (parsed.ok) {
      values[key] = parsed.value;
      explicit.add(key);
    } else {
      problems.push({ key, message: parsed.message, ...at });
    }
  }
  const derivedFrom = resolveFallbacks(defs, values, explicit);
  return { values: values as ConfigValues<D>, explicit, derivedFrom, ignored, problems };
}
