/**
 * The leader epoch cache of one partition replica (Kafka's
 * LeaderEpochFileCache): for each leader epoch that wrote to the log, the
 * first offset it wrote. It answers OffsetForLeaderEpoch ("where does epoch E
 * end in your log?"), which consumers use to validate their position after a
 * leader change (KIP-320) and followers will use to truncate (KIP-101).
 *
 * Entries come from the partitionLeaderEpoch the leader stamps into every
 * batch header: the Partition assigns (epoch, log end offset) when it becomes
 * leader, before it accepts appends in that epoch, and every appended batch
 * goes through `assign` as well. Adding an entry persists the whole list in
 * the partition's `leader-epoch-checkpoint` at once (synchronously, fsynced),
 * so the file never misses an epoch that has data in the log. Truncations are
 * kept in memory only: on open the owner re-applies them against the
 * recovered log (entries past the log end and below the log start go), as
 * Kafka does after a crash.
 *
 * Invariant (asserted): entries strictly increase in epoch and start offset.
 */
import { invariant } from '../util/assert.js';
import type { EpochEntry } from '../storage/leader-epoch-checkpoint.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { BATCH_HEADER_BYTES, Offsets, batchSizeAt } from '../protocol/record-batch/header.js';
import { readInt64BE } from '../protocol/primitives/int64.js';

/** OffsetForLeaderEpoch's "no such epoch" answer (Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET). */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1n;

export interface EpochEndOffset {
  /** The largest epoch <= the requested one that the log knows, or -1. */
  epoch: number;
  /** Where that epoch ends: the start of the next larger epoch, the log end offset for the latest, or -1. */
  endOffset: bigint;
}

/** Where the entries are kept durably (the partition log's checkpoint file). */
export interface EpochCheckpointStore {
  write(entries: readonly EpochEntry[]): void;
}

export class LeaderEpochCache {
  private entries: EpochEntry[];

  /** `entries` must already be valid (increasing); disk input is validated by the caller. */
  constructor(
    entries: readonly EpochEntry[],
    private readonly store: EpochCheckpointStore | null,
  ) {
    this.entries = entries.map((e) => ({ ...e }));
    this.checkInvariant();
  }

  /** Whether entries from disk may be used as they are (strictly increasing, epochs >= 0). */
  static isValid(entries: readonly EpochEntry[]): boolean {
    return entries.every((e, i) => {
      const prev = entries[i - 1];
      return e.epoch >= 0 && e.startOffset >= 0n && (prev === undefined || (e.epoch > prev.epoch && e.startOffset > prev.startOffset));
    });
  }

  /** A snapshot of the entries, oldest first. */
  list(): readonly EpochEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  /** The latest epoch with an entry, or -1 when there is none. */
  get latestEpoch(): number {
    return this.entries[this.entries.length - 1]?.epoch ?? UNDEFINED_EPOCH;
  }

  /**
   * Records that `epoch` starts at `startOffset`, unless the latest entry
   * already is that epoch (starting no later). Like Kafka, a new entry first
   * removes every entry with an epoch or start offset >= its own, so the
   * list stays monotonic. Persists the list when it changed; returns whether
   * it did.
   */
  assign(epoch: number, startOffset: bigint): boolean {
    // The message is built only on failure: this runs for every appended batch.
    if (epoch < 0 || startOffset < 0n) invariant(false, `a valid epoch entry (${epoch}, ${startOffset})`);
    const latest = this.entries[this.entries.length - 1];
    if (latest !== undefined && latest.epoch === epoch && latest.startOffset <= startOffset) return false;
    while (this.entries.length > 0) {
      const last = this.entries[this.entries.length - 1] as EpochEntry;
      if (last.epoch < epoch && last.startOffset < startOffset) break;
      this.entries.pop();
    }
    this.entries.push({ epoch, startOffset });
    this.checkInvariant();
    this.store?.write(this.entries);
    return true;
  }

  /**
   * Every appended batch's partitionLeaderEpoch goes into the cache (base
   * offsets were written by the log). Normally they carry the current epoch,
   * already assigned, so this is a comparison per batch.
   */
  assignBatchEpochs(batches: Buffer): void {
    for (let p = 0; p + BATCH_HEADER_BYTES <= batches.length; p += batchSizeAt(batches, p)) {
      const epoch = batches.readInt32BE(p + Offsets.partitionLeaderEpoch);
      if (epoch >= 0) this.assign(epoch, readInt64BE(batches, p + Offsets.baseOffset));
    }
  }

