/**
 * A partition replica on this broker: its log plus the replication state
 * around it (leader epoch, replica set, in-sync replicas, high watermark).
 *
 * The high watermark is the offset below which every in-sync replica has the
 * data; only records below it are visible to consumers and count as
 * committed. With one replica (the single-node cluster) the ISR is this
 * broker alone, so the high watermark follows the log end offset on every
 * append. With followers, their fetch positions move it (as leader), or the
 * leader's does (as follower). It never goes back, except when a follower
 * truncates below it after an unclean election.
 *
 * As leader it also decides ISR changes (Kafka's Partition.maybeShrinkIsr /
 * maybeExpandIsr, with its followers' positions in `LeaderIsr`,
 * leader-isr.ts): a follower that has not been caught up for
 * `replica.lag.time.max.ms` leaves, one that reached the high watermark and
 * the start of the leader's epoch joins. A change is proposed to the
 * controller (`onIsrChangeProposed`, AlterPartition) and applied when it
 * answers; while one is in flight no other is proposed (KIP-497).
 */
import { invariant } from '../util/assert.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { LogRecoveryListener } from '../storage/deferred-load.js';
import { Offsets } from '../protocol/record-batch/header.js';
import { readInt64BE } from '../protocol/primitives/int64.js';
import { openLeaderEpochCache, type EpochEndOffset, type LeaderEpochCache } from './leader-epoch-cache.js';
import type { IsrChangeOutcome, IsrChangeProposal, ReplicationPolicy } from './isr-change.js';

export type { IsrChangeOutcome, IsrChangeProposal, ReplicationPolicy } from './isr-change.js';
import type { ProducerBatchHeader } from '../storage/producer-state/producer-state.js';
import { AppendQueue } from './append-queue.js';
import type { FollowerReplica } from './follower-replica.js';
import { LeaderIsr } from './leader-isr.js';
import { VisibleBytes } from './visible-bytes.js';
import { DELETE_TO_HIGH_WATERMARK, type AppendResult, type ClientAppendResult, type DeleteRecordsResult } from './partition-results.js';

/**
 * A partition's replication state as the metadata image assigns it (leader,
 * leader epoch, replicas, ISR). It changes only through the transitions
 * `makeLeader` and `makeFollower`, fed from metadata deltas.
 */
export interface PartitionState {
  readonly leader: number;
  readonly leaderEpoch: number;
  /** Bumped by the controller on every change of the partition (AlterPartition must name the current one). */
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

/**
 * `hwOffset` while the log awaits recovery after a crash (its bounds are
 * unknown until then): the high watermark becomes its end (one replica) or
 * its start once recovered (`onLogRecovered`). High watermarks are never negative.
 */
const HW_AT_RECOVERED_END = -1n;
const HW_AT_RECOVERED_START = -2n;
/** `leaderEpochStartOffset` of a leader whose log awaits recovery: its end once recovered. */
const EPOCH_START_AT_RECOVERED_END = -1n;

const ALWAYS_SINGLE: ReplicationPolicy = { minInsyncReplicas: () => 1, replicaLagTimeMaxMs: () => 30_000, isReplicaEligible: () => false };

export class Partition implements LogRecoveryListener {
  /** The high watermark, or a HW_AT_RECOVERED_* placeholder while the log awaits recovery (read it through `highWatermarkOffset`). */
  private hwOffset: bigint;
  private state: PartitionState;
  /** As leader: the followers' fetch state and the ISR change pending, if any (leader-isr.ts). */
  private readonly leaderIsr: LeaderIsr;
  /** As leader: the log end offset when this node became leader of the current epoch. */
  private leaderEpochStartOffset = 0n;
  /** Created on first use (`visible`): most of thousands of hosted partitions may never see one. */
  private visibleBytes: VisibleBytes | null = null;
  /** The leader epoch cache once opened (`leaderEpochs`), else null. */
  private epochCache: LeaderEpochCache | null = null;
  /** Created on first use (`appendQueue`). */
  private queue: AppendQueue | null = null;
  /** Called after the high watermark moved up (the ReplicaManager completes delayed produces and wakes fetches). */
  onHighWatermarkAdvanced: ((p: Partition) => void) | null = null;
  /** Called when this leader proposes an ISR change; the answer comes back through `completeIsrChange`. */
  onIsrChangeProposed: ((p: Partition, proposal: IsrChangeProposal) => void) | null = null;
  /** Called after a committed ISR change left fewer in-sync replicas than min.insync.replicas. */
  onUnderMinIsr: ((p: Partition) => void) | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    readonly localNodeId: number,
    initial: PartitionState,
    policy: ReplicationPolicy = ALWAYS_SINGLE,
  ) {
    this.state = initial;
    this.leaderIsr = new LeaderIsr(this, policy);
    if (log.awaitingRecovery) {
      // After a crash the log's bounds are known once it is recovered (its
      // first use, or the log manager's background slices): settled then.
      this.hwOffset = this.isrIsSelfOnly() ? HW_AT_RECOVERED_END : HW_AT_RECOVERED_START;
      log.recoveryListener = this;
      return;
    }
    // On a restart the log holds only what reached this replica; on a single
    // node that is exactly what was committed.
    this.hwOffset = this.isrIsSelfOnly() ? log.logEndOffset : log.logStartOffset;
    log.onHighWatermarkUpdated(this.hwOffset);
  }

