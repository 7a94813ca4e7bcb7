/**
 * The five Kafka codecs applied to the records section of a batch.
 *
 *   0 none    identity
 *   1 gzip    RFC 1952 (node:zlib); decoded with a maxOutputLength
 *   2 snappy  written in xerial framing (what Kafka's Java producer sends);
 *             read both xerial-framed and raw block snappy (librdkafka sends raw)
 *   3 lz4     the LZ4 *frame* format (lz4-napi), 64 KiB independent blocks
 *   4 zstd    @mongodb-js/zstd, async only
 *
 * Decoding treats its input as hostile: every failure becomes a DecodeError,
 * and the output is capped at `maxBytes` (default DECOMPRESSED_BYTES_MAX).
 * The cap is enforced before allocating for snappy (its length preamble) and
 * during inflation for gzip; for lz4 and zstd a declared frame content size
 * is checked first and the output length after (the libraries take no limit).
 */
import { promisify } from 'node:util';
import type * as Zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { DecodeError } from '../primitives/decode-error.js';
import { readUVarint, type VarintCursor } from '../primitives/varint.js';
import { Compression } from './header.js';

// The native codec libraries are loaded on first use: each maps a shared
// library (5-10 MB of resident memory), and an idle broker whose clients do
// not compress, or whose topics keep batches as sent, never needs them.
const requireNative = createRequire(import.meta.url);
type Lz4 = typeof import('lz4-napi');
type Snappy = typeof import('snappy');
type Zstd = typeof import('@mongodb-js/zstd');
let lz4Module: Lz4 | undefined;
let snappyModule: Snappy | undefined;
let zstdModule: Zstd | undefined;
const lz4 = (): Lz4 => (lz4Module ??= requireNative('lz4-napi') as Lz4);
const snappy = (): Snappy => (snappyModule ??= requireNative('snappy') as Snappy);
const zstd = (): Zstd => (zstdModule ??= requireNative('@mongodb-js/zstd') as Zstd);

/** Upper bound on the decompressed records section of one batch. */
export const DECOMPRESSED_BYTES_MAX = 256 * 1024 * 1024;
/** Uncompressed bytes per xerial block, as snappy-java's default. */
export const XERIAL_BLOCK_BYTES = 32 * 1024;
/** `\x82SNAPPY\x00`, then int32 version 1 and int32 compatible version 1. */
export const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;
const XERIAL_VERSION = 1;
/** gzip level Kafka's Java client uses by default (Deflater default). */
const GZIP_LEVEL = 6;
/** zstd level Kafka's Java client uses by default. */
const ZSTD_LEVEL = 3;
/**
 * A snappy element expands at most 64 output bytes from 3 input bytes (a copy
 * with a 2-byte offset), so a preamble above ~21.4x the input is corrupt.
 */
const SNAPPY_EXPANSION_MAX = 22;

/** Thrown by the sync API for a codec that has no synchronous implementation (zstd). */
export class SyncCodecUnsupportedError extends Error {
  readonly code = 'ERR_TRIB_CODEC_SYNC_UNSUPPORTED';

  constructor(codec: number) {
    super(`codec ${codecName(codec)} has no synchronous implementation; use the async API`);
    this.name = 'SyncCodecUnsupportedError';
  }
}

export function codecName(codec: number): string {
  return ['none', 'gzip', 'snappy', 'lz4', 'zstd'][codec] ?? `unknown(${codec})`;
}

export function isKnownCodec(codec: number): codec is Compression {
  return Number.isInteger(codec) && codec >= Compression.None && codec <= Compression.Zstd;
}

/**
 * node:zlib on first use: most brokers never see a gzip batch, and loading it
 * pages in about 1.4 MiB of the node binary that an idle broker then keeps
 * (bench/README.md, "Idle RSS").
 */
let zlibModule: typeof Zlib | null = null;
let gzipPromised: ((data: Buffer, options: Zlib.ZlibOptions) => Promise<Buffer>) | null = null;
let gunzipPromised: ((data: Buffer, options: Zlib.ZlibOptions) => Promise<Buffer>) | null = null;
function zlib(): typeof Zlib {
  return (zlibModule ??= requireNative('node:zlib') as typeof Zlib);
}
const gzipAsync = (data: Buffer, options: Zlib.ZlibOptions): Promise<Buffer> => (gzipPromised ??= promisify(zlib().gzip))(data, options);
const gunzipAsync = (data: Buffer, options: Zlib.ZlibOptions): Promise<Buffer> => (gunzipPromised ??= promisify(zlib().gunzip))(data, options);

