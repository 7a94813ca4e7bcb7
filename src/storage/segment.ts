/**
 * One log segment: `<base>.log` with batches verbatim, plus its sparse
 * `.index` and `.timeindex`. Only the last segment of a log (the active one)
 * is appended to; rolled segments are immutable except for truncation.
 *
 * Index entries are added before a batch once more than indexIntervalBytes
 * of log were written since the previous entry (Kafka's rule), pointing at
 * that batch: (baseOffset - base, position). The time index gets
 * (maxTimestampSoFar, lastOffsetOfThatBatch - base) at the same moments, when
 * the timestamp grew, and a final entry when the segment rolls.
 *
 * The `.txnindex` (txn-index.ts) lists the transactions aborted by markers in
 * this segment; the partition log appends to it and rebuilds it from the
 * batches when it is unusable or the segment was recovered
 * (txnIndexNeedsRebuild).
 */
import { join } from 'node:path';
import { ATTR_CONTROL, BATCH_HEADER_BYTES, Offsets, batchSizeAt, setBaseOffset } from '../protocol/record-batch/header.js';
import { readInt64BE } from '../protocol/primitives/int64.js';
import { invariant } from '../util/assert.js';
import { FileWindow, readBatchInfo, validateBatchAt, type BatchInfo } from './batch-scan.js';
import { RecentBatches } from './recent-batches.js';
import { segmentAgeExceeded } from './segment-roll.js';
import type { LogConfig } from './config.js';
import { StorageError } from './errors.js';
import { readRange, type FileHandle, type FileSystem, type ReadAllocator } from './fs.js';
import { OFFSET_INDEX_ENTRY_BYTES, OffsetIndex, TIME_INDEX_ENTRY_BYTES, TimeIndex } from './indexes.js';
import { TXN_INDEX_SUFFIX, TransactionIndex } from './txn-index.js';

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
const INT32_MAX = 0x7fffffff;
/** Read window for header scans on the fetch path (covers one index interval). */
const SCAN_WINDOW_BYTES = 8192;
const RECOVERY_WINDOW_BYTES = 1 << 20;
/** Control batches up to this size are handed to header scans whole (a marker is about 80 bytes). */
const CONTROL_BATCH_BYTES_MAX = 1024;
/** Shared scan buffer: calls are synchronous, so one per process is enough. */
const scanScratch = Buffer.allocUnsafe(SCAN_WINDOW_BYTES);

export function segmentFileName(baseOffset: bigint, suffix: string): string {
  return baseOffset.toString().padStart(20, '0') + suffix;
}

/** Parses `<20 digits><suffix>`; null for anything else. */
export function parseSegmentFileName(name: string): { baseOffset: bigint; suffix: string } | null {
  const m = /^(\d{20})(\.[a-z]+)$/.exec(name);
  if (m === null) return null;
  return { baseOffset: BigInt(m[1] as string), suffix: m[2] as string };
}

/** What recovering one segment found. */
export interface SegmentRecovery {
  baseOffset: bigint;
  validBytes: number;
  truncatedBytes: number;
  /** Why the scan stopped early, or null when every byte was valid. */
  reason: string | null;
}

export class LogSegment {
  sizeBytes: number;
  /** Offset after the last batch (baseOffset when empty). */
  nextOffset: bigint;
  maxTimestampMs = -1n;
  offsetOfMaxTimestamp = -1n;
  /** Max timestamp of the first batch, for segment.ms; null while empty. */
  firstBatchTimestampMs: bigint | null = null;
  /** Clock time of the last append (or of opening): retention fallback without timestamps. */
  lastModifiedMs: number;
  /** Data written since the last fsync started. */
  private writtenSinceSync = false;
  /** flushAsync calls still waiting for their fsyncs. */
  private flushesRunning = 0;
  /** Aborted transactions whose marker is in this segment (`.txnindex`). */
  readonly txnIndex: TransactionIndex;
  /**
   * Set by loading when the `.txnindex` was unreadable (why) or the segment
   * was recovered (its entries are not trusted): the log rebuilds it.
   */
  txnIndexNeedsRebuild: string | null = null;
  private bytesSinceLastIndexEntry = 0;
  /** The last batches placed at the end, for tail lookups without a file read (recent-batches.ts). */
  private readonly recentBatches = new RecentBatches();
  /** The largest offset this segment can hold (relative offsets are int32), computed once: no BigInt per append. */
  readonly lastOffsetLimit: bigint;

