/**
 * Big-endian signed 64-bit integers as bigint, without the intermediate
 * BigInts Node's `Buffer.readBigInt64BE` and `writeBigInt64BE` make (three or
 * four per call: shifts, masks and additions on BigInt values). Offsets,
 * timestamps and producer ids are int64 on the wire and in every batch
 * header, so a small Produce or Fetch reads and writes several: values
 * within ±2^53 (every offset, every millisecond timestamp, every producer
 * id in practice) go through one double instead, and only the rest take the
 * BigInt path. Same results as Node's functions for every value.
 */

const TWO_32 = 4294967296;
/**
 * Number.MAX_SAFE_INTEGER (2^53 - 1) as a bigint, made once: an int64 in
 * [-MAX_SAFE_BIGINT, MAX_SAFE_BIGINT] converts to a number exactly, so code
 * that checks this bound can compute in numbers instead of BigInts (offsets
 * and millisecond timestamps on the produce path: segment-roll.ts,
 * append-validator.ts).
 */
export const MAX_SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE_BIGINT;
/**
 * The two values most read by far: a client batch's baseOffset (0) and
 * "none" (-1: producer ids of non-idempotent batches, unset timestamps and
 * offsets). BigInts are immutable values, so one shared instance of each
 * gives the same results without a new BigInt per read.
 */
const ZERO = 0n;
const MINUS_ONE = -1n;

/** The int64 at `offset` (the caller has checked that 8 bytes are there). */
export function readInt64BE(buf: Buffer, offset: number): bigint {
  const hi = buf.readInt32BE(offset);
  const lo = buf.readUInt32BE(offset + 4);
  if (hi === 0 && lo === 0) return ZERO;
  if (hi === -1 && lo === 0xffffffff) return MINUS_ONE;
  // |hi * 2^32 + lo| < 2^53 exactly when -2^21 <= hi < 2^21: one BigInt from an exact double.
  if (hi >= -0x200000 && hi < 0x200000) return BigInt(hi * TWO_32 + lo);
  return buf.readBigInt64BE(offset);
}

/** Writes `value` at `offset`; returns the offset after it (as `Buffer.writeBigInt64BE`). */
export function writeInt64BE(buf: Buffer, value: bigint, offset: number): number {
  if (value >= MIN_SAFE && value <= MAX_SAFE_BIGINT) {
    const n = Number(value);
    const hi = Math.floor(n / TWO_32);
    buf.writeInt32BE(hi, offset);
    buf.writeUInt32BE(n - hi * TWO_32, offset + 4);
    return offset + 8;
  }
  return buf.writeBigInt64BE(value, offset);
}
