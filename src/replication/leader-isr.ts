/**
 * A partition leader's ISR bookkeeping (Kafka's Partition.maybeExpandIsr /
 * maybeShrinkIsr and the ISR side of maybeIncrementLeaderHW): what it knows
 * of each follower (`FollowerReplica`), the ISR change proposed to the
 * controller and not answered yet (KIP-497: one at a time), the "maximal"
 * ISR the high watermark waits for, and the min.insync.replicas checks.
 * Partition holds one; the partition state it reads (replicas, ISR, epochs),
 * the high watermark and the callbacks stay the Partition's.
 */
import { FollowerReplica } from './follower-replica.js';
import type { IsrChangeProposal, ReplicationPolicy } from './isr-change.js';

/** What the ISR decisions read of their partition (Partition). */
export interface IsrPartition {
  readonly topic: string;
  readonly localNodeId: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly highWatermark: bigint;
}

export class LeaderIsr {
  /**
   * As leader: every other replica's fetch state (positions, caught-up
   * time). Created with the first follower: a partition with one replica
   * never needs it, and a broker may host 100,000 of them (issue 17).
   */
  private followers: Map<number, FollowerReplica> | null = null;
  /** The ISR proposed to the controller and not answered yet (KIP-497's pending state), or null. */
  private pending: IsrChangeProposal | null = null;

  constructor(private readonly partition: IsrPartition, private readonly policy: ReplicationPolicy) {}

  /** The ISR change waiting for the controller's answer, if any. */
  get pendingChange(): IsrChangeProposal | null {
    return this.pending;
  }

  /** What it knows of a follower, if it is a replica. */
  follower(brokerId: number): FollowerReplica | undefined {
    return this.followers?.get(brokerId);
  }

  /** New leader epoch: no proposal stands; ISR members get a full lag window from now, other replicas none (Kafka's makeLeader). */
  reset(nowMs: number): void {
    this.pending = null;
    this.followers?.clear();
    this.sync(nowMs);
  }

  /**
   * The partition state changed within the epoch: follower entries for
   * exactly the other replicas (a reassignment may add or remove some), and
   * a proposal made against an older partition epoch is dropped.
   */
  sync(nowMs: number): void {
    const { replicas, isr, localNodeId } = this.partition;
    const followers = this.followers;
    if (followers !== null) for (const id of followers.keys()) if (!replicas.includes(id)) followers.delete(id);
    for (const id of replicas) {
      if (id === localNodeId || this.followers?.has(id) === true) continue;
      (this.followers ??= new Map()).set(id, new FollowerReplica(id, isr.includes(id) ? nowMs : 0));
    }
    if (this.pending !== null && this.pending.partitionEpoch < this.partition.partitionEpoch) this.pending = null;
  }

  /** No longer leader: nothing tracked, nothing pending. */
  clear(): void {
    this.followers?.clear();
    this.pending = null;
  }

  /**
   * Kafka's maybeExpandIsr, after follower `f` fetched: a follower outside
   * the ISR joins once its log reaches the high watermark and the start of
   * this leader's epoch (so it has everything this leader may have
   * committed), if it is eligible. Returns the proposal made, if any.
   */
  proposeExpand(f: FollowerReplica, leaderEpochStartOffset: bigint): IsrChangeProposal | null {
    const { isr } = this.partition;
    if (this.pending !== null || isr.includes(f.brokerId)) return null;
    if (f.logEndOffset < this.partition.highWatermark || f.logEndOffset < leaderEpochStartOffset) return null;
    if (!this.policy.isReplicaEligible(f.brokerId)) return null;
    return this.propose([...isr, f.brokerId], 'expand');
  }

  /**
   * Kafka's maybeShrinkIsr: followers in the ISR that have not been caught
   * up with `logEndOffset` for replica.lag.time.max.ms leave it. Returns the
   * proposal made, if any. The caller checks nothing is pending.
   */
  proposeShrink(logEndOffset: bigint, nowMs: number): IsrChangeProposal | null {
    const lagMaxMs = this.policy.replicaLagTimeMaxMs();
    const { isr, localNodeId } = this.partition;
    const outOfSync = isr.filter((id) => {
      if (id === localNodeId) return false;
      const f = this.followers?.get(id);
      return f === undefined || !f.isCaughtUp(logEndOffset, nowMs, lagMaxMs);
    });
    if (outOfSync.length === 0) return null;
    return this.propose(isr.filter((id) => !outOfSync.includes(id)), 'shrink');
  }

  private propose(newIsr: readonly number[], kind: 'expand' | 'shrink'): IsrChangeProposal {
    const { leaderEpoch, partitionEpoch } = this.partition;
    const proposal: IsrChangeProposal = { newIsr, leaderEpoch, partitionEpoch, kind };
    this.pending = proposal;
    return proposal;
  }

  /** The controller answered `proposal`: true (and nothing is pending any more) when it is the one pending. */
  answered(proposal: IsrChangeProposal): boolean {
    if (this.pending !== proposal) return false;
    this.pending = null;
    return true;
  }

  /** Fewer in-sync replicas than min(min.insync.replicas, replica count): nothing commits (KIP-966's strict rule). */
  isUnderMinIsr(): boolean {
    const { topic, isr, replicas } = this.partition;
    return isr.length < Math.min(this.policy.minInsyncReplicas(topic), replicas.length);
  }

  /** Exactly min.insync.replicas in sync (with more than that many replicas): one more failure stops acks=all. */
  isAtMinIsr(): boolean {
    const minIsr = this.policy.minInsyncReplicas(this.partition.topic);
    return this.partition.replicas.length > minIsr && this.partition.isr.length === minIsr;
  }

  /**
   * The smallest log end offset over the "maximal" ISR (the leader's is
   * `logEndOffset`): the ISR plus a member being added (KIP-497), plus
   * followers that are caught up and eligible and so about to join (only
   * with `nowMs`). Null while a member has not fetched in this epoch: it
   * holds the high watermark where it is.
   */
  maximalIsrLogEnd(logEndOffset: bigint, nowMs: number | undefined): bigint | null {
    let next = logEndOffset;
    const maximal = this.pending?.kind === 'expand' ? this.pending.newIsr : this.partition.isr;
    if (this.followers === null) return next;
    for (const f of this.followers.values()) {
      if (f.logEndOffset >= next) continue;
      const waitFor = maximal.includes(f.brokerId)
        || (nowMs !== undefined && f.isCaughtUp(logEndOffset, nowMs, this.policy.replicaLagTimeMaxMs()) && this.policy.isReplicaEligible(f.brokerId));
      if (!waitFor) continue;
      if (f.logEndOffset < 0n) return null;
      next = f.logEndOffset;
    }
    return next;
  }
}
