/**
 * The producer state of one partition log together with its snapshot files:
 * loading at open (newest valid snapshot at or below the log end, then the
 * batch headers after it), snapshots at segment roll and clean close, reload
 * after truncation, and pruning of old snapshot files. PartitionLog owns one
 * and feeds it every appended batch that has a producer id.
 *
 * Snapshot files kept: the newest SNAPSHOTS_KEPT, minus those below the log
 * start offset (except the newest, which may hold producers whose records
 * retention deleted: KIP-360 keeps their state until it expires).
 */
import { Offsets, ATTR_CONTROL, ATTR_TRANSACTIONAL } from '../../protocol/record-batch/header.js';
import { readInt64BE } from '../../protocol/primitives/int64.js';
import { readTxnMarker } from '../../protocol/record-batch/control.js';
import type { FileSystem } from '../fs.js';
import type { TransactionIndex } from '../txn-index.js';
import { ProducerStateManager, type AppliedBatch } from './producer-state.js';
import { deleteSnapshot, listSnapshots, readSnapshot, snapshotFileName, writeSnapshot, writeSnapshotAsync, type ProducerSnapshot } from './snapshot.js';

/** Snapshot files kept per partition. */
export const SNAPSHOTS_KEPT = 3;

/** What loading found (part of the log's RecoveryReport). */
export interface ProducerStateLoad {
  /** Offset of the snapshot loaded, or null (rebuilt from the log start, or empty). */
  snapshotLoaded: bigint | null;
  /** Snapshots that could not be used (deleted), with the reason. */
  snapshotProblems: string[];
  /** Snapshots past the log end (a cut tail) that were deleted. */
  snapshotsBeyondEnd: bigint[];
  /** Batch headers read to rebuild the state after the snapshot. */
  batchesScanned: number;
  producers: number;
}

/** The log as the producer state sees it. */
export interface ProducerStateLog {
  readonly logStartOffset: bigint;
  readonly logEndOffset: bigint;
  /** Visits the header of every batch whose last offset is >= fromOffset, in order. */
  scanBatchHeaders(fromOffset: bigint, visit: (header: Buffer, at: number) => void): void;
}

/**
 * Reads the producer fields of the batch header at `at`; null when it has no
 * producer id. For a control batch the whole batch must be in `header`: its
 * marker is read (an unreadable one counts as no marker).
 */
export function producerBatchAt(header: Buffer, at: number): AppliedBatch | null {
  if (header.readInt32BE(at + Offsets.producerId) < 0) return null;
  const attributes = header.readInt16BE(at + Offsets.attributes);
  const control = (attributes & ATTR_CONTROL) !== 0;
  const marker = control ? readTxnMarker(header, at) : null;
  return {
    producerId: readInt64BE(header, at + Offsets.producerId),
    epoch: header.readInt16BE(at + Offsets.producerEpoch),
    baseSequence: header.readInt32BE(at + Offsets.baseSequence),
    lastOffsetDelta: header.readInt32BE(at + Offsets.lastOffsetDelta),
    firstOffset: readInt64BE(header, at + Offsets.baseOffset),
    maxTimestampMs: readInt64BE(header, at + Offsets.maxTimestamp),
    control,
    transactional: (attributes & ATTR_TRANSACTIONAL) !== 0,
    marker: typeof marker === 'string' ? null : marker,
  };
}

export class LogProducerState {
  readonly state = new ProducerStateManager();
  /** Offset of the newest snapshot file matching the state, or -1 when the state changed since. */
  private snapshotAt = -1n;
  /** Offsets of snapshots being written in the background (snapshotInBackground), not visible in the directory yet. */
  private readonly pendingSnapshots = new Set<bigint>();

  constructor(
    private readonly fs: FileSystem,
    private readonly dir: string,
  ) {}

  /**
   * Loads at open. With no snapshot file at all after a clean shutdown the
   * log holds no producer batches (a snapshot is written at every roll and
   * close), so nothing is scanned (Kafka does the same).
   */
  load(log: ProducerStateLog, hadCleanShutdown: boolean, nowMs: number, dirNames?: readonly string[]): ProducerStateLoad {
    const report: ProducerStateLoad = { snapshotLoaded: null, snapshotProblems: [], snapshotsBeyondEnd: [], batchesScanned: 0, producers: 0 };
    // `dirNames`: the directory's listing the loader just made (one readdir per partition at start-up, not two).
    const all = listSnapshots(this.fs, this.dir, dirNames);
    for (const s of all) {
      if (s > log.logEndOffset) {
        deleteSnapshot(this.fs, this.dir, s);
        report.snapshotsBeyondEnd.push(s);
      }
    }
    const usable = all.filter((s) => s <= log.logEndOffset);
    const from = this.loadNewest(usable, report.snapshotProblems);
    report.snapshotLoaded = from;
    if (from === null && all.length === 0 && hadCleanShutdown) {
      this.state.clear();
    } else {
      report.batchesScanned = this.rebuild(log, from ?? log.logStartOffset, nowMs);
    }
    report.producers = this.state.size;
    // Save the rebuild so the next open starts here; an empty new log writes nothing.
    if (report.batchesScanned > 0) this.snapshot(log.logEndOffset, log.logStartOffset);
    else if (from === log.logEndOffset) this.snapshotAt = from;
    return report;
  }

