/**
 * The active controller (for now the only one: a cluster of one node in
 * combined mode, docs/architecture.md). It turns admin requests into metadata
 * records: validate against the current image (plans.ts), append the records
 * as one atomic batch, answer per item with a Kafka error code.
 *
 * Requests run one at a time, in arrival order: each plan sees the image with
 * every earlier request applied (an append resolves only after its batch has
 * been applied to the image). The queue is bounded (CONTROLLER_QUEUE_MAX).
 *
 * It only talks to the MetadataLog interface: with Raft, an append on a node
 * that lost leadership fails with NOT_LEADER and the items answer
 * NOT_CONTROLLER, so clients retry against the new controller.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Clock } from '../util/clock.js';
import type { Random } from '../util/random.js';
import { legacyAlterToIncremental, planAlterConfigs, type ConfigPlanContext, type ConfigSchema } from './config-plan.js';
import { planDeleteTopics } from './delete-plan.js';
import type { AlterPartitionReply, AlterPartitionRequest } from './alter-partition.js';
import type { ElectionType, ReassignmentTargets, TopicResults } from './partition-admin.js';
import type { Election, ElectionPolicy, PartitionChanges } from './leadership.js';
import { BrokerLiveness } from './broker-liveness.js';
import { LEADER_BALANCE_BATCH_MAX, ReplicationControl, type ControllerStats } from './replication-control.js';
import { METADATA_BATCH_RECORDS_MAX } from './metadata/batch.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import { MetadataLogError, type MetadataLog } from './metadata-log.js';
import { planCreatePartitions, planCreateTopics, REPLICATION_FACTOR_MAX, type Plan, type PlanContext } from './plans.js';
import { INTERNAL_TOPICS } from './topic-names.js';
import { planCreateAcls, planDeleteAcls, type AclCreateResult, type AclDeleteResult } from './acl-plan.js';
import type { AclBinding, AclBindingFilter } from '../protocol/acl-types.js';
import { planAlterClientQuotas, type QuotaAlteration, type QuotaAlterResult } from './quota-plan.js';
import { planAlterScramCredentials, type ScramAlterResult, type ScramDeletion, type ScramUpsertion } from './scram-plan.js';
import type {
  AlterConfigsResource,
  AlterConfigsResult,
  BrokerConfigValidator,
  BrokerHeartbeatReply,
  BrokerHeartbeatRequest,
  BrokerRegistrationReply,
  BrokerRegistrationRequest,
  CreateTopicResult,
  DeleteTopicRef,
  DeleteTopicResult,
  ListenerEndpoint,
  NewPartitions,
  NewTopic,
  TopicConfigValidator,
  TopicErrorResult,
} from './types.js';

/** Requests waiting for the controller before new ones are refused. */
export const CONTROLLER_QUEUE_MAX = 1000;

/**
 * Feature levels the controller finalizes at boot (ApiVersions reports them as
 * finalized features). Level 1 of `metadata.version` is the first KRaft level
 * (Kafka's 3.0-IV1): we claim no later metadata feature until we implement it.
 */
export const DEFAULT_FEATURE_LEVELS: Readonly<Record<string, number>> = Object.freeze({ 'metadata.version': 1 });

/** broker.session.timeout.ms: a broker whose last heartbeat is older than this is fenced. */
export const BROKER_SESSION_TIMEOUT_MS_DEFAULT = 9000;


/** Producer ids per ProducerIdsRecord block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
const PRODUCER_ID_MAX = 0x7fffffffffffffffn;

export { LEADER_BALANCE_BATCH_MAX };

/** allocateProducerIds' answer: ids [firstProducerId, firstProducerId + size), or an error code. */
export interface ProducerIdBlock {
  errorCode: number;
  errorMessage: string | null;
  firstProducerId: bigint;
  size: number;
}

export type ControllerErrorCode = 'ERR_TRIB_CONTROLLER_BUSY' | 'ERR_TRIB_CONTROLLER_CLOSED';

export class ControllerError extends Error {
  constructor(
    readonly code: ControllerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ControllerError';
  }
}