// ----------------------------------------------------------------- compress

export function compressSync(codec: number, data: Buffer): Buffer {
  switch (codec) {
    case Compression.None:
      return data;
    case Compression.Gzip:
      return zlib().gzipSync(data, { level: GZIP_LEVEL });
    case Compression.Snappy:
      return xerialSnappyCompress(data);
    case Compression.Lz4:
      return lz4().compressFrameSync(data);
    case Compression.Zstd:
      throw new SyncCodecUnsupportedError(codec);
    default:
      throw new RangeError(`unknown compression codec ${codec}`);
  }
}

export async function compress(codec: number, data: Buffer): Promise<Buffer> {
  switch (codec) {
    case Compression.Gzip:
      return gzipAsync(data, { level: GZIP_LEVEL });
    case Compression.Lz4:
      return lz4().compressFrame(data);
    case Compression.Zstd:
      return zstd().compress(data, ZSTD_LEVEL);
    default:
      // none and snappy are cheap enough to run inline (snappy ~350 MB/s).
      return compressSync(codec, data);
  }
}

/** Snappy in xerial framing: header, then [int32 length, raw snappy block] per 32 KiB. */
export function xerialSnappyCompress(data: Buffer): Buffer {
  const blocks: Buffer[] = [];
  let total = XERIAL_HEADER_BYTES;
  for (let start = 0; start < data.length; start += XERIAL_BLOCK_BYTES) {
    const block = snappy().compressSync(data.subarray(start, start + XERIAL_BLOCK_BYTES));
    blocks.push(block);
    total += 4 + block.length;
  }
  const out = Buffer.allocUnsafe(total);
  XERIAL_MAGIC.copy(out, 0);
  out.writeInt32BE(XERIAL_VERSION, 8);
  out.writeInt32BE(XERIAL_VERSION, 12);
  let position = XERIAL_HEADER_BYTES;
  for (const block of blocks) {
    out.writeInt32BE(block.length, position);
    block.copy(out, position + 4);
    position += 4 + block.length;
  }
  return out;
}

// --------------------------------------------------------------- decompress

