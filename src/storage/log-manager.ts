/**
 * Owns a data directory: opens every partition log at start-up (deferred:
 * loaded, or after a crash recovered, on first use or by `recoverSome`;
 * README "Recovery", steps 7-8), creates and deletes logs, keeps the recovery-point and
 * log-start-offset checkpoints, marks a clean shutdown, and does the
 * periodic work (time-based flush, rolled-segment flush, retention,
 * checkpoints) in bounded slices when the broker's timer calls tick().
 * Log compaction runs separately (it may await codecs): `manager.cleaner`.
 */
import { join } from 'node:path';
import { invariant } from '../util/assert.js';
import type { Clock } from '../util/clock.js';
import { formatCheckpoint, readCheckpointFile, writeCheckpointFile, type CheckpointEntry } from './checkpoint.js';
import { DEFAULT_LOG_CONFIG, validateLogConfig, type LogConfig } from './config.js';
import type { FileSystem } from './fs.js';
import type { RecoveryReport } from './log-loader.js';
import { PartitionLog } from './partition-log.js';
import { LogCleaner, type LogCleanerOptions } from './cleaner/log-cleaner.js';

export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint';
export const CLEAN_SHUTDOWN_MARKER = '.clean-shutdown';
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export interface LogManagerOptions {
  fs: FileSystem;
  clock: Clock;
  dataDir: string;
  defaultConfig?: LogConfig;
  /** Config of a topic's logs at start-up (topic configs); defaultConfig when absent. */
  configFor?: (topic: string) => LogConfig;
  /** Directories that look like partitions but belong to someone else (default: the metadata log). */
  isIgnoredDir?: (name: string) => boolean;
  /** Logs visited per tick (flush check + retention when due). */
  maxLogsPerTick?: number;
  /** Kafka's log.retention.check.interval.ms. */
  retentionCheckIntervalMs?: number;
  /** Kafka's log.flush.offset.checkpoint.interval.ms. */
  checkpointIntervalMs?: number;
  /** Log cleaner settings (compaction of logs with cleanup.policy=compact). */
  cleaner?: LogCleanerOptions;
  /**
   * After a clean shutdown, open each log the checkpoints cover without
   * reading its directory, and load it on first use (default true). False
   * loads every log at start-up, as after a crash but without scanning.
   */
  deferCleanLogs?: boolean;
  /**
   * After a crash, open each log the checkpoints cover without reading its
   * directory, and recover it on first use or in `recoverSome` slices
   * (default true; README "Recovery", step 8). False recovers every log
   * before `open` returns.
   */
  deferCrashRecovery?: boolean;
  /** Told the recovery report of each deferred log when it is loaded (the broker logs damaged ones). */
  onDeferredLoad?: (report: RecoveryReport) => void;
  /**
   * tick() runs its fsyncs on the thread pool (`PartitionLog.maybeFlushInBackground`,
   * checkpoints with `writeFileAtomicAsync`) instead of blocking the event loop;
   * default false (tick's effects are then complete when it returns). The broker sets it.
   */
  backgroundSyncs?: boolean;
}

/** Logs prepared for close at once by closeAsync (each: a few fsyncs on the thread pool). */
export const CLOSE_CONCURRENCY = 32;

export interface LogManagerStartup {
  manager: LogManager;
  hadCleanShutdown: boolean;
  /** Reports of the logs opened now (every log after a crash; after a clean shutdown only those the checkpoints do not cover). */
  reports: RecoveryReport[];
  /** Logs left for loading on first use (`PartitionLog.deferred`: both checkpoints name them). */
  deferred: number;
  /** Of those, the ones left by a crash: recovered on first use or by `recoverSome` (`PartitionLog.awaitingRecovery`). */
  awaitingRecovery: number;
  /** Checkpoint files that existed but did not parse (treated as absent). */
  checkpointProblems: string[];
  /** `*-delete` directories of interrupted deletions, now removed. */
  deletionsCompleted: string[];
}

export interface TickResult {
  logsVisited: number;
  flushes: number;
  segmentsDeleted: number;
  checkpointed: boolean;
}

