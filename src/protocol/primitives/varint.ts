/**
 * Variable-length integers as Kafka uses them (protobuf style, 7 bits a byte,
 * least significant group first). Unsigned varints carry compact lengths and
 * tags in flexible versions; zig-zag signed varints and varlongs carry the
 * fields of records inside a batch.
 */
import { DecodeError } from './decode-error.js';

/** Where a decoded varint ended. Reused to avoid an allocation per call. */
export interface VarintCursor {
  value: number;
  position: number;
}

export function uvarintSize(value: number): number {
  let size = 1;
  let v = value >>> 0;
  while (v >= 0x80) {
    v >>>= 7;
    size++;
  }
  return size;
}

export function writeUVarint(buf: Buffer, position: number, value: number): number {
  let v = value >>> 0;
  while (v >= 0x80) {
    buf[position++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[position++] = v;
  return position;
}

/** Reads an unsigned 32-bit varint at `position`; fills `out` and returns it. */
export function readUVarint(buf: Buffer, position: number, out: VarintCursor): VarintCursor {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (position >= buf.length) throw new DecodeError('truncated varint');
    const byte = buf[position++] as number;
    if (shift === 28 && byte > 0x0f) throw new DecodeError('varint does not fit in 32 bits');
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  out.value = result >>> 0;
  out.position = position;
  return out;
}

export function zigzagEncode32(value: number): number {
  return ((value << 1) ^ (value >> 31)) >>> 0;
}

export function zigzagDecode32(value: number): number {
  return (value >>> 1) ^ -(value & 1);
}

export function varintSize(value: number): number {
  return uvarintSize(zigzagEncode32(value));
}

export function writeVarint(buf: Buffer, position: number, value: number): number {
  return writeUVarint(buf, position, zigzagEncode32(value));
}

export function readVarint(buf: Buffer, position: number, out: VarintCursor): VarintCursor {
  readUVarint(buf, position, out);
  out.value = zigzagDecode32(out.value);
  return out;
}

const MASK64 = (1n << 64n) - 1n;

export function zigzagEncode64(value: bigint): bigint {
  return ((value << 1n) ^ (value >> 63n)) & MASK64;
}

export function zigzagDecode64(value: bigint): bigint {
  return (value >> 1n) ^ -(value & 1n);
}

export function varlongSize(value: bigint): number {
  let v = zigzagEncode64(value);
  let size = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    size++;
  }
  return size;
}

export function writeVarlong(buf: Buffer, position: number, value: bigint): number {
  let v = zigzagEncode64(value);
  while (v >= 0x80n) {
    buf[position++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  buf[position++] = Number(v);
  return position;
}

/** Where a decoded varlong ended. */
export interface VarlongCursor {
  value: bigint;
  position: number;
}

export function readVarlong(buf: Buffer, position: number, out: VarlongCursor): VarlongCursor {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (position >= buf.length) throw new DecodeError('truncated varlong');
    if (shift > 63n) throw new DecodeError('varlong does not fit in 64 bits');
    const byte = buf[position++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7n;
  }
  out.value = zigzagDecode64(result & MASK64);
  out.position = position;
  return out;
}