  /** Bytes appended, below the high watermark, below the LSO: what delayed fetches wait on (read-only outside). */
  get visible(): VisibleBytes {
    // Counters start at 0 whenever it is created: waiters compare differences only.
    return (this.visibleBytes ??= new VisibleBytes());
  }

  /** Appends that must await (key checks, recompression) queue here, in arrival order. */
  get appendQueue(): AppendQueue {
    return (this.queue ??= new AppendQueue());
  }

  private get highWatermarkOffset(): bigint {
    // A log awaiting recovery: recovering it settles the value (onLogRecovered).
    if (this.hwOffset < 0n) this.log.load();
    // Still unsettled only when the log was closed unrecovered (the partition is going away).
    return this.hwOffset < 0n ? this.log.knownLogStartOffset : this.hwOffset;
  }

  private set highWatermarkOffset(offset: bigint) {
    this.hwOffset = offset;
  }

  /**
   * The log this partition was opened with awaited recovery and has just been
   * recovered, before anything was written to it (every write reads its end,
   * which recovers it first): set what the constructor and `makeLeader` would
   * have set had its bounds been known then. Nothing can be waiting on this
   * partition yet (waiting needs the high watermark), so no callback runs.
   */
  onLogRecovered(): void {
    const end = this.log.logEndOffset;
    if (this.hwOffset < 0n) this.hwOffset = this.hwOffset === HW_AT_RECOVERED_END ? end : this.log.logStartOffset;
    if (this.leaderEpochStartOffset < 0n) this.leaderEpochStartOffset = end;
    this.log.onHighWatermarkUpdated(this.hwOffset);
    const next = this.advancedHighWatermark(undefined);
    if (next !== null) this.setHighWatermark(next);
  }

  /**
   * Epoch -> first offset, from the batch headers (OffsetForLeaderEpoch).
   * Opened (its `leader-epoch-checkpoint` read) on first use, not when the
   * partition is opened: a restart with thousands of partitions reads none
   * of these files until a partition is written to or asked about (issue 17).
   * Every append and truncation goes through it first, so it is open before
   * the log changes; opening it records the current epoch's start if this
   * node leads (what `assignLeaderEpochStart` did while it was closed: the
   * log end offset has not moved since).
   */
  get leaderEpochs(): LeaderEpochCache {
    return this.openLeaderEpochs();
  }