export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** `<topic>-<partition>` -> parts, or null for any other name. */
export function parsePartitionDirName(name: string): { topic: string; partition: number } | null {
  const m = /^(.+)-(\d+)$/.exec(name);
  if (m === null || !TOPIC_NAME.test(m[1] as string)) return null;
  const partition = Number(m[2]);
  return Number.isSafeInteger(partition) ? { topic: m[1] as string, partition } : null;
}

function checkpointMap(
  fs: FileSystem, path: string, problems: string[],
): Map<string, bigint> | null {
  const read = readCheckpointFile(fs, path);
  if (read === null) return null;
  if (typeof read === 'string') {
    problems.push(`${path}: ${read}`);
    return null;
  }
  return new Map(read.map((e) => [partitionDirName(e.topic, e.partition), e.offset]));
}

export class LogManager {
  private readonly logs = new Map<string, PartitionLog>();
  private readonly lastRetentionMs = new Map<PartitionLog, number>();
  /** Logs opened awaiting recovery (a crash), in directory order; `recoverSome` walks it once. */
  private toRecover: PartitionLog[] = [];
  private toRecoverNext = 0;
  private readonly defaultConfig: LogConfig;
  private cursor = 0;
  private lastCheckpointMs: number;
  private closed = false;
  /**
   * The log cleaner: the broker calls `cleaner.cleanOneStep(nowMs)` from a
   * timer, awaiting each call before the next (see cleaner/log-cleaner.ts).
   */
  readonly cleaner: LogCleaner;

  private constructor(private readonly opts: LogManagerOptions) {
    this.defaultConfig = opts.defaultConfig ?? { ...DEFAULT_LOG_CONFIG };
    this.lastCheckpointMs = opts.clock.nowMs();
    this.cleaner = new LogCleaner({ ...opts.cleaner, fs: opts.fs, dataDir: opts.dataDir, logs: () => this.logs.values() });
  }