export interface ControllerOptions {
  nodeId: number;
  log: MetadataLog;
  /** The image the MetadataPublisher keeps current from the log's commits. */
  image: MetadataImage;
  random: Random;
  /** num.partitions */
  numPartitionsDefault: number;
  /** default.replication.factor */
  replicationFactorDefault: number;
  /** Largest replication factor CreateTopics/CreatePartitions accept (brokers pass 1 until partition replication exists). Default: no limit but the wire's. */
  replicationFactorMax?: number | undefined;
  validateTopicConfigs: TopicConfigValidator;
  validateBrokerConfigs?: BrokerConfigValidator | null | undefined;
  /** Key types and inherited values for IncrementalAlterConfigs APPEND/SUBTRACT. */
  configSchema?: ConfigSchema | null | undefined;
  /** Topics DeleteTopics refuses (default: __consumer_offsets, __transaction_state). */
  protectedTopics?: ReadonlySet<string> | undefined;
  featureLevels?: Readonly<Record<string, number>> | undefined;
  /** Monotonic time for broker sessions (needed by brokerHeartbeat and tick). */
  clock?: Clock | undefined;
  /** broker.session.timeout.ms (default 9000). */
  brokerSessionTimeoutMs?: number | undefined;
  /** min.insync.replicas of topics without their own (default 1); decides the ELR (KIP-966). */
  minInSyncReplicasDefault?: number | undefined;
  /** unclean.leader.election.enable of topics without their own (default false). */
  uncleanLeaderElectionDefault?: boolean | undefined;
  /** Told about the leader elections every committed batch made (logs, metrics). */
  onElections?: ((elections: readonly Election[]) => void) | undefined;
}

interface ItemResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export class QuorumController {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private closed = false;

  constructor(private readonly opts: ControllerOptions) {
    this.replication = new ReplicationControl({
      image: () => this.opts.image,
      minInSyncReplicasDefault: opts.minInSyncReplicasDefault,
      uncleanLeaderElectionDefault: opts.uncleanLeaderElectionDefault,
      onElections: opts.onElections,
      append: (records, changes) => this.append(records, changes),
    });
    this.liveness = new BrokerLiveness({
      nodeId: opts.nodeId,
      log: opts.log,
      image: () => this.opts.image,
      random: opts.random,
      clock: opts.clock,
      sessionTimeoutMs: opts.brokerSessionTimeoutMs ?? BROKER_SESSION_TIMEOUT_MS_DEFAULT,
      stats: this.replication.stats,
      changes: () => this.replication.changes(),
      append: (records) => this.append(records),
      lastAppend: () => this.lastAppend,
      setLastAppend: (range) => {
        this.lastAppend = range;
      },
      reportElections: (committed) => this.replication.reportElections(committed),
    });
  }

  get image(): MetadataImage {
    return this.opts.image;
  }

  /** Partition leadership, ISR, ELR, elections and reassignments (replication-control.ts). */
  private readonly replication: ReplicationControl;
  /** Registrations, heartbeats, sessions, fencing (broker-liveness.ts). */
  private readonly liveness: BrokerLiveness;

  /** Counters of what this controller committed (metrics read them at scrape time). */
  get stats(): ControllerStats {
    return this.replication.stats;
  }

  /** Election settings of a topic (replication-control.ts). */
  get electionPolicy(): ElectionPolicy {
    return this.replication.policy();
  }

  private changes(): PartitionChanges {
    return this.replication.changes();
  }

  /** ElectLeaders (43): partition-admin.ts's rules; the changed partitions in one batch. */
  electLeaders(electionType: ElectionType, refs: readonly { topic: string; partitions: readonly number[] }[] | null): Promise<TopicResults[]> {
    return this.run(() => this.replication.electLeaders(electionType, refs));
  }

  /** AlterPartitionReassignments (45): partition-admin.ts's rules; the changed partitions in one batch. */
  alterPartitionReassignments(targets: readonly ReassignmentTargets[]): Promise<TopicResults[]> {
    return this.run(() => this.replication.alterPartitionReassignments(targets));
  }

  /** auto.leader.rebalance.enable: up to `batchMax` leaderships back to preferred replicas (replication-control.ts). */
  balanceLeaders(batchMax = LEADER_BALANCE_BATCH_MAX): Promise<number> {
    return this.run(() => this.replication.balanceLeaders(batchMax));
  }

  /** AlterPartition (56) from a partition leader (alter-partition.ts). */
  alterPartition(req: AlterPartitionRequest): Promise<AlterPartitionReply> {
    return this.run(() => this.replication.alterPartition(req));
  }

  createTopics(topics: readonly NewTopic[], options: { validateOnly: boolean }): Promise<CreateTopicResult[]> {
    return this.run(async () => {
      const plan = planCreateTopics(this.planContext(), topics, options.validateOnly);
      return this.commit(plan, (r) => ({ ...r, topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: [] }));
    });
  }

  deleteTopics(refs: readonly DeleteTopicRef[]): Promise<DeleteTopicResult[]> {
    return this.run(async () => {
      const plan = planDeleteTopics({ image: this.image, protectedTopics: this.opts.protectedTopics ?? INTERNAL_TOPICS }, refs);
      return this.commit(plan, (r) => r);
    });
  }

