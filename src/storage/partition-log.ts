/**
 * The log of one topic-partition: an ordered list of segments in the
 * directory `<topic>-<partition>`, the last one active. See README.md for the
 * invariants, the on-disk formats and what each flush policy guarantees.
 * What the log holds, and the loading of a log opened deferred, are in
 * partition-log-state.ts (a PartitionLogState this class owns and alone
 * changes); this class is what is done to it, and reads it through.
 */
import { join } from 'node:path';
import { invariant } from '../util/assert.js';
import { validateLogConfig, type LogConfig } from './config.js';
import { AppendBatchesSummary, applyProducerBatches, summarizeAppendBatches } from './append-batches.js';
import { loadLog, type RecoveryReport } from './log-loader.js';
import { DeferredLoad, type DeferredLogOptions, type LogRecoveryListener } from './deferred-load.js';
import { formatLeaderEpochCheckpoint, LEADER_EPOCH_CHECKPOINT, readLeaderEpochCheckpoint, writeLeaderEpochCheckpoint, type EpochEntry } from './leader-epoch-checkpoint.js';
import { BoundPositionCache, readSegments } from './log-read.js';
import type { ReadOptions, ReadResult } from './log-read.js';
import type { SegmentInfo, TimestampOffset } from './segment-lookups.js';
import { LogSegment } from './segment.js';
import * as lookups from './segment-lookups.js';
import { PartitionLogState, type PartitionLogOptions } from './partition-log-state.js';
import type { ProducerStateLog } from './producer-state/log-producer-state.js';
import type { ProducerStateManager } from './producer-state/producer-state.js';
import type { AbortedTxn } from './txn-index.js';
import { rebuildTxnIndexes } from './txn-index-rebuild.js';

export type { ReadOptions, ReadResult } from './log-read.js';
export type { SegmentInfo, TimestampOffset } from './segment-lookups.js';

/** Where an append landed. */
export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  /** Clock time of the append (the broker uses it for LogAppendTime topics). */
  logAppendTimeMs: bigint;
  /** Byte position of the first batch in its segment file. */
  position: number;
}

/** What one retention pass deleted. */
export interface RetentionResult {
  segmentsDeleted: number;
  bytesDeleted: number;
  logStartOffset: bigint;
}

export class PartitionLog implements ProducerStateLog {
  /** What the log holds and its loading on first use (partition-log-state.ts); only this class changes it. */
  private readonly s: PartitionLogState;
  /** The last maxOffsetExclusive resolved to a position, so repeated fetches don't rescan. */
  private readonly boundCache = new BoundPositionCache();
  /** Refilled by every append (summarizeAppendBatches): no summary object per append. */
  private readonly appendSummary = new AppendBatchesSummary();

  private constructor(opts: PartitionLogOptions, segments: LogSegment[] | null, logStartOffset: bigint, recoveryPoint: bigint) {
    this.s = new PartitionLogState(opts, segments, logStartOffset, recoveryPoint);
  }

  // What the log holds, as PartitionLogState reads it (loading a deferred log where that says so).
  get topic(): string { return this.s.topic; }
  get partition(): number { return this.s.partition; }
  get dir(): string { return this.s.dir; }
  get isLoaded(): boolean { return this.s.isLoaded; }
  get awaitingRecovery(): boolean { return this.s.awaitingRecovery; }
  get recoveryListener(): LogRecoveryListener | null { return this.s.recoveryListener; }
  set recoveryListener(listener: LogRecoveryListener | null) { this.s.recoveryListener = listener; }
  load(): boolean { return this.s.load(); }
  onHighWatermarkUpdated(highWatermark: bigint): void { this.s.onHighWatermarkUpdated(highWatermark); }
  get config(): Readonly<LogConfig> { return this.s.config; }
  get logStartOffset(): bigint { return this.s.logStartOffset; }
  get knownLogStartOffset(): bigint { return this.s.knownLogStartOffset; }
  get logEndOffset(): bigint { return this.s.logEndOffset; }
  get unflushedMessages(): number { return this.s.unflushedMessages; }
  get recoveryPoint(): bigint { return this.s.recoveryPoint; }
  get sizeBytes(): number { return this.s.sizeBytes; }
  get segmentCount(): number { return this.s.segmentCount; }
  segmentInfos(): SegmentInfo[] { return this.s.segmentInfos(); }
  get isClosed(): boolean { return this.s.isClosed; }
  get truncationCount(): number { return this.s.truncationCount; }
  /** For the log cleaner: the segments in offset order, the last one active. Do not modify. */
  segmentList(): readonly LogSegment[] { return this.s.segmentList(); }
  /** ProducerStateLog: the header of every batch whose last offset is >= fromOffset, in order. */
  scanBatchHeaders(fromOffset: bigint, visit: (header: Buffer, at: number) => void): void { this.s.scanBatchHeaders(fromOffset, visit); }

