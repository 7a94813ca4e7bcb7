/**
 * The one generic encoder/decoder for every schema. `compile(schema, version)`
 * turns a schema into a tree of small closures for exactly that version (which
 * fields exist, compact or classic encodings, tagged fields) and caches it, so
 * per-request work is just running the closures. Each struct's fields are
 * read and written by a small function generated from the schema's field
 * names (fixedShapeReader/Writer): decoded values get one fixed shape.
 *
 * Classic (non-flexible) encodings: string = int16 length + utf8 (-1 null),
 * bytes = int32 length (-1 null), array = int32 count (-1 null).
 * Flexible (KIP-482): compact string/bytes/array = uvarint(length + 1) (0 null),
 * and every struct ends with a tagged-field section:
 * uvarint count, then (uvarint tag, uvarint size, value) in tag order.
 * Unknown tags are skipped.
 */
import { DecodeError } from './primitives/decode-error.js';
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';
import {
  inRange,
  parseVersionRange,
  type FieldSpec,
  type Infer,
  type Input,
  type MessageSchema,
  type RecordChunks,
  type RecordsValue,
  type TypeSpec,
  type VersionRange,
} from './schema.js';
import { uuidFromBytes, uuidToBytes } from './uuid.js';

type ReadFn = (r: Reader) => unknown;
type WriteFn = (w: Writer, value: unknown) => void;

interface Codec {
  read: ReadFn;
  write: WriteFn;
}

export interface CompiledMessage<S extends MessageSchema> {
  readonly version: number;
  readonly flexible: boolean;
  read(r: Reader): Infer<S>;
  write(w: Writer, value: Input<S>): void;
}

/** Largest array count or byte length a decoder believes before reading it. */
const MAX_DECODED_LENGTH = 0x7fffffff;

const cache = new WeakMap<MessageSchema, Map<number, CompiledMessage<MessageSchema>>>();

export function compile<S extends MessageSchema>(schema: S, version: number): CompiledMessage<S> {
  let perVersion = cache.get(schema);
  if (!perVersion) {
    perVersion = new Map();
    cache.set(schema, perVersion);
  }
  const hit = perVersion.get(version);
  if (hit) return hit as unknown as CompiledMessage<S>;
  if (version < schema.minVersion || version > schema.maxVersion) {
    throw new RangeError(`${schema.name} has no version ${version} (${schema.minVersion}-${schema.maxVersion})`);
  }
  const flexible = inRange(schema.flexible, version);
  const codec = structCodec(schema.fields, version, flexible, schema.name);
  const compiled = {
    version,
    flexible,
    read: codec.read,
    write: codec.write,
  } as unknown as CompiledMessage<S>;
  perVersion.set(version, compiled as unknown as CompiledMessage<MessageSchema>);
  return compiled;
}

export function isFlexible(schema: MessageSchema, version: number): boolean {
  return inRange(schema.flexible, version);
}

/** Decodes a whole message body; trailing bytes are an error. */
export function decode<S extends MessageSchema>(schema: S, version: number, buf: Buffer, start = 0, end = buf.length): Infer<S> {
  const reader = new Reader(buf, start, end);
  const value = compile(schema, version).read(reader);
  if (reader.remaining !== 0) throw new DecodeError(`${reader.remaining} unexpected trailing bytes after ${schema.name} v${version}`);
  return value;
}

export function encode<S extends MessageSchema>(schema: S, version: number, value: Input<S>): Buffer {
  const writer = new Writer();
  compile(schema, version).write(writer, value);
  return writer.toBuffer();
}

interface CompiledField {
  name: string;
  codec: Codec;
  defaultValue: () => unknown;
}

interface CompiledTaggedField extends CompiledField {
  tag: number;
}

