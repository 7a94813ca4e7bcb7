/**
 * The controller's partition replication state machine (KRaft's
 * ReplicationControlManager, in part), composed into QuorumController: ISR
 * changes asked by partition leaders (AlterPartition 56, alter-partition.ts),
 * admin elections and reassignments (partition-admin.ts), the auto leader
 * rebalance, the per-topic election policy, and the elections every
 * committed batch made (reported to `onElections` and counted in `stats`).
 * It plans against the image and appends through the controller's
 * serialized queue (`append`), never on its own.
 */
import { ErrorCode } from '../protocol/errors.js';
import { planAlterPartition, type AlterPartitionReply, type AlterPartitionRequest } from './alter-partition.js';
import { PartitionChanges, type Election, type ElectionKind, type ElectionPolicy, type PartitionWork } from './leadership.js';
import type { MetadataImage } from './metadata/image.js';
import { ConfigResourceType, type MetadataRecord } from './metadata/records.js';
import { planElectLeaders, planReassignments, type ElectionType, type ReassignmentTargets, type TopicResults } from './partition-admin.js';

/** Most leaderships one auto-rebalance batch moves back to preferred replicas. */
export const LEADER_BALANCE_BATCH_MAX = 1000;

export interface ControllerStats {
  /** Leader elections committed, by kind. */
  readonly elections: Map<ElectionKind, number>;
  /** Brokers fenced because their heartbeat connection closed. */
  fastFences: number;
}

export interface ReplicationControlOptions {
  readonly image: () => MetadataImage;
  /** min.insync.replicas of topics without their own (default 1). */
  readonly minInSyncReplicasDefault?: number | undefined;
  /** unclean.leader.election.enable of topics without their own (default false). */
  readonly uncleanLeaderElectionDefault?: boolean | undefined;
  readonly onElections?: ((elections: readonly Election[]) => void) | undefined;
  /** The controller's append: null when committed, else the failure to answer. */
  readonly append: (records: readonly MetadataRecord[], changes: PartitionChanges) => Promise<{ errorCode: ErrorCode; errorMessage: string | null } | null>;
}

export class ReplicationControl {
  /** PartitionChanges of the request being planned; the next append reports their elections. */
  private pending: PartitionChanges[] = [];
  readonly stats: ControllerStats = { elections: new Map(), fastFences: 0 };

  constructor(private readonly opts: ReplicationControlOptions) {}

  /**
   * Election settings of a topic: its own min.insync.replicas and
   * unclean.leader.election.enable, else the cluster-wide dynamic broker
   * default (a broker ConfigRecord with an empty name), else the options'.
   */
  policy(): ElectionPolicy {
    const image = this.opts.image();
    const value = (topic: string, key: string): string | undefined => image.topicConfigs(topic).get(key) ?? image.configs(ConfigResourceType.Broker, '').get(key);
    return {
      minIsr: (topic) => {
        const v = Number(value(topic, 'min.insync.replicas'));
        return Number.isInteger(v) && v >= 1 ? v : (this.opts.minInSyncReplicasDefault ?? 1);
      },
      uncleanOk: (topic) => {
        const v = value(topic, 'unclean.leader.election.enable');
        return v === undefined ? (this.opts.uncleanLeaderElectionDefault ?? false) : v.toLowerCase() === 'true';
      },
    };
  }

  /** A PartitionChanges on the current image whose elections the next append reports. */
  changes(): PartitionChanges {
    const c = new PartitionChanges(this.opts.image(), this.policy());
    this.pending.push(c);
    return c;
  }

  /** Reports the elections of `c` with the next append (a plan built outside `changes()`). */
  adopt(c: PartitionChanges): void {
    if (!this.pending.includes(c)) this.pending.push(c);
  }

  /** A new request starts: nothing planned before it is pending any more. */
  forgetPending(): void {
    this.pending = [];
  }

  /** Tells `onElections` what the batch just committed decided (and forgets the pending changes either way). */
  reportElections(committed: boolean): void {
    const all = this.pending.flatMap((c) => c.elections);
    this.pending = [];
    if (!committed || all.length === 0) return;
    for (const e of all) this.stats.elections.set(e.kind, (this.stats.elections.get(e.kind) ?? 0) + 1);
    this.opts.onElections?.(all);
  }

  electLeaders(electionType: ElectionType, refs: readonly { topic: string; partitions: readonly number[] }[] | null): Promise<TopicResults[]> {
    const { results, changes } = planElectLeaders(this.opts.image(), this.policy(), electionType, refs);
    return this.commitResults(results, changes);
  }

  alterPartitionReassignments(targets: readonly ReassignmentTargets[]): Promise<TopicResults[]> {
    const { results, changes } = planReassignments(this.opts.image(), this.policy(), targets);
    return this.commitResults(results, changes);
  }

  /**
   * auto.leader.rebalance.enable (Kafka's leader-imbalance check): moves
   * leadership back to the preferred (first) replica of up to `batchMax`
   * partitions where it is an ISR member that may lead and does not lead, in
   * one batch. Resolves to the number of partitions moved; the caller runs it
   * every leader.imbalance.check.interval.seconds, and again at once while a
   * full batch was moved.
   */
  async balanceLeaders(batchMax: number): Promise<number> {
    const changes = this.changes();
    let moved = 0;
    for (const t of this.opts.image().topics()) {
      for (const p of t.partitions.values()) {
        if (moved >= batchMax) break;
        const preferred = p.replicas[0] as number;
        if (p.leader === preferred || !p.isr.includes(preferred) || !changes.mayLead(preferred)) continue;
        changes.setLeader(changes.work(t.topicId, p.partitionId) as PartitionWork, preferred, 'preferred');
        moved++;
      }
    }
    if (moved === 0) return 0;
    return (await this.opts.append(changes.records(), changes)) === null ? moved : 0;
  }

  /**
   * AlterPartition (56): validated and committed as alter-partition.ts says;
   * one PartitionChangeRecord per changed partition, all in one batch. A
   * failed append answers every item with its error (NOT_CONTROLLER when
   * this node lost leadership).
   */
  async alterPartition(req: AlterPartitionRequest): Promise<AlterPartitionReply> {
    const plan = planAlterPartition(this.opts.image(), this.policy(), req);
    if (plan.records.length === 0 || plan.changes === null) return plan.reply;
    const failure = await this.opts.append(plan.records, plan.changes);
    if (failure === null) return plan.reply;
    return {
      errorCode: ErrorCode.NONE,
      topics: plan.reply.topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => (p.errorCode === ErrorCode.NONE ? { ...p, errorCode: failure.errorCode } : p)) })),
    };
  }

  private async commitResults(results: TopicResults[], changes: PartitionChanges): Promise<TopicResults[]> {
    const records = changes.records();
    if (records.length === 0) return results;
    const failure = await this.opts.append(records, changes);
    if (failure === null) return results;
    return results.map((t) => ({ ...t, partitions: t.partitions.map((p) => (p.errorCode === ErrorCode.NONE ? { ...p, errorCode: failure.errorCode, errorMessage: failure.errorMessage } : p)) }));
  }
}