  /** Opens the directory (creating it when missing), recovering it as needed. */
  static open(opts: PartitionLogOptions): { log: PartitionLog; report: RecoveryReport } {
    const config = validateLogConfig(opts.config);
    const loaded = loadLog({
      fs: opts.fs,
      dir: opts.dir,
      config,
      nowMs: opts.clock.nowMs(),
      recoveryPoint: opts.recoveryPoint ?? null,
      logStartOffset: opts.logStartOffset ?? null,
      hadCleanShutdown: opts.hadCleanShutdown ?? false,
      syncRecovered: opts.deferRecoveryFlush !== true,
      dirExists: opts.dirExists === true,
    });
    const log = new PartitionLog({ ...opts, config }, loaded.segments, loaded.logStartOffset, loaded.recoveryPoint);
    const producerState = log.s.producers.load(log, opts.hadCleanShutdown ?? false, opts.clock.nowMs(), loaded.fileNames);
    const txnIndexes = rebuildTxnIndexes(opts.fs, opts.dir, loaded.segments, loaded.logStartOffset);
    return { log, report: { ...loaded.report, producerState, txnIndexes } };
  }

  /**
   * A log the last shutdown closed cleanly, opened without touching its
   * directory: its bounds come from the checkpoints (after a clean shutdown
   * the recovery point is the log end offset). The segments, indexes and
   * producer state are loaded on first use (an append, a read, a lookup,
   * retention), as a clean-shutdown `open` would load them. Until then
   * nothing is open, nothing is dirty and closing it does nothing.
   * Start-up with many partitions then costs no file-system call per
   * partition (issue 17; src/storage/README.md, "Recovery").
   */
  static deferred(opts: DeferredLogOptions): PartitionLog {
    invariant(opts.logStartOffset <= opts.recoveryPoint, 'a deferred log starts at or below its recovery point');
    const log = new PartitionLog({ ...opts, config: validateLogConfig(opts.config) }, null, opts.logStartOffset, opts.recoveryPoint);
    log.s.deferredLoad = new DeferredLoad(opts);
    return log;
  }

  /**
   * For the log cleaner: puts `cleaned` (already on disk under the final file
   * names) in place of the rolled segment `old`, which it closes. Both cover
   * the same offsets. Synchronous, so a read sees either one or the other.
   */
  replaceSegment(old: LogSegment, cleaned: LogSegment): void {
    this.s.checkOpen();
    const i = this.s.segments.indexOf(old);
    invariant(i >= 0 && i < this.s.segments.length - 1, 'the cleaner replaces a rolled segment of this log');
    invariant(cleaned.baseOffset === old.baseOffset && cleaned.nextOffset === old.nextOffset, 'a cleaned segment covers the same offsets');
    this.s.segments[i] = cleaned;
    this.boundCache.forget(old);
    old.close();
  }

  updateConfig(config: LogConfig): void {
    this.s.cfg = validateLogConfig(config);
    // A deferred log opens its segments with the config current then.
    if (this.s.loadedSegments !== null) this.s.active.setIndexLimits(this.s.cfg);
  }

  /**
   * Appends one batch, or several consecutive batches in one buffer, already
   * validated by the caller. Rewrites their base offsets in place to the log
   * end offset and writes them with one positional write.
   */
  append(batches: Buffer): AppendResult {
    this.s.checkOpen();
    const { records, maxTimestampMs, producerBatches } = summarizeAppendBatches(batches, this.appendSummary);
    const nowMs = this.s.clock.nowMs();
    const baseOffset = this.logEndOffset;
    // One record (linger 0) ends where it starts: no BigInt made for it.
    const lastOffset = records === 1 ? baseOffset : baseOffset + BigInt(records - 1);
    let seg = this.s.active;
    if (seg.shouldRoll(this.s.cfg, batches.length, maxTimestampMs, lastOffset, nowMs)) seg = this.rollAt(nowMs);
    invariant(lastOffset <= seg.lastOffsetLimit, 'offsets fit the segment');
    const position = seg.append(batches, baseOffset, this.s.cfg.indexIntervalBytes, nowMs);
    if (producerBatches) applyProducerBatches(batches, this.s.producers, nowMs, seg.txnIndex);
    if (this.unflushedMessages >= this.s.cfg.flushIntervalMessages) this.flush();
    return { baseOffset, lastOffset, logAppendTimeMs: BigInt(nowMs), position };
  }

