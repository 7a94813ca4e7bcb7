/**
 * Splits a TCP byte stream into Kafka frames: int32 size, then `size` bytes.
 *
 * Frames inside one chunk are zero-copy views of it. A frame that spans
 * chunks is copied once, into a buffer of exactly its size allocated as soon
 * as its size is known: each chunk is copied when it arrives, while it is
 * still in the CPU cache, instead of all of them when the frame completes.
 */
import { ClientErrorCode, ProtocolError } from './errors.js';

const SIZE_BYTES = 4;

/** A response frame's size field checked against the bounds; throws the error that closes the connection. */
export function checkResponseFrameSize(size: number, frameBytesMin: number, frameBytesMax: number): void {
  if (size < frameBytesMin) {
    throw new ProtocolError(ClientErrorCode.PROTOCOL, `response frame of ${size} bytes is below the minimum of ${frameBytesMin}`);
  }
  if (size > frameBytesMax) {
    throw new ProtocolError(ClientErrorCode.RESPONSE_TOO_LARGE, `response frame of ${size} bytes exceeds maxResponseBytes (${frameBytesMax})`);
  }
}

/** Splits a byte stream into int32-size-prefixed frames, refusing frames above a maximum size. */
export class FrameDecoder {
  private readonly chunks: Buffer[] = [];
  private bufferedBytes = 0;
  /** Size of the frame being assembled, once its 4-byte prefix is complete. */
  private frameBytes = -1;
  /** The frame being assembled across chunks, and how much of it is filled. */
  private partial: Buffer | null = null;
  private partialFilled = 0;

  /**
   * @param frameBytesMax largest frame accepted (bytes after the size field)
   * @param frameBytesMin smallest frame accepted (a response has at least a correlation id)
   */
  constructor(
    readonly frameBytesMax: number,
    readonly frameBytesMin = 4,
  ) {}

  /** Bytes received but not yet returned as frames. */
  get pendingBytes(): number {
    return this.bufferedBytes + this.partialFilled;
  }

  /** Feeds bytes; returns every frame they complete (without the size prefix). */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    if (this.partial !== null) {
      // Continue the frame being assembled straight from the new chunk.
      const partial = this.partial;
      const n = Math.min(chunk.length, partial.length - this.partialFilled);
      chunk.copy(partial, this.partialFilled, 0, n);
      this.partialFilled += n;
      if (this.partialFilled < partial.length) return frames;
      frames.push(partial);
      this.partial = null;
      this.partialFilled = 0;
      this.frameBytes = -1;
      chunk = chunk.subarray(n);
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.bufferedBytes += chunk.length;
    }
    for (;;) {
      if (this.frameBytes < 0) {
        if (this.bufferedBytes < SIZE_BYTES) break;
        const size = this.take(SIZE_BYTES).readInt32BE(0);
        checkResponseFrameSize(size, this.frameBytesMin, this.frameBytesMax);
        this.frameBytes = size;
      }
      if (this.bufferedBytes < this.frameBytes) {
        // Incomplete: start the frame's buffer now with what is here; later chunks are copied in as they come.
        if (this.bufferedBytes > 0) {
          const partial = Buffer.allocUnsafe(this.frameBytes);
          let filled = 0;
          for (const c of this.chunks) filled += c.copy(partial, filled);
          this.chunks.length = 0;
          this.bufferedBytes = 0;
          this.partial = partial;
          this.partialFilled = filled;
        }
        break;
      }
      frames.push(this.take(this.frameBytes));
      this.frameBytes = -1;
    }
    return frames;
  }

  /** Removes and returns the first `bytes` buffered bytes (caller checked they exist). */
  private take(bytes: number): Buffer {
    this.bufferedBytes -= bytes;
    const first = this.chunks[0] as Buffer;
    if (first.length >= bytes) {
      const out = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
      return out;
    }
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const head = this.chunks[0] as Buffer;
      const n = Math.min(head.length, bytes - filled);
      head.copy(out, filled, 0, n);
      filled += n;
      if (n === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    return out;
  }
}
