/**
 * What of a partition log is durable: its recovery point (offsets below it
 * are fsynced) and the flushes that move it, on the event loop (`flush`,
 * `maybeFlush`) or with the fsyncs on the thread pool (`maybeFlushInBackground`,
 * `flushForClose`). PartitionLog holds one; the segments stay the log's.
 * See README.md for what each flush policy guarantees.
 */
import type { Clock } from '../util/clock.js';
import type { LogConfig } from './config.js';
import type { LogSegment } from './segment.js';
import { floorSegment } from './segment-lookups.js';

/** What the flushes read of their log (PartitionLog). */
export interface FlushedLog {
  /** False for a deferred log before its first use: nothing was written to it since it was opened. */
  readonly isLoaded: boolean;
  readonly logEndOffset: bigint;
  readonly config: Readonly<LogConfig>;
  /** Bumped by every truncation, which fsyncs and lowers the recovery point on its own. */
  readonly truncationCount: number;
  /** The segments in offset order, the last one active. */
  segmentList(): readonly LogSegment[];
}

export class LogFlusher {
  private recoveryPointOffset: bigint;
  private lastFlushMs: number;
  /** Segments were rolled (below the active one) since the last flush and may be dirty. */
  private rolledSinceFlush: boolean;
  /** The fsyncs started by maybeFlushInBackground, while they run. */
  private backgroundFlush: Promise<void> | null = null;
  private backgroundFlushError: unknown = null;

  constructor(private readonly log: FlushedLog, private readonly clock: Clock, recoveryPoint: bigint, rolledSinceFlush: boolean) {
    this.recoveryPointOffset = recoveryPoint;
    this.rolledSinceFlush = rolledSinceFlush;
    this.lastFlushMs = clock.nowMs();
  }

  /** Offsets below this are known to be fsynced. */
  get recoveryPoint(): bigint {
    return this.recoveryPointOffset;
  }

  /** Offsets appended but not yet fsynced (Kafka's definition: end - recovery point). */
  get unflushedMessages(): number {
    return Number(this.log.logEndOffset - this.recoveryPointOffset);
  }

  /**
   * The log was (re)loaded or restarted empty: its recovery point is now
   * `recoveryPoint`, and `rolledSinceFlush` says whether segments below the
   * active one may be dirty (recovery left them for the first flush).
   */
  restartAt(recoveryPoint: bigint, rolledSinceFlush: boolean): void {
    this.recoveryPointOffset = recoveryPoint;
    this.rolledSinceFlush = rolledSinceFlush;
  }

  /** A truncation cut the log to `logEndOffset` (and fsynced what is left). */
  onTruncated(logEndOffset: bigint): void {
    if (this.recoveryPointOffset > logEndOffset) this.recoveryPointOffset = logEndOffset;
  }

  /** A new active segment was rolled; the old one is fsynced by the next maybeFlush. */
  onRoll(): void {
    // Kafka flushes a rolled segment in the background; maybeFlush does it here.
    this.rolledSinceFlush = true;
  }

  /** fsyncs everything not yet flushed; the recovery point becomes the log end offset. */
  flush(): void {
    // A deferred log not loaded yet has nothing unflushed (it came from a clean shutdown).
    if (!this.log.isLoaded) return;
    const segments = this.log.segmentList();
    for (let i = floorSegment(segments, this.recoveryPointOffset); i < segments.length; i++) {
      const seg = segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    this.recoveryPointOffset = this.log.logEndOffset;
    this.rolledSinceFlush = false;
    this.lastFlushMs = this.clock.nowMs();
  }

  /**
   * Timer hook: flushes when data has been unflushed for flushIntervalMs, and
   * otherwise fsyncs segments rolled since the last flush (moving the recovery
   * point to the active segment). Returns whether it fsynced anything.
   */
  maybeFlush(nowMs: number): boolean {
    // Not loaded: nothing was written since it was opened (a crash's unflushed tail is recovery's to check).
    if (!this.log.isLoaded) return false;
    if (this.unflushedMessages > 0 && nowMs - this.lastFlushMs >= this.log.config.flushIntervalMs) {
      this.flush();
      return true;
    }
    if (!this.rolledSinceFlush) return false;
    const segments = this.log.segmentList();
    const activeIndex = segments.length - 1;
    for (let i = floorSegment(segments, this.recoveryPointOffset); i < activeIndex; i++) {
      const seg = segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    const active = segments[activeIndex] as LogSegment;
    if (active.baseOffset > this.recoveryPointOffset) this.recoveryPointOffset = active.baseOffset;
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
    const failed = this.backgroundFlushError;
    if (failed !== null) {
      this.backgroundFlushError = null;
      throw failed;
    }
    // Not loaded: nothing was written since it was opened (as maybeFlush).
    if (this.backgroundFlush !== null || !this.log.isLoaded) return false;
    const full = this.unflushedMessages > 0 && nowMs - this.lastFlushMs >= this.log.config.flushIntervalMs;
    if (!full && !this.rolledSinceFlush) return false;
    const segments = this.log.segmentList();
    const target = full ? this.log.logEndOffset : (segments[segments.length - 1] as LogSegment).baseOffset;
    if (full) this.lastFlushMs = nowMs;
    this.rolledSinceFlush = false;
    this.backgroundFlush = this.flushUpTo(target, full ? segments.length : segments.length - 1)
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
   * The fsyncs of a graceful close on the thread pool: waits for a background
   * flush, then fsyncs every unflushed segment and moves the recovery point to
   * the log end it saw, which it returns. May reject with an fsync error.
   */
  async flushForClose(): Promise<bigint> {
    await this.backgroundFlush;
    const end = this.log.logEndOffset;
    await this.flushUpTo(end, this.log.segmentList().length);
    return end;
  }

  /** fsyncs the dirty segments below index `upTo` in parallel, then raises the recovery point to `target` unless truncated meanwhile. */
  private async flushUpTo(target: bigint, upTo: number): Promise<void> {
    const truncations = this.log.truncationCount;
    const segments = this.log.segmentList();
    const dirty: LogSegment[] = [];
    for (let i = floorSegment(segments, this.recoveryPointOffset); i < upTo; i++) {
      const seg = segments[i] as LogSegment;
      if (seg.dirty) dirty.push(seg);
    }
    await Promise.all(dirty.map((seg) => seg.flushAsync()));
    if (this.log.truncationCount === truncations && target > this.recoveryPointOffset) this.recoveryPointOffset = target;
  }
}