  /**
   * The idempotent producer state after the last append (producer-state/):
   * Partition checks client batches against it before appending them.
   */
  get producerState(): ProducerStateManager {
    return this.s.producers.state;
  }

  /** Forgets producers idle for `expirationMs` (producer.id.expiration.ms); returns how many. */
  removeExpiredProducers(nowMs: number, expirationMs: number): number {
    this.s.checkOpen();
    // A deferred log's producers expire once it is loaded (no need to load it for this).
    if (this.s.loadedSegments === null) return 0;
    return this.s.producers.removeExpired(nowMs, expirationMs);
  }

  /** Aborted transactions overlapping [fetchOffset, upperBoundOffset) (read_committed fetches). */
  collectAbortedTransactions(fetchOffset: bigint, upperBoundOffset: bigint): AbortedTxn[] {
    return lookups.collectAbortedTxns(this.s.segments, fetchOffset, upperBoundOffset);
  }

  /** Rolls a new active segment at the log end offset (no-op when the active one is empty). */
  roll(): void {
    this.s.checkOpen();
    if (this.s.active.sizeBytes > 0) this.rollAt(this.s.clock.nowMs());
  }

  private rollAt(nowMs: number): LogSegment {
    const old = this.s.active;
    old.onBecomeInactive();
    // The state covers exactly the offsets below the new segment (Kafka snapshots at every roll
    // and, since KAFKA-15046, fsyncs the snapshot off the request path too).
    void this.s.producers.snapshotInBackground(old.nextOffset, this.s.startOffset);
    const seg = LogSegment.create(this.s.fs, this.dir, old.nextOffset, this.s.cfg, nowMs);
    this.s.segments.push(seg);
    this.s.flusher.onRoll();
    return seg;
  }

  /**
   * Stored bytes from the batch containing startOffset on: whole batches up
   * to maxBytes (the last one may be cut there), never a batch reaching
   * maxOffsetExclusive. Reading at exactly the log end offset returns nothing.
   */
  read(startOffset: bigint, maxBytes: number, opts: ReadOptions = {}): ReadResult {
    this.s.checkOpen();
    const logEndOffset = this.logEndOffset; // first: it recovers a log that awaits recovery
    const logStartOffset = this.s.startOffset;
    if (startOffset < logStartOffset || startOffset > logEndOffset) {
      return { kind: 'offset_out_of_range', logStartOffset, logEndOffset };
    }
    const bound = opts.maxOffsetExclusive !== undefined && opts.maxOffsetExclusive < logEndOffset
      ? opts.maxOffsetExclusive
      : logEndOffset;
    const { chunks, sizeBytes, partialTail, endOffsetBound } = readSegments(this.s.segments, startOffset, bound, maxBytes, opts, this.boundCache);
    return { kind: 'records', chunks, sizeBytes, partialTail, endOffsetBound, logStartOffset, logEndOffset };
  }

  /**
   * The first batch (from the log start on) whose maxTimestamp >= timestampMs:
   * its base offset (at least the log start offset) and max timestamp. Records
   * are opaque here, so this is batch-granular; null when there is none.
   */
  offsetForTimestamp(timestampMs: bigint): TimestampOffset | null {
    this.s.checkOpen();
    return lookups.offsetForTimestamp(this.s.segments, this.s.startOffset, timestampMs);
  }

  /**
   * Largest timestamp in the log and the last offset of the (first) batch
   * holding it (ListOffsets MAX_TIMESTAMP); null when no batch has one.
   */
  maxTimestamp(): TimestampOffset | null {
    return lookups.maxTimestamp(this.s.segments, this.s.startOffset);
  }

