/**
 * What Raft persists, behind an interface so the simulator can crash it.
 *
 * Durability contract:
 *  - `writeQuorumState` (epoch, voted-for) is durable when it returns: a vote
 *    is never sent before the vote is on disk.
 *  - `append` is NOT durable until `flush()`; a crash may keep any prefix of
 *    the unflushed entries. The leader counts only its flushed end offset
 *    towards the high watermark; followers flush before they fetch again, so
 *    the offset they report is durable.
 *  - `truncateTo` is durable when it returns (a truncation is never undone).
 *
 * Snapshots (KRaft's, KIP-630): a snapshot holds the state machine's state
 * after every entry before its `endOffset`; the log may then drop that prefix.
 *  - `writeSnapshot` is durable when it returns; `latestSnapshot` is the one
 *    with the largest end offset.
 *  - `deleteBefore(offset)` drops the entries below `offset` and makes
 *    `logStartOffset` exactly `offset` (a logical start, as Kafka's
 *    logStartOffset: files may go later). RaftNode only calls it with the
 *    latest snapshot's end offset, so below a non-zero log start the epoch of
 *    the last entry is the snapshot's. Durable when it returns (may be undone
 *    by a crash only as "not yet deleted", which RaftNode redoes at start).
 *  - `installSnapshot(s)` (a follower loading its leader's snapshot) writes
 *    `s` and replaces the whole log: no entries, log start = end = s.endOffset.
 *    Durable and atomic when it returns (a crash before leaves the old state;
 *    a file implementation writes the snapshot first, and RaftNode finishes
 *    the job at start when it finds a snapshot beyond the log end).
 *  - `entryAt` below the log start is undefined; `read` starts at or above it.
 */
import { invariant } from '../../util/assert.js';
import type { NodeId, OffsetAndEpoch, RaftEntry, RaftSnapshot } from './types.js';

export interface QuorumStateRecord {
  readonly epoch: number;
  readonly votedFor: NodeId | null;
}

export interface RaftStorage {
  readQuorumState(): QuorumStateRecord;
  writeQuorumState(state: QuorumStateRecord): void;
  /** Offset of the first entry in the log (0 until a prefix is deleted). */
  readonly logStartOffset: number;
  /** Offset after the last entry, flushed or not (= logStartOffset when the log is empty). */
  readonly endOffset: number;
  /** Offset after the last durable entry. */
  readonly flushedEndOffset: number;
  /** The entry at `offset`; undefined outside [logStartOffset, endOffset). */
  entryAt(offset: number): RaftEntry | undefined;
  /** Up to `countMax` entries from `fromOffset` ∈ [logStartOffset, endOffset] (fewer at the end of the log). */
  read(fromOffset: number, countMax: number): RaftEntry[];
  append(entries: readonly RaftEntry[]): void;
  truncateTo(endOffset: number): void;
  flush(): void;
  /** The snapshot with the largest end offset, or null. */
  latestSnapshot(): RaftSnapshot | null;
  writeSnapshot(snapshot: RaftSnapshot): void;
  deleteBefore(offset: number): void;
  installSnapshot(snapshot: RaftSnapshot): void;
}

/** The (offset, epoch) just below the log start: the latest snapshot's id, or (0, 0) for a log that starts at 0. */
export function logStartBoundary(log: RaftStorage): OffsetAndEpoch {
  const start = log.logStartOffset;
  if (start === 0) return { offset: 0, epoch: 0 };
  const snapshot = log.latestSnapshot();
  invariant(snapshot !== null && snapshot.endOffset === start, `the log starts at ${start}, where the latest snapshot ends (${snapshot?.endOffset ?? 'none'})`);
  return { offset: start, epoch: snapshot.epoch };
}

/** Epoch of the last entry (or of the snapshot below an empty log), 0 for an empty log (entries always have epoch ≥ 1). */
export function lastEpochOf(log: RaftStorage): number {
  const entry = log.entryAt(log.endOffset - 1);
  return entry !== undefined ? entry.epoch : logStartBoundary(log).epoch;
}

/** Epoch of the entry at `offset`, also for the last entry a snapshot covers; undefined when unknown. */
export function epochAt(log: RaftStorage, offset: number): number | undefined {
  const entry = log.entryAt(offset);
  if (entry !== undefined) return entry.epoch;
  const boundary = logStartBoundary(log);
  return boundary.offset > 0 && offset === boundary.offset - 1 ? boundary.epoch : undefined;
}