function structCodec(fields: readonly FieldSpec[], version: number, flexible: boolean, where: string): Codec {
  const regular: CompiledField[] = [];
  const tagged: CompiledTaggedField[] = [];
  const absent: CompiledField[] = [];
  for (const f of fields) {
    const versions = f.options.versions === undefined ? ALL : parseVersionRange(f.options.versions);
    const nullable = isNullableIn(f, version);
    const compiled: CompiledField = {
      name: f.name,
      codec: inRange(versions, version) ? typeCodec(f.type, flexible, nullable, version, `${where}.${f.name}`) : NOOP,
      defaultValue: defaultFor(f),
    };
    if (!inRange(versions, version)) {
      absent.push(compiled);
    } else if (f.options.tag !== undefined && isTaggedIn(f, version)) {
      if (flexible) tagged.push({ ...compiled, tag: f.options.tag });
      else absent.push(compiled);
    } else {
      regular.push(compiled);
    }
  }
  tagged.sort((a, b) => a.tag - b.tag);
  const taggedByTag = new Map(tagged.map((t) => [t.tag, t]));

  const readFields = fixedShapeReader(regular, flexible ? [...absent, ...tagged] : absent);
  const read: ReadFn = (r) => {
    const out = readFields(r);
    if (flexible) {
      const count = r.readUVarint();
      for (let i = 0; i < count; i++) {
        const tag = r.readUVarint();
        const size = r.readUVarint();
        const known = taggedByTag.get(tag);
        if (!known) {
          r.skip(size);
          continue;
        }
        const end = r.position + size;
        if (end > r.end) throw new DecodeError(`truncated tagged field ${tag} in ${where}`);
        const sub = new Reader(r.buffer, r.position, end);
        out[known.name] = known.codec.read(sub);
        if (sub.remaining !== 0) throw new DecodeError(`tagged field ${tag} in ${where} has ${sub.remaining} extra bytes`);
        r.position = end;
      }
    }
    return out;
  };

  const writeFields = fixedShapeWriter(regular);
  const write: WriteFn = (w, value) => {
    const obj = (value ?? {}) as Record<string, unknown>;
    writeFields(w, obj);
    if (flexible) {
      const present: { tag: number; bytes: Buffer }[] = [];
      for (const f of tagged) {
        const v = obj[f.name];
        if (v === undefined || isDefaultValue(v, f.defaultValue())) continue;
        const sub = new Writer(64);
        f.codec.write(sub, v);
        present.push({ tag: f.tag, bytes: sub.toBuffer() });
      }
      w.writeUVarint(present.length);
      for (const t of present) {
        w.writeUVarint(t.tag);
        w.writeUVarint(t.bytes.length);
        w.writeBytes(t.bytes);
      }
    }
  };
  return { read, write };
}

/** Field names the generated code may use as property keys as they are (every schema's: camelCase identifiers). */
const PLAIN_NAME = /^[A-Za-z_$][\w$]*$/;
const plainNames = (fields: readonly CompiledField[]): boolean => fields.every((f) => PLAIN_NAME.test(f.name) && f.name !== '__proto__');

/**
 * A struct's fields read into one object literal by a function generated
 * once per (schema, version): every decoded value then has the same fields
 * in the same order (one hidden class) and no keyed store per field, which
 * is most of a request's decode cost otherwise (bench/README.md,
 * "Per-request cost"). `defaults` are the fields not on the wire in this
 * version, set to their defaults after the read ones, as before.
 */
function fixedShapeReader(read: readonly CompiledField[], defaults: readonly CompiledField[]): (r: Reader) => Record<string, unknown> {
  const readers = read.map((f) => f.codec.read);
  const makers = defaults.map((f) => f.defaultValue);
  if (!plainNames(read) || !plainNames(defaults)) {
    return (r) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < read.length; i++) out[(read[i] as CompiledField).name] = (readers[i] as ReadFn)(r);
      for (let i = 0; i < defaults.length; i++) out[(defaults[i] as CompiledField).name] = (makers[i] as () => unknown)();
      return out;
    };
  }
  // Object literal properties are evaluated left to right: the wire order.
  const props = [...read.map((f, i) => `${f.name}: readers[${i}](r)`), ...defaults.map((f, i) => `${f.name}: makers[${i}]()`)];
  const make = new Function('readers', 'makers', `return function readStruct(r) { return { ${props.join(', ')} }; };`) as (
    readers: readonly ReadFn[], makers: readonly (() => unknown)[]) => (r: Reader) => Record<string, unknown>;
  return make(readers, makers);
}

/** The regular fields of a struct written by one generated function: constant property loads instead of keyed ones. */
function fixedShapeWriter(fields: readonly CompiledField[]): (w: Writer, obj: Record<string, unknown>) => void {
  const writers = fields.map((f) => f.codec.write);
  const defaults = fields.map((f) => f.defaultValue);
  if (!plainNames(fields)) {
    return (w, obj) => {
      for (let i = 0; i < fields.length; i++) {
        const v = obj[(fields[i] as CompiledField).name];
        (writers[i] as WriteFn)(w, v === undefined ? (defaults[i] as () => unknown)() : v);
      }
    };
  }
  const body = fields.map((f, i) => `v = obj.${f.name}; writers[${i}](w, v === undefined ? defaults[${i}]() : v);`).join('\n');
  const make = new Function('writers', 'defaults', `return function writeStruct(w, obj) { let v;\n${body}\n};`) as (
    writers: readonly WriteFn[], defaults: readonly (() => unknown)[]) => (w: Writer, obj: Record<string, unknown>) => void;
  return make(writers, defaults);
}

const ALL: VersionRange = { min: 0, max: Number.MAX_SAFE_INTEGER };
const NOOP: Codec = { read: () => undefined, write: () => undefined };

