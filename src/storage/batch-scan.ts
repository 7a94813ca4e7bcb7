/**
 * Walking the batches of a segment file: a read window so a scan costs one
 * read per window instead of one per batch header, and the validation used by
 * crash recovery. Bytes from disk are validated, never asserted.
 */
import { BATCH_HEADER_BYTES, BATCH_LOG_OVERHEAD, Offsets, batchCrcIsValid } from '../protocol/record-batch/header.js';
import type { FileHandle } from './fs.js';

/** Smallest legal batchLength: the header after the length field, no records. */
export const BATCH_LENGTH_MIN = BATCH_HEADER_BYTES - BATCH_LOG_OVERHEAD;
/** Header bytes needed to know a batch's offsets and max timestamp. */
export const HEADER_PREFIX_BYTES = Offsets.maxTimestamp + 8;
const INT32_MAX = 0x7fffffff;

/** A cached window over a file that is not being written to during the scan. */
export class FileWindow {
  private start = 0;
  private length = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly fileSize: number,
    private readonly windowBytes: number,
    private buf: Buffer = Buffer.allocUnsafe(windowBytes),
  ) {}

  get buffer(): Buffer {
    return this.buf;
  }

  /**
   * Makes [position, position + length) readable; returns its offset in
   * `buffer`, or -1 when the file ends before.
   */
  ensure(position: number, length: number): number {
    if (position + length > this.fileSize) return -1;
    if (position >= this.start && position + length <= this.start + this.length) return position - this.start;
    const want = Math.min(Math.max(length, this.windowBytes), this.fileSize - position);
    if (this.buf.length < want) this.buf = Buffer.allocUnsafe(want);
    this.start = position;
    this.length = this.file.read(this.buf, 0, want, position);
    return this.length >= length ? 0 : -1;
  }
}

/** What a scan learns from one batch header. */
export interface BatchInfo {
  position: number;
  sizeBytes: number;
  baseOffset: bigint;
  lastOffset: bigint;
  maxTimestampMs: bigint;
}

/**
 * Reads the header of the batch at `position` and checks its framing only
 * (length sane, inside the file). Returns a reason string when it is broken.
 */
export function readBatchInfo(win: FileWindow, position: number, fileSize: number): BatchInfo | string {
  const at = win.ensure(position, HEADER_PREFIX_BYTES);
  if (at < 0) return `torn batch header at position ${position}`;
  const buf = win.buffer;
  const batchLength = buf.readInt32BE(at + Offsets.batchLength);
  if (batchLength < BATCH_LENGTH_MIN) return `batch length ${batchLength} too small at position ${position}`;
  const sizeBytes = BATCH_LOG_OVERHEAD + batchLength;
  if (position + sizeBytes > fileSize) return `torn batch at position ${position} (${sizeBytes} bytes, file ends at ${fileSize})`;
  const lastOffsetDelta = buf.readInt32BE(at + Offsets.lastOffsetDelta);
  if (lastOffsetDelta < 0) return `negative lastOffsetDelta at position ${position}`;
  const baseOffset = buf.readBigInt64BE(at + Offsets.baseOffset);
  return {
    position,
    sizeBytes,
    baseOffset,
    lastOffset: baseOffset + BigInt(lastOffsetDelta),
    maxTimestampMs: buf.readBigInt64BE(at + Offsets.maxTimestamp),
  };
}

/**
 * Full validation for recovery: framing, magic 2, CRC-32C, offsets at least
 * `minBaseOffset` and within int32 of the segment base.
 */
export function validateBatchAt(
  win: FileWindow,
  position: number,
  fileSize: number,
  minBaseOffset: bigint,
  segmentBaseOffset: bigint,
): BatchInfo | string {
  const info = readBatchInfo(win, position, fileSize);
  if (typeof info === 'string') return info;
  const at = win.ensure(position, info.sizeBytes);
  if (at < 0) return `torn batch at position ${position}`;
  const buf = win.buffer;
  const magic = buf.readInt8(at + Offsets.magic);
  if (magic !== 2) return `magic ${magic} at position ${position}`;
  if (info.baseOffset < minBaseOffset) {
    return `offset ${info.baseOffset} at position ${position} does not follow ${minBaseOffset - 1n}`;
  }
  if (info.lastOffset - segmentBaseOffset > BigInt(INT32_MAX)) return `offset ${info.lastOffset} overflows the segment`;
  if (!batchCrcIsValid(buf, at, info.sizeBytes)) return `CRC mismatch at position ${position}`;
  return info;
}