  createPartitions(specs: readonly NewPartitions[], options: { validateOnly: boolean }): Promise<TopicErrorResult[]> {
    return this.run(async () => this.commit(planCreatePartitions(this.planContext(), specs, options.validateOnly), (r) => r));
  }

  /** IncrementalAlterConfigs (plumbing: topic configs validated; broker configs need a validator). */
  incrementalAlterConfigs(resources: readonly AlterConfigsResource[], options: { validateOnly: boolean }): Promise<AlterConfigsResult[]> {
    return this.run(async () => {
      const plan = planAlterConfigs(this.configPlanContext(), resources, options.validateOnly);
      return this.commit(plan, (r) => r);
    });
  }

  /**
   * AlterConfigs (legacy): each resource's explicit configs become exactly
   * the given set; validated and written like incrementalAlterConfigs.
   */
  alterConfigs(
    resources: readonly { resourceType: number; resourceName: string; configs: readonly { name: string; value: string | null }[] }[],
    options: { validateOnly: boolean },
  ): Promise<AlterConfigsResult[]> {
    return this.run(async () => {
      const plan = planAlterConfigs(this.configPlanContext(), legacyAlterToIncremental(this.image, resources), options.validateOnly);
      return this.commit(plan, (r) => r);
    });
  }

  /** AlterUserScramCredentials (51): scram-plan.ts's rules; every user's changes in one batch. */
  alterUserScramCredentials(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Promise<ScramAlterResult[]> {
    return this.run(async () => this.commit(planAlterScramCredentials(this.image, deletions, upsertions), (r) => r));
  }

  /** CreateAcls (30): acl-plan.ts's rules; the new ACLs in one batch. */
  createAcls(bindings: readonly AclBinding[]): Promise<AclCreateResult[]> {
    return this.run(async () => this.commit(planCreateAcls(this.image, this.opts.random, bindings), (r) => r));
  }

  /** DeleteAcls (31): every ACL a filter matches, removed in one batch. */
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]> {
    return this.run(async () => this.commit(planDeleteAcls(this.image, filters), (r) => ({ ...r, matchingAcls: [] })));
  }

  /** AlterClientQuotas (49): quota-plan.ts's rules; every valid entry's records in one batch. */
  alterClientQuotas(alterations: readonly QuotaAlteration[], options: { validateOnly: boolean }): Promise<QuotaAlterResult[]> {
    return this.run(async () => this.commit(planAlterClientQuotas(this.image, alterations, options.validateOnly), (r) => r));
  }

  private configPlanContext(): ConfigPlanContext {
    return {
      image: this.image,
      validateTopicConfigs: this.opts.validateTopicConfigs,
      validateBrokerConfigs: this.opts.validateBrokerConfigs ?? null,
      schema: this.opts.configSchema ?? null,
    };
  }

  /**
   * BrokerRegistration (broker-liveness.ts). With a `brokerId`: the network
   * path, the broker starts fenced; without: this combined single node
   * registers itself unfenced. A failed append of the local path rejects.
   */
  registerBroker(registration: BrokerRegistrationRequest | { endpoints: readonly ListenerEndpoint[]; rack: string | null }): Promise<BrokerRegistrationReply> {
    return this.run(() => ('brokerId' in registration ? this.liveness.registerRemote(registration) : this.liveness.registerLocal(registration)));
  }

  /** BrokerHeartbeat (broker-liveness.ts): sessions, unfencing, controlled shutdown. */
  brokerHeartbeat(req: BrokerHeartbeatRequest): Promise<BrokerHeartbeatReply> {
    return this.run(() => this.liveness.heartbeat(req));
  }

  /** Fences the brokers whose session expired, in one batch; resolves to how many (0 when not the active controller). */
  tick(): Promise<number> {
    return this.run(() => this.liveness.tick());
  }

  /** Fences broker `brokerId` (registration `brokerEpoch`) at once: its heartbeat connection closed (broker-liveness.ts). */
  fenceBrokerNow(brokerId: number, brokerEpoch: bigint): Promise<boolean> {
    return this.run(() => this.liveness.fenceNow(brokerId, brokerEpoch));
  }

  /** This node became the active controller: every broker starts a fresh session (KRaft keeps them in memory only). */
  becomeActive(): void {
    this.liveness.becomeActive();
  }

  /** The last successful append of this controller (for registration and shutdown offsets). */
  private lastAppend: { baseOffset: bigint; lastOffset: bigint } | null = null;