/**
 * KRaft's endOffsetForEpoch: the largest epoch ≤ `epoch` present in the log and
 * the offset after its last entry; below the log start the snapshot's
 * (endOffset, epoch) stands for the deleted prefix; `{ epoch: 0, offset: 0 }`
 * when there is none. A backward scan: a leader-epoch cache (Kafka's
 * leader-epoch-checkpoint) would make it O(epochs).
 */
export function endOffsetForEpoch(log: RaftStorage, epoch: number): OffsetAndEpoch {
  for (let offset = log.endOffset - 1; offset >= log.logStartOffset; offset--) {
    const entry = log.entryAt(offset);
    invariant(entry !== undefined, `entry ${offset} below the end offset exists`);
    if (entry.epoch <= epoch) return { epoch: entry.epoch, offset: offset + 1 };
  }
  const boundary = logStartBoundary(log);
  return boundary.epoch <= epoch ? boundary : { epoch: 0, offset: 0 };
}

/** An in-memory RaftStorage whose `crash` drops unflushed entries, as a power loss would. */
export class InMemoryRaftStorage implements RaftStorage {
  private quorumState: QuorumStateRecord = { epoch: 0, votedFor: null };
  /** entries[i] is at offset start + i. */
  private entries: RaftEntry[] = [];
  private start = 0;
  private flushed = 0;
  private snapshot: RaftSnapshot | null = null;

  readQuorumState(): QuorumStateRecord {
    return this.quorumState;
  }

  writeQuorumState(state: QuorumStateRecord): void {
    invariant(state.epoch >= this.quorumState.epoch, `the epoch never goes back (${this.quorumState.epoch} -> ${state.epoch})`);
    this.quorumState = state;
  }

  get logStartOffset(): number {
    return this.start;
  }

  get endOffset(): number {
    return this.start + this.entries.length;
  }

  get flushedEndOffset(): number {
    return this.flushed;
  }

  entryAt(offset: number): RaftEntry | undefined {
    return offset >= this.start ? this.entries[offset - this.start] : undefined;
  }

  read(fromOffset: number, countMax: number): RaftEntry[] {
    invariant(fromOffset >= this.start && fromOffset <= this.endOffset, `read at ${fromOffset} within [${this.start}, ${this.endOffset}]`);
    return this.entries.slice(fromOffset - this.start, fromOffset - this.start + countMax);
  }

  append(entries: readonly RaftEntry[]): void {
    for (const entry of entries) {
      invariant(entry.epoch >= lastEpochOf(this), 'epochs in the log never decrease');
      this.entries.push(entry);
    }
  }

  truncateTo(endOffset: number): void {
    invariant(endOffset >= this.start && endOffset <= this.endOffset, `truncate to ${endOffset} within [${this.start}, ${this.endOffset}]`);
    this.entries.length = endOffset - this.start;
    this.flushed = Math.min(this.flushed, endOffset);
  }

  flush(): void {
    this.flushed = this.endOffset;
  }

  latestSnapshot(): RaftSnapshot | null {
    return this.snapshot;
  }

  writeSnapshot(snapshot: RaftSnapshot): void {
    invariant(this.snapshot === null || snapshot.endOffset >= this.snapshot.endOffset, `a new snapshot does not end before the latest (${this.snapshot?.endOffset} -> ${snapshot.endOffset})`);
    this.snapshot = { endOffset: snapshot.endOffset, epoch: snapshot.epoch, data: Uint8Array.from(snapshot.data) };
  }

  deleteBefore(offset: number): void {
    invariant(offset >= this.start && offset <= this.endOffset, `delete before ${offset} within [${this.start}, ${this.endOffset}]`);
    invariant(this.snapshot !== null && offset <= this.snapshot.endOffset, `a snapshot covers the deleted prefix (to ${offset})`);
    this.entries = this.entries.slice(offset - this.start);
    this.start = offset;
    this.flushed = Math.max(this.flushed, offset);
  }

  installSnapshot(snapshot: RaftSnapshot): void {
    this.writeSnapshot(snapshot);
    this.entries = [];
    this.start = snapshot.endOffset;
    this.flushed = snapshot.endOffset;
  }

  /** Simulated power loss: keeps the durable state and `keepUnflushed` (clamped) of the unflushed entries. */
  crash(keepUnflushed: number): void {
    const keep = Math.max(0, Math.min(keepUnflushed, this.endOffset - this.flushed));
    this.entries.length = this.flushed - this.start + keep;
    this.flushed = this.endOffset;
  }

  /** Entries for checks (a copy), from the log start. */
  snapshotEntries(): RaftEntry[] {
    return this.entries.slice();
  }
}
