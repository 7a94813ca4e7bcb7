/**
 * A bounds-checked cursor over a Buffer. Every read checks the remaining length
 * first and throws DecodeError, so hostile or truncated input can never cause a
 * RangeError deep in a handler, an out-of-bounds read, or a huge allocation.
 */
import { DecodeError } from './decode-error.js';
import { readUVarint, type VarintCursor } from './varint.js';
import { readInt64BE } from './int64.js';

export class Reader {
  position: number;
  private readonly cursor: VarintCursor = { value: 0, position: 0 };

  constructor(
    readonly buffer: Buffer,
    start = 0,
    readonly end = buffer.length,
  ) {
    this.position = start;
  }

  get remaining(): number {
    return this.end - this.position;
  }

  private need(bytes: number, what: string): number {
    const at = this.position;
    if (bytes < 0 || at + bytes > this.end) {
      throw new DecodeError(`truncated ${what}: need ${bytes} bytes at position ${at}, have ${this.end - at}`);
    }
    this.position = at + bytes;
    return at;
  }

  readInt8(): number {
    return this.buffer.readInt8(this.need(1, 'int8'));
  }
  readUInt8(): number {
    return this.buffer.readUInt8(this.need(1, 'uint8'));
  }
  readBool(): boolean {
    return this.buffer.readUInt8(this.need(1, 'bool')) !== 0;
  }
  readInt16(): number {
    return this.buffer.readInt16BE(this.need(2, 'int16'));
  }
  readUInt16(): number {
    return this.buffer.readUInt16BE(this.need(2, 'uint16'));
  }
  readInt32(): number {
    return this.buffer.readInt32BE(this.need(4, 'int32'));
  }
  readUInt32(): number {
    return this.buffer.readUInt32BE(this.need(4, 'uint32'));
  }
  readInt64(): bigint {
    return readInt64BE(this.buffer, this.need(8, 'int64'));
  }
  readFloat64(): number {
    return this.buffer.readDoubleBE(this.need(8, 'float64'));
  }

  readUVarint(): number {
    if (this.position >= this.end) throw new DecodeError('truncated unsigned varint');
    readUVarint(this.buffer, this.position, this.cursor);
    if (this.cursor.position > this.end) throw new DecodeError('truncated unsigned varint');
    this.position = this.cursor.position;
    return this.cursor.value;
  }

  /** A view of the next `length` bytes (no copy). */
  readSlice(length: number, what = 'bytes'): Buffer {
    const at = this.need(length, what);
    return this.buffer.subarray(at, at + length);
  }

  readUtf8(length: number): string {
    const at = this.need(length, 'string');
    return this.buffer.toString('utf8', at, at + length);
  }

  skip(length: number): void {
    this.need(length, 'skipped bytes');
  }
}
