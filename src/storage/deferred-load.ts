/**
 * Deferred loading (README.md "Recovery", steps 7-8): a partition log the
 * LogManager opened without touching its directory (`PartitionLog.deferred`)
 * is loaded on first use, or after a crash recovered then. A `DeferredLoad`
 * is what such a log knows until that use (its checkpointed end, a high
 * watermark given meanwhile) and the two halves of the loading itself;
 * PartitionLog holds one while it is not loaded and installs what it reads.
 */
import type { LogConfig } from './config.js';
import type { FileSystem } from './fs.js';
import { loadLog, type LoadedLog, type RecoveryReport } from './log-loader.js';
import type { PartitionLogOptions } from './partition-log-state.js';
import type { LogProducerState, ProducerStateLog } from './producer-state/log-producer-state.js';
import { rebuildTxnIndexes } from './txn-index-rebuild.js';

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

/** The bounds a deferred log had before it was loaded (the checkpointed ones). */
export interface CheckpointedBounds {
  logStartOffset: bigint;
  recoveryPoint: bigint;
}

export class DeferredLoad {
  /**
   * The log end offset (the checkpointed recovery point), or -1 when the log
   * awaits recovery after a crash (the end is known only once its tail is
   * scanned).
   */
  readonly endOffset: bigint;
  /** A high watermark given before the log was loaded, for its producer state once loaded. */
  highWatermark: bigint | null = null;
  private readonly dirExists: boolean;
  private readonly onDeferredLoad: ((report: RecoveryReport) => void) | undefined;

  constructor(opts: DeferredLogOptions) {
    // After a crash (README "Recovery", step 8): the end is unknown until recovered.
    this.endOffset = opts.recover === true ? -1n : opts.recoveryPoint;
    this.dirExists = opts.dirExists === true;
    this.onDeferredLoad = opts.onDeferredLoad;
  }

  /** Left by a crash and not recovered yet: the end, start and producer state are unknown until then. */
  get awaitingRecovery(): boolean {
    return this.endOffset < 0n;
  }

  /**
   * The first half of loading, as `open` would have at start-up. After a
   * clean shutdown: every segment trusted, its indexes checked (a segment
   * whose indexes do not check out is scanned, and may be cut). Awaiting
   * recovery (a crash): every batch from the recovery point's segment on is
   * validated and a torn or corrupt tail cut, as `open` with
   * `deferRecoveryFlush` does. Throws on a file-system error (out of
   * descriptors); the log is still not loaded then, so its next use tries again.
   */
  readSegments(fs: FileSystem, dir: string, config: LogConfig, before: CheckpointedBounds, nowMs: number): LoadedLog {
    return loadLog({
      fs, dir, config, nowMs,
      recoveryPoint: before.recoveryPoint, logStartOffset: before.logStartOffset, hadCleanShutdown: !this.awaitingRecovery, syncRecovered: false,
      dirExists: this.dirExists,
    });
  }

  /**
   * The second half, once the log holds the segments read (`log` scans
   * them): the producer state is loaded (after a crash rebuilt from its
   * newest usable snapshot and the batches after it) and told the high
   * watermark given meanwhile, the `.txnindex` files are checked, the owner
   * is asked to rewrite its checkpoints (`onCheckpointNeeded`) if they no
   * longer hold, and the report goes to `onDeferredLoad`.
   */
  loadState(
    fs: FileSystem, dir: string, log: ProducerStateLog, producers: LogProducerState, loaded: LoadedLog, before: CheckpointedBounds, nowMs: number,
    onCheckpointNeeded: () => void,
  ): void {
    const recovering = this.awaitingRecovery;
    const producerState = producers.load(log, !recovering, nowMs, loaded.fileNames);
    if (this.highWatermark !== null) producers.state.onHighWatermarkUpdated(this.highWatermark);
    const txnIndexes = rebuildTxnIndexes(fs, dir, loaded.segments, loaded.logStartOffset);
    // After a clean shutdown only damaged files change the bounds the
    // checkpoints gave. After a crash the recovery point drops to the first
    // segment left unfsynced, which the checkpoint file need not record
    // (what it says, "fsynced below", stays true) unless recovery cut the
    // log below it: then new appends would land under a stale claim.
    const stale = recovering
      ? loaded.logStartOffset !== before.logStartOffset || loaded.report.logEndOffset < before.recoveryPoint
      : loaded.logStartOffset !== before.logStartOffset || loaded.recoveryPoint !== before.recoveryPoint;
    if (stale) onCheckpointNeeded();
    this.onDeferredLoad?.({ ...loaded.report, producerState, txnIndexes });
  }
}