  static open(opts: LogManagerOptions): LogManagerStartup {
    const { fs, dataDir } = opts;
    fs.mkdirp(dataDir);
    const manager = new LogManager(opts);
    const marker = join(dataDir, CLEAN_SHUTDOWN_MARKER);
    const hadCleanShutdown = fs.exists(marker);
    const checkpointProblems: string[] = [];
    const recoveryPoints = checkpointMap(fs, join(dataDir, RECOVERY_POINT_CHECKPOINT), checkpointProblems);
    const startOffsets = checkpointMap(fs, join(dataDir, LOG_START_OFFSET_CHECKPOINT), checkpointProblems);
    const reports: RecoveryReport[] = [];
    const deletionsCompleted: string[] = [];
    let deferred = 0;
    const deferCrash = opts.deferCrashRecovery !== false;
    const ignored = opts.isIgnoredDir ?? ((name: string) => name.startsWith('__cluster_metadata'));
    // One of each for every log (tens of thousands at start-up), not one per log.
    const onCheckpointNeeded = (): void => manager.checkpoint();
    // One validated (frozen) copy per distinct config, not one per log: validating makes a copy
    // unless given one it made, and configFor hands out the caller's own objects.
    const validated = new Map<LogConfig, LogConfig>();
    const configOf = (topic: string): LogConfig => {
      const given = opts.configFor?.(topic) ?? manager.defaultConfig;
      let config = validated.get(given);
      if (config === undefined) validated.set(given, config = validateLogConfig(given));
      return config;
    };
    const nowMs = opts.clock.nowMs();
    for (const name of fs.subdirectories(dataDir)) {
      const path = join(dataDir, name);
      if (name.endsWith('-delete')) {
        fs.rmrf(path);
        deletionsCompleted.push(name);
        continue;
      }
      const tp = parsePartitionDirName(name);
      if (tp === null || ignored(name)) continue;
      const base = {
        fs,
        clock: opts.clock,
        dir: path,
        topic: tp.topic,
        partition: tp.partition,
        config: configOf(tp.topic),
        onCheckpointNeeded,
        dirExists: true,
      };
      const recoveryPoint = recoveryPoints?.get(name);
      const logStartOffset = startOffsets?.get(name);
      // Clean shutdown: the checkpoints give its bounds; its files are read on
      // first use. A crash: it is recovered on first use or by recoverSome,
      // from its checkpointed recovery point; a log the checkpoint does not
      // name yet (created since it was written) from 0, every segment
      // scanned, which is what recovering it with no entry does too.
      const deferClean = hadCleanShutdown && opts.deferCleanLogs !== false && recoveryPoint !== undefined && logStartOffset !== undefined;
      const recover = !hadCleanShutdown && deferCrash;
      const rp = recoveryPoint ?? 0n;
      const start = logStartOffset ?? 0n;
      if ((deferClean || recover) && start <= rp) {
        const log = PartitionLog.deferred({ ...base, recoveryPoint: rp, logStartOffset: start, recover, onDeferredLoad: opts.onDeferredLoad });
        manager.logs.set(name, log);
        if (recover) manager.toRecover.push(log);
        // Its first retention check (which loads it) waits one interval, so
        // start-up does not load every deferred log in its first ticks.
        manager.lastRetentionMs.set(log, nowMs);
        deferred++;
        continue;
      }
      const { log, report } = PartitionLog.open({
        ...base,
        recoveryPoint,
        logStartOffset,
        hadCleanShutdown,
        // After a crash: validate the active segments but fsync them later
        // (the first flush), not thousands of fsyncs before serving.
        deferRecoveryFlush: true,
      });
      manager.logs.set(name, log);
      reports.push(report);
    }
    // Record the recovery points as recovery left them (the log end, or below
    // segments validated but not yet fsynced), then drop the marker so a
    // crash from now on is seen as unclean. Skipped (four fsyncs on the start
    // path) when the files already say exactly that: what they hold at their
    // name was fsynced before its rename (writeFileAtomic and
    // writeFileAtomicAsync both), so it is as durable as a rewrite would make
    // it; with no logs and neither file, there is nothing to record (an
    // absent checkpoint and an empty one are read alike).
    if (!manager.checkpointsHold(recoveryPoints, startOffsets, checkpointProblems.length === 0)) manager.checkpoint();
    if (hadCleanShutdown) fs.unlink(marker);
    const awaitingRecovery = manager.toRecover.length;
    return { manager, hadCleanShutdown, reports, deferred, awaitingRecovery, checkpointProblems, deletionsCompleted };
  }

  /** Logs `recoverSome` has still to visit (some may have been recovered by use meanwhile). */
  get recoveryQueueLength(): number {
    return this.toRecover.length - this.toRecoverNext;
  }

  /** Logs opened after a crash and not recovered yet (neither used nor reached by `recoverSome`). */
  get awaitingRecovery(): number {
    let n = 0;
    for (let i = this.toRecoverNext; i < this.toRecover.length; i++) {
      const log = this.toRecover[i] as PartitionLog;
      if (log.awaitingRecovery && !log.isClosed) n++;
    }
    return n;
  }

  /**
   * Background recovery after a crash, in bounded slices: recovers up to
   * `maxLogs` logs that still await it (a log a request already recovered is
   * skipped for free) and returns how many are left. The broker calls it
   * between turns of the event loop until it returns 0, so every log is
   * recovered soon after start-up while requests are served in between; a
   * request to a log not reached yet recovers that log first. When the last
   * one is done the checkpoints are rewritten with the recovery points as
   * recovery left them.
   */
  recoverSome(maxLogs: number): number {
    invariant(!this.closed, 'log manager is open');
    let recovered = 0;
    while (this.toRecoverNext < this.toRecover.length && recovered < maxLogs) {
      const log = this.toRecover[this.toRecoverNext] as PartitionLog;
      // Not advanced past a log whose load threw (out of descriptors): the next slice retries it.
      if (log.awaitingRecovery && !log.isClosed) {
        log.load();
        recovered++;
      }
      this.toRecoverNext++;
    }
    if (this.toRecoverNext < this.toRecover.length) return this.toRecover.length - this.toRecoverNext;
    if (this.toRecover.length > 0) {
      this.toRecover = [];
      this.toRecoverNext = 0;
      this.checkpoint();
    }
    return 0;
  }

