/**
 * The aborted transaction index of one segment, `<base>.txnindex` (Kafka's
 * TransactionIndex, KIP-98): one entry per transaction aborted by a marker
 * in this segment, so a read_committed Fetch can tell the consumer which
 * producers' records to drop without the broker reading the records.
 *
 * Format (Kafka's, big-endian, 34 bytes per entry, no header):
 *
 *   int16 version (0) | int64 producerId | int64 firstOffset | int64 lastOffset | int64 lastStableOffset
 *
 * firstOffset is the transaction's first data offset (maybe in an earlier
 * segment), lastOffset the abort marker's offset (in this segment),
 * lastStableOffset the partition's LSO once the abort completed (the first
 * offset of the oldest other open transaction, else lastOffset + 1). Entries
 * are in lastOffset order. The file is created on the first entry only (most
 * segments never see an abort). Entries are kept in memory: they are few.
 *
 * Validation on load (bytes from disk): a length that is not a multiple of
 * 34, an unknown version, firstOffset > lastOffset, a lastOffset outside the
 * segment or not increasing makes the file unusable; the log then rebuilds it
 * from its batches (txn-index-rebuild.ts).
 */
import { join } from 'node:path';
import { invariant } from '../util/assert.js';
import type { FileHandle, FileSystem } from './fs.js';

export const TXN_INDEX_SUFFIX = '.txnindex';
export const TXN_INDEX_ENTRY_BYTES = 34;
const ENTRY_VERSION = 0;

/** One aborted transaction (Kafka's AbortedTxn). */
export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly lastStableOffset: bigint;
}

export function encodeAbortedTxn(e: AbortedTxn): Buffer {
  const buf = Buffer.alloc(TXN_INDEX_ENTRY_BYTES);
  buf.writeInt16BE(ENTRY_VERSION, 0);
  buf.writeBigInt64BE(e.producerId, 2);
  buf.writeBigInt64BE(e.firstOffset, 10);
  buf.writeBigInt64BE(e.lastOffset, 18);
  buf.writeBigInt64BE(e.lastStableOffset, 26);
  return buf;
}

/** Decodes a whole file; a string says why it is unusable. `nextOffset` bounds lastOffset (the segment's end). */
export function decodeTxnIndex(buf: Buffer, baseOffset: bigint, nextOffset: bigint): AbortedTxn[] | string {
  if (buf.length % TXN_INDEX_ENTRY_BYTES !== 0) return `${buf.length} bytes is not a whole number of ${TXN_INDEX_ENTRY_BYTES}-byte entries`;
  const out: AbortedTxn[] = [];
  let previous = -1n;
  for (let p = 0; p < buf.length; p += TXN_INDEX_ENTRY_BYTES) {
    const version = buf.readInt16BE(p);
    if (version !== ENTRY_VERSION) return `entry ${out.length} has unknown version ${version}`;
    const e: AbortedTxn = {
      producerId: buf.readBigInt64BE(p + 2),
      firstOffset: buf.readBigInt64BE(p + 10),
      lastOffset: buf.readBigInt64BE(p + 18),
      lastStableOffset: buf.readBigInt64BE(p + 26),
    };
    if (e.producerId < 0n || e.firstOffset < 0n || e.firstOffset > e.lastOffset) return `entry ${out.length} has bad offsets`;
    if (e.lastOffset < baseOffset || e.lastOffset >= nextOffset) return `entry ${out.length} ends at ${e.lastOffset}, outside the segment [${baseOffset}, ${nextOffset})`;
    if (e.lastOffset <= previous) return `entry ${out.length} is out of order`;
    // The LSO after an abort may be an older open transaction's first offset, so only its sign is checked.
    if (e.lastStableOffset < 0n) return `entry ${out.length} has a negative last stable offset`;
    previous = e.lastOffset;
    out.push(e);
  }
  return out;
}

export class TransactionIndex {
  private entries: AbortedTxn[] = [];
  private file: FileHandle | null = null;
  private dirty = false;
  private syncsRunning = 0;
  readonly path: string;

  constructor(
    private readonly fs: FileSystem,
    dir: string,
    fileName: string,
  ) {
    this.path = join(dir, fileName);
  }

  /** Loads the file if there is one; returns null when usable (or absent), else why not (then call reset). */
  load(baseOffset: bigint, nextOffset: bigint): string | null {
    this.entries = [];
    if (!this.fs.exists(this.path)) return null;
    const decoded = decodeTxnIndex(this.fs.readFile(this.path), baseOffset, nextOffset);
    if (typeof decoded === 'string') return decoded;
    this.entries = decoded;
    return null;
  }

  get count(): number {
    return this.entries.length;
  }

  all(): readonly AbortedTxn[] {
    return this.entries;
  }

  /** Appends one entry (its marker is the newest of the segment). */
  append(e: AbortedTxn): void {
    const last = this.entries[this.entries.length - 1];
    invariant(last === undefined || e.lastOffset > last.lastOffset, 'aborted transactions are indexed in marker order');
    const handle = this.handle();
    handle.write(encodeAbortedTxn(e), this.entries.length * TXN_INDEX_ENTRY_BYTES);
    this.entries.push(e);
    this.dirty = true;
  }

  /**
   * Kafka's TransactionIndex.collectAbortedTxns: adds to `out` the entries
   * overlapping [fetchOffset, upperBoundOffset). Returns true when an entry's
   * lastStableOffset reached upperBoundOffset: no later segment can hold a
   * transaction that overlaps the range, so the search may stop.
   */
  collect(fetchOffset: bigint, upperBoundOffset: bigint, out: AbortedTxn[]): boolean {
    for (const e of this.entries) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) out.push(e);
      if (e.lastStableOffset >= upperBoundOffset) return true;
    }
    return false;
  }

  /** Removes the entries whose marker is at or after `offset` (log truncation). */
  truncateTo(offset: bigint): void {
    let keep = this.entries.length;
    while (keep > 0 && (this.entries[keep - 1] as AbortedTxn).lastOffset >= offset) keep--;
    if (keep === this.entries.length) return;
    this.entries.length = keep;
    this.handle().truncate(keep * TXN_INDEX_ENTRY_BYTES);
    this.dirty = true;
  }

  /** Empties the index (before a rebuild). */
  reset(): void {
    this.entries = [];
    if (this.file !== null || this.fs.exists(this.path)) {
      this.handle().truncate(0);
      this.dirty = true;
    }
  }

  sync(): void {
    // With an async fsync still running the file handle decides (it fsyncs again).
    if ((this.dirty || this.syncsRunning > 0) && this.file !== null) this.file.sync();
    this.dirty = false;
  }

  /** sync() with the fsync on the thread pool. */
  async syncAsync(): Promise<void> {
    if (!this.dirty || this.file === null) return;
    this.dirty = false;
    this.syncsRunning++;
    try {
      await this.file.syncAsync();
    } catch (err) {
      this.dirty = true;
      throw err;
    } finally {
      this.syncsRunning--;
    }
  }

  close(): void {
    this.file?.close();
    this.file = null;
  }

  /** Closes and removes the file. */
  delete(): void {
    this.close();
    if (this.fs.exists(this.path)) this.fs.unlink(this.path);
    this.entries = [];
  }

  private handle(): FileHandle {
    if (this.file === null) this.file = this.fs.open(this.path, { create: true });
    return this.file;
  }
}
