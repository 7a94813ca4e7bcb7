/**
 * The two sparse per-segment indexes, held in memory as typed arrays and
 * appended to their files. Formats are Kafka's (big-endian, no header):
 *   .index      entries of relativeOffset int32 + position int32       (8 bytes)
 *   .timeindex  entries of timestamp int64 + relativeOffset int32      (12 bytes)
 * relativeOffset = offset - segment base offset.
 *
 * Entries are buffered and written in one call per batch of entries
 * (`persist`), at the latest on flush, roll and close. An index of a segment
 * that was not cleanly flushed is rebuilt from the log on recovery, so a
 * missing tail of index entries is never trusted nor needed.
 */
import { invariant } from '../util/assert.js';
import type { FileHandle } from './fs.js';

export const OFFSET_INDEX_ENTRY_BYTES = 8;
export const TIME_INDEX_ENTRY_BYTES = 12;
/** Buffered entries are written out once this many are pending. */
const PERSIST_EVERY_ENTRIES = 64;

function grownInt32(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2, 16));
  b.set(a);
  return b;
}

function grownBigInt64(a: BigInt64Array, need: number): BigInt64Array {
  if (need <= a.length) return a;
  const b = new BigInt64Array(Math.max(need, a.length * 2, 16));
  b.set(a);
  return b;
}

/** Sparse relativeOffset -> position. */
export class OffsetIndex {
  private rel: Int32Array = new Int32Array(0);
  private pos: Int32Array = new Int32Array(0);
  private entries = 0;
  private persisted = 0;

  constructor(private readonly file: FileHandle, public maxEntries: number) {}

  get count(): number {
    return this.entries;
  }

  get isFull(): boolean {
    return this.entries >= this.maxEntries;
  }

  append(relOffset: number, position: number): void {
    const n = this.entries;
    invariant(n === 0 || (relOffset > (this.rel[n - 1] as number) && position > (this.pos[n - 1] as number)),
      'offset index entries increase');
    this.rel = grownInt32(this.rel, n + 1);
    this.pos = grownInt32(this.pos, n + 1);
    this.rel[n] = relOffset;
    this.pos[n] = position;
    this.entries = n + 1;
    if (this.entries - this.persisted >= PERSIST_EVERY_ENTRIES) this.persist();
  }

  /** Position of the last entry with relativeOffset <= target, or 0. */
  lookup(relOffset: number): number {
    let lo = 0;
    let hi = this.entries - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.rel[mid] as number) <= relOffset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? 0 : (this.pos[found] as number);
  }

  /** Position of the last entry, or 0 when empty. */
  lastPosition(): number {
    return this.entries === 0 ? 0 : (this.pos[this.entries - 1] as number);
  }

  /** Drops entries pointing at or after `position` (the log is cut there). */
  truncateToPosition(position: number): void {
    let n = this.entries;
    while (n > 0 && (this.pos[n - 1] as number) >= position) n--;
    this.entries = n;
    if (this.persisted > n) {
      this.file.truncate(n * OFFSET_INDEX_ENTRY_BYTES);
      this.persisted = n;
    }
  }

  reset(): void {
    this.entries = 0;
    this.persisted = 0;
    this.file.truncate(0);
  }

  /**
   * Loads the file and checks it: whole entries, offsets and positions
   * strictly increasing, positions inside the log. False when it is unusable.
   */
  load(logSizeBytes: number): boolean {
    const size = this.file.size();
    if (size % OFFSET_INDEX_ENTRY_BYTES !== 0) return false;
    const n = size / OFFSET_INDEX_ENTRY_BYTES;
    const buf = Buffer.allocUnsafe(size);
    if (this.file.read(buf, 0, size, 0) !== size) return false;
    const rel = new Int32Array(Math.max(n, 16));
    const pos = new Int32Array(Math.max(n, 16));
    for (let i = 0; i < n; i++) {
      const r = buf.readInt32BE(i * 8);
      const p = buf.readInt32BE(i * 8 + 4);
      if (r < 0 || p < 0 || p >= logSizeBytes) return false;
      if (i > 0 && (r <= (rel[i - 1] as number) || p <= (pos[i - 1] as number))) return false;
      rel[i] = r;
      pos[i] = p;
    }
    this.rel = rel;
    this.pos = pos;
    this.entries = n;
    this.persisted = n;
    return true;
  }

  lastRelOffset(): number {
    return this.entries === 0 ? -1 : (this.rel[this.entries - 1] as number);
  }

  /** Writes buffered entries in one call. */
  persist(): void {
    const pending = this.entries - this.persisted;
    if (pending === 0) return;
    const buf = Buffer.allocUnsafe(pending * OFFSET_INDEX_ENTRY_BYTES);
    for (let i = 0; i < pending; i++) {
      buf.writeInt32BE(this.rel[this.persisted + i] as number, i * 8);
      buf.writeInt32BE(this.pos[this.persisted + i] as number, i * 8 + 4);
    }
    this.file.write(buf, this.persisted * OFFSET_INDEX_ENTRY_BYTES);
    this.persisted = this.entries;
  }

  sync(): void {
    this.persist();
    this.file.sync();
  }

  close(): void {
    this.persist();
    this.file.close();
  }
}

