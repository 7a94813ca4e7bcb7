/**
 * The partitions a broker hosts (Kafka's ReplicaManager.allPartitions and
 * its applyDelta / makeLeaders / makeFollowers): the partitions the metadata
 * image assigns to this node are opened (or created) and change state only
 * through `applyAssignment`, which runs the transitions Partition.makeLeader
 * / makeFollower and tells the listeners; a partition this node stops
 * replicating is removed (its log deleted with the topic). The ISR changes
 * its leaders propose go to the controller from here. The ReplicaManager
 * holds one and keeps the data path (appends, fetches).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { DelayedFetches } from './delayed-fetch.js';
import type { DelayedProduces } from './delayed-produce.js';
import { Partition, type IsrChangeOutcome, type IsrChangeProposal, type PartitionState, type ReplicationPolicy } from './partition.js';
import type { ReplicaManagerDeps } from './replica-manager.js';

export interface PartitionAssignment extends PartitionState {
  topic: string;
  topicId: string;
  partition: number;
}

/** Kafka's replica.lag.time.max.ms default. */
export const REPLICA_LAG_TIME_MAX_MS_DEFAULT = 30_000;

export class HostedPartitions {
  /**
   * The hosted partitions by topic, then partition number: `get` runs for
   * every partition of every Produce and Fetch, and looking up by the two
   * keys makes no key string (a new string to build and hash per lookup,
   * issue 17).
   */
  private readonly byTopic = new Map<string, Map<number, Partition>>();
  private readonly leadershipListeners: ((p: Partition, isLeader: boolean) => void)[] = [];
  private readonly followerListeners: ((p: Partition) => void)[] = [];
  /** ISR changes this broker's leaders got committed, and proposals refused or lost (Kafka IsrShrinksPerSec, IsrExpandsPerSec, FailedIsrUpdatesPerSec). */
  private readonly isrChanges = { shrinks: 0, expands: 0, failed: 0 };