function wrap(codec: number, err: unknown): DecodeError {
  if (err instanceof DecodeError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new DecodeError(`${codecName(codec)} decompression failed: ${detail}`, { cause: err });
}

function checkOutput(codec: number, out: Buffer, maxBytes: number): Buffer {
  if (out.length > maxBytes) {
    throw new DecodeError(`${codecName(codec)} output of ${out.length} bytes exceeds the limit of ${maxBytes}`);
  }
  return out;
}

function unknownCodec(codec: number): DecodeError {
  return new DecodeError(`unknown compression codec ${codec}`);
}

export function decompressSync(codec: number, data: Buffer, maxBytes = DECOMPRESSED_BYTES_MAX): Buffer {
  try {
    switch (codec) {
      case Compression.None:
        return checkOutput(codec, data, maxBytes);
      case Compression.Gzip:
        return zlib().gunzipSync(data, { maxOutputLength: maxBytes });
      case Compression.Snappy:
        return snappyDecompress(data, maxBytes);
      case Compression.Lz4:
        checkDeclaredSize(codec, lz4DeclaredContentBytes(data), maxBytes);
        return checkOutput(codec, lz4().decompressFrameSync(data), maxBytes);
      case Compression.Zstd:
        throw new SyncCodecUnsupportedError(codec);
      default:
        throw unknownCodec(codec);
    }
  } catch (err) {
    if (err instanceof SyncCodecUnsupportedError) throw err;
    throw wrap(codec, err);
  }
}

export async function decompress(codec: number, data: Buffer, maxBytes = DECOMPRESSED_BYTES_MAX): Promise<Buffer> {
  try {
    switch (codec) {
      case Compression.Gzip:
        return await gunzipAsync(data, { maxOutputLength: maxBytes });
      case Compression.Lz4:
        checkDeclaredSize(codec, lz4DeclaredContentBytes(data), maxBytes);
        return checkOutput(codec, await lz4().decompressFrame(data), maxBytes);
      case Compression.Zstd:
        checkDeclaredSize(codec, zstdDeclaredContentBytes(data), maxBytes);
        return checkOutput(codec, await zstd().decompress(data), maxBytes);
      default:
        return decompressSync(codec, data, maxBytes);
    }
  } catch (err) {
    throw wrap(codec, err);
  }
}

function checkDeclaredSize(codec: number, declared: number | undefined, maxBytes: number): void {
  if (declared !== undefined && declared > maxBytes) {
    throw new DecodeError(`${codecName(codec)} frame declares ${declared} bytes, over the limit of ${maxBytes}`);
  }
}

export function isXerialFramed(data: Buffer): boolean {
  return data.length >= XERIAL_MAGIC.length && data.compare(XERIAL_MAGIC, 0, 8, 0, 8) === 0;
}

/** Decodes xerial-framed or raw block snappy (detected by the magic). */
export function snappyDecompress(data: Buffer, maxBytes = DECOMPRESSED_BYTES_MAX): Buffer {
  if (!isXerialFramed(data)) {
    return snappyBlock(data, snappyBlockLength(data, maxBytes));
  }
  if (data.length < XERIAL_HEADER_BYTES) throw new DecodeError('truncated xerial snappy header');
  // Pass 1: walk the blocks, sum their declared lengths, reject before allocating.
  let total = 0;
  let blockCount = 0;
  for (let position = XERIAL_HEADER_BYTES; position < data.length; ) {
    position = skipXerialHeader(data, position);
    if (position >= data.length) break;
    const block = xerialBlockAt(data, position);
    total += snappyBlockLength(block, maxBytes - total);
    position += 4 + block.length;
    blockCount++;
  }
  // Pass 2: decompress each block into one output buffer.
  const out = Buffer.allocUnsafe(total);
  let written = 0;
  for (let position = XERIAL_HEADER_BYTES, i = 0; i < blockCount; i++) {
    position = skipXerialHeader(data, position);
    const block = xerialBlockAt(data, position);
    const decoded = snappyBlock(block, snappyBlockLength(block, maxBytes));
    decoded.copy(out, written);
    written += decoded.length;
    position += 4 + block.length;
  }
  return out;
}

/** snappy-java accepts a concatenation of xerial streams; skip a repeated header. */
function skipXerialHeader(data: Buffer, position: number): number {
  if (data.length - position >= XERIAL_HEADER_BYTES && data.compare(XERIAL_MAGIC, 0, 8, position, position + 8) === 0) {
    return position + XERIAL_HEADER_BYTES;
  }
  return position;
}

function xerialBlockAt(data: Buffer, position: number): Buffer {
  if (data.length - position < 4) throw new DecodeError('truncated xerial snappy block length');
  const length = data.readInt32BE(position);
  if (length < 0 || length > data.length - position - 4) {
    throw new DecodeError(`xerial snappy block length ${length} exceeds the ${data.length - position - 4} bytes left`);
  }
  return data.subarray(position + 4, position + 4 + length);
}

const preamble: VarintCursor = { value: 0, position: 0 };

/** The uncompressed length a raw snappy block declares, checked against limits. */
function snappyBlockLength(block: Buffer, maxBytes: number): number {
  const length = readUVarint(block, 0, preamble).value;
  if (length > maxBytes) throw new DecodeError(`snappy block declares ${length} bytes, over the limit`);
  if (length > block.length * SNAPPY_EXPANSION_MAX) {
    throw new DecodeError(`snappy block declares ${length} bytes from only ${block.length}`);
  }
  return length;
}

function snappyBlock(block: Buffer, expectedBytes: number): Buffer {
  const out = snappy().uncompressSync(block, { asBuffer: true });
  if (typeof out === 'string' || out.length !== expectedBytes) {
    throw new DecodeError('snappy block length does not match its preamble');
  }
  return out;
}

/** LZ4 frame: magic, FLG (bit 3 = content size present), BD, [content size u64le]. */
function lz4DeclaredContentBytes(data: Buffer): number | undefined {
  if (data.length < 14 || data.readUInt32LE(0) !== 0x184d2204) return undefined;
  const flg = data[4] as number;
  if ((flg & 0x08) === 0) return undefined;
  return Number(data.readBigUInt64LE(6));
}

/** zstd frame header's Frame_Content_Size, when the first frame declares one. */
function zstdDeclaredContentBytes(data: Buffer): number | undefined {
  if (data.length < 5 || data.readUInt32LE(0) !== 0xfd2fb528) return undefined;
  const descriptor = data[4] as number;
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 3] as number;
  const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  if (sizeBytes === 0) return undefined;
  const position = 5 + (singleSegment === 1 ? 0 : 1) + dictionaryIdBytes;
  if (data.length < position + sizeBytes) return undefined;
  switch (sizeBytes) {
    case 1:
      return data[position] as number;
    case 2:
      return data.readUInt16LE(position) + 256;
    case 4:
      return data.readUInt32LE(position);
    default:
      return Number(data.readBigUInt64LE(position));
  }
}