/** Sparse maxTimestampSoFar -> relativeOffset of that timestamp's batch. */
export class TimeIndex {
  private ts: BigInt64Array = new BigInt64Array(0);
  private rel: Int32Array = new Int32Array(0);
  private entries = 0;
  private persisted = 0;

  constructor(private readonly file: FileHandle, public maxEntries: number) {}

  get count(): number {
    return this.entries;
  }

  /** One slot stays free for the final entry written when the segment rolls. */
  get isFull(): boolean {
    return this.entries >= this.maxEntries - 1;
  }

  lastTimestamp(): bigint {
    return this.entries === 0 ? -1n : (this.ts[this.entries - 1] as bigint);
  }

  lastRelOffset(): number {
    return this.entries === 0 ? -1 : (this.rel[this.entries - 1] as number);
  }

  /** Appends only when the timestamp grew (entries stay strictly increasing). */
  maybeAppend(timestampMs: bigint, relOffset: number): void {
    const n = this.entries;
    if (timestampMs < 0n || (n > 0 && timestampMs <= (this.ts[n - 1] as bigint))) return;
    invariant(n === 0 || relOffset >= (this.rel[n - 1] as number), 'time index offsets do not go back');
    this.ts = grownBigInt64(this.ts, n + 1);
    this.rel = grownInt32(this.rel, n + 1);
    this.ts[n] = timestampMs;
    this.rel[n] = relOffset;
    this.entries = n + 1;
    if (this.entries - this.persisted >= PERSIST_EVERY_ENTRIES) this.persist();
  }

  /**
   * relativeOffset of the last entry whose timestamp is < target, or -1.
   * Every batch up to and including that offset has maxTimestamp < target.
   */
  lookupBelow(timestampMs: bigint): number {
    let lo = 0;
    let hi = this.entries - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ts[mid] as bigint) < timestampMs) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? -1 : (this.rel[found] as number);
  }

  /** Drops entries at or after relOffset (the log is cut there). */
  truncateToRelOffset(relOffset: number): void {
    let n = this.entries;
    while (n > 0 && (this.rel[n - 1] as number) >= relOffset) n--;
    this.entries = n;
    if (this.persisted > n) {
      this.file.truncate(n * TIME_INDEX_ENTRY_BYTES);
      this.persisted = n;
    }
  }

  reset(): void {
    this.entries = 0;
    this.persisted = 0;
    this.file.truncate(0);
  }

  /** Loads and checks: whole entries, timestamps increasing, offsets in [0, maxRelOffset]. */
  load(maxRelOffset: number): boolean {
    const size = this.file.size();
    if (size % TIME_INDEX_ENTRY_BYTES !== 0) return false;
    const n = size / TIME_INDEX_ENTRY_BYTES;
    const buf = Buffer.allocUnsafe(size);
    if (this.file.read(buf, 0, size, 0) !== size) return false;
    const ts = new BigInt64Array(Math.max(n, 16));
    const rel = new Int32Array(Math.max(n, 16));
    for (let i = 0; i < n; i++) {
      const t = buf.readBigInt64BE(i * 12);
      const r = buf.readInt32BE(i * 12 + 8);
      if (t < 0n || r < 0 || r > maxRelOffset) return false;
      if (i > 0 && (t <= (ts[i - 1] as bigint) || r < (rel[i - 1] as number))) return false;
      ts[i] = t;
      rel[i] = r;
    }
    this.ts = ts;
    this.rel = rel;
    this.entries = n;
    this.persisted = n;
    return true;
  }

  persist(): void {
    const pending = this.entries - this.persisted;
    if (pending === 0) return;
    const buf = Buffer.allocUnsafe(pending * TIME_INDEX_ENTRY_BYTES);
    for (let i = 0; i < pending; i++) {
      buf.writeBigInt64BE(this.ts[this.persisted + i] as bigint, i * 12);
      buf.writeInt32BE(this.rel[this.persisted + i] as number, i * 12 + 8);
    }
    this.file.write(buf, this.persisted * TIME_INDEX_ENTRY_BYTES);
    this.persisted = this.entries;
  }

  sync(): void {
    this.persist();
    this.file.sync();
  }

  close(): void {
    this.persist();
    this.file.close();
  }
}