  // One policy and one of each callback for every hosted partition (they are
  // told the partition), not closures per partition: tens of thousands of
  // partitions are hosted before most of them are used (issue 17).
  private readonly policy: ReplicationPolicy = {
    minInsyncReplicas: (topic) => this.deps.topicRules(topic).minInsyncReplicas,
    replicaLagTimeMaxMs: () => this.deps.replicaLagTimeMaxMs ?? REPLICA_LAG_TIME_MAX_MS_DEFAULT,
    isReplicaEligible: (id) => this.deps.isReplicaEligible?.(id) ?? false,
  };
  private readonly onHighWatermarkAdvanced = (q: Partition): void => {
    this.delayedProduces.onHighWatermarkAdvanced(q);
    this.delayedFetches.onAppend(q);
  };
  private readonly onUnderMinIsr = (q: Partition): void => this.delayedProduces.failAll(q, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  private readonly onIsrChangeProposed = (q: Partition, proposal: IsrChangeProposal): void => this.sendIsrChange(q, proposal);

  constructor(
    private readonly deps: ReplicaManagerDeps,
    /** The ReplicaManager's waiting operations: a partition that stops being led here answers them. */
    private readonly delayedProduces: DelayedProduces,
    private readonly delayedFetches: DelayedFetches,
  ) {}

  get(topic: string, partition: number): Partition | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  *all(): IterableIterator<Partition> {
    for (const numbered of this.byTopic.values()) yield* numbered.values();
  }

  /** Counts of ISR changes since start (metrics). */
  get isrChangeCounts(): Readonly<{ shrinks: number; expands: number; failed: number }> {
    return this.isrChanges;
  }

  /**
   * Called after a hosted partition became led here, or stopped being led here
   * (coordinators load and unload their state from it).
   */
  onLeadershipChange(listener: (p: Partition, isLeader: boolean) => void): void {
    this.leadershipListeners.push(listener);
  }

  /**
   * Called after a hosted partition became a follower of a (new) leader or
   * leader epoch, or lost its leader (the follower fetchers re-point it).
   */
  onFollowerChange(listener: (p: Partition) => void): void {
    this.followerListeners.push(listener);
  }

  /**
   * Brings a partition in line with the metadata image: opens it when this
   * node became a replica, runs makeLeader or makeFollower, removes it (keeping
   * its data) when this node is no longer a replica.
   */
  applyAssignment(a: PartitionAssignment): Partition | undefined {
    if (!a.replicas.includes(this.deps.localNodeId)) {
      this.removePartition(a.topic, a.partition, false);
      return undefined;
    }
    const state: PartitionState = { leader: a.leader, leaderEpoch: a.leaderEpoch, partitionEpoch: a.partitionEpoch, replicas: a.replicas, isr: a.isr };
    let p = this.get(a.topic, a.partition);
    const isNew = p === undefined;
    // Transitions are logged (Kafka does, at INFO), except the start-up's opening of every log already on disk.
    const logged = !isNew || this.deps.logManager.getLog(a.topic, a.partition) === undefined;
    if (p === undefined) p = this.openPartition(a, state);
    const nowMs = this.deps.clock.nowMs();
    if (a.leader === this.deps.localNodeId) {
      if (p.makeLeader(state, nowMs) || isNew) {
        if (logged) this.deps.logger.info({ topic: a.topic, partition: a.partition, leaderEpoch: a.leaderEpoch, isr: a.isr, replicas: a.replicas }, 'leading partition');
        this.followerListeners.forEach((l) => l(p));
        this.notifyLeadership(p, true);
      }
      return p;
    }
    const before = { leader: p.leaderId, epoch: p.leaderEpoch };
    const wasLeader = p.makeFollower(state);
    if (wasLeader) {
      this.delayedProduces.onLeadershipLost(p);
      this.delayedFetches.wakeAll(p);
      this.notifyLeadership(p, false);
    }
    if (isNew || wasLeader || before.leader !== p.leaderId || before.epoch !== p.leaderEpoch) {
      if (logged) this.deps.logger.info({ topic: a.topic, partition: a.partition, leader: a.leader, leaderEpoch: a.leaderEpoch, isr: a.isr }, 'following partition leader');
      this.followerListeners.forEach((l) => l(p));
    }
    return p;
  }

  private openPartition(a: PartitionAssignment, state: PartitionState): Partition {
    // A log from the data dir (a restart) opens its epoch cache on first use; a new one now (Partition.openLeaderEpochs).
    const created = this.deps.logManager.getLog(a.topic, a.partition) === undefined;
    const log = this.deps.logManager.getOrCreateLog(a.topic, a.partition, this.deps.logConfigFor(a.topic));
    const p = new Partition(a.topic, a.partition, a.topicId, log, this.deps.localNodeId, state, this.policy);
    p.onHighWatermarkAdvanced = this.onHighWatermarkAdvanced;
    p.onUnderMinIsr = this.onUnderMinIsr;
    p.onIsrChangeProposed = this.onIsrChangeProposed;
    if (created) p.openLeaderEpochs();
    let numbered = this.byTopic.get(a.topic);
    if (numbered === undefined) this.byTopic.set(a.topic, (numbered = new Map()));
    numbered.set(a.partition, p);
    return p;
  }

  /** Asks the controller for an ISR change; its answer (or a failure) goes back to the partition. */
  private sendIsrChange(p: Partition, proposal: IsrChangeProposal): void {
    const send = this.deps.alterPartition;
    const { topic, partition } = p;
    this.deps.logger.info({ topic, partition, isr: p.isr, newIsr: proposal.newIsr, kind: proposal.kind }, 'proposing ISR change');
    const answered = send === undefined
      ? Promise.resolve<IsrChangeOutcome>({ kind: 'failed', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR })
      : send(p, proposal).catch((err: unknown): IsrChangeOutcome => {
        this.deps.logger.warn({ topic, partition, err: (err as Error).message }, 'ISR change not delivered to the controller');
        return { kind: 'failed', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR };
      });
    void answered.then((outcome) => {
      if (outcome.kind === 'failed') {
        this.isrChanges.failed++;
        this.deps.logger.info({ topic, partition, errorCode: outcome.errorCode }, 'ISR change refused');
      } else if (proposal.kind === 'shrink') this.isrChanges.shrinks++;
      else this.isrChanges.expands++;
      p.completeIsrChange(proposal, outcome, this.deps.clock.nowMs());
    });
  }

  /**
   * Kafka's periodic ISR check: every led partition drops the followers that
   * have not been caught up for replica.lag.time.max.ms. The broker runs it
   * every half of that.
   */
  shrinkIsrs(): number {
    const nowMs = this.deps.clock.nowMs();
    let proposed = 0;
    for (const p of this.all()) if (p.maybeShrinkIsr(nowMs)) proposed++;
    return proposed;
  }

  /** Stops hosting a partition; with `deleteData` its log is removed from disk. */
  removePartition(topic: string, partition: number, deleteData: boolean): void {
    const numbered = this.byTopic.get(topic);
    const p = numbered?.get(partition);
    if (numbered === undefined || p === undefined) return;
    numbered.delete(partition);
    if (numbered.size === 0) this.byTopic.delete(topic);
    this.delayedProduces.onLeadershipLost(p);
    this.delayedFetches.wakeAll(p);
    if (p.isLeader) this.notifyLeadership(p, false);
    // Without deleteData the log stays with the LogManager (a replica moved
    // away keeps its data until the controller says to delete it).
    if (deleteData) this.deps.logManager.deleteLog(topic, partition);
    this.deps.logger.info({ topic, partition, deleteData }, 'stopped hosting partition');
  }

  /** Applies a changed topic config to the open logs of that topic. */
  updateTopicConfig(topic: string): void {
    const cfg = this.deps.logConfigFor(topic);
    for (const p of this.byTopic.get(topic)?.values() ?? []) p.log.updateConfig(cfg);
  }

  private notifyLeadership(p: Partition, isLeader: boolean): void {
    for (const l of this.leadershipListeners) l(p, isLeader);
  }
}