  /** Newest readable snapshot of `offsets` (ascending) loaded into the state; unreadable ones are deleted. */
  private loadNewest(offsets: readonly bigint[], problems: string[]): bigint | null {
    for (let i = offsets.length - 1; i >= 0; i--) {
      const offset = offsets[i] as bigint;
      const snapshot = readSnapshot(this.fs, this.dir, offset);
      if (typeof snapshot !== 'string') {
        this.state.load(snapshot.entries, snapshot.unreplicated);
        return offset;
      }
      problems.push(`${snapshotFileName(offset)}: ${snapshot}`);
      deleteSnapshot(this.fs, this.dir, offset);
    }
    this.state.clear();
    return null;
  }

  /** Applies every producer batch from `fromOffset` to the log end; returns batches read. */
  private rebuild(log: ProducerStateLog, fromOffset: bigint, nowMs: number): number {
    let scanned = 0;
    log.scanBatchHeaders(fromOffset, (header, at) => {
      scanned++;
      const b = producerBatchAt(header, at);
      if (b === null || b.firstOffset < fromOffset) return;
      // The append time is not in the log: the batch timestamp stands in (Kafka's rule), capped at now.
      const ts = b.maxTimestampMs;
      this.state.apply(b, ts >= 0n && ts <= BigInt(nowMs) ? Number(ts) : nowMs);
    });
    this.snapshotAt = -1n;
    return scanned;
  }

  /**
   * Records an appended batch; an abort marker adds the transaction it
   * closed to `txnIndex` (the index of the segment holding the marker).
   */
  apply(b: AppliedBatch, appendMs: number, txnIndex: TransactionIndex): void {
    const completed = this.state.apply(b, appendMs);
    this.snapshotAt = -1n;
    if (completed === null || !completed.aborted) return;
    const { producerId, firstOffset, lastOffset } = completed;
    txnIndex.append({ producerId, firstOffset, lastOffset, lastStableOffset: this.state.lastStableOffsetAfter(completed) });
  }

  /** Expires idle producers; returns how many went. */
  removeExpired(nowMs: number, expirationMs: number): number {
    const n = this.state.removeExpired(nowMs, expirationMs);
    if (n > 0) this.snapshotAt = -1n;
    return n;
  }

  private snapshotContent(): ProducerSnapshot {
    return { entries: [...this.state.entries()], unreplicated: this.state.unreplicatedTransactions() };
  }

  /**
   * Writes the state as the snapshot at `offset` (the log end: roll, close),
   * unless the newest file already holds exactly this state, then prunes.
   */
  snapshot(offset: bigint, logStartOffset: bigint): void {
    if (this.snapshotAt === offset) return;
    writeSnapshot(this.fs, this.dir, offset, this.snapshotContent());
    this.snapshotAt = offset;
    this.prune(logStartOffset);
  }

  /**
   * snapshot() with the file written in the background (segment roll, graceful
   * stop): the state is encoded now, the fsyncs run on the thread pool, and
   * older snapshots are pruned once it landed. Never rejects. A snapshot is a
   * cache (recovery replays the batches after the newest one), so one lost to
   * a crash or an I/O error only costs a longer replay.
   */
  async snapshotInBackground(offset: bigint, logStartOffset: bigint): Promise<void> {
    if (this.snapshotAt === offset) return;
    this.snapshotAt = offset;
    this.pendingSnapshots.add(offset);
    await writeSnapshotAsync(this.fs, this.dir, offset, this.snapshotContent());
    this.pendingSnapshots.delete(offset);
    try {
      // The log may have been deleted meanwhile (its directory with it).
      if (this.fs.isDirectory(this.dir)) this.prune(logStartOffset);
    } catch {
      // Pruning is tidying: the next snapshot prunes again.
    }
  }

  /** Deletes all but the newest SNAPSHOTS_KEPT, and those below the log start (never the newest). */
  prune(logStartOffset: bigint): void {
    const offsets = listSnapshots(this.fs, this.dir);
    for (let i = 0; i < offsets.length - 1; i++) {
      const s = offsets[i] as bigint;
      if (i < offsets.length - SNAPSHOTS_KEPT || s < logStartOffset) deleteSnapshot(this.fs, this.dir, s);
    }
  }

  /**
   * The log was cut (`log.logEndOffset` is its new end): snapshots above it
   * describe records that are gone; the state is reloaded from the newest
   * snapshot at or below it and the log after that (from the log start when
   * none).
   */
  truncateTo(log: ProducerStateLog, nowMs: number): void {
    const end = log.logEndOffset;
    const all = listSnapshots(this.fs, this.dir);
    // Deleting a snapshot still being written drops that write (write-order.ts): it must not land past the new end.
    for (const s of [...all, ...this.pendingSnapshots]) if (s > end) deleteSnapshot(this.fs, this.dir, s);
    // No producer now means none after cutting records away (the expired stay
    // expired): logs without idempotent producers never rescan.
    if (this.state.size === 0) {
      this.snapshotAt = -1n;
      return;
    }
    const from = this.loadNewest(all.filter((s) => s <= end), []);
    this.rebuild(log, from ?? log.logStartOffset, nowMs);
    this.snapshotAt = from === end ? end : -1n;
  }

  /** The log was emptied (truncateFullyAndStartAt): no state, no snapshots. */
  reset(): void {
    for (const s of [...listSnapshots(this.fs, this.dir), ...this.pendingSnapshots]) deleteSnapshot(this.fs, this.dir, s);
    this.state.clear();
    this.snapshotAt = -1n;
  }
}
