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
/**
 * The arrays of an index with no entries, shared (never written: an append
 * grows them into new arrays first). Most segments of a node with many
 * partitions are too small for an entry; four typed arrays each was ~0.7 KiB
 * per partition.
 */
const EMPTY_INT32 = new Int32Array(0);
const EMPTY_BIGINT64 = new BigInt64Array(0);
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

/**
 * What both indexes share: fixed-size entries appended to a file, with the
 * newest ones buffered in memory until `persist` writes them in one call.
 */
abstract class SparseIndexFile {
  protected entries = 0;
  protected persisted = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly entryBytes: number,
    public maxEntries: number,
  ) {}

  get count(): number {
    return this.entries;
  }

  /** Writes entry `i` into `buf` at `at`. */
  protected abstract writeEntry(buf: Buffer, at: number, i: number): void;

  /** Keeps the first `n` entries (in memory and in the file). */
  protected truncateEntries(n: number): void {
    this.entries = n;
    if (this.persisted > n) {
      this.file.truncate(n * this.entryBytes);
      this.persisted = n;
    }
  }

  /** The whole file when it holds whole entries; null when it is unusable. */
  protected readWholeFile(): Buffer | null {
    const size = this.file.size();
    if (size % this.entryBytes !== 0) return null;
    // Empty: no read (which would open a descriptor for nothing).
    if (size === 0) return Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(size);
    return this.file.read(buf, 0, size, 0) === size ? buf : null;
  }

  /** Marks `n` loaded entries as in memory and on disk. */
  protected loaded(n: number): void {
    this.entries = n;
    this.persisted = n;
  }

  protected persistIfDue(): void {
    if (this.entries - this.persisted >= PERSIST_EVERY_ENTRIES) this.persist();
  }

  reset(): void {
    this.entries = 0;
    this.persisted = 0;
    // Already empty (a small segment's index): no call, and no descriptor opened for it.
    if (this.file.size() !== 0) this.file.truncate(0);
  }

  /** Writes buffered entries in one call. */
  persist(): void {
    const pending = this.entries - this.persisted;
    if (pending === 0) return;
    const buf = Buffer.allocUnsafe(pending * this.entryBytes);
    for (let i = 0; i < pending; i++) this.writeEntry(buf, i * this.entryBytes, this.persisted + i);
    this.file.write(buf, this.persisted * this.entryBytes);
    this.persisted = this.entries;
  }

  sync(): void {
    this.persist();
    this.file.sync();
  }

  /** sync() with the fsync on the thread pool (the entries are written out now). */
  syncAsync(): Promise<void> {
    this.persist();
    return this.file.syncAsync();
  }

  close(): void {
    this.persist();
    this.file.close();
  }
}

/** Sparse relativeOffset -> position. */
export class OffsetIndex extends SparseIndexFile {
  private rel: Int32Array = EMPTY_INT32;
  private pos: Int32Array = EMPTY_INT32;

  constructor(file: FileHandle, maxEntries: number) {
    super(file, OFFSET_INDEX_ENTRY_BYTES, maxEntries);
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
    this.persistIfDue();
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

  /**
   * Relative offset of the first entry at or after `position` (the batch
   * starting there), or -1 when there is none: every batch before that
   * position holds lower offsets.
   */
  relOffsetAtOrAfter(position: number): number {
    let lo = 0;
    let hi = this.entries - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.pos[mid] as number) >= position) {
        found = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found < 0 ? -1 : (this.rel[found] as number);
  }

  /** Position of the last entry, or 0 when empty. */
  lastPosition(): number {
    return this.entries === 0 ? 0 : (this.pos[this.entries - 1] as number);
  }

  /** Drops entries pointing at or after `position` (the log is cut there). */
  truncateToPosition(position: number): void {
    let n = this.entries;
    while (n > 0 && (this.pos[n - 1] as number) >= position) n--;
    this.truncateEntries(n);
  }

  /**
   * Loads the file and checks it: whole entries, offsets and positions
   * strictly increasing, positions inside the log. False when it is unusable.
   */
  load(logSizeBytes: number): boolean {
    const buf = this.readWholeFile();
    if (buf === null) return false;
    const n = buf.length / OFFSET_INDEX_ENTRY_BYTES;
    const rel = n === 0 ? EMPTY_INT32 : new Int32Array(Math.max(n, 16));
    const pos = n === 0 ? EMPTY_INT32 : new Int32Array(Math.max(n, 16));
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
    this.loaded(n);
    return true;
  }

  lastRelOffset(): number {
    return this.entries === 0 ? -1 : (this.rel[this.entries - 1] as number);
  }

  protected writeEntry(buf: Buffer, at: number, i: number): void {
    buf.writeInt32BE(this.rel[i] as number, at);
    buf.writeInt32BE(this.pos[i] as number, at + 4);
  }
}

/** Sparse maxTimestampSoFar -> relativeOffset of that timestamp's batch. */
export class TimeIndex extends SparseIndexFile {
  private ts: BigInt64Array = EMPTY_BIGINT64;
  private rel: Int32Array = EMPTY_INT32;

  constructor(file: FileHandle, maxEntries: number) {
    super(file, TIME_INDEX_ENTRY_BYTES, maxEntries);
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
    this.persistIfDue();
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
    this.truncateEntries(n);
  }

  /** Loads and checks: whole entries, timestamps increasing, offsets in [0, maxRelOffset]. */
  load(maxRelOffset: number): boolean {
    const buf = this.readWholeFile();
    if (buf === null) return false;
    const n = buf.length / TIME_INDEX_ENTRY_BYTES;
    const ts = n === 0 ? EMPTY_BIGINT64 : new BigInt64Array(Math.max(n, 16));
    const rel = n === 0 ? EMPTY_INT32 : new Int32Array(Math.max(n, 16));
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
    this.loaded(n);
    return true;
  }

  protected writeEntry(buf: Buffer, at: number, i: number): void {
    buf.writeBigInt64BE(this.ts[i] as bigint, at);
    buf.writeInt32BE(this.rel[i] as number, at + 8);
  }
}
