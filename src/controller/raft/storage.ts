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
 */
import { invariant } from '../../util/assert.js';
import type { NodeId, OffsetAndEpoch, RaftEntry } from './types.js';

export interface QuorumStateRecord {
  readonly epoch: number;
  readonly votedFor: NodeId | null;
}

export interface RaftStorage {
  readQuorumState(): QuorumStateRecord;
  writeQuorumState(state: QuorumStateRecord): void;
  /** Offset after the last entry, flushed or not. */
  readonly endOffset: number;
  /** Offset after the last durable entry. */
  readonly flushedEndOffset: number;
  entryAt(offset: number): RaftEntry | undefined;
  /** Up to `countMax` entries from `fromOffset` (fewer at the end of the log). */
  read(fromOffset: number, countMax: number): RaftEntry[];
  append(entries: readonly RaftEntry[]): void;
  truncateTo(endOffset: number): void;
  flush(): void;
}

/** Epoch of the last entry, 0 for an empty log (entries always have epoch ≥ 1). */
export function lastEpochOf(log: RaftStorage): number {
  return log.entryAt(log.endOffset - 1)?.epoch ?? 0;
}

/**
 * KRaft's endOffsetForEpoch: the largest epoch ≤ `epoch` present in the log and
 * the offset after its last entry; `{ epoch: 0, offset: 0 }` when there is none.
 * A backward scan: a leader-epoch cache (Kafka's leader-epoch-checkpoint) would make it O(epochs).
 */
export function endOffsetForEpoch(log: RaftStorage, epoch: number): OffsetAndEpoch {
  for (let offset = log.endOffset - 1; offset >= 0; offset--) {
    const entry = log.entryAt(offset);
    invariant(entry !== undefined, `entry ${offset} below the end offset exists`);
    if (entry.epoch <= epoch) return { epoch: entry.epoch, offset: offset + 1 };
  }
  return { epoch: 0, offset: 0 };
}

/** An in-memory RaftStorage whose `crash` drops unflushed entries, as a power loss would. */
export class InMemoryRaftStorage implements RaftStorage {
  private quorumState: QuorumStateRecord = { epoch: 0, votedFor: null };
  private entries: RaftEntry[] = [];
  private flushed = 0;

  readQuorumState(): QuorumStateRecord {
    return this.quorumState;
  }

  writeQuorumState(state: QuorumStateRecord): void {
    invariant(state.epoch >= this.quorumState.epoch, `the epoch never goes back (${this.quorumState.epoch} -> ${state.epoch})`);
    this.quorumState = state;
  }

  get endOffset(): number {
    return this.entries.length;
  }

  get flushedEndOffset(): number {
    return this.flushed;
  }

  entryAt(offset: number): RaftEntry | undefined {
    return offset >= 0 ? this.entries[offset] : undefined;
  }

  read(fromOffset: number, countMax: number): RaftEntry[] {
    invariant(fromOffset >= 0 && fromOffset <= this.entries.length, `read at ${fromOffset} within [0, ${this.entries.length}]`);
    return this.entries.slice(fromOffset, fromOffset + countMax);
  }

  append(entries: readonly RaftEntry[]): void {
    for (const entry of entries) {
      invariant(entry.epoch >= lastEpochOf(this), 'epochs in the log never decrease');
      this.entries.push(entry);
    }
  }

  truncateTo(endOffset: number): void {
    invariant(endOffset >= 0 && endOffset <= this.entries.length, `truncate to ${endOffset} within [0, ${this.entries.length}]`);
    this.entries.length = endOffset;
    this.flushed = Math.min(this.flushed, endOffset);
  }

  flush(): void {
    this.flushed = this.entries.length;
  }

  /** Simulated power loss: keeps the durable state and `keepUnflushed` (clamped) of the unflushed entries. */
  crash(keepUnflushed: number): void {
    const keep = Math.max(0, Math.min(keepUnflushed, this.entries.length - this.flushed));
    this.entries.length = this.flushed + keep;
    this.flushed = this.entries.length;
  }

  /** Entries for checks (a copy). */
  snapshotEntries(): RaftEntry[] {
    return this.entries.slice();
  }
}