  private constructor(
    private readonly fs: FileSystem,
    readonly dir: string,
    readonly baseOffset: bigint,
    private readonly log: FileHandle,
    readonly offsetIndex: OffsetIndex,
    readonly timeIndex: TimeIndex,
    readonly createdMs: number,
    /** Appended to every file name: '' for live segments, '.cleaned' for the cleaner's copy. */
    readonly nameSuffix = '',
  ) {
    this.sizeBytes = log.size();
    this.nextOffset = baseOffset;
    this.lastOffsetLimit = baseOffset + BigInt(INT32_MAX);
    this.lastModifiedMs = createdMs;
    this.txnIndex = new TransactionIndex(fs, dir, segmentFileName(baseOffset, TXN_INDEX_SUFFIX) + nameSuffix);
  }

  /** Opens (creating when missing) the segment's three files; indexes are not loaded yet. */
  static open(fs: FileSystem, dir: string, baseOffset: bigint, cfg: LogConfig, nowMs: number, nameSuffix = ''): LogSegment {
    const file = (suffix: string): FileHandle => fs.open(join(dir, segmentFileName(baseOffset, suffix) + nameSuffix), { create: true });
    const log = file(LOG_SUFFIX);
    const offsetIndex = new OffsetIndex(file(INDEX_SUFFIX), Math.floor(cfg.segmentIndexBytes / OFFSET_INDEX_ENTRY_BYTES));
    const timeIndex = new TimeIndex(file(TIME_INDEX_SUFFIX), Math.floor(cfg.segmentIndexBytes / TIME_INDEX_ENTRY_BYTES));
    return new LogSegment(fs, dir, baseOffset, log, offsetIndex, timeIndex, nowMs, nameSuffix);
  }

  /** A brand-new empty segment (any leftover files at that name are emptied). */
  static create(fs: FileSystem, dir: string, baseOffset: bigint, cfg: LogConfig, nowMs: number, nameSuffix = ''): LogSegment {
    const seg = LogSegment.open(fs, dir, baseOffset, cfg, nowMs, nameSuffix);
    if (seg.sizeBytes > 0) seg.truncateToPosition(0);
    seg.offsetIndex.reset();
    seg.timeIndex.reset();
    seg.txnIndex.reset();
    return seg;
  }

  setIndexLimits(cfg: LogConfig): void {
    this.offsetIndex.maxEntries = Math.floor(cfg.segmentIndexBytes / OFFSET_INDEX_ENTRY_BYTES);
    this.timeIndex.maxEntries = Math.floor(cfg.segmentIndexBytes / TIME_INDEX_ENTRY_BYTES);
  }

  /** Kafka's roll rules, checked before appending `sizeBytes` of batches. */
  shouldRoll(cfg: LogConfig, sizeBytes: number, maxTimestampMs: bigint, lastOffset: bigint, nowMs: number): boolean {
    if (this.sizeBytes === 0) return false;
    if (this.sizeBytes + sizeBytes > cfg.segmentBytes) return true;
    if (this.offsetIndex.isFull || this.timeIndex.isFull) return true;
    if (lastOffset > this.lastOffsetLimit) return true;
    return segmentAgeExceeded(this.firstBatchTimestampMs, maxTimestampMs, nowMs - this.createdMs, cfg);
  }

