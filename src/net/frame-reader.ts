/**
 * Reads int32-size-prefixed Kafka frames straight from the socket into the
 * buffers they end up in (net.Socket's `onread` option), instead of taking
 * Node's 64 KiB chunks and copying them into place.
 *
 * - Small frames are read into a scratch buffer and returned as views of it.
 *   The scratch is filled front to back and never rewritten, so views already
 *   handed out stay valid; a new one is taken when too little room is left.
 * - A frame that does not fit the scratch's free room gets a buffer of exactly
 *   its size as soon as its length is known; the bytes already read are
 *   copied in once and the rest of the frame is read directly into it by the
 *   kernel. A 1 MiB fetch response is thereby one allocation and no copy of
 *   its body in JavaScript (bench/README.md, "Consumer").
 *
 * Usage: `readBuffer()` tells Node where the next read goes; `onRead(n)`
 * reports that n bytes landed there and returns the frames they complete
 * (without their size prefix). FrameDecoder is the push-based equivalent for
 * streams that hand over chunks.
 */
import { checkResponseFrameSize } from './frame-decoder.js';

const SIZE_BYTES = 4;
/** Scratch buffer size: Node's own read size. */
const SCRATCH_BYTES = 64 * 1024;
/** Take a fresh scratch rather than read into less room than this. */
const SCRATCH_ROOM_MIN = 4 * 1024;

export class FrameReader {
  private scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** scratch[start, end): bytes read and not yet returned as frames. */
  private start = 0;
  private end = 0;
  /** The frame being read into its own buffer, and how much of it is filled. */
  private frame: Buffer | null = null;
  private frameFilled = 0;
  /** Where the last `readBuffer()` pointed: into `frame` or into the scratch. */
  private target: 'frame' | 'scratch' = 'scratch';

  /**
   * @param frameBytesMax largest frame accepted (bytes after the size field)
   * @param frameBytesMin smallest frame accepted (a response has at least a correlation id)
   */
  constructor(
    readonly frameBytesMax: number,
    readonly frameBytesMin = 4,
  ) {}

  /** Bytes of frame bodies (and of size fields not yet complete) received but not yet returned as frames. */
  get pendingBytes(): number {
    if (this.frame !== null) return this.frameFilled;
    const buffered = this.end - this.start;
    return buffered >= SIZE_BYTES ? buffered - SIZE_BYTES : buffered;
  }

  /** The buffer the next socket read fills (any length it reads from its start). */
  readBuffer(): Buffer {
    if (this.frame !== null) {
      this.target = 'frame';
      return this.frame.subarray(this.frameFilled);
    }
    this.target = 'scratch';
    if (this.scratch.length - this.end < SCRATCH_ROOM_MIN) this.renewScratch();
    return this.scratch.subarray(this.end);
  }

  /** `n` bytes were read into the last `readBuffer()`; returns the frames now complete. */
  onRead(n: number): Buffer[] {
    const frames: Buffer[] = [];
    if (this.target === 'frame') {
      const frame = this.frame as Buffer;
      this.frameFilled += n;
      if (this.frameFilled < frame.length) return frames;
      frames.push(frame);
      this.frame = null;
      this.frameFilled = 0;
      return frames;
    }
    this.end += n;
    while (this.end - this.start >= SIZE_BYTES) {
      const size = this.scratch.readInt32BE(this.start);
      checkResponseFrameSize(size, this.frameBytesMin, this.frameBytesMax);
      const bodyStart = this.start + SIZE_BYTES;
      const available = this.end - bodyStart;
      if (available >= size) {
        frames.push(this.scratch.subarray(bodyStart, bodyStart + size));
        this.start = bodyStart + size;
        continue;
      }
      // Incomplete. If it cannot finish inside the scratch, it gets its own buffer now.
      if (bodyStart + size > this.scratch.length) {
        const frame = Buffer.allocUnsafe(size);
        this.scratch.copy(frame, 0, bodyStart, this.end);
        this.frame = frame;
        this.frameFilled = available;
        this.start = this.end;
      }
      break;
    }
    return frames;
  }

  /** A new scratch, carrying over the unreturned bytes (fewer than a size field, or a frame that fits). */
  private renewScratch(): void {
    const next = Buffer.allocUnsafe(Math.max(SCRATCH_BYTES, (this.end - this.start) * 2));
    this.scratch.copy(next, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    this.scratch = next;
  }
}