function isNullableIn(f: FieldSpec, version: number): boolean {
  if (f.type === 'nullableString' || f.type === 'nullableBytes' || f.type === 'records') return true;
  return f.options.nullableVersions !== undefined && inRange(parseVersionRange(f.options.nullableVersions), version);
}

function isTaggedIn(f: FieldSpec, version: number): boolean {
  return f.options.taggedVersions === undefined || inRange(parseVersionRange(f.options.taggedVersions), version);
}

function defaultFor(f: FieldSpec): () => unknown {
  if (f.options.default !== undefined) {
    const d = f.options.default;
    return typeof d === 'object' && d !== null ? () => structuredClone(d) : () => d;
  }
  if (f.options.nullableVersions !== undefined || f.type === 'nullableString' || f.type === 'nullableBytes' || f.type === 'records') {
    return () => null;
  }
  return typeDefault(f.type);
}

function typeDefault(type: TypeSpec): () => unknown {
  if (typeof type === 'string') {
    switch (type) {
      case 'bool':
        return () => false;
      case 'int64':
        return () => 0n;
      case 'string':
        return () => '';
      case 'uuid':
        return () => ZERO_UUID;
      case 'bytes':
        return () => EMPTY;
      case 'nullableString':
      case 'nullableBytes':
      case 'records':
        return () => null;
      default:
        return () => 0;
    }
  }
  if (type.kind === 'array') return () => [];
  const fields = type.fields as readonly FieldSpec[];
  const defaults = fields.map((f) => [f.name, defaultFor(f)] as const);
  return () => Object.fromEntries(defaults.map(([n, d]) => [n, d()]));
}

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const EMPTY = Buffer.alloc(0);

function isDefaultValue(value: unknown, def: unknown): boolean {
  if (value === def) return true;
  if (Array.isArray(value)) return Array.isArray(def) && value.length === 0 && def.length === 0;
  if (Buffer.isBuffer(value)) return Buffer.isBuffer(def) && value.equals(def);
  if (typeof value === 'object' && value !== null && typeof def === 'object' && def !== null) {
    const v = value as Record<string, unknown>;
    const d = def as Record<string, unknown>;
    return Object.keys(d).every((k) => v[k] === undefined || isDefaultValue(v[k], d[k]));
  }
  return false;
}

function typeCodec(type: TypeSpec, flexible: boolean, nullable: boolean, version: number, where: string): Codec {
  if (typeof type === 'string') return primitiveCodec(type, flexible, nullable, where);
  if (type.kind === 'array') {
    const element = typeCodec(type.element as TypeSpec, flexible, false, version, `${where}[]`);
    return arrayCodec(element, flexible, nullable, where);
  }
  const inner = structCodec(type.fields as readonly FieldSpec[], version, flexible, where);
  return nullable ? nullableStructCodec(inner, where) : inner;
}

/** A nullable struct (e.g. DescribeTopicPartitions' Cursor): an int8 marker first, -1 for null and 1 for present, as Kafka writes it. */
function nullableStructCodec(inner: Codec, where: string): Codec {
  return {
    read(r) {
      const marker = r.readInt8();
      if (marker === -1) return null;
      if (marker !== 1) throw new DecodeError(`bad presence marker ${marker} for the nullable struct ${where}`);
      return inner.read(r);
    },
    write(w, value) {
      if (value === null || value === undefined) {
        w.writeInt8(-1);
        return;
      }
      w.writeInt8(1);
      inner.write(w, value);
    },
  };
}

function readLength(r: Reader, flexible: boolean, classicWidth: 16 | 32): number {
  if (flexible) return r.readUVarint() - 1;
  return classicWidth === 16 ? r.readInt16() : r.readInt32();
}

function nullError(where: string): DecodeError {
  return new DecodeError(`null is not allowed for ${where} in this version`);
}

function arrayCodec(element: Codec, flexible: boolean, nullable: boolean, where: string): Codec {
  return {
    read(r) {
      const count = readLength(r, flexible, 32);
      if (count < 0) {
        if (count === -1 && nullable) return null;
        if (count === -1) throw nullError(where);
        throw new DecodeError(`negative array length ${count} for ${where}`);
      }
      // Every element takes at least one byte, so a count above the remaining
      // bytes is a lie: refuse it before allocating anything.
      if (count > r.remaining || count > MAX_DECODED_LENGTH) throw new DecodeError(`array length ${count} exceeds the frame for ${where}`);
      const out = new Array<unknown>(count);
      for (let i = 0; i < count; i++) out[i] = element.read(r);
      return out;
    },
    write(w, value) {
      if (value === null || value === undefined) {
        if (!nullable && value === null) throw new TypeError(`null is not allowed for ${where} in this version`);
        if (value === undefined && !nullable) {
          writeLength(w, flexible, 32, 0);
          return;
        }
        writeLength(w, flexible, 32, -1);
        return;
      }
      const items = value as readonly unknown[];
      writeLength(w, flexible, 32, items.length);
      for (const item of items) element.write(w, item);
    },
  };
}

