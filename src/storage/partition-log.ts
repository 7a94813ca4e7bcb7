/**
 * The log of one topic-partition: an ordered list of segments in the
 * directory `<topic>-<partition>`, the last one active. See README.md for the
 * invariants, the on-disk formats and what each flush policy guarantees.
 */
import { join } from 'node:path';
import { invariant } from '../util/assert.js';
import type { Clock } from '../util/clock.js';
import { compactionConfigOf, validateLogConfig, type LogConfig } from './config.js';
import { forEachProducerBatch, summarizeAppendBatches } from './append-batches.js';
import type { FileSystem } from './fs.js';
import { loadLog, type RecoveryReport } from './log-loader.js';
import { formatLeaderEpochCheckpoint, LEADER_EPOCH_CHECKPOINT, readLeaderEpochCheckpoint, writeLeaderEpochCheckpoint, type EpochEntry } from './leader-epoch-checkpoint.js';
import { BoundPositionCache, readSegments } from './log-read.js';
import type { ReadOptions, ReadResult } from './log-read.js';
import type { SegmentInfo, TimestampOffset } from './segment-lookups.js';
import { LogSegment } from './segment.js';
import * as lookups from './segment-lookups.js';
import { LogProducerState, type ProducerStateLog } from './producer-state/log-producer-state.js';
import type { ProducerStateManager } from './producer-state/producer-state.js';
import type { AbortedTxn } from './txn-index.js';
import { rebuildTxnIndexes } from './txn-index-rebuild.js';

export type { ReadOptions, ReadResult } from './log-read.js';
export type { SegmentInfo, TimestampOffset } from './segment-lookups.js';

/** What a PartitionLog is opened with. */
export interface PartitionLogOptions {
  fs: FileSystem;
  clock: Clock;
  /** The partition directory, `<data.dir>/<topic>-<partition>`. */
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  /** From recovery-point-offset-checkpoint; absent = scan every segment. */
  recoveryPoint?: bigint | undefined;
  /** From log-start-offset-checkpoint. */
  logStartOffset?: bigint | undefined;
  hadCleanShutdown?: boolean;
  /**
   * Leave segments validated by recovery unfsynced (dirty, below the recovery
   * point) instead of fsyncing them while opening (log-loader.ts,
   * `syncRecovered`). The LogManager sets it; default false.
   */
  deferRecoveryFlush?: boolean;
  /** The directory exists (the LogManager listed it): opening makes no mkdir call. */
  dirExists?: boolean;
  /**
   * Called when the recovery point went down or the log start offset went up,
   * so the owner rewrites its checkpoint files before anything else happens.
   */
  onCheckpointNeeded?: (() => void) | undefined;
  /** Called with the recovery report when a deferred log (`PartitionLog.deferred`) is loaded on first use. */
  onDeferredLoad?: ((report: RecoveryReport) => void) | undefined;
}

/** A log opened without touching its directory (`PartitionLog.deferred`): loaded, or recovered, on first use. */
export interface DeferredLogOptions extends PartitionLogOptions {
  /** The checkpointed recovery point: after a clean shutdown, the log end offset. */
  recoveryPoint: bigint;
  logStartOffset: bigint;
  /**
   * The last shutdown was not clean: the log end is not known until the log
   * is recovered (scanned from the recovery point's segment on), which its
   * first use or `load()` does. Default false (a clean shutdown).
   */
  recover?: boolean;
}

/** Told when a log awaiting recovery has been recovered (replication's Partition settles its state then). */
export interface LogRecoveryListener {
  onLogRecovered(): void;
}

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

const INT32_MAX = 0x7fffffff;