  /**
   * DeleteRecords: moves the log start offset up to `offset` (<= log end
   * offset) and deletes the segments wholly below it.
   */
  deleteRecordsBefore(offset: bigint): { kind: 'ok'; logStartOffset: bigint } | { kind: 'offset_out_of_range' } {
    this.s.checkOpen();
    if (offset > this.logEndOffset || offset < 0n) return { kind: 'offset_out_of_range' };
    if (offset <= this.s.startOffset) return { kind: 'ok', logStartOffset: this.s.startOffset };
    // A crash must not lose data below the new start offset (it would leave start > end).
    if (offset > this.s.flusher.recoveryPoint) this.flush();
    this.s.startOffset = offset;
    if (this.s.active.sizeBytes > 0 && this.s.active.nextOffset <= offset) this.rollAt(this.s.clock.nowMs());
    while (this.s.segments.length > 1 && (this.s.segments[1] as LogSegment).baseOffset <= offset) this.deleteFirstSegment();
    this.s.producers.prune(this.s.startOffset);
    this.s.onCheckpointNeeded();
    return { kind: 'ok', logStartOffset: this.s.startOffset };
  }

  private deleteFirstSegment(): number {
    const seg = this.s.segments.shift() as LogSegment;
    this.boundCache.forget(seg);
    const size = seg.sizeBytes;
    seg.delete();
    return size;
  }

  /**
   * Removes every batch containing an offset >= `offset` (replication's
   * truncation). A batch straddling `offset` goes whole, so the new log end
   * offset may be below it, and after compaction below the high watermark
   * too (README, "Truncation"). Made durable before returning.
   */
  truncateTo(offset: bigint): void {
    this.s.checkOpen();
    if (offset >= this.logEndOffset) return;
    if (offset <= this.s.startOffset) {
      this.truncateFullyAndStartAt(offset);
      return;
    }
    this.s.truncations++;
    this.boundCache.clear();
    while (this.s.active.baseOffset >= offset) this.s.segments.pop()?.delete();
    const seg = this.s.active;
    seg.truncateTo(offset);
    if (this.logEndOffset < this.s.startOffset) {
      // The batch holding the start offset went: nothing visible is left.
      this.truncateFullyAndStartAt(this.s.startOffset);
      return;
    }
    seg.flush();
    this.s.flusher.onTruncated(this.logEndOffset);
    this.s.producers.truncateTo(this as ProducerStateLog, this.s.clock.nowMs());
    this.s.onCheckpointNeeded();
  }

  /** Deletes every segment and starts empty at `offset` (log start = end = offset). */
  truncateFullyAndStartAt(offset: bigint): void {
    this.s.checkOpen();
    invariant(offset >= 0n, 'offsets are not negative');
    this.s.truncations++;
    this.boundCache.clear();
    const nowMs = this.s.clock.nowMs();
    while (this.s.segments.length > 0) this.s.segments.pop()?.delete();
    this.s.producers.reset();
    this.s.segments.push(LogSegment.create(this.s.fs, this.dir, offset, this.s.cfg, nowMs));
    this.s.startOffset = offset;
    this.s.flusher.restartAt(offset, false);
    this.s.onCheckpointNeeded();
  }

  /**
   * Deletes rolled segments (never the active one) from the oldest while any
   * of these holds: wholly below the log start offset; largest timestamp
   * older than retentionMs; the log stays >= retentionBytes without it.
   * The last two only apply when `delete` is in the cleanup policy.
   */
  applyRetention(nowMs: number, maxSegments = Number.MAX_SAFE_INTEGER): RetentionResult {
    this.s.checkOpen();
    const segmentsDeleted = lookups.segmentsPastRetention(this.s.segments, this.s.startOffset, this.s.cfg, nowMs, maxSegments);
    let bytesDeleted = 0;
    for (let i = 0; i < segmentsDeleted; i++) bytesDeleted += this.deleteFirstSegment();
    const first = this.s.segments[0] as LogSegment;
    if (first.baseOffset > this.s.startOffset) this.s.startOffset = first.baseOffset;
    if (segmentsDeleted > 0) this.s.producers.prune(this.s.startOffset);
    return { segmentsDeleted, bytesDeleted, logStartOffset: this.s.startOffset };
  }

  /** fsyncs everything not yet flushed; the recovery point becomes the log end offset. */
  flush(): void {
    this.s.checkOpen();
    this.s.flusher.flush();
  }

  /**
   * Timer hook: flushes when data has been unflushed for flushIntervalMs, and
   * otherwise fsyncs segments rolled since the last flush (moving the recovery
   * point to the active segment). Returns whether it fsynced anything.
   */
  maybeFlush(nowMs: number): boolean {
    this.s.checkOpen();
    return this.s.flusher.maybeFlush(nowMs);
  }