function writeLength(w: Writer, flexible: boolean, classicWidth: 16 | 32, length: number): void {
  if (flexible) w.writeUVarint(length + 1);
  else if (classicWidth === 16) w.writeInt16(length);
  else w.writeInt32(length);
}

function primitiveCodec(type: string, flexible: boolean, nullable: boolean, where: string): Codec {
  switch (type) {
    case 'bool':
      return { read: (r) => r.readBool(), write: (w, v) => void w.writeBool(Boolean(v)) };
    case 'int8':
      return { read: (r) => r.readInt8(), write: (w, v) => void w.writeInt8(v as number) };
    case 'int16':
      return { read: (r) => r.readInt16(), write: (w, v) => void w.writeInt16(v as number) };
    case 'uint16':
      return { read: (r) => r.readUInt16(), write: (w, v) => void w.writeUInt16(v as number) };
    case 'int32':
      return { read: (r) => r.readInt32(), write: (w, v) => void w.writeInt32(v as number) };
    case 'uint32':
      return { read: (r) => r.readUInt32(), write: (w, v) => void w.writeUInt32(v as number) };
    case 'int64':
      return { read: (r) => r.readInt64(), write: (w, v) => void w.writeInt64(BigInt(v as bigint)) };
    case 'float64':
      return { read: (r) => r.readFloat64(), write: (w, v) => void w.writeFloat64(v as number) };
    case 'uuid':
      return { read: (r) => uuidFromBytes(r.readSlice(16, 'uuid')), write: (w, v) => void w.writeBytes(uuidToBytes(v as string)) };
    case 'string':
    case 'nullableString':
      return stringCodec(flexible, nullable, where);
    case 'bytes':
    case 'nullableBytes':
      return bytesCodec(flexible, nullable, where);
    case 'records':
      return recordsCodec(flexible, where);
    default:
      throw new Error(`unknown primitive type '${type}' in ${where}`);
  }
}

function stringCodec(flexible: boolean, nullable: boolean, where: string): Codec {
  return {
    read(r) {
      const length = readLength(r, flexible, 16);
      if (length < 0) {
        if (length === -1 && nullable) return null;
        if (length === -1) throw nullError(where);
        throw new DecodeError(`negative string length ${length} for ${where}`);
      }
      return r.readUtf8(length);
    },
    write(w, value) {
      if (value === null || value === undefined) {
        if (!nullable) {
          if (value === null) throw new TypeError(`null is not allowed for ${where} in this version`);
          writeLength(w, flexible, 16, 0);
          return;
        }
        writeLength(w, flexible, 16, -1);
        return;
      }
      const s = value as string;
      const byteLength = Buffer.byteLength(s, 'utf8');
      if (!flexible && byteLength > 0x7fff) throw new RangeError(`string too long for ${where}`);
      writeLength(w, flexible, 16, byteLength);
      w.writeUtf8(s, byteLength);
    },
  };
}

function bytesCodec(flexible: boolean, nullable: boolean, where: string): Codec {
  return {
    read(r) {
      const length = readLength(r, flexible, 32);
      if (length < 0) {
        if (length === -1 && nullable) return null;
        if (length === -1) throw nullError(where);
        throw new DecodeError(`negative bytes length ${length} for ${where}`);
      }
      return r.readSlice(length, where);
    },
    write(w, value) {
      if (value === null || value === undefined) {
        if (!nullable && value === null) throw new TypeError(`null is not allowed for ${where} in this version`);
        writeLength(w, flexible, 32, nullable ? -1 : 0);
        return;
      }
      const b = value as Buffer;
      writeLength(w, flexible, 32, b.length);
      w.writeBytes(b);
    },
  };
}

function recordsCodec(flexible: boolean, where: string): Codec {
  return {
    read(r) {
      const length = readLength(r, flexible, 32);
      if (length === -1) return null;
      if (length < 0) throw new DecodeError(`negative records length ${length} for ${where}`);
      return r.readSlice(length, where);
    },
    write(w, value) {
      const v = value as RecordsValue | undefined;
      if (v === null || v === undefined) {
        writeLength(w, flexible, 32, -1);
        return;
      }
      if (Buffer.isBuffer(v)) {
        writeLength(w, flexible, 32, v.length);
        w.writeBytes(v);
        return;
      }
      const chunks = v as RecordChunks;
      writeLength(w, flexible, 32, chunks.byteLength);
      for (const c of chunks.chunks) w.writeBytes(c);
    },
  };
}
