/**
 * An append-only byte writer that produces a list of chunks. Small fields are
 * copied into a growing scratch buffer; large Buffers (record data read from
 * the log) are appended by reference, so a fetch response never copies the
 * records it returns. `finish()` yields the chunks ready for socket writes.
 */
import { uvarintSize, writeUVarint } from './varint.js';
import { writeInt64BE } from './int64.js';

/** Buffers at least this big are appended by reference rather than copied. */
const ZERO_COPY_MIN_BYTES = 1024;
const SCRATCH_BYTES = 8192;

export class Writer {
  private readonly chunks: Buffer[] = [];
  private scratch: Buffer;
  private start = 0;
  private position = 0;
  private committedBytes = 0;

  constructor(initialBytes = SCRATCH_BYTES) {
    this.scratch = Buffer.allocUnsafe(initialBytes);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.committedBytes + (this.position - this.start);
  }

  private commitScratch(): void {
    if (this.position > this.start) {
      this.chunks.push(this.scratch.subarray(this.start, this.position));
      this.committedBytes += this.position - this.start;
      this.start = this.position;
    }
  }

  private ensure(bytes: number): void {
    if (this.position + bytes <= this.scratch.length) return;
    this.commitScratch();
    this.scratch = Buffer.allocUnsafe(Math.max(bytes, SCRATCH_BYTES));
    this.start = 0;
    this.position = 0;
  }

  writeInt8(value: number): this {
    this.ensure(1);
    this.position = this.scratch.writeInt8(value, this.position);
    return this;
  }
  writeUInt8(value: number): this {
    this.ensure(1);
    this.position = this.scratch.writeUInt8(value, this.position);
    return this;
  }
  writeBool(value: boolean): this {
    return this.writeUInt8(value ? 1 : 0);
  }
  writeInt16(value: number): this {
    this.ensure(2);
    this.position = this.scratch.writeInt16BE(value, this.position);
    return this;
  }
  writeUInt16(value: number): this {
    this.ensure(2);
    this.position = this.scratch.writeUInt16BE(value, this.position);
    return this;
  }
  writeInt32(value: number): this {
    this.ensure(4);
    this.position = this.scratch.writeInt32BE(value, this.position);
    return this;
  }
  writeUInt32(value: number): this {
    this.ensure(4);
    this.position = this.scratch.writeUInt32BE(value, this.position);
    return this;
  }
  writeInt64(value: bigint): this {
    this.ensure(8);
    this.position = writeInt64BE(this.scratch, value, this.position);
    return this;
  }
  writeFloat64(value: number): this {
    this.ensure(8);
    this.position = this.scratch.writeDoubleBE(value, this.position);
    return this;
  }
  writeUVarint(value: number): this {
    this.ensure(uvarintSize(value));
    this.position = writeUVarint(this.scratch, this.position, value);
    return this;
  }

  writeUtf8(value: string, byteLength: number): this {
    this.ensure(byteLength);
    this.position += this.scratch.write(value, this.position, byteLength, 'utf8');
    return this;
  }

  /** Appends bytes: copied when small, referenced when large. */
  writeBytes(bytes: Uint8Array): this {
    if (bytes.length >= ZERO_COPY_MIN_BYTES) {
      this.commitScratch();
      this.chunks.push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      this.committedBytes += bytes.length;
      return this;
    }
    this.ensure(bytes.length);
    this.scratch.set(bytes, this.position);
    this.position += bytes.length;
    return this;
  }

  /** Reserves an int32 slot (e.g. a frame length) to fill in later. */
  reserveInt32(): { chunkOwner: Buffer; position: number } {
    this.ensure(4);
    const slot = { chunkOwner: this.scratch, position: this.position };
    this.position += 4;
    return slot;
  }

  /** The written bytes as chunks; the writer must not be used afterwards. */
  finish(): Buffer[] {
    this.commitScratch();
    return this.chunks;
  }

  /** The written bytes as one Buffer (copies when there are several chunks). */
  toBuffer(): Buffer {
    const chunks = this.finish();
    if (chunks.length === 1) return chunks[0] as Buffer;
    return Buffer.concat(chunks, this.committedBytes);
  }
}