  get dataDir(): string {
    return this.opts.dataDir;
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(partitionDirName(topic, partition));
  }

  /** The log of a partition, created empty (at offset 0) when missing. */
  getOrCreateLog(topic: string, partition: number, config?: LogConfig): PartitionLog {
    invariant(!this.closed, 'log manager is open');
    const name = partitionDirName(topic, partition);
    const existing = this.logs.get(name);
    if (existing !== undefined) return existing;
    invariant(TOPIC_NAME.test(topic) && topic !== '.' && topic !== '..', `legal topic name ${topic}`);
    invariant(Number.isSafeInteger(partition) && partition >= 0, 'partition is a non-negative integer');
    const { log } = PartitionLog.open({
      fs: this.opts.fs,
      clock: this.opts.clock,
      dir: join(this.opts.dataDir, name),
      topic,
      partition,
      config: config ?? this.opts.configFor?.(topic) ?? this.defaultConfig,
      hadCleanShutdown: true,
      onCheckpointNeeded: () => this.checkpoint(),
    });
    this.logs.set(name, log);
    return log;
  }

  /** Deletes a partition's log and its directory; false when there was none. */
  deleteLog(topic: string, partition: number): boolean {
    const name = partitionDirName(topic, partition);
    const log = this.logs.get(name);
    if (log === undefined) return false;
    this.cleaner.forget(log);
    this.logs.delete(name);
    this.lastRetentionMs.delete(log);
    log.delete();
    this.checkpoint();
    return true;
  }

  allLogs(): PartitionLog[] {
    return [...this.logs.values()];
  }

  /**
   * Periodic work, bounded: visits up to maxLogsPerTick logs round-robin,
   * running their time-based flush and (when due) retention, and rewrites the
   * checkpoints every checkpointIntervalMs.
   */
  tick(nowMs: number): TickResult {
    invariant(!this.closed, 'log manager is open');
    const logs = [...this.logs.values()];
    const visit = Math.min(this.opts.maxLogsPerTick ?? 64, logs.length);
    const retentionEveryMs = this.opts.retentionCheckIntervalMs ?? 300_000;
    let flushes = 0;
    let segmentsDeleted = 0;
    for (let k = 0; k < visit; k++) {
      const log = logs[(this.cursor + k) % logs.length] as PartitionLog;
      if (this.opts.backgroundSyncs === true ? log.maybeFlushInBackground(nowMs) : log.maybeFlush(nowMs)) flushes++;
      const last = this.lastRetentionMs.get(log);
      if (last === undefined || nowMs - last >= retentionEveryMs) {
        segmentsDeleted += log.applyRetention(nowMs).segmentsDeleted;
        this.lastRetentionMs.set(log, nowMs);
      }
    }
    this.cursor = logs.length === 0 ? 0 : (this.cursor + visit) % logs.length;
    let checkpointed = false;
    if (nowMs - this.lastCheckpointMs >= (this.opts.checkpointIntervalMs ?? 60_000)) {
      if (this.opts.backgroundSyncs === true) void this.checkpointInBackground();
      else this.checkpoint();
      checkpointed = true;
    }
    return { logsVisited: visit, flushes, segmentsDeleted, checkpointed };
  }

  /**
   * Whether the checkpoints read at open (null: absent) already hold what
   * checkpoint() would write now: the same logs with the same offsets.
   * `readCleanly`: no file was malformed (one is rewritten).
   */
  private checkpointsHold(recovery: Map<string, bigint> | null, start: Map<string, bigint> | null, readCleanly: boolean): boolean {
    if (!readCleanly) return false;
    if (recovery === null || start === null) return recovery === start && this.logs.size === 0;
    if (recovery.size !== this.logs.size || start.size !== this.logs.size) return false;
    for (const [name, log] of this.logs) {
      if (recovery.get(name) !== log.recoveryPoint || start.get(name) !== log.knownLogStartOffset) return false;
    }
    return true;
  }