  /**
   * Kafka's endOffsetFor: the end of `requestedEpoch` in this log.
   * - -1 (undefined) -> (-1, -1);
   * - the latest epoch -> (it, logEndOffset) (a consumer validating its
   *   position right after a leader change asks exactly this);
   * - an epoch between two known ones -> (the largest known epoch <= it,
   *   start offset of the next larger epoch);
   * - an epoch older than every entry (its data is below the log start) ->
   *   (the requested epoch, start offset of the first entry), so the asker
   *   resumes at the log start, where data of later epochs begins;
   * - an epoch newer than every entry, or an empty cache -> (-1, -1).
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: bigint): EpochEndOffset {
    const none = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === UNDEFINED_EPOCH) return none;
    if (this.latestEpoch === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higher = this.entries.findIndex((e) => e.epoch > requestedEpoch);
    const next = this.entries[higher];
    if (higher < 0 || next === undefined) return none;
    const floor = this.entries[higher - 1];
    return { epoch: floor?.epoch ?? requestedEpoch, endOffset: next.startOffset };
  }

  /**
   * The log start moved to `startOffset` (retention, DeleteRecords): entries
   * starting at or below it go except the last of them, which now starts
   * there. In memory only (see the file comment). Returns whether it changed.
   */
  truncateFromStart(startOffset: bigint): boolean {
    let lastBelow = -1;
    while (lastBelow + 1 < this.entries.length && (this.entries[lastBelow + 1] as EpochEntry).startOffset <= startOffset) lastBelow++;
    if (lastBelow < 0) return false;
    const kept = this.entries[lastBelow] as EpochEntry;
    if (lastBelow === 0 && kept.startOffset === startOffset) return false;
    this.entries = [{ epoch: kept.epoch, startOffset }, ...this.entries.slice(lastBelow + 1)];
    this.checkInvariant();
    return true;
  }

  /**
   * The log now ends at `endOffset` (a truncation, or recovery cut the
   * tail): entries starting after it describe data that is gone. An entry
   * starting exactly at the end (an epoch that has not written yet) stays,
   * unless `dropEmptyAtEnd`: a follower truncating to its leader's log drops
   * it too (Kafka's truncateFromEnd), since that epoch, which this node
   * started as leader and never wrote in, is not the leader's history.
   * In memory only. Returns whether it changed.
   */
  truncateFromEnd(endOffset: bigint, dropEmptyAtEnd = false): boolean {
    const before = this.entries.length;
    const gone = (e: EpochEntry): boolean => (dropEmptyAtEnd ? e.startOffset >= endOffset : e.startOffset > endOffset);
    while (this.entries.length > 0 && gone(this.entries[this.entries.length - 1] as EpochEntry)) this.entries.pop();
    return this.entries.length !== before;
  }

  /** Writes the current entries to the store (after a rebuild or load-time truncation). */
  persist(): void {
    this.store?.write(this.entries);
  }

  private checkInvariant(): void {
    invariant(LeaderEpochCache.isValid(this.entries), 'leader epoch entries strictly increase in epoch and start offset');
  }
}

/**
 * Loads the cache from the partition's leader-epoch-checkpoint, or rebuilds
 * it from the batch headers when the file is missing or damaged (then writes
 * it). Entries are brought in line with the recovered log: nothing past its
 * end (a crash cut the tail), nothing below its start.
 */
export function openLeaderEpochCache(log: PartitionLog): LeaderEpochCache {
  const stored = log.readLeaderEpochCheckpoint();
  const usable = Array.isArray(stored) && LeaderEpochCache.isValid(stored);
  const rebuilt = usable ? null : monotonic(log.scanLeaderEpochs());
  const cache = new LeaderEpochCache(usable ? stored : (rebuilt ?? []), { write: (entries) => log.writeLeaderEpochCheckpoint(entries) });
  const changed = cache.truncateFromEnd(log.logEndOffset);
  cache.truncateFromStart(log.logStartOffset);
  if (rebuilt !== null ? rebuilt.length > 0 || stored !== null : changed) cache.persist();
  return cache;
}

/** Scanned epochs with Kafka's assign rule applied (a lower epoch replaces what it contradicts). */
function monotonic(scanned: readonly { epoch: number; startOffset: bigint }[]): { epoch: number; startOffset: bigint }[] {
  const cache = new LeaderEpochCache([], null);
  for (const e of scanned) cache.assign(e.epoch, e.startOffset);
  return [...cache.list()];
}