  /**
   * maybeFlush with the fsyncs on the thread pool (the broker's timer): one at
   * a time per log; the recovery point moves when they are done, unless the
   * log was truncated meanwhile (log-flush.ts). An fsync error is thrown by
   * the next call.
   */
  maybeFlushInBackground(nowMs: number): boolean {
    this.s.checkOpen();
    return this.s.flusher.maybeFlushInBackground(nowMs);
  }

  /**
   * The waiting half of close() on the thread pool, so a graceful stop can
   * overlap many logs: fsyncs every unflushed segment, moves the recovery
   * point to the log end and writes the producer-state snapshot in the
   * background. close() then finds nothing left to wait for, unless the log
   * changed meanwhile. May reject with an fsync error (close() retries it).
   */
  async prepareClose(): Promise<void> {
    if (this.s.closed || this.s.loadedSegments === null) return;
    const end = await this.s.flusher.flushForClose();
    if (!this.s.closed && end === this.logEndOffset) await this.s.producers.snapshotInBackground(end, this.s.startOffset);
  }

  /** Clean close: flush, then close every file. */
  close(): void {
    if (this.s.closed) return;
    if (this.s.loadedSegments === null) {
      // Never loaded: its files are as the last shutdown left them (the
      // LogManager writes no clean-shutdown marker while a log awaits recovery).
      this.s.closed = true;
      return;
    }
    this.flush();
    this.s.producers.snapshot(this.logEndOffset, this.s.startOffset);
    for (const seg of this.s.segments) seg.close();
    this.s.closed = true;
  }

  /**
   * Removes the log: closes its files, renames the directory to
   * `<dir>.<n>-delete` (a crash then leaves nothing that looks live; the
   * LogManager finishes the job at start-up) and removes it.
   */
  delete(): void {
    if (!this.s.closed && this.s.loadedSegments !== null) for (const seg of this.s.loadedSegments) seg.close();
    this.s.closed = true;
    let n = this.s.clock.nowMs();
    while (this.s.fs.exists(`${this.dir}.${n}-delete`)) n++;
    const doomed = `${this.dir}.${n}-delete`;
    this.s.fs.rename(this.dir, doomed);
    this.s.fs.rmrf(doomed);
  }

  /**
   * The partition's `leader-epoch-checkpoint` (owned by replication's leader
   * epoch cache): entries, null when absent, or a problem string when it
   * does not parse (the caller rebuilds with scanLeaderEpochs).
   */
  readLeaderEpochCheckpoint(): EpochEntry[] | null | string {
    this.s.checkOpen();
    return readLeaderEpochCheckpoint(this.s.fs, join(this.dir, LEADER_EPOCH_CHECKPOINT));
  }

  /**
   * Replaces the `leader-epoch-checkpoint` atomically, fsynced before
   * returning, except for a new partition's first one (no batch and no file
   * yet: CreateTopics of many partitions wrote one per partition on the event
   * loop). That one's fsyncs run on the thread pool: if a crash loses it, no
   * file is left, and a missing file is rebuilt from the batch headers at the
   * next open, which then carry every epoch written since. A later write
   * never loses to it (write-order.ts).
   */
  writeLeaderEpochCheckpoint(entries: readonly EpochEntry[]): void {
    this.s.checkOpen();
    const path = join(this.dir, LEADER_EPOCH_CHECKPOINT);
    if (this.logEndOffset === this.logStartOffset && !this.s.fs.exists(path)) void this.s.fs.writeFileAtomicAsync(path, Buffer.from(formatLeaderEpochCheckpoint(entries), 'utf8'));
    else writeLeaderEpochCheckpoint(this.s.fs, path, entries);
  }

  /**
   * Leader epoch changes recorded in the stored batch headers, from the log
   * start on: (epoch, first offset) each time partitionLeaderEpoch changes.
   * Batches without an epoch (-1) are skipped. Reads every batch header once;
   * for rebuilding a missing or damaged leader-epoch-checkpoint. An epoch
   * lower than one already seen (not written by a correct leader) is
   * reported as it is; the cache decides what to keep.
   */
  scanLeaderEpochs(): EpochEntry[] {
    this.s.checkOpen();
    return lookups.scanLeaderEpochs(this.s.segments, this.s.startOffset);
  }

  /** For diagnostics and tests: path of a segment file. */
  segmentPath(baseOffset: bigint, suffix: string): string {
    return join(this.dir, baseOffset.toString().padStart(20, '0') + suffix);
  }
}
