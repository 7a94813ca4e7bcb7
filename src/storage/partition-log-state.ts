/**
 * What a partition log holds, and its loading: the segments (loaded when the
 * log is opened, or on first use for a log opened deferred: deferred-load.ts),
 * the log start offset, the recovery point (log-flush.ts), the producer state,
 * and the bounds read from them. One `PartitionLog` owns each and is the only
 * writer of its fields (append, read, roll, retention, truncation, flush,
 * close); everyone else sees them through the log's getters.
 */
import { invariant } from '../util/assert.js';
import type { Clock } from '../util/clock.js';
import type { LogConfig } from './config.js';
import type { FileSystem } from './fs.js';
import type { RecoveryReport } from './log-loader.js';
import type { DeferredLoad, LogRecoveryListener } from './deferred-load.js';
import { LogFlusher } from './log-flush.js';
import type { SegmentInfo } from './segment-lookups.js';
import type { LogSegment } from './segment.js';
import * as lookups from './segment-lookups.js';
import { LogProducerState } from './producer-state/log-producer-state.js';

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

/** The state of a PartitionLog and its loading (see the top of this file). */
export class PartitionLogState {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly fs: FileSystem;
  readonly clock: Clock;
  cfg: LogConfig;
  /** The segments, or null while a deferred log is not loaded yet (see `PartitionLog.deferred`). */
  loadedSegments: LogSegment[] | null;
  /** Until a deferred log is loaded: what is known of it, and its loading (deferred-load.ts); null once loaded. */
  deferredLoad: DeferredLoad | null = null;
  startOffset: bigint;
  /** The recovery point and the flushes that move it (log-flush.ts). */
  readonly flusher: LogFlusher;
  closed = false;
  /** Bumped by every truncation: the cleaner drops work based on records that may be gone. */
  truncations = 0;
  readonly onCheckpointNeeded: () => void;
  /** Idempotent producer state and its `.snapshot` files (producer-state/); loaded with the segments. */
  private producerFiles: LogProducerState | null;
  /** Told once when a log awaiting recovery is recovered (set by its Partition; cleared then). */
  recoveryListener: LogRecoveryListener | null = null;

  constructor(opts: PartitionLogOptions, segments: LogSegment[] | null, logStartOffset: bigint, recoveryPoint: bigint) {
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.dir = opts.dir;
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.cfg = opts.config;
    this.loadedSegments = segments;
    this.startOffset = logStartOffset;
    // Recovery validated everything after the old recovery point, and fsynced
    // it unless deferRecoveryFlush (then rolled ones go at the next maybeFlush).
    const rolledSinceFlush = segments !== null && recoveryPoint < (segments[segments.length - 1] as LogSegment).baseOffset;
    this.flusher = new LogFlusher(this, opts.clock, recoveryPoint, rolledSinceFlush);
    this.onCheckpointNeeded = opts.onCheckpointNeeded ?? (() => {});
    // A deferred log creates its producer state when it is loaded (less per idle partition).
    this.producerFiles = segments === null ? null : new LogProducerState(opts.fs, opts.dir);
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
    return this.deferredLoad?.awaitingRecovery === true;
  }

  /** Loads (recovers, after a crash) a deferred log now; false when it was already loaded. */
  load(): boolean {
    if (this.loadedSegments !== null || this.closed) return false;
    this.loadDeferred();
    return true;
  }

  /** The segments, loading a deferred log first. */
  get segments(): LogSegment[] {
    return this.loadedSegments ?? this.loadDeferred();
  }

  get producers(): LogProducerState {
    if (this.loadedSegments === null) this.loadDeferred();
    return this.producerFiles as LogProducerState;
  }

  /**
   * Loads a deferred log as `open` would have at start-up (deferred-load.ts
   * says how). On a file-system error (out of descriptors) it throws and the
   * next use tries again.
   */
  private loadDeferred(): LogSegment[] {
    const deferred = this.deferredLoad as DeferredLoad;
    const nowMs = this.clock.nowMs();
    const before = { logStartOffset: this.startOffset, recoveryPoint: this.flusher.recoveryPoint };
    const loaded = deferred.readSegments(this.fs, this.dir, this.cfg, before, nowMs);
    this.loadedSegments = loaded.segments;
    this.deferredLoad = null;
    this.startOffset = loaded.logStartOffset;
    this.flusher.restartAt(loaded.recoveryPoint, loaded.recoveryPoint < this.active.baseOffset);
    const producers = new LogProducerState(this.fs, this.dir);
    this.producerFiles = producers;
    // The producer state is rebuilt from this log's segments: they are in place now.
    deferred.loadState(this.fs, this.dir, this, producers, loaded, before, nowMs, this.onCheckpointNeeded);
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
    if (this.deferredLoad !== null) this.deferredLoad.highWatermark = highWatermark;
    else this.producers.state.onHighWatermarkUpdated(highWatermark);
  }

  get config(): Readonly<LogConfig> {
    return this.cfg;
  }

  get logStartOffset(): bigint {
    // Recovery may raise it (segments deleted after the last checkpoint).
    if (this.awaitingRecovery) this.loadDeferred();
    return this.startOffset;
  }

  /** The log start offset without recovering a log that awaits recovery (then the checkpointed one; for checkpoints). */
  get knownLogStartOffset(): bigint {
    return this.startOffset;
  }

  get logEndOffset(): bigint {
    const deferred = this.deferredLoad;
    return deferred !== null && !deferred.awaitingRecovery ? deferred.endOffset : this.active.nextOffset;
  }

  /** Offsets appended but not yet fsynced (Kafka's definition: end - recovery point). */
  get unflushedMessages(): number {
    return this.flusher.unflushedMessages;
  }

  /** Offsets below this are known to be fsynced. */
  get recoveryPoint(): bigint {
    return this.flusher.recoveryPoint;
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

  get active(): LogSegment {
    return this.segments[this.segments.length - 1] as LogSegment;
  }

  checkOpen(): void {
    if (this.closed) invariant(false, `log ${this.dir} is open`); // message built only on failure (every append and read checks)
  }

  /** ProducerStateLog: the header of every batch whose last offset is >= fromOffset, in order. */
  scanBatchHeaders(fromOffset: bigint, visit: (header: Buffer, at: number) => void): void {
    lookups.scanBatchHeaders(this.segments, fromOffset, visit);
  }
}