  /**
   * Opens the leader epoch cache now. The replica manager does it for a log
   * it has just created, so the new partition's first epoch is checkpointed
   * (fsynced) by CreateTopics rather than by its first Produce.
   */
  openLeaderEpochs(): LeaderEpochCache {
    if (this.epochCache === null) {
      this.epochCache = openLeaderEpochCache(this.log);
      this.assignLeaderEpochStart();
    }
    return this.epochCache;
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

  get partitionEpoch(): number {
    return this.state.partitionEpoch;
  }

  /** The ISR change waiting for the controller's answer, if any. */
  get pendingIsrChange(): IsrChangeProposal | null {
    return this.leaderIsr.pendingChange;
  }

  /** As leader: a follower's last reported log end offset (-1 before its first fetch in this epoch). */
  followerLogEndOffset(brokerId: number): bigint {
    return this.leaderIsr.follower(brokerId)?.logEndOffset ?? -1n;
  }

  /** As leader: what it knows of a follower (position, last caught up), if it is a replica. */
  follower(brokerId: number): Readonly<FollowerReplica> | undefined {
    return this.leaderIsr.follower(brokerId);
  }

  /**
   * Transition to leader (Kafka's Partition.makeLeader): takes the image's
   * state, records where the new epoch starts, and forgets follower positions
   * of an older epoch. Returns true when this node was not the leader of this
   * epoch before (the caller wakes waiters and loads coordinators).
   */
  makeLeader(next: PartitionState, nowMs = 0): boolean {
    invariant(next.leader === this.localNodeId, 'makeLeader is for the partition this node leads');
    invariant(next.leaderEpoch >= this.state.leaderEpoch, 'leader epochs never go back');
    const changed = !this.isLeader || next.leaderEpoch !== this.state.leaderEpoch;
    // A stale image (an AlterPartition answer already applied a newer partition epoch) changes nothing.
    if (!changed && next.partitionEpoch < this.state.partitionEpoch) return false;
    this.state = next;
    if (changed) {
      this.leaderEpochStartOffset = this.log.awaitingRecovery ? EPOCH_START_AT_RECOVERED_END : this.log.logEndOffset;
      this.leaderIsr.reset(nowMs);
    } else {
      this.leaderIsr.sync(nowMs);
    }
    this.assignLeaderEpochStart();
    this.maybeAdvanceHighWatermark(nowMs);
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
    this.leaderIsr.clear();
    return wasLeader;
  }

  /**
   * As leader: a follower fetched at `fetchOffset` (its log end offset) while
   * the leader's log ended at `leaderLogEndOffset`. Updates its caught-up
   * time, may move the high watermark and may propose adding it to the ISR.
   * Returns false when `replicaId` is not a replica of this partition.
   */
  updateFollowerFetchState(replicaId: number, fetchOffset: bigint, leaderLogEndOffset: bigint, nowMs: number): boolean {
    invariant(this.isLeader, 'only the leader tracks follower positions');
    const f = this.leaderIsr.follower(replicaId);
    if (f === undefined) return false;
    f.updateFetchState(fetchOffset, leaderLogEndOffset, nowMs);
    this.maybeAdvanceHighWatermark(nowMs);
    const proposal = this.leaderIsr.proposeExpand(f, this.leaderEpochStartOffset);
    if (proposal !== null) this.onIsrChangeProposed?.(this, proposal);
    return true;
  }

  /** Test shorthand: a follower fetched at `logEndOffset`, caught up now. */
  recordFollowerLogEndOffset(replicaId: number, logEndOffset: bigint, nowMs = 0): void {
    invariant(replicaId !== this.localNodeId && this.replicas.includes(replicaId), 'positions come from the other replicas');
    this.updateFollowerFetchState(replicaId, logEndOffset, this.log.logEndOffset, nowMs);
  }

  /**
   * Kafka's maybeShrinkIsr, run periodically by the ReplicaManager: followers
   * in the ISR that have not been caught up for replica.lag.time.max.ms
   * leave it. Returns whether a shrink was proposed.
   */
  maybeShrinkIsr(nowMs: number): boolean {
    // A log awaiting recovery had no fetch since start-up; recovered (soon, in the background) it is checked again.
    if (!this.isLeader || this.leaderIsr.pendingChange !== null || this.log.awaitingRecovery) return false;
    const proposal = this.leaderIsr.proposeShrink(this.log.logEndOffset, nowMs);
    if (proposal === null) return false;
    this.onIsrChangeProposed?.(this, proposal);
    return true;
  }

  /**
   * The controller answered `proposal`. A committed change is applied at once
   * (the metadata image confirms it later with the same partition epoch); a
   * failure clears the pending state so a later fetch or check proposes again.
   */
  completeIsrChange(proposal: IsrChangeProposal, outcome: IsrChangeOutcome, nowMs = 0): void {
    if (!this.leaderIsr.answered(proposal)) return;
    if (outcome.kind === 'failed' || !this.isLeader || outcome.leaderEpoch !== this.leaderEpoch) return;
    if (outcome.partitionEpoch <= this.state.partitionEpoch) return;
    this.state = { ...this.state, isr: outcome.isr, partitionEpoch: outcome.partitionEpoch };
    this.leaderIsr.sync(nowMs);
    if (this.isUnderMinIsr()) this.onUnderMinIsr?.(this);
    this.maybeAdvanceHighWatermark(nowMs);
  }

  /** Fewer in-sync replicas than min(min.insync.replicas, replica count): nothing commits (KIP-966's strict rule). */
  isUnderMinIsr(): boolean {
    return this.leaderIsr.isUnderMinIsr();
  }

  /** Exactly min.insync.replicas in sync (with more than that many replicas): one more failure stops acks=all. */
  isAtMinIsr(): boolean {
    return this.leaderIsr.isAtMinIsr();
  }

  /**
   * As leader, records that the current leader epoch starts at the log end
   * offset before any append in it (Kafka's makeLeader), so the checkpoint
   * already holds the epoch of every batch written. Call after a metadata
   * change of leader or epoch; a no-op when nothing changed.
   */
  assignLeaderEpochStart(): void {
    // Not opened yet: opening it does this (see leaderEpochs).
    if (this.epochCache === null) return;
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

  /** The last stable offset (KIP-98): read_committed consumers read up to here (ProducerStateManager.lastStableOffset). */
  get lastStableOffset(): bigint {
    return this.log.producerState.lastStableOffset(this.highWatermarkOffset, this.log.logStartOffset);
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
    const epochs = this.leaderEpochs; // opened before the log moves
    const result = this.log.append(batches);
    epochs.assignBatchEpochs(batches);
    // A marker may move the LSO up without the high watermark moving. The log now ends just past result.lastOffset.
    this.visible.onAppend(this.log.logEndOffset, batches.length, this.highWatermarkOffset, this.lastStableOffset);
    this.maybeAdvanceHighWatermark();
    return result; // the log's own result (it has these fields and the position): no copy per append
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
    invariant(readInt64BE(batches, Offsets.baseOffset) === this.log.logEndOffset, 'replicated batches start at the log end');
    const epochs = this.leaderEpochs; // opened before the log moves
    const result = this.log.append(batches);
    epochs.assignBatchEpochs(batches);
    // A marker may move the LSO up without the high watermark moving.
    this.visible.onAppend(result.lastOffset + 1n, batches.length, this.highWatermarkOffset, this.lastStableOffset);
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
    if (next > this.highWatermarkOffset) this.setHighWatermark(next);
  }

  /**
   * The log was cut or restarted at another offset (log-truncation.ts), with
   * `epochs` opened before it moved: the epoch cache forgets entries past the
   * new end, and the high watermark and visible bytes follow it down.
   */
  onLogTruncated(epochs: LeaderEpochCache): void {
    const end = this.log.logEndOffset;
    epochs.truncateFromEnd(end, true);
    if (this.highWatermarkOffset > end) this.highWatermarkOffset = end;
    this.log.onHighWatermarkUpdated(this.highWatermarkOffset);
    this.visible.onTruncated(end);
  }

  /**
   * Appends one validated client batch as leader. With a producer id
   * (`producer` read from its header), the batch is first checked against
   * the partition's producer state (storage/producer-state): check and append
   * happen in this one synchronous call, so no other append to the partition
   * can come between them. A duplicate appends nothing and reports where the
   * original landed.
   */
  appendClientBatch(batch: Buffer, producer: ProducerBatchHeader | null, foreignProducersBelow: bigint | null = null): ClientAppendResult {
    // A promoted mirror topic (mirror.promoted.offsets): below the promotion offset this id was the
    // source cluster's producer, not this one (src/replication/mirror-append.ts); forget that part.
    if (producer !== null && foreignProducersBelow !== null) this.log.producerState.forgetBelow(producer.producerId, foreignProducersBelow);
    if (producer !== null) {
      const check = this.log.producerState.check(producer);
      if (check.kind === 'duplicate') {
        const b = check.batch;
        return { kind: 'duplicate', baseOffset: b.firstOffset, lastOffset: b.lastOffset, timestampMs: b.timestampMs };
      }
      if (check.kind === 'error') return { kind: 'rejected', error: check.error, message: check.message };
    }
    const r = this.appendAsLeader(batch);
    return { kind: 'appended', baseOffset: r.baseOffset, lastOffset: r.lastOffset, logAppendTimeMs: r.logAppendTimeMs };
  }

  private isrIsSelfOnly(): boolean {
    return this.isr.length === 1 && this.isr[0] === this.localNodeId && this.replicas.length === 1;
  }

  /**
   * As leader (Kafka's maybeIncrementLeaderHW), the high watermark is the
   * smallest log end offset over the "maximal" ISR: the ISR plus a member
   * being added (KIP-497), plus followers that are caught up and eligible
   * and so about to join. It does not move while the committed ISR is below
   * min(min.insync.replicas, replica count) (KIP-966), so nothing is
   * committed that fewer replicas than promised hold. It only moves up.
   */
  private maybeAdvanceHighWatermark(nowMs?: number): void {
    const next = this.advancedHighWatermark(nowMs);
    if (next === null) return;
    this.setHighWatermark(next);
    this.onHighWatermarkAdvanced?.(this);
  }

  /** Where maybeAdvanceHighWatermark moves the high watermark, or null when it stays (a log awaiting recovery: onLogRecovered decides). */
  private advancedHighWatermark(nowMs: number | undefined): bigint | null {
    if (!this.isLeader || this.isUnderMinIsr() || this.log.awaitingRecovery) return null;
    const next = this.leaderIsr.maximalIsrLogEnd(this.log.logEndOffset, nowMs);
    return next !== null && next > this.highWatermarkOffset ? next : null;
  }

  private setHighWatermark(next: bigint): void {
    this.highWatermarkOffset = next;
    this.log.onHighWatermarkUpdated(next);
    // Not created yet: nothing was appended or waited on, nothing to move.
    this.visibleBytes?.onBounds(next, this.lastStableOffset);
  }

  /** Log start moved (retention, DeleteRecords): the high watermark is at least there. */
  onLogStartOffsetChanged(): void {
    // Not recovered yet: onLogRecovered starts from the start offset then.
    if (this.log.awaitingRecovery) return;
    if (this.highWatermarkOffset < this.log.logStartOffset) this.setHighWatermark(this.log.logStartOffset);
    // A cache not opened yet does this when it opens.
    this.epochCache?.truncateFromStart(this.log.logStartOffset);
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