  /**
   * Appends consecutive batches: rewrites their base offsets from
   * `firstOffset` on and writes them in one positional write.
   */
  append(batches: Buffer, firstOffset: bigint, indexIntervalBytes: number, nowMs: number): number {
    const start = this.sizeBytes;
    let p = 0;
    let offset = firstOffset;
    while (p < batches.length) {
      const size = batchSizeAt(batches, p);
      setBaseOffset(batches, offset, p);
      const lastOffsetDelta = batches.readInt32BE(p + Offsets.lastOffsetDelta);
      // A one-record batch (linger 0) ends where it starts: no BigInt made for it.
      const lastOffset = lastOffsetDelta === 0 ? offset : offset + BigInt(lastOffsetDelta);
      const maxTimestampMs = readInt64BE(batches, p + Offsets.maxTimestamp);
      this.track({ position: start + p, sizeBytes: size, baseOffset: offset, lastOffset, maxTimestampMs }, indexIntervalBytes);
      offset = this.nextOffset; // lastOffset + 1, which track just computed
      p += size;
    }
    this.log.write(batches, start);
    this.sizeBytes = start + batches.length;
    this.lastModifiedMs = nowMs;
    this.dirty = true;
    return start;
  }

  /**
   * The cleaner's append: whole batches that keep their own base offsets
   * (offsets may have gaps between batches, never go back). One write.
   */
  appendWithOffsets(batches: Buffer, indexIntervalBytes: number, nowMs: number): number {
    const start = this.sizeBytes;
    let p = 0;
    while (p < batches.length) {
      const size = batchSizeAt(batches, p);
      const baseOffset = readInt64BE(batches, p + Offsets.baseOffset);
      invariant(baseOffset >= this.nextOffset, 'cleaned batches keep increasing offsets');
      const lastOffset = baseOffset + BigInt(batches.readInt32BE(p + Offsets.lastOffsetDelta));
      invariant(lastOffset <= this.lastOffsetLimit, 'offsets fit the segment');
      const maxTimestampMs = readInt64BE(batches, p + Offsets.maxTimestamp);
      this.track({ position: start + p, sizeBytes: size, baseOffset, lastOffset, maxTimestampMs }, indexIntervalBytes);
      p += size;
    }
    this.log.write(batches, start);
    this.sizeBytes = start + batches.length;
    this.lastModifiedMs = nowMs;
    this.dirty = true;
    return start;
  }