  /** Appends one batch; null when committed, else the item failure to answer (NOT_CONTROLLER, UNKNOWN_SERVER_ERROR). */
  private async append(records: readonly MetadataRecord[], changes?: PartitionChanges | null): Promise<ItemResult | null> {
    if (changes != null) this.replication.adopt(changes);
    try {
      this.lastAppend = await this.opts.log.append(records);
      this.replication.reportElections(true);
      return null;
    } catch (err) {
      this.replication.reportElections(false);
      if (!(err instanceof MetadataLogError)) throw err;
      return appendFailure(err);
    }
  }

  /**
   * Hands broker `brokerId` the next block of PRODUCER_ID_BLOCK_SIZE producer
   * ids (Kafka's AllocateProducerIds): appends a ProducerIdsRecord moving the
   * next id past the block, so no id is ever given twice, across restarts
   * too. Runs in the request queue, so concurrent calls get distinct blocks.
   */
  allocateProducerIds(brokerId: number, brokerEpoch: bigint): Promise<ProducerIdBlock> {
    return this.run(async () => {
      const first = this.image.nextProducerId;
      const none = { firstProducerId: -1n, size: 0 };
      if (first > PRODUCER_ID_MAX - BigInt(PRODUCER_ID_BLOCK_SIZE)) {
        return { ...none, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'The producer id space is exhausted.' };
      }
      const failure = await this.append([{ type: 'ProducerIdsRecord', data: { brokerId, brokerEpoch, nextProducerId: first + BigInt(PRODUCER_ID_BLOCK_SIZE) } }]);
      if (failure !== null) return { ...none, errorCode: failure.errorCode, errorMessage: failure.errorMessage };
      return { errorCode: ErrorCode.NONE, errorMessage: null, firstProducerId: first, size: PRODUCER_ID_BLOCK_SIZE };
    });
  }

  /** Writes FeatureLevelRecords for the configured features whose finalized level differs. */
  finalizeFeatures(): Promise<void> {
    return this.run(async () => {
      const records: MetadataRecord[] = [];
      for (const [name, featureLevel] of Object.entries(this.opts.featureLevels ?? DEFAULT_FEATURE_LEVELS)) {
        if ((this.image.featureLevel(name) ?? 0) !== featureLevel) records.push({ type: 'FeatureLevelRecord', data: { name, featureLevel } });
      }
      if (records.length > 0) await this.opts.log.append(records);
    });
  }

  /** Refuses new requests; waits for the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    await this.tail.catch(() => undefined);
  }

  private planContext(): PlanContext {
    return {
      image: this.image,
      random: this.opts.random,
      numPartitionsDefault: this.opts.numPartitionsDefault,
      replicationFactorDefault: this.opts.replicationFactorDefault,
      replicationFactorMax: this.opts.replicationFactorMax ?? REPLICATION_FACTOR_MAX,
      validateTopicConfigs: this.opts.validateTopicConfigs,
    };
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ControllerError('ERR_TRIB_CONTROLLER_CLOSED', 'the controller is shut down'));
    if (this.queued >= CONTROLLER_QUEUE_MAX) {
      return Promise.reject(new ControllerError('ERR_TRIB_CONTROLLER_BUSY', `${CONTROLLER_QUEUE_MAX} controller requests are already waiting`));
    }
    this.queued++;
    const next = this.tail
      .then(() => {
        this.replication.forgetPending();
        return op();
      })
      .finally(() => {
      this.queued--;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * Appends the plan's records (one batch). When the append fails, the items
   * that had succeeded get the failure instead: NOT_CONTROLLER when this
   * node is not the leader (retriable), else UNKNOWN_SERVER_ERROR.
   */
  private async commit<R extends ItemResult>(plan: Plan<R>, onFailure: (r: R) => R): Promise<R[]> {
    if (plan.records.length === 0) return plan.results;
    let failure: ItemResult | null = null;
    if (plan.records.length > METADATA_BATCH_RECORDS_MAX) {
      failure = { errorCode: ErrorCode.POLICY_VIOLATION, errorMessage: `The request needs ${plan.records.length} metadata records; at most ${METADATA_BATCH_RECORDS_MAX} fit one change.` };
    } else {
      failure = await this.append(plan.records);
    }
    if (failure === null) return plan.results;
    const f = failure;
    return plan.results.map((r) => (r.errorCode === ErrorCode.NONE ? { ...onFailure(r), errorCode: f.errorCode, errorMessage: f.errorMessage } : r));
  }
}

function appendFailure(err: MetadataLogError): ItemResult {
  return err.code === 'ERR_TRIB_METADATA_NOT_LEADER'
    ? { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'This node is no longer the active controller.' }
    : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `The metadata log could not commit the change: ${err.message}` };
}
