/**
 * A partition replica on this broker: its log plus the replication state
 * around it (leader epoch, replica set, in-sync replicas, high watermark).
 *
 * The high watermark is the offset below which every in-sync replica has the
 * data; only records below it are visible to consumers and count as
 * committed. With one replica (the single-node cluster) the ISR is this
 * broker alone, so the high watermark follows the log end offset on every
 * append; the replication issue adds followers whose fetch positions move it.
 * It never goes back (asserted).
 */
import { invariant } from '../util/assert.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { BATCH_HEADER_BYTES, Offsets, batchSizeAt } from '../protocol/record-batch/header.js';
import { LeaderEpochCache, type EpochEndOffset } from './leader-epoch-cache.js';
import type { ProducerBatchHeader, ProducerCheckError } from '../storage/producer-state/producer-state.js';
import { AppendQueue } from './append-queue.js';

/**
 * A partition's replication state as the metadata image assigns it (leader,
 * leader epoch, replicas, ISR). It changes only through the transitions
 * `makeLeader` and `makeFollower`, fed from metadata deltas.
 */
export interface PartitionState {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  logAppendTimeMs: bigint;
}

/** A client batch's outcome (appendClientBatch); the Produce handler maps it to a wire code. */
export type ClientAppendResult =
  | ({ kind: 'appended' } & AppendResult)
  /** A retry of one of the producer's last 5 batches: nothing appended; these are the original offsets. */
  | { kind: 'duplicate'; baseOffset: bigint; lastOffset: bigint; timestampMs: bigint }
  | { kind: 'rejected'; error: ProducerCheckError; message: string };

/** DeleteRecords' outcome for one partition (the handler maps it to a wire code). */
export type DeleteRecordsResult =
  | { kind: 'ok'; lowWatermark: bigint }
  /** Below 0 (other than -1) or above the high watermark. */
  | { kind: 'offset_out_of_range' };

/** DeleteRecords' "up to the high watermark" offset. */
export const DELETE_TO_HIGH_WATERMARK = -1n;

