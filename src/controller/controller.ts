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
import { planAlterPartition, type AlterPartitionReply, type AlterPartitionRequest } from './alter-partition.js';
import { ledPartitionCount, PartitionChanges, type Election, type ElectionPolicy } from './leadership.js';
import { METADATA_BATCH_RECORDS_MAX } from './metadata/batch.js';
import type { EndPoint, MetadataImage } from './metadata/image.js';
import { ConfigResourceType, type MetadataRecord } from './metadata/records.js';
import { MetadataLogError, type MetadataLog } from './metadata-log.js';
import { planCreatePartitions, planCreateTopics, REPLICATION_FACTOR_MAX, type Plan, type PlanContext } from './plans.js';
import { INTERNAL_TOPICS } from './topic-names.js';
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
import { randomUuid } from './uuid.js';

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

/** Kafka's SecurityProtocol ids. */
const SECURITY_PROTOCOLS: Readonly<Record<string, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

/** Producer ids per ProducerIdsRecord block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
const PRODUCER_ID_MAX = 0x7fffffffffffffffn;

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

/**
 * Heartbeat bookkeeping of one broker, in memory on the active controller only
 * (as KRaft): a new active controller starts every broker with a fresh session.
 */
interface BrokerSession {
  lastContactMs: number;
  /** Offset of the broker's RegisterBrokerRecord, when this controller wrote it (else its epoch is used). */
  registrationOffset: bigint | null;
  /** Controlled shutdown: offset the broker must have applied (its leaderships moved) before it may stop. */
  shutdownOffset: bigint | null;
  /** Registered by the combined single node itself (no heartbeats yet): never expires. */
  local: boolean;
}

interface ItemResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export class QuorumController {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private closed = false;
  private readonly sessions = new Map<number, BrokerSession>();

  constructor(private readonly opts: ControllerOptions) {}

  get image(): MetadataImage {
    return this.opts.image;
  }