  /** Writes both checkpoint files (atomically) from the logs' current state. */
  checkpoint(): void {
    const { recovery, start } = this.checkpointEntries();
    writeCheckpointFile(this.opts.fs, join(this.opts.dataDir, RECOVERY_POINT_CHECKPOINT), recovery);
    writeCheckpointFile(this.opts.fs, join(this.opts.dataDir, LOG_START_OFFSET_CHECKPOINT), start);
    this.lastCheckpointMs = this.opts.clock.nowMs();
  }

  /**
   * checkpoint() with the fsyncs on the thread pool. The content is taken now,
   * from recovery points that only move once their fsyncs are done, so it never
   * claims more than is durable; a later checkpoint (a truncation's, written at
   * once) wins over this one if it lands first (FileSystem.writeFileAtomicAsync).
   */
  checkpointInBackground(): Promise<void> {
    const { recovery, start } = this.checkpointEntries();
    this.lastCheckpointMs = this.opts.clock.nowMs();
    const dir = this.opts.dataDir;
    return Promise.all([
      this.opts.fs.writeFileAtomicAsync(join(dir, RECOVERY_POINT_CHECKPOINT), Buffer.from(formatCheckpoint(recovery), 'utf8')),
      this.opts.fs.writeFileAtomicAsync(join(dir, LOG_START_OFFSET_CHECKPOINT), Buffer.from(formatCheckpoint(start), 'utf8')),
    ]).then(() => undefined);
  }

  private checkpointEntries(): { recovery: CheckpointEntry[]; start: CheckpointEntry[] } {
    const recovery: CheckpointEntry[] = [];
    const start: CheckpointEntry[] = [];
    for (const log of this.logs.values()) {
      recovery.push({ topic: log.topic, partition: log.partition, offset: log.recoveryPoint });
      // A log awaiting recovery keeps its checkpointed start (reading logStartOffset would recover it).
      start.push({ topic: log.topic, partition: log.partition, offset: log.knownLogStartOffset });
    }
    return { recovery, start };
  }

  flushAll(): void {
    for (const log of this.logs.values()) log.flush();
  }

  /**
   * close() for a graceful stop of many logs: first every loaded log's fsyncs
   * and producer-state snapshot run on the thread pool, CLOSE_CONCURRENCY
   * logs at a time (one fsync per file and per directory, overlapped, instead
   * of one after the other on the event loop), then pending background writes
   * settle, then close() finds nothing left to fsync in the logs and writes
   * the checkpoints and the marker (six fsyncs on the loop). A log whose
   * async flush failed is flushed again by its close() (which throws if that
   * fails too). Nothing else may use the logs meanwhile (the broker stopped
   * serving and replicating first).
   */
  async closeAsync(): Promise<void> {
    if (this.closed) return;
    this.cleaner.close();
    const logs = [...this.logs.values()];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < logs.length) {
        const log = logs[next++] as PartitionLog;
        await log.prepareClose().catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CLOSE_CONCURRENCY, logs.length) }, worker));
    await this.opts.fs.settled();
    // The checkpoints and the marker are written at once: a failure must throw
    // (and leave no marker), since a deferred log takes its end from them.
    this.close();
  }

  /**
   * Clean shutdown: flush and close every log, write checkpoints, then the
   * marker. While a log still awaits recovery there is no marker: its tail
   * was never checked, so the next start treats the stop as a crash and
   * recovers every log (lazily, from the recovery points just written: for
   * a log closed now, only its active segment is read).
   */
  close(): void {
    if (this.closed) return;
    this.cleaner.close();
    const unrecovered = this.awaitingRecovery;
    for (const log of this.logs.values()) log.close();
    this.checkpoint();
    if (unrecovered === 0) this.opts.fs.writeFileAtomic(join(this.opts.dataDir, CLEAN_SHUTDOWN_MARKER), Buffer.alloc(0));
    this.closed = true;
  }
}