export class Partition {
  private highWatermarkOffset: bigint;
  private state: PartitionState;
  /** Log end offsets the followers reported in their fetches (leader only; KIP-392 style position tracking). */
  private readonly followerLogEndOffsets = new Map<number, bigint>();
  /** Epoch -> first offset, from the batch headers (OffsetForLeaderEpoch). */
  readonly leaderEpochs: LeaderEpochCache;
  /** Appends that must await (key checks, recompression) queue here, in arrival order. */
  readonly appendQueue = new AppendQueue();
  /** Bumped on every append; delayed fetches compare it to decide whether to look again. */
  appendedBytesTotal = 0;
  /** Called after the high watermark moved up (the ReplicaManager completes delayed produces). */
  onHighWatermarkAdvanced: ((p: Partition) => void) | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    readonly localNodeId: number,
    initial: PartitionState,
  ) {
    this.state = initial;
    // On a restart the log holds only what reached this replica; on a single
    // node that is exactly what was committed.
    this.highWatermarkOffset = this.isrIsSelfOnly() ? log.logEndOffset : log.logStartOffset;
    this.leaderEpochs = openLeaderEpochCache(log);
    this.assignLeaderEpochStart();
  }

  get leaderId(): number {
    return this.state.leader;
  }

  get leaderEpoch(): number {
    return this.state.leaderEpoch;
  }

  get replicas(): readonly number[] {
    return this.state.replicas;
  }

  get isr(): readonly number[] {
    return this.state.isr;
  }

  /**
   * Transition to leader (Kafka's Partition.makeLeader): takes the image's
   * state, records where the new epoch starts, and forgets follower positions
   * of an older epoch. Returns true when this node was not the leader of this
   * epoch before (the caller wakes waiters and loads coordinators).
   */
  makeLeader(next: PartitionState): boolean {
    invariant(next.leader === this.localNodeId, 'makeLeader is for the partition this node leads');
    invariant(next.leaderEpoch >= this.state.leaderEpoch, 'leader epochs never go back');
    const changed = !this.isLeader || next.leaderEpoch !== this.state.leaderEpoch;
    if (changed) this.followerLogEndOffsets.clear();
    this.state = next;
    this.assignLeaderEpochStart();
    this.maybeAdvanceHighWatermark();
    return changed;
  }

  /**
   * Transition to follower, or to a replica without a leader (leader -1).
   * Returns true when this node led the partition before (its delayed
   * operations must be answered NOT_LEADER_OR_FOLLOWER).
   */
  makeFollower(next: PartitionState): boolean {
    invariant(next.leader !== this.localNodeId, 'makeFollower is for a partition another node leads');
    invariant(next.leaderEpoch >= this.state.leaderEpoch, 'leader epochs never go back');
    const wasLeader = this.isLeader;
    this.state = next;
    this.followerLogEndOffsets.clear();
    return wasLeader;
  }

  /**
   * As leader: a follower's fetch reported its log end offset. The high
   * watermark is the smallest log end offset over the ISR, so this may move it.
   */
  recordFollowerLogEndOffset(replicaId: number, logEndOffset: bigint): void {
    invariant(this.isLeader, 'only the leader tracks follower positions');
    invariant(replicaId !== this.localNodeId && this.replicas.includes(replicaId), 'positions come from the other replicas');
    this.followerLogEndOffsets.set(replicaId, logEndOffset);
    this.maybeAdvanceHighWatermark();
  }

  /**
   * As leader, records that the current leader epoch starts at the log end
   * offset before any append in it (Kafka's makeLeader), so the checkpoint
   * already holds the epoch of every batch written. Call after a metadata
   * change of leader or epoch; a no-op when nothing changed.
   */
  assignLeaderEpochStart(): void {
    if (this.isLeader && this.leaderEpoch >= 0 && this.leaderEpoch >= this.leaderEpochs.latestEpoch) {
      this.leaderEpochs.assign(this.leaderEpoch, this.log.logEndOffset);
    }
  }

  /** OffsetForLeaderEpoch: where `epoch` ends in this replica's log (see LeaderEpochCache.endOffsetFor). */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.leaderEpochs.endOffsetFor(epoch, this.log.logEndOffset);
  }

  get isLeader(): boolean {
    return this.leaderId === this.localNodeId;
  }

  get highWatermark(): bigint {
    return this.highWatermarkOffset;
  }

  /** The last stable offset: the high watermark until transactions exist. */
  get lastStableOffset(): bigint {
    return this.highWatermarkOffset;
  }

  get logEndOffset(): bigint {
    return this.log.logEndOffset;
  }

  get logStartOffset(): bigint {
    return this.log.logStartOffset;
  }

  /** Appends validated batches as leader; offsets are assigned by the log. */
  appendAsLeader(batches: Buffer): AppendResult {
    invariant(this.isLeader, 'only the leader appends client batches');
    const result = this.log.append(batches);
    this.trackEpochs(batches);
    this.appendedBytesTotal += batches.length;
    this.maybeAdvanceHighWatermark();
    return { baseOffset: result.baseOffset, lastOffset: result.lastOffset, logAppendTimeMs: result.logAppendTimeMs };
  }

  /**
   * Appends batches fetched from the leader, as follower. They keep the
   * offsets, timestamps and leader epochs the leader gave them: the first
   * must start at this replica's log end (a follower fetches from there; a
   * gap or overlap means its log diverged and must be truncated first, which
   * the caller checks). The producer state and the epoch cache follow the
   * batches; the high watermark moves only with the leader's
   * (`updateFollowerHighWatermark`).
   */
  appendAsFollower(batches: Buffer): AppendResult {
    invariant(!this.isLeader, 'only a follower appends replicated batches');
    invariant(batches.readBigInt64BE(Offsets.baseOffset) === this.log.logEndOffset, 'replicated batches start at the log end');
    const result = this.log.append(batches);
    this.trackEpochs(batches);
    this.appendedBytesTotal += batches.length;
    return { baseOffset: result.baseOffset, lastOffset: result.lastOffset, logAppendTimeMs: result.logAppendTimeMs };
  }

  /**
   * As follower: the leader's high watermark from a fetch response. The
   * follower's is the smaller of it and its own log end (it cannot commit
   * what it does not have), and never goes back.
   */
  updateFollowerHighWatermark(leaderHighWatermark: bigint): void {
    invariant(!this.isLeader, 'the leader computes its own high watermark');
    const next = leaderHighWatermark < this.log.logEndOffset ? leaderHighWatermark : this.log.logEndOffset;
    if (next > this.highWatermarkOffset) this.highWatermarkOffset = next;
  }

  /**
   * Appends one validated client batch as leader. With a producer id
   * (`producer` read from its header), the batch is first checked against
   * the partition's producer state (storage/producer-state): check and append
   * happen in this one synchronous call, so no other append to the partition
   * can come between them. A duplicate appends nothing and reports where the
   * original landed.
   */
  appendClientBatch(batch: Buffer, producer: ProducerBatchHeader | null): ClientAppendResult {
    if (producer !== null) {
      const check = this.log.producerState.check(producer);
      if (check.kind === 'duplicate') {
        const b = check.batch;
        return { kind: 'duplicate', baseOffset: b.firstOffset, lastOffset: b.lastOffset, timestampMs: b.timestampMs };
      }
      if (check.kind === 'error') return { kind: 'rejected', error: check.error, message: check.message };
    }
    return { kind: 'appended', ...this.appendAsLeader(batch) };
  }

  private isrIsSelfOnly(): boolean {
    return this.isr.length === 1 && this.isr[0] === this.localNodeId;
  }

  /**
   * As leader, the high watermark is the minimum log end offset over the ISR
   * (this broker's own log end, and each follower's last reported one; a
   * follower that has not reported holds it where it is). It only moves up.
   */
  private maybeAdvanceHighWatermark(): void {
    if (!this.isLeader) return;
    let next = this.log.logEndOffset;
    for (const id of this.isr) {
      if (id === this.localNodeId) continue;
      const followerEnd = this.followerLogEndOffsets.get(id);
      if (followerEnd === undefined) return;
      if (followerEnd < next) next = followerEnd;
    }
    if (next <= this.highWatermarkOffset) return;
    this.highWatermarkOffset = next;
    this.onHighWatermarkAdvanced?.(this);
  }

  /**
   * Every appended batch's partitionLeaderEpoch goes into the epoch cache
   * (base offsets were written by the log). Normally they carry the current
   * epoch, already assigned, so this is a comparison per batch.
   */
  private trackEpochs(batches: Buffer): void {
    for (let p = 0; p + BATCH_HEADER_BYTES <= batches.length; p += batchSizeAt(batches, p)) {
      const epoch = batches.readInt32BE(p + Offsets.partitionLeaderEpoch);
      if (epoch >= 0) this.leaderEpochs.assign(epoch, batches.readBigInt64BE(p + Offsets.baseOffset));
    }
  }

  /** Log start moved (retention, DeleteRecords): the high watermark is at least there. */
  onLogStartOffsetChanged(): void {
    if (this.highWatermarkOffset < this.log.logStartOffset) this.highWatermarkOffset = this.log.logStartOffset;
    this.leaderEpochs.truncateFromStart(this.log.logStartOffset);
  }

  /**
   * DeleteRecords as leader: moves the log start offset up to `offset`
   * (-1 = the high watermark). Offsets above the high watermark, or below 0,
   * are out of range; an offset at or below the current start changes
   * nothing. The new start is checkpointed by the log before this returns.
   * The low watermark is the log start offset (with followers it becomes the
   * lowest log start over the replicas).
   */
  deleteRecordsBefore(offset: bigint): DeleteRecordsResult {
    invariant(this.isLeader, 'only the leader deletes records');
    const target = offset === DELETE_TO_HIGH_WATERMARK ? this.highWatermarkOffset : offset;
    if (target < 0n || target > this.highWatermarkOffset) return { kind: 'offset_out_of_range' };
    const r = this.log.deleteRecordsBefore(target);
    invariant(r.kind === 'ok', 'an offset at or below the high watermark is inside the log');
    this.onLogStartOffsetChanged();
    return { kind: 'ok', lowWatermark: this.log.logStartOffset };
  }
}

/**
 * Loads the cache from the partition's leader-epoch-checkpoint, or rebuilds
 * it from the batch headers when the file is missing or damaged (then writes
 * it). Entries are brought in line with the recovered log: nothing past its
 * end (a crash cut the tail), nothing below its start.
 */
function openLeaderEpochCache(log: PartitionLog): LeaderEpochCache {
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