  /**
   * Election settings of a topic: its own min.insync.replicas and
   * unclean.leader.election.enable, else the cluster-wide dynamic broker
   * default (a broker ConfigRecord with an empty name), else the options'.
   */
  get electionPolicy(): ElectionPolicy {
    const image = this.image;
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

  /** PartitionChanges of the request being planned; the next append reports their elections. */
  private pendingChanges: PartitionChanges[] = [];

  private changes(): PartitionChanges {
    const c = new PartitionChanges(this.image, this.electionPolicy);
    this.pendingChanges.push(c);
    return c;
  }

  /** Tells `onElections` what the batch just committed decided (and forgets the pending changes either way). */
  private reportElections(committed: boolean): void {
    const all = this.pendingChanges.flatMap((c) => c.elections);
    this.pendingChanges = [];
    if (committed && all.length > 0) this.opts.onElections?.(all);
  }

  /**
   * AlterPartition (56) from a partition leader: validated and committed as
   * alter-partition.ts says; one PartitionChangeRecord per changed partition,
   * all in one batch. A failed append answers every item with its error
   * (NOT_CONTROLLER when this node lost leadership).
   */
  alterPartition(req: AlterPartitionRequest): Promise<AlterPartitionReply> {
    return this.run(async () => {
      const plan = planAlterPartition(this.image, this.electionPolicy, req);
      if (plan.records.length === 0) return plan.reply;
      const failure = await this.append(plan.records, plan.changes);
      if (failure === null) return plan.reply;
      return {
        errorCode: ErrorCode.NONE,
        topics: plan.reply.topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => (p.errorCode === ErrorCode.NONE ? { ...p, errorCode: failure.errorCode } : p)) })),
      };
    });
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

  private configPlanContext(): ConfigPlanContext {
    return {
      image: this.image,
      validateTopicConfigs: this.opts.validateTopicConfigs,
      validateBrokerConfigs: this.opts.validateBrokerConfigs ?? null,
      schema: this.opts.configSchema ?? null,
    };
  }

  /**
   * BrokerRegistration. With a `brokerId` (KRaft's contract, the network
   * path): the broker starts fenced with a broker epoch = the offset of its
   * RegisterBrokerRecord; the same incarnation id again is a retry and gets
   * the same epoch; a new incarnation replaces the registration (leadership of
   * the old incarnation's partitions moves away in the same batch).
   *
   * Without `brokerId`: this node (the combined single node) registers itself
   * unfenced, a no-op when the image already has the same registration, so
   * restarts do not grow the log; its session never expires (it does not
   * heartbeat). A failed append rejects with the MetadataLogError.
   */
  registerBroker(registration: BrokerRegistrationRequest | { endpoints: readonly ListenerEndpoint[]; rack: string | null }): Promise<BrokerRegistrationReply> {
    if ('brokerId' in registration) return this.run(async () => this.registerRemote(registration));
    return this.run(async () => {
      const endPoints = registration.endpoints.map(toEndPoint);
      const nodeId = this.opts.nodeId;
      const current = this.image.broker(nodeId);
      const session = (): void => {
        this.sessions.set(nodeId, { lastContactMs: this.opts.clock?.monotonicMs() ?? 0, registrationOffset: null, shutdownOffset: null, local: true });
      };
      if (current !== undefined && !current.fenced && !current.inControlledShutdown && current.rack === registration.rack && sameEndPoints(current.endPoints, endPoints)) {
        session();
        return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch: current.brokerEpoch };
      }
      const brokerEpoch = this.opts.log.endOffset;
      const record: MetadataRecord = {
        type: 'RegisterBrokerRecord',
        data: { brokerId: nodeId, incarnationId: randomUuid(this.opts.random), brokerEpoch, endPoints, features: [], rack: registration.rack, fenced: false, inControlledShutdown: false },
      };
      // The new registration is unfenced at once: leaderless partitions of this node get it back.
      const changes = this.changes();
      changes.addBroker(nodeId);
      // Failures throw MetadataLogError (this runs at boot, where a failure stops the start).
      let committed = false;
      try {
        this.lastAppend = await this.opts.log.append([record, ...changes.records()]);
        committed = true;
      } finally {
        this.reportElections(committed);
      }
      session();
      return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch };
    });
  }

  private async registerRemote(req: BrokerRegistrationRequest): Promise<BrokerRegistrationReply> {
    const failed = (errorCode: ErrorCode, errorMessage: string): BrokerRegistrationReply => ({ errorCode, errorMessage, brokerEpoch: -1n });
    if (!Number.isInteger(req.brokerId) || req.brokerId < 0) return failed(ErrorCode.INVALID_REQUEST, `Invalid broker id ${req.brokerId}.`);
    const current = this.image.broker(req.brokerId);
    const nowMs = this.sessionNowMs();
    if (current !== undefined && current.incarnationId === req.incarnationId) {
      // A retry of a registration that committed (its answer was lost).
      this.touch(req.brokerId, nowMs);
      return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch: current.brokerEpoch };
    }
    const brokerEpoch = this.opts.log.endOffset;
    const records: MetadataRecord[] = [
      {
        type: 'RegisterBrokerRecord',
        data: {
          brokerId: req.brokerId,
          incarnationId: req.incarnationId,
          brokerEpoch,
          endPoints: req.endpoints.map(toEndPoint),
          features: (req.features ?? []).map((f) => ({ ...f })),
          rack: req.rack,
          fenced: true,
          inControlledShutdown: false,
        },
      },
    ];
    if (current !== undefined) {
      // The old incarnation is gone: its leaderships move now, not after its session expires.
      // KIP-966: unless it names the epoch it had as the one of its last clean shutdown, it may
      // have lost unflushed records, so it also leaves every ISR and ELR it was in.
      const unclean = (req.previousBrokerEpoch ?? -1n) !== current.brokerEpoch;
      const changes = this.changes();
      changes.removeBroker(req.brokerId, { unclean });
      records.push(...changes.records());
    }
    const result = await this.append(records);
    if (result !== null) return failed(result.errorCode, result.errorMessage ?? '');
    this.sessions.set(req.brokerId, { lastContactMs: nowMs, registrationOffset: this.lastAppend?.baseOffset ?? brokerEpoch, shutdownOffset: null, local: false });
    return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch };
  }

  /**
   * BrokerHeartbeat (KRaft's BrokerHeartbeatManager): renews the session;
   * a fenced broker is unfenced once it has applied the metadata up to its
   * own registration (and does not ask to stay fenced); `wantFence` fences;
   * `wantShutDown` starts a controlled shutdown: leadership of its partitions
   * moves to another in-sync replica (or to none), and once the broker has
   * applied that change and leads nothing, it is fenced and told to shut down.
   */
  brokerHeartbeat(req: BrokerHeartbeatRequest): Promise<BrokerHeartbeatReply> {
    return this.run(async () => {
      const reply = (errorCode: ErrorCode, errorMessage: string | null, isCaughtUp: boolean, isFenced: boolean, shouldShutDown: boolean): BrokerHeartbeatReply => ({
        errorCode,
        errorMessage,
        isCaughtUp,
        isFenced,
        shouldShutDown,
      });
      const current = this.image.broker(req.brokerId);
      if (current === undefined) return reply(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ${req.brokerId} is not registered.`, false, true, false);
      if (current.brokerEpoch !== req.brokerEpoch) {
        return reply(ErrorCode.STALE_BROKER_EPOCH, `Broker ${req.brokerId} is registered with epoch ${current.brokerEpoch}, not ${req.brokerEpoch}.`, false, true, false);
      }
      const session = this.touch(req.brokerId, this.sessionNowMs());
      const isCaughtUp = req.currentMetadataOffset >= (session.registrationOffset ?? current.brokerEpoch);
      const epoch = current.brokerEpoch;
      if (current.fenced) {
        // A broker whose controlled shutdown completed stays fenced until it registers again.
        if (req.wantShutDown || current.inControlledShutdown) return reply(ErrorCode.NONE, null, isCaughtUp, true, true);
        if (req.wantFence || !isCaughtUp) return reply(ErrorCode.NONE, null, isCaughtUp, true, false);
        const changes = this.changes();
        changes.addBroker(req.brokerId);
        const failure = await this.append([{ type: 'UnfenceBrokerRecord', data: { id: req.brokerId, epoch } }, ...changes.records()]);
        if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, true, false);
        return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
      }
      if (req.wantFence) {
        const failure = await this.append(this.fenceRecords([req.brokerId]));
        if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
        return reply(ErrorCode.NONE, null, isCaughtUp, true, req.wantShutDown);
      }
      if (!req.wantShutDown) return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
      if (!current.inControlledShutdown) {
        const changes = this.changes();
        changes.removeBroker(req.brokerId);
        const failure = await this.append([
          { type: 'BrokerRegistrationChangeRecord', data: { brokerId: req.brokerId, brokerEpoch: epoch, fenced: 0, inControlledShutdown: 1 } },
          ...changes.records(),
        ]);
        if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
        session.shutdownOffset = this.lastAppend?.lastOffset ?? this.image.lastAppliedOffset;
      }
      // A new active controller did not see the moves being written: the broker must reach what it knows now.
      session.shutdownOffset ??= this.image.lastAppliedOffset;
      if (ledPartitionCount(this.image, req.brokerId) > 0 || req.currentMetadataOffset < session.shutdownOffset) return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
      const failure = await this.append(this.fenceRecords([req.brokerId]));
      if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
      return reply(ErrorCode.NONE, null, isCaughtUp, true, true);
    });
  }

  /**
   * Fences every unfenced broker whose last heartbeat is older than
   * broker.session.timeout.ms (moving its leaderships away), in one batch.
   * A broker this controller has no session for (it just became active)
   * gets a fresh one. Resolves to the number of brokers fenced (0 when this
   * node is not the active controller).
   */
  tick(): Promise<number> {
    return this.run(async () => {
      const nowMs = this.sessionNowMs();
      const timeoutMs = this.opts.brokerSessionTimeoutMs ?? BROKER_SESSION_TIMEOUT_MS_DEFAULT;
      const expired: number[] = [];
      for (const b of this.image.brokers()) {
        if (b.fenced) continue;
        const session = this.sessions.get(b.brokerId) ?? this.touch(b.brokerId, nowMs);
        if (!session.local && nowMs - session.lastContactMs >= timeoutMs) expired.push(b.brokerId);
      }
      if (expired.length === 0) return 0;
      const failure = await this.append(this.fenceRecords(expired));
      return failure === null ? expired.length : 0;
    });
  }

  /**
   * Fences broker `brokerId` at once, without waiting for its session to
   * expire: the active controller saw the connection its heartbeats came on
   * closed or reset by the broker's side, which a live broker never does
   * (its process died; a paused one keeps the connection and still goes by
   * the session timeout). Only the registration `brokerEpoch` is fenced, and
   * only when unfenced; its leaderships move as on a session expiry. A
   * broker that is in fact alive heartbeats again and is unfenced as usual.
   * Resolves true when a fence was committed.
   */
  fenceBrokerNow(brokerId: number, brokerEpoch: bigint): Promise<boolean> {
    return this.run(async () => {
      const b = this.image.broker(brokerId);
      if (b === undefined || b.brokerEpoch !== brokerEpoch || b.fenced || this.sessions.get(brokerId)?.local === true) return false;
      return (await this.append(this.fenceRecords([brokerId]))) === null;
    });
  }

  /** This node became the active controller: every broker starts a fresh session (KRaft keeps them in memory only). */
  becomeActive(): void {
    const nowMs = this.sessionNowMs();
    for (const [id, s] of this.sessions) this.sessions.set(id, { ...s, lastContactMs: nowMs, registrationOffset: null, shutdownOffset: null });
  }

  private fenceRecords(brokerIds: readonly number[]): MetadataRecord[] {
    const changes = this.changes();
    for (const id of brokerIds) changes.removeBroker(id);
    const fences: MetadataRecord[] = [];
    for (const id of brokerIds) {
      const b = this.image.broker(id);
      if (b !== undefined && !b.fenced) fences.push({ type: 'FenceBrokerRecord', data: { id, epoch: b.brokerEpoch } });
    }
    return [...changes.records(), ...fences];
  }

  private touch(brokerId: number, nowMs: number): BrokerSession {
    let s = this.sessions.get(brokerId);
    if (s === undefined) {
      s = { lastContactMs: nowMs, registrationOffset: null, shutdownOffset: null, local: false };
      this.sessions.set(brokerId, s);
    } else {
      s.lastContactMs = Math.max(s.lastContactMs, nowMs);
    }
    return s;
  }

  private sessionNowMs(): number {
    const clock = this.opts.clock;
    if (clock === undefined) throw new Error('QuorumController: broker sessions need the `clock` option');
    return clock.monotonicMs();
  }

  /** The last successful append of this controller (for registration and shutdown offsets). */
  private lastAppend: { baseOffset: bigint; lastOffset: bigint } | null = null;

  /** Appends one batch; null when committed, else the item failure to answer (NOT_CONTROLLER, UNKNOWN_SERVER_ERROR). */
  private async append(records: readonly MetadataRecord[], changes?: PartitionChanges | null): Promise<ItemResult | null> {
    if (changes != null && !this.pendingChanges.includes(changes)) this.pendingChanges.push(changes);
    try {
      this.lastAppend = await this.opts.log.append(records);
      this.reportElections(true);
      return null;
    } catch (err) {
      this.reportElections(false);
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
        this.pendingChanges = [];
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

function toEndPoint(e: ListenerEndpoint): EndPoint {
  const protocol = e.securityProtocol;
  const securityProtocol = typeof protocol === 'number' ? protocol : SECURITY_PROTOCOLS[(protocol ?? e.name).toUpperCase()] ?? 0;
  return { name: e.name, host: e.host, port: e.port, securityProtocol };
}

function sameEndPoints(a: readonly EndPoint[], b: readonly EndPoint[]): boolean {
  return a.length === b.length && a.every((e, i) => {
    const o = b[i];
    return o !== undefined && e.name === o.name && e.host === o.host && e.port === o.port && e.securityProtocol === o.securityProtocol;
  });
}
