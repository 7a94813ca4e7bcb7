/**
 * Splits a TCP byte stream into Kafka frames: int32 size, then `size` bytes.
 *
 * Chunks are kept as a list and joined only when a frame spans several of
 * them, so a large fetch response arriving in many socket reads is copied
 * once, and small frames inside one read are zero-copy views.
 */
import { ClientErrorCode, ProtocolError } from './errors.js';

const SIZE_BYTES = 4;

/** Splits a byte stream into int32-size-prefixed frames, refusing frames above a maximum size. */
export class FrameDecoder {
  private readonly chunks: Buffer[] = [];
  private bufferedBytes = 0;
  /** Size of the frame being assembled, once its 4-byte prefix is complete. */
  private frameBytes = -1;

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
    return this.bufferedBytes;
  }

  /** Feeds bytes; returns every frame they complete (without the size prefix). */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.bufferedBytes += chunk.length;
    }
    const frames: Buffer[] = [];
    for (;;) {
      if (this.frameBytes < 0) {
        if (this.bufferedBytes < SIZE_BYTES) break;
        const size = this.take(SIZE_BYTES).readInt32BE(0);
        if (size < this.frameBytesMin) {
          throw new ProtocolError(ClientErrorCode.PROTOCOL, `response frame of ${size} bytes is below the minimum of ${this.frameBytesMin}`);
        }
        if (size > this.frameBytesMax) {
          throw new ProtocolError(
            ClientErrorCode.RESPONSE_TOO_LARGE,
            `response frame of ${size} bytes exceeds maxResponseBytes (${this.frameBytesMax})`,
          );
        }
        this.frameBytes = size;
      }
      if (this.bufferedBytes < this.frameBytes) break;
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