  /** Bookkeeping for one batch newly placed at the end of the segment. */
  private track(b: BatchInfo, indexIntervalBytes: number): void {
    if (this.firstBatchTimestampMs === null) this.firstBatchTimestampMs = b.maxTimestampMs;
    if (b.maxTimestampMs > this.maxTimestampMs) {
      this.maxTimestampMs = b.maxTimestampMs;
      this.offsetOfMaxTimestamp = b.lastOffset;
    }
    if (this.bytesSinceLastIndexEntry > indexIntervalBytes) {
      this.offsetIndex.append(Number(b.baseOffset - this.baseOffset), b.position);
      this.timeIndex.maybeAppend(this.maxTimestampMs, Number(this.offsetOfMaxTimestamp - this.baseOffset));
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += b.sizeBytes;
    this.nextOffset = b.lastOffset + 1n;
    this.recentBatches.push(b);
  }

  private scanWindow(): FileWindow {
    return new FileWindow(this.log, this.sizeBytes, SCAN_WINDOW_BYTES, scanScratch);
  }

  private headerAt(win: FileWindow, position: number): BatchInfo {
    const info = readBatchInfo(win, position, this.sizeBytes);
    if (typeof info === 'string') {
      throw new StorageError('ERR_TRIB_STORAGE_CORRUPT', `${join(this.dir, segmentFileName(this.baseOffset, LOG_SUFFIX))}: ${info}`);
    }
    return info;
  }

  /**
   * The first batch whose last offset is >= `offset`: the batch containing
   * it, or in a compacted segment (offset gaps) the first batch after the
   * gap. Found from the index and a forward header scan.
   * Precondition: baseOffset <= offset < nextOffset.
   */
  translateOffset(offset: bigint): BatchInfo {
    invariant(offset >= this.baseOffset && offset < this.nextOffset, 'offset inside the segment');
    const recent = this.recentBatches.find(offset);
    if (recent !== null) return recent;
    const win = this.scanWindow();
    let cur = this.headerAt(win, this.offsetIndex.lookup(Number(offset - this.baseOffset)));
    for (;;) {
      if (cur.lastOffset >= offset) return cur;
      const next = cur.position + cur.sizeBytes;
      if (next >= this.sizeBytes) return cur;
      cur = this.headerAt(win, next);
    }
  }

  /**
   * An offset that no batch starting before `position` reaches (Kafka's
   * fetchUpperBoundOffset): the base offset of the first indexed batch at or
   * after it, else the segment's next offset. From the index alone, no read.
   */
  offsetUpperBoundAt(position: number): bigint {
    if (position >= this.sizeBytes) return this.nextOffset;
    const rel = this.offsetIndex.relOffsetAtOrAfter(position);
    return rel < 0 ? this.nextOffset : this.baseOffset + BigInt(rel);
  }

  /** The first batch ending at or after minOffset whose maxTimestamp >= target, or null. */
  findByTimestamp(timestampMs: bigint, minOffset: bigint): BatchInfo | null {
    if (this.sizeBytes === 0 || this.maxTimestampMs < timestampMs || minOffset >= this.nextOffset) return null;
    const rel = this.timeIndex.lookupBelow(timestampMs);
    let position = rel < 0 ? 0 : this.offsetIndex.lookup(rel);
    if (minOffset > this.baseOffset) position = Math.max(position, this.offsetIndex.lookup(Number(minOffset - this.baseOffset)));
    const win = this.scanWindow();
    while (position < this.sizeBytes) {
      const info = this.headerAt(win, position);
      if (info.maxTimestampMs >= timestampMs && info.lastOffset >= minOffset) return info;
      position += info.sizeBytes;
    }
    return null;
  }

  read(position: number, length: number, allocate?: ReadAllocator): Buffer {
    return readRange(this.log, position, length, allocate);
  }

  /**
   * Visits every batch from the start of the file with its header info and
   * partitionLeaderEpoch, reading headers only (rebuilding the leader epoch
   * cache and the producer state). `header[at..at + 61)` is the whole batch
   * header, valid during the call only; for a control batch (a transaction
   * marker: one small record) the whole batch is there, so the marker can be
   * read. Corrupt framing throws StorageError, as on the read path.
   */
  forEachBatchHeader(visit: (info: BatchInfo, partitionLeaderEpoch: number, header: Buffer, at: number) => void): void {
    const win = this.scanWindow();
    let position = 0;
    while (position < this.sizeBytes) {
      const info = this.headerAt(win, position);
      let at = win.ensure(position, BATCH_HEADER_BYTES);
      const control = (win.buffer.readInt16BE(at + Offsets.attributes) & ATTR_CONTROL) !== 0;
      if (control && info.sizeBytes <= CONTROL_BATCH_BYTES_MAX) at = win.ensure(position, info.sizeBytes);
      visit(info, win.buffer.readInt32BE(at + Offsets.partitionLeaderEpoch), win.buffer, at);
      position += info.sizeBytes;
    }
  }

  /** Removes the batch containing `offset` and everything after it; returns bytes removed. */
  truncateTo(offset: bigint): number {
    if (offset >= this.nextOffset) return 0;
    this.txnIndex.truncateTo(offset);
    if (offset <= this.baseOffset) return this.truncateToPosition(0);
    return this.truncateToPosition(this.translateOffset(offset).position);
  }

  /** Cuts the log at a batch boundary and brings indexes and stats back in line. */
  truncateToPosition(position: number): number {
    const removed = this.sizeBytes - position;
    this.recentBatches.clear();
    this.log.truncate(position);
    this.sizeBytes = position;
    this.dirty = true;
    this.offsetIndex.truncateToPosition(position);
    if (position === 0) {
      this.offsetIndex.reset();
      this.timeIndex.reset();
      this.txnIndex.reset();
      this.resetStats();
      return removed;
    }
    // Recompute nextOffset and the max timestamp from the last index entry on.
    const from = this.offsetIndex.lastPosition();
    const win = this.scanWindow();
    let last: BatchInfo | null = null;
    let maxTs = -1n;
    let offsetOfMax = -1n;
    for (let p = from; p < position; p += (last as BatchInfo).sizeBytes) {
      last = this.headerAt(win, p);
      if (last.maxTimestampMs > maxTs) {
        maxTs = last.maxTimestampMs;
        offsetOfMax = last.lastOffset;
      }
    }
    invariant(last !== null, 'a non-empty segment has a batch after its last index entry');
    this.nextOffset = last.lastOffset + 1n;
    this.timeIndex.truncateToRelOffset(Number(this.nextOffset - this.baseOffset));
    const indexedTs = this.timeIndex.lastTimestamp();
    if (indexedTs >= maxTs) {
      this.maxTimestampMs = indexedTs;
      this.offsetOfMaxTimestamp = indexedTs < 0n ? -1n : this.baseOffset + BigInt(this.timeIndex.lastRelOffset());
    } else {
      this.maxTimestampMs = maxTs;
      this.offsetOfMaxTimestamp = offsetOfMax;
    }
    this.bytesSinceLastIndexEntry = position - from;
    return removed;
  }

  private resetStats(): void {
    this.recentBatches.clear();
    this.nextOffset = this.baseOffset;
    this.maxTimestampMs = -1n;
    this.offsetOfMaxTimestamp = -1n;
    this.firstBatchTimestampMs = null;
    this.bytesSinceLastIndexEntry = 0;
  }

  /**
   * For a segment trusted to be intact (flushed before the recovery point):
   * loads and sanity-checks both indexes and scans the log from the last
   * index entry to find its end. False when anything is off: then recover().
   */
  loadIndexes(indexIntervalBytes: number): boolean {
    if (!this.offsetIndex.load(this.sizeBytes)) return false;
    this.resetStats();
    if (this.sizeBytes === 0) return this.offsetIndex.count === 0 && this.timeIndex.load(-1);
    const win = this.scanWindow();
    const first = readBatchInfo(win, 0, this.sizeBytes);
    if (typeof first === 'string' || first.baseOffset < this.baseOffset) return false;
    this.firstBatchTimestampMs = first.maxTimestampMs;
    const from = this.offsetIndex.lastPosition();
    let p = from;
    let bytesSinceEntry = 0;
    while (p < this.sizeBytes) {
      // An entry should have been written before this batch: the index is incomplete.
      if (bytesSinceEntry > indexIntervalBytes) return false;
      const info = readBatchInfo(win, p, this.sizeBytes);
      if (typeof info === 'string') return false;
      bytesSinceEntry += info.sizeBytes;
      if (p === from && this.offsetIndex.count > 0 && info.baseOffset !== this.baseOffset + BigInt(this.offsetIndex.lastRelOffset())) {
        return false;
      }
      if (info.baseOffset < this.nextOffset || info.lastOffset - this.baseOffset > BigInt(INT32_MAX)) return false;
      if (info.maxTimestampMs > this.maxTimestampMs) {
        this.maxTimestampMs = info.maxTimestampMs;
        this.offsetOfMaxTimestamp = info.lastOffset;
      }
      this.nextOffset = info.lastOffset + 1n;
      p += info.sizeBytes;
    }
    if (!this.timeIndex.load(Number(this.nextOffset - 1n - this.baseOffset))) return false;
    const indexedTs = this.timeIndex.lastTimestamp();
    if (indexedTs >= this.maxTimestampMs && indexedTs >= 0n) {
      this.maxTimestampMs = indexedTs;
      this.offsetOfMaxTimestamp = this.baseOffset + BigInt(this.timeIndex.lastRelOffset());
    }
    this.bytesSinceLastIndexEntry = this.sizeBytes - from;
    this.txnIndexNeedsRebuild = this.txnIndex.load(this.baseOffset, this.nextOffset);
    return true;
  }

  /**
   * Validates every batch (framing, magic, CRC, increasing offsets), cuts the
   * file at the first bad one, rebuilds both indexes, and fsyncs the result
   * (with `sync` false it is left dirty for the log's next flush; a cut is
   * fsynced either way).
   */
  recover(indexIntervalBytes: number, sync = true): SegmentRecovery {
    this.offsetIndex.reset();
    this.timeIndex.reset();
    this.resetStats();
    const fileSize = this.log.size();
    this.sizeBytes = fileSize;
    const win = new FileWindow(this.log, fileSize, Math.min(RECOVERY_WINDOW_BYTES, Math.max(fileSize, 1)));
    let position = 0;
    let reason: string | null = null;
    let markers = 0;
    while (position < fileSize) {
      const info = validateBatchAt(win, position, fileSize, this.nextOffset, this.baseOffset);
      if (typeof info === 'string') {
        reason = info;
        break;
      }
      if ((win.buffer.readInt16BE(win.ensure(position, BATCH_HEADER_BYTES) + Offsets.attributes) & ATTR_CONTROL) !== 0) markers++;
      this.track(info, indexIntervalBytes);
      position += info.sizeBytes;
    }
    if (position < fileSize) {
      this.log.truncate(position);
      // The cut is made durable now, even when the rest waits for the next
      // flush: otherwise appends over the cut region, lost in a later crash,
      // could leave the torn batch's durable bytes completed by new ones (a
      // valid CRC is enough, e.g. only its last byte, a zero, was missing),
      // and recovery would bring back a record at an offset since reused.
      this.log.sync();
    }
    this.sizeBytes = position;
    // Entries may point past the cut or be missing (written after the last
    // flush): rebuilt from the log, which only has work with markers here.
    this.txnIndex.reset();
    this.txnIndexNeedsRebuild = markers > 0 ? `segment recovered with ${markers} control batches` : null;
    if (sync) this.flush();
    else this.dirty = true;
    return { baseOffset: this.baseOffset, validBytes: position, truncatedBytes: fileSize - position, reason };
  }

  /** The segment stops being active: final time index entry, index files written. */
  onBecomeInactive(): void {
    if (this.maxTimestampMs >= 0n) {
      this.timeIndex.maybeAppend(this.maxTimestampMs, Number(this.offsetOfMaxTimestamp - this.baseOffset));
    }
    this.offsetIndex.persist();
    this.timeIndex.persist();
  }

  /**
   * Data not known to be durable: written since the last fsync started, or
   * covered only by an async flush still running (a synchronous flush() then
   * fsyncs again rather than trust it).
   */
  get dirty(): boolean {
    return this.writtenSinceSync || this.flushesRunning > 0;
  }

  set dirty(value: boolean) {
    this.writtenSinceSync = value;
  }

  flush(): void {
    this.log.sync();
    this.offsetIndex.sync();
    this.timeIndex.sync();
    this.txnIndex.sync();
    this.dirty = false;
  }

  /**
   * flush() with the four fsyncs on the thread pool, in parallel. What was
   * written before the call is durable when it resolves; a write made meanwhile
   * marks the segment dirty again. The index entries are written out now.
   */
  async flushAsync(): Promise<void> {
    this.writtenSinceSync = false;
    this.flushesRunning++;
    try {
      await Promise.all([this.log.syncAsync(), this.offsetIndex.syncAsync(), this.timeIndex.syncAsync(), this.txnIndex.syncAsync()]);
    } catch (err) {
      this.writtenSinceSync = true;
      throw err;
    } finally {
      this.flushesRunning--;
    }
  }

  close(): void {
    this.log.close();
    this.offsetIndex.close();
    this.timeIndex.close();
    this.txnIndex.close();
  }

  /** Closes and removes the files, the log first so a crash leaves only orphan indexes. */
  delete(): void {
    this.log.close();
    this.offsetIndex.close();
    this.timeIndex.close();
    this.txnIndex.delete();
    for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX]) {
      const path = join(this.dir, segmentFileName(this.baseOffset, suffix) + this.nameSuffix);
      if (this.fs.exists(path)) this.fs.unlink(path);
    }
  }
}