export class PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  private readonly fs: FileSystem;
  private readonly clock: Clock;
  private cfg: LogConfig;
  /** The segments, or null while a deferred log is not loaded yet (see `deferred`). */
  private loadedSegments: LogSegment[] | null;
  /**
   * Until a deferred log is loaded: its log end offset (the checkpointed
   * recovery point), or -1 when it awaits recovery after a crash (the end is
   * known only once its tail is scanned).
   */
  private deferredEndOffset: bigint;
  /** A high watermark given before a deferred log was loaded, for its producer state once loaded. */
  private pendingHighWatermark: bigint | null = null;
  /** A deferred log's `onDeferredLoad` (the rest of its options are in the fields). */
  private readonly onDeferredLoad: ((report: RecoveryReport) => void) | undefined;
  private startOffset: bigint;
  private recoveryPointOffset: bigint;
  private lastFlushMs: number;
  private rolledSinceFlush = false;
  private closed = false;
  /** Bumped by every truncation: the cleaner drops work based on records that may be gone. */
  private truncations = 0;
  /** The fsyncs started by maybeFlushInBackground, while they run. */
  private backgroundFlush: Promise<void> | null = null;
  private backgroundFlushError: unknown = null;
  private readonly onCheckpointNeeded: () => void;
  /** The last maxOffsetExclusive resolved to a position, so repeated fetches don't rescan. */
  private readonly boundCache = new BoundPositionCache();
  /** Idempotent producer state and its `.snapshot` files (producer-state/); loaded with the segments. */
  private producerFiles: LogProducerState | null;
  private readonly dirExists: boolean;
  /** Told once when a log awaiting recovery is recovered (set by its Partition; cleared then). */
  recoveryListener: LogRecoveryListener | null = null;

  private constructor(opts: PartitionLogOptions, segments: LogSegment[] | null, logStartOffset: bigint, recoveryPoint: bigint) {
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.dir = opts.dir;
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.cfg = opts.config;
    this.loadedSegments = segments;
    this.onDeferredLoad = opts.onDeferredLoad;
    this.dirExists = opts.dirExists === true;
    this.deferredEndOffset = recoveryPoint;
    this.startOffset = logStartOffset;
    // Recovery validated everything after the old recovery point, and fsynced
    // it unless deferRecoveryFlush (then rolled ones go at the next maybeFlush).
    this.recoveryPointOffset = recoveryPoint;
    this.rolledSinceFlush = segments !== null && recoveryPoint < (segments[segments.length - 1] as LogSegment).baseOffset;
    this.lastFlushMs = opts.clock.nowMs();
    this.onCheckpointNeeded = opts.onCheckpointNeeded ?? (() => {});
    // A deferred log creates its producer state when it is loaded (less per idle partition).
    this.producerFiles = segments === null ? null : new LogProducerState(opts.fs, opts.dir);
  }

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
    const producerState = log.producers.load(log, opts.hadCleanShutdown ?? false, opts.clock.nowMs(), loaded.fileNames);
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
    // After a crash (README "Recovery", step 8): the end is unknown until recovered.
    if (opts.recover === true) log.deferredEndOffset = -1n;
    return log;
  }

  /** Whether the segments are loaded (false only for a deferred log before its first use). */
  get isLoaded(): boolean {
    return this.loadedSegments !== null;
  }

  /**
   * A deferred log left by a crash and not recovered yet: its end offset,
   * log start offset and producer state are unknown until then (reading any
   * of them recovers it first). What may be asked without recovering it:
   * `recoveryPoint` and `knownLogStartOffset` (the checkpointed values).
   */
  get awaitingRecovery(): boolean {
    return this.loadedSegments === null && this.deferredEndOffset < 0n;
  }

  /** Loads (recovers, after a crash) a deferred log now; false when it was already loaded. */
  load(): boolean {
    if (this.loadedSegments !== null || this.closed) return false;
    this.loadDeferred();
    return true;
  }

  /** The segments, loading a deferred log first. */
  private get segments(): LogSegment[] {
    return this.loadedSegments ?? this.loadDeferred();
  }

  private get producers(): LogProducerState {
    if (this.loadedSegments === null) this.loadDeferred();
    return this.producerFiles as LogProducerState;
  }

  /**
   * Loads a deferred log as `open` would have at start-up. After a clean
   * shutdown: every segment trusted, its indexes checked (a segment whose
   * indexes do not check out is scanned, and may be cut). Awaiting recovery
   * (a crash): every batch from the recovery point's segment on is validated,
   * a torn or corrupt tail cut, the producer state rebuilt from its newest
   * usable snapshot and the batches after it, as `open` with
   * `deferRecoveryFlush` does. On a file-system error (out of descriptors) it
   * throws and the next use tries again.
   */
  private loadDeferred(): LogSegment[] {
    const recovering = this.deferredEndOffset < 0n;
    const nowMs = this.clock.nowMs();
    const before = { start: this.startOffset, recoveryPoint: this.recoveryPointOffset };
    const loaded = loadLog({
      fs: this.fs, dir: this.dir, config: this.cfg, nowMs,
      recoveryPoint: this.recoveryPointOffset, logStartOffset: this.startOffset, hadCleanShutdown: !recovering, syncRecovered: false,
      dirExists: this.dirExists,
    });
    this.loadedSegments = loaded.segments;
    this.deferredEndOffset = loaded.report.logEndOffset;
    this.startOffset = loaded.logStartOffset;
    this.recoveryPointOffset = loaded.recoveryPoint;
    this.rolledSinceFlush = loaded.recoveryPoint < this.active.baseOffset;
    const producers = new LogProducerState(this.fs, this.dir);
    this.producerFiles = producers;
    const producerState = producers.load(this, !recovering, nowMs, loaded.fileNames);
    if (this.pendingHighWatermark !== null) producers.state.onHighWatermarkUpdated(this.pendingHighWatermark);
    this.pendingHighWatermark = null;
    const txnIndexes = rebuildTxnIndexes(this.fs, this.dir, loaded.segments, loaded.logStartOffset);
    // After a clean shutdown only damaged files change the bounds the
    // checkpoints gave. After a crash the recovery point drops to the first
    // segment left unfsynced, which the checkpoint file need not record
    // (what it says, "fsynced below", stays true) unless recovery cut the
    // log below it: then new appends would land under a stale claim.
    const stale = recovering
      ? loaded.logStartOffset !== before.start || loaded.report.logEndOffset < before.recoveryPoint
      : loaded.logStartOffset !== before.start || loaded.recoveryPoint !== before.recoveryPoint;
    if (stale) this.onCheckpointNeeded();
    this.onDeferredLoad?.({ ...loaded.report, producerState, txnIndexes });
    const listener = this.recoveryListener;
    this.recoveryListener = null;
    listener?.onLogRecovered();
    return loaded.segments;
  }

  /**
   * The partition's high watermark moved (replication): the producer state
   * keeps closed transactions until their markers are below it. A deferred
   * log keeps the value for when it is loaded.
   */
  onHighWatermarkUpdated(highWatermark: bigint): void {
    if (this.loadedSegments === null) this.pendingHighWatermark = highWatermark;
    else this.producers.state.onHighWatermarkUpdated(highWatermark);
  }

  get config(): Readonly<LogConfig> {
    return this.cfg;
  }

  get logStartOffset(): bigint {
    // Recovery may raise it (segments deleted after the last checkpoint).
    if (this.loadedSegments === null && this.deferredEndOffset < 0n) this.loadDeferred();
    return this.startOffset;
  }

  /** The log start offset without recovering a log that awaits recovery (then the checkpointed one; for checkpoints). */
  get knownLogStartOffset(): bigint {
    return this.startOffset;
  }

  get logEndOffset(): bigint {
    return this.loadedSegments === null && this.deferredEndOffset >= 0n ? this.deferredEndOffset : this.active.nextOffset;
  }

  /** Offsets appended but not yet fsynced (Kafka's definition: end - recovery point). */
  get unflushedMessages(): number {
    return Number(this.logEndOffset - this.recoveryPointOffset);
  }

  /** Offsets below this are known to be fsynced. */
  get recoveryPoint(): bigint {
    return this.recoveryPointOffset;
  }

  get sizeBytes(): number {
    let total = 0;
    for (const seg of this.segments) total += seg.sizeBytes;
    return total;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  segmentInfos(): SegmentInfo[] {
    return this.segments.map((s) => ({
      baseOffset: s.baseOffset,
      nextOffset: s.nextOffset,
      sizeBytes: s.sizeBytes,
      maxTimestampMs: s.maxTimestampMs,
      lastModifiedMs: s.lastModifiedMs,
    }));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** How many times the log was truncated (truncateTo, truncateFullyAndStartAt) since it was opened. */
  get truncationCount(): number {
    return this.truncations;
  }

  /** For the log cleaner: the segments in offset order, the last one active. Do not modify. */
  segmentList(): readonly LogSegment[] {
    return this.segments;
  }

  /**
   * For the log cleaner: puts `cleaned` (already on disk under the final file
   * names) in place of the rolled segment `old`, which it closes. Both cover
   * the same offsets. Synchronous, so a read sees either one or the other.
   */
  replaceSegment(old: LogSegment, cleaned: LogSegment): void {
    this.checkOpen();
    const i = this.segments.indexOf(old);
    invariant(i >= 0 && i < this.segments.length - 1, 'the cleaner replaces a rolled segment of this log');
    invariant(cleaned.baseOffset === old.baseOffset && cleaned.nextOffset === old.nextOffset, 'a cleaned segment covers the same offsets');
    this.segments[i] = cleaned;
    this.boundCache.forget(old);
    old.close();
  }

  private get active(): LogSegment {
    return this.segments[this.segments.length - 1] as LogSegment;
  }

  private checkOpen(): void {
    invariant(!this.closed, `log ${this.dir} is open`);
  }

  updateConfig(config: LogConfig): void {
    this.cfg = validateLogConfig(config);
    // A deferred log opens its segments with the config current then.
    if (this.loadedSegments !== null) this.active.setIndexLimits(this.cfg);
  }

  /**
   * Appends one batch, or several consecutive batches in one buffer, already
   * validated by the caller. Rewrites their base offsets in place to the log
   * end offset and writes them with one positional write.
   */
  append(batches: Buffer): AppendResult {
    this.checkOpen();
    const { records, maxTimestampMs, producerBatches } = summarizeAppendBatches(batches);
    const nowMs = this.clock.nowMs();
    const baseOffset = this.logEndOffset;
    const lastOffset = baseOffset + BigInt(records - 1);
    let seg = this.active;
    if (seg.shouldRoll(this.cfg, batches.length, maxTimestampMs, lastOffset, nowMs)) seg = this.rollAt(nowMs);
    invariant(lastOffset - seg.baseOffset <= BigInt(INT32_MAX), 'offsets fit the segment');
    const position = seg.append(batches, baseOffset, this.cfg.indexIntervalBytes, nowMs);
    if (producerBatches) forEachProducerBatch(batches, (b) => this.producers.apply(b, nowMs, seg.txnIndex));
    if (this.unflushedMessages >= this.cfg.flushIntervalMessages) this.flush();
    return { baseOffset, lastOffset, logAppendTimeMs: BigInt(nowMs), position };
  }

  /**
   * The idempotent producer state after the last append (producer-state/):
   * Partition checks client batches against it before appending them.
   */
  get producerState(): ProducerStateManager {
    return this.producers.state;
  }

  /** Forgets producers idle for `expirationMs` (producer.id.expiration.ms); returns how many. */
  removeExpiredProducers(nowMs: number, expirationMs: number): number {
    this.checkOpen();
    // A deferred log's producers expire once it is loaded (no need to load it for this).
    if (this.loadedSegments === null) return 0;
    return this.producers.removeExpired(nowMs, expirationMs);
  }

  /** Aborted transactions overlapping [fetchOffset, upperBoundOffset) (read_committed fetches). */
  collectAbortedTransactions(fetchOffset: bigint, upperBoundOffset: bigint): AbortedTxn[] {
    return lookups.collectAbortedTxns(this.segments, fetchOffset, upperBoundOffset);
  }

  /** ProducerStateLog: the header of every batch whose last offset is >= fromOffset, in order. */
  scanBatchHeaders(fromOffset: bigint, visit: (header: Buffer, at: number) => void): void {
    lookups.scanBatchHeaders(this.segments, fromOffset, visit);
  }

  /** Rolls a new active segment at the log end offset (no-op when the active one is empty). */
  roll(): void {
    this.checkOpen();
    if (this.active.sizeBytes > 0) this.rollAt(this.clock.nowMs());
  }

  private rollAt(nowMs: number): LogSegment {
    const old = this.active;
    old.onBecomeInactive();
    // The state covers exactly the offsets below the new segment (Kafka snapshots at every roll
    // and, since KAFKA-15046, fsyncs the snapshot off the request path too).
    void this.producers.snapshotInBackground(old.nextOffset, this.startOffset);
    const seg = LogSegment.create(this.fs, this.dir, old.nextOffset, this.cfg, nowMs);
    this.segments.push(seg);
    // Kafka flushes a rolled segment in the background; maybeFlush does it here.
    this.rolledSinceFlush = true;
    return seg;
  }

  /**
   * Stored bytes from the batch containing startOffset on: whole batches up
   * to maxBytes (the last one may be cut there), never a batch reaching
   * maxOffsetExclusive. Reading at exactly the log end offset returns nothing.
   */
  read(startOffset: bigint, maxBytes: number, opts: ReadOptions = {}): ReadResult {
    this.checkOpen();
    const logEndOffset = this.logEndOffset; // first: it recovers a log that awaits recovery
    const logStartOffset = this.startOffset;
    if (startOffset < logStartOffset || startOffset > logEndOffset) {
      return { kind: 'offset_out_of_range', logStartOffset, logEndOffset };
    }
    const bound = opts.maxOffsetExclusive !== undefined && opts.maxOffsetExclusive < logEndOffset
      ? opts.maxOffsetExclusive
      : logEndOffset;
    const { chunks, sizeBytes, partialTail, endOffsetBound } = readSegments(this.segments, startOffset, bound, maxBytes, opts, this.boundCache);
    return { kind: 'records', chunks, sizeBytes, partialTail, endOffsetBound, logStartOffset, logEndOffset };
  }

  /**
   * The first batch (from the log start on) whose maxTimestamp >= timestampMs:
   * its base offset (at least the log start offset) and max timestamp. Records
   * are opaque here, so this is batch-granular; null when there is none.
   */
  offsetForTimestamp(timestampMs: bigint): TimestampOffset | null {
    this.checkOpen();
    return lookups.offsetForTimestamp(this.segments, this.startOffset, timestampMs);
  }

  /**
   * Largest timestamp in the log and the last offset of the (first) batch
   * holding it (ListOffsets MAX_TIMESTAMP); null when no batch has one.
   */
  maxTimestamp(): TimestampOffset | null {
    return lookups.maxTimestamp(this.segments, this.startOffset);
  }

  /**
   * DeleteRecords: moves the log start offset up to `offset` (<= log end
   * offset) and deletes the segments wholly below it.
   */
  deleteRecordsBefore(offset: bigint): { kind: 'ok'; logStartOffset: bigint } | { kind: 'offset_out_of_range' } {
    this.checkOpen();
    if (offset > this.logEndOffset || offset < 0n) return { kind: 'offset_out_of_range' };
    if (offset <= this.startOffset) return { kind: 'ok', logStartOffset: this.startOffset };
    // A crash must not lose data below the new start offset (it would leave start > end).
    if (offset > this.recoveryPointOffset) this.flush();
    this.startOffset = offset;
    if (this.active.sizeBytes > 0 && this.active.nextOffset <= offset) this.rollAt(this.clock.nowMs());
    while (this.segments.length > 1 && (this.segments[1] as LogSegment).baseOffset <= offset) this.deleteFirstSegment();
    this.producers.prune(this.startOffset);
    this.onCheckpointNeeded();
    return { kind: 'ok', logStartOffset: this.startOffset };
  }

  private deleteFirstSegment(): number {
    const seg = this.segments.shift() as LogSegment;
    this.boundCache.forget(seg);
    const size = seg.sizeBytes;
    seg.delete();
    return size;
  }

  /**
   * Removes every batch containing an offset >= `offset` (replication's
   * truncation). A batch straddling `offset` goes whole, so the new log end
   * offset may be below it. Made durable before returning.
   */
  truncateTo(offset: bigint): void {
    this.checkOpen();
    if (offset >= this.logEndOffset) return;
    if (offset <= this.startOffset) {
      this.truncateFullyAndStartAt(offset);
      return;
    }
    this.truncations++;
    this.boundCache.clear();
    while (this.active.baseOffset >= offset) this.segments.pop()?.delete();
    const seg = this.active;
    seg.truncateTo(offset);
    if (this.logEndOffset < this.startOffset) {
      // The batch holding the start offset went: nothing visible is left.
      this.truncateFullyAndStartAt(this.startOffset);
      return;
    }
    seg.flush();
    if (this.recoveryPointOffset > this.logEndOffset) this.recoveryPointOffset = this.logEndOffset;
    this.producers.truncateTo(this as ProducerStateLog, this.clock.nowMs());
    this.onCheckpointNeeded();
  }

  /** Deletes every segment and starts empty at `offset` (log start = end = offset). */
  truncateFullyAndStartAt(offset: bigint): void {
    this.checkOpen();
    invariant(offset >= 0n, 'offsets are not negative');
    this.truncations++;
    this.boundCache.clear();
    const nowMs = this.clock.nowMs();
    while (this.segments.length > 0) this.segments.pop()?.delete();
    this.producers.reset();
    this.segments.push(LogSegment.create(this.fs, this.dir, offset, this.cfg, nowMs));
    this.startOffset = offset;
    this.recoveryPointOffset = offset;
    this.rolledSinceFlush = false;
    this.onCheckpointNeeded();
  }

  /**
   * Deletes rolled segments (never the active one) from the oldest while any
   * of these holds: wholly below the log start offset; largest timestamp
   * older than retentionMs; the log stays >= retentionBytes without it.
   * The last two only apply when `delete` is in the cleanup policy.
   */
  applyRetention(nowMs: number, maxSegments = Number.MAX_SAFE_INTEGER): RetentionResult {
    this.checkOpen();
    let total = this.sizeBytes;
    let segmentsDeleted = 0;
    let bytesDeleted = 0;
    const { retentionMs, retentionBytes } = this.cfg;
    const deletePolicy = compactionConfigOf(this.cfg).cleanupPolicy.delete;
    while (this.segments.length > 1 && segmentsDeleted < maxSegments) {
      const seg = this.segments[0] as LogSegment;
      const next = this.segments[1] as LogSegment;
      const largestMs = seg.maxTimestampMs >= 0n ? Number(seg.maxTimestampMs) : seg.lastModifiedMs;
      const belowStart = next.baseOffset <= this.startOffset;
      const expired = deletePolicy && retentionMs >= 0 && nowMs - largestMs > retentionMs;
      const tooBig = deletePolicy && retentionBytes >= 0 && total - seg.sizeBytes >= retentionBytes;
      if (!belowStart && !expired && !tooBig) break;
      const size = this.deleteFirstSegment();
      total -= size;
      bytesDeleted += size;
      segmentsDeleted++;
    }
    const first = this.segments[0] as LogSegment;
    if (first.baseOffset > this.startOffset) this.startOffset = first.baseOffset;
    if (segmentsDeleted > 0) this.producers.prune(this.startOffset);
    return { segmentsDeleted, bytesDeleted, logStartOffset: this.startOffset };
  }

  /** fsyncs everything not yet flushed; the recovery point becomes the log end offset. */
  flush(): void {
    this.checkOpen();
    // A deferred log not loaded yet has nothing unflushed (it came from a clean shutdown).
    if (this.loadedSegments === null) return;
    for (let i = lookups.floorSegment(this.segments, this.recoveryPointOffset); i < this.segments.length; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    this.recoveryPointOffset = this.logEndOffset;
    this.rolledSinceFlush = false;
    this.lastFlushMs = this.clock.nowMs();
  }

  /**
   * Timer hook: flushes when data has been unflushed for flushIntervalMs, and
   * otherwise fsyncs segments rolled since the last flush (moving the recovery
   * point to the active segment). Returns whether it fsynced anything.
   */
  maybeFlush(nowMs: number): boolean {
    this.checkOpen();
    // Not loaded: nothing was written since it was opened (a crash's unflushed tail is recovery's to check).
    if (this.loadedSegments === null) return false;
    if (this.unflushedMessages > 0 && nowMs - this.lastFlushMs >= this.cfg.flushIntervalMs) {
      this.flush();
      return true;
    }
    if (!this.rolledSinceFlush) return false;
    const activeIndex = this.segments.length - 1;
    for (let i = lookups.floorSegment(this.segments, this.recoveryPointOffset); i < activeIndex; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    if (this.active.baseOffset > this.recoveryPointOffset) this.recoveryPointOffset = this.active.baseOffset;
    this.rolledSinceFlush = false;
    return true;
  }

  /**
   * maybeFlush for the broker's timer with the fsyncs on the thread pool:
   * starts them and returns at once (true when it started any; one at a
   * time per log). The recovery point moves when they are done, and only if
   * the log was not truncated meanwhile (a truncation fsyncs, lowers it and
   * checkpoints on its own), so a checkpoint never claims more than is
   * durable. An fsync error is thrown by the next call.
   */
  maybeFlushInBackground(nowMs: number): boolean {
    this.checkOpen();
    const failed = this.backgroundFlushError;
    if (failed !== null) {
      this.backgroundFlushError = null;
      throw failed;
    }
    // Not loaded: nothing was written since it was opened (as maybeFlush).
    if (this.backgroundFlush !== null || this.loadedSegments === null) return false;
    const full = this.unflushedMessages > 0 && nowMs - this.lastFlushMs >= this.cfg.flushIntervalMs;
    if (!full && !this.rolledSinceFlush) return false;
    const target = full ? this.logEndOffset : this.active.baseOffset;
    if (full) this.lastFlushMs = nowMs;
    this.rolledSinceFlush = false;
    this.backgroundFlush = this.flushUpTo(target, full ? this.segments.length : this.segments.length - 1)
      .catch((err: unknown) => {
        this.backgroundFlushError = err;
        if (!full) this.rolledSinceFlush = true;
      })
      .finally(() => {
        this.backgroundFlush = null;
      });
    return true;
  }

  /**
   * The waiting half of close() on the thread pool, so a graceful stop can
   * overlap many logs: fsyncs every unflushed segment, moves the recovery
   * point to the log end and writes the producer-state snapshot in the
   * background. close() then finds nothing left to wait for, unless the log
   * changed meanwhile. May reject with an fsync error (close() retries it).
   */
  async prepareClose(): Promise<void> {
    if (this.closed || this.loadedSegments === null) return;
    await this.backgroundFlush;
    const end = this.logEndOffset;
    await this.flushUpTo(end, this.segments.length);
    if (!this.closed && end === this.logEndOffset) await this.producers.snapshotInBackground(end, this.startOffset);
  }

  /** fsyncs the dirty segments below index `upTo` in parallel, then raises the recovery point to `target` unless truncated meanwhile. */
  private async flushUpTo(target: bigint, upTo: number): Promise<void> {
    const truncations = this.truncations;
    const dirty: LogSegment[] = [];
    for (let i = lookups.floorSegment(this.segments, this.recoveryPointOffset); i < upTo; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.dirty) dirty.push(seg);
    }
    await Promise.all(dirty.map((seg) => seg.flushAsync()));
    if (this.truncations === truncations && target > this.recoveryPointOffset) this.recoveryPointOffset = target;
  }

  /** Clean close: flush, then close every file. */
  close(): void {
    if (this.closed) return;
    if (this.loadedSegments === null) {
      // Never loaded: its files are as the last shutdown left them (the
      // LogManager writes no clean-shutdown marker while a log awaits recovery).
      this.closed = true;
      return;
    }
    this.flush();
    this.producers.snapshot(this.logEndOffset, this.startOffset);
    for (const seg of this.segments) seg.close();
    this.closed = true;
  }

  /**
   * Removes the log: closes its files, renames the directory to
   * `<dir>.<n>-delete` (a crash then leaves nothing that looks live; the
   * LogManager finishes the job at start-up) and removes it.
   */
  delete(): void {
    if (!this.closed && this.loadedSegments !== null) for (const seg of this.loadedSegments) seg.close();
    this.closed = true;
    let n = this.clock.nowMs();
    while (this.fs.exists(`${this.dir}.${n}-delete`)) n++;
    const doomed = `${this.dir}.${n}-delete`;
    this.fs.rename(this.dir, doomed);
    this.fs.rmrf(doomed);
  }

  /**
   * The partition's `leader-epoch-checkpoint` (owned by replication's leader
   * epoch cache): entries, null when absent, or a problem string when it
   * does not parse (the caller rebuilds with scanLeaderEpochs).
   */
  readLeaderEpochCheckpoint(): EpochEntry[] | null | string {
    this.checkOpen();
    return readLeaderEpochCheckpoint(this.fs, join(this.dir, LEADER_EPOCH_CHECKPOINT));
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
    this.checkOpen();
    const path = join(this.dir, LEADER_EPOCH_CHECKPOINT);
    if (this.logEndOffset === this.logStartOffset && !this.fs.exists(path)) void this.fs.writeFileAtomicAsync(path, Buffer.from(formatLeaderEpochCheckpoint(entries), 'utf8'));
    else writeLeaderEpochCheckpoint(this.fs, path, entries);
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
    this.checkOpen();
    return lookups.scanLeaderEpochs(this.segments, this.startOffset);
  }

  /** For diagnostics and tests: path of a segment file. */
  segmentPath(baseOffset: bigint, suffix: string): string {
    return join(this.dir, baseOffset.toString().padStart(20, '0') + suffix);
  }
}
