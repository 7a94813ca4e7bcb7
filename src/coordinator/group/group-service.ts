/**
 * Consumer groups on a broker: owns the GroupCoordinator (the pure state
 * machine) and wires it to time, to the __consumer_offsets topic through the
 * coordinator runtime (OffsetsTopicStore writes; loadOffsetsPartition when a
 * partition's leadership arrives here, unload when it leaves), and to
 * FindCoordinator.
 *
 * Which node coordinates a group: the leader of __consumer_offsets partition
 * `partitionForGroup(groupId, offsets.topic.num.partitions)`. While that
 * partition is loading, requests for its groups answer
 * COORDINATOR_LOAD_IN_PROGRESS (errorWhileLoading has Kafka's exceptions);
 * when it is not led here, NOT_COORDINATOR.
 */
import { secureRandomUuidString } from '../../util/secure-random.js';
import type { Logger } from 'pino';
import type { Clock } from '../../util/clock.js';
import { systemTimers, type Timers } from '../../util/timer.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';
import { CoordinatorRuntime } from '../runtime/coordinator-runtime.js';
import { GroupCoordinator } from './coordinator.js';
import { errorWhileLoading, type GroupApi } from './request-rules.js';
import { loadOffsetsPartition, OffsetsTopicStore, offsetsTopicConfigs, OFFSETS_TOPIC_NAME, partitionForGroup, type OffsetsLoadResult } from './offsets-topic/index.js';
import type { GroupCoordinatorConfig } from './types.js';

export interface GroupSettings {
  /** offsets.topic.num.partitions */
  readonly offsetsTopicNumPartitions: number;
  /** offsets.topic.replication.factor (capped by the live brokers) */
  readonly offsetsTopicReplicationFactor: number;
  /** offsets.topic.segment.bytes */
  readonly offsetsTopicSegmentBytes: number;
  /** offsets.retention.check.interval.ms */
  readonly offsetsRetentionCheckIntervalMs: number;
  /** offsets.commit.timeout.ms: how long a write waits for the in-sync replicas. */
  readonly offsetsCommitTimeoutMs?: number;
  readonly coordinator: GroupCoordinatorConfig;
}

export interface CoordinatorLocation {
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
}

/**
 * What the group service needs of the cluster metadata (the broker's
 * MetadataService provides it): where __consumer_offsets partitions lead,
 * the brokers' endpoints, and creating the topic on first use.
 */
export interface OffsetsTopicMetadata {
  topicExists(name: string): boolean;
  topic(name: string): { readonly partitions: readonly { readonly partition: number; readonly leader: number }[] } | undefined;
  brokers(listenerName: string): { nodeId: number; host: string; port: number }[];
  createTopics(
    topics: readonly {
      name: string;
      numPartitions: number;
      replicationFactor: number;
      assignments: readonly { partitionIndex: number; brokerIds: readonly number[] }[];
      configs: readonly { name: string; value: string | null }[];
    }[],
    validateOnly: boolean,
  ): Promise<readonly { errorCode: number; errorMessage: string | null }[]>;
}

/** Kafka's offsets.commit.timeout.ms default. */
export const OFFSETS_COMMIT_TIMEOUT_MS_DEFAULT = 5000;

const NOT_FOUND: Omit<CoordinatorLocation, 'errorCode' | 'errorMessage'> = { nodeId: -1, host: '', port: -1 };

export class GroupService {
  readonly coordinator: GroupCoordinator;
  private readonly runtime: CoordinatorRuntime<OffsetsLoadResult>;
  private creatingTopic: Promise<void> | null = null;
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: GroupSettings,
    private readonly metadata: OffsetsTopicMetadata,
    replicaManager: ReplicaManager,
    clock: Clock,
    private readonly logger: Logger,
    timers: Timers = systemTimers,
  ) {
    this.runtime = new CoordinatorRuntime({
      topic: OFFSETS_TOPIC_NAME,
      numPartitions: settings.offsetsTopicNumPartitions,
      replicaManager,
      writeTimeoutMs: settings.offsetsCommitTimeoutMs ?? OFFSETS_COMMIT_TIMEOUT_MS_DEFAULT,
      logger,
      shards: {
        load: async (p) => {
          const started = clock.monotonicMs();
          const state = await loadOffsetsPartition(p);
          logger.info(
            { partition: p.partition, groups: state.groups.length, ms: Math.round(clock.monotonicMs() - started), stats: state.stats },
            'loaded __consumer_offsets partition',
          );
          return state;
        },
        activate: (_n, state) => this.coordinator.loadPartition(state),
        deactivate: (n) => this.coordinator.unloadGroups((groupId) => this.partitionFor(groupId) === n),
      },
    });
    // A COMMIT/ABORT marker written here on __consumer_offsets completes the pending TxnOffsetCommits there.
    replicaManager.txnMarkers.onTransactionCompleted((e) => {
      if (e.topic === OFFSETS_TOPIC_NAME) this.onTransactionMarker(e.partition, e.producerId, e.commit);
    });
    const store = new OffsetsTopicStore({ numPartitions: settings.offsetsTopicNumPartitions, writer: this.runtime, clock });
    this.coordinator = new GroupCoordinator({
      clock,
      timers,
      persistence: store,
      config: settings.coordinator,
      newMemberId: (clientId) => `${clientId}-${secureRandomUuidString()}`,
      log: (fields, message) => logger.info(fields, message),
    });
  }

  /** offsets.topic.num.partitions (AddOffsetsToTxn computes the group's partition with it). */
  get numPartitions(): number {
    return this.settings.offsetsTopicNumPartitions;
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.settings.offsetsTopicNumPartitions);
  }

  /** NONE when this node may serve `api` for the group now, else the code to answer. */
  check(groupId: string, api: GroupApi): number {
    switch (this.runtime.status(this.partitionFor(groupId))) {
      case 'not_coordinator':
        return ErrorCode.NOT_COORDINATOR;
      case 'loading':
        return errorWhileLoading(api);
      case 'loaded':
        return ErrorCode.NONE;
    }
  }

  /**
   * A transaction marker was written to __consumer_offsets partition
   * `partition` (WriteTxnMarkers): the pending TxnOffsetCommits of
   * `producerId` in that partition's groups apply (COMMIT) or go (ABORT).
   */
  onTransactionMarker(partition: number, producerId: bigint, committed: boolean): number {
    return this.coordinator.completeTransaction(producerId, committed, (groupId) => this.partitionFor(groupId) === partition);
  }

  /** True while any __consumer_offsets partition led here is still loading. */
  loadInProgress(): boolean {
    return this.runtime.loadInProgress;
  }

  /** FindCoordinator for one key: creates __consumer_offsets on first use. */
  async findGroupCoordinator(groupId: string, listenerName: string): Promise<CoordinatorLocation> {
    if (!this.metadata.topicExists(OFFSETS_TOPIC_NAME)) {
      const created = await this.createOffsetsTopic();
      if (created !== null) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: created, ...NOT_FOUND };
    }
    const topic = this.metadata.topic(OFFSETS_TOPIC_NAME);
    const partition = topic?.partitions.find((p) => p.partition === this.partitionFor(groupId));
    const leader = partition && partition.leader >= 0 ? this.metadata.brokers(listenerName).find((b) => b.nodeId === partition.leader) : undefined;
    if (!leader) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'the group coordinator has no leader yet', ...NOT_FOUND };
    return { errorCode: ErrorCode.NONE, errorMessage: null, nodeId: leader.nodeId, host: leader.host, port: leader.port };
  }

  /** Creates the offsets topic once (concurrent callers share the attempt); null on success. */
  private async createOffsetsTopic(): Promise<string | null> {
    this.creatingTopic ??= (async () => {
      const brokers = this.metadata.brokers('').length || 1;
      const [result] = await this.metadata.createTopics(
        [
          {
            name: OFFSETS_TOPIC_NAME,
            numPartitions: this.settings.offsetsTopicNumPartitions,
            replicationFactor: Math.min(this.settings.offsetsTopicReplicationFactor, brokers),
            assignments: [],
            configs: offsetsTopicConfigs(this.settings.offsetsTopicSegmentBytes),
          },
        ],
        false,
      );
      if (result && result.errorCode !== ErrorCode.NONE && result.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) {
        throw new Error(result.errorMessage ?? `error ${result.errorCode}`);
      }
      this.logger.info({ partitions: this.settings.offsetsTopicNumPartitions }, 'created __consumer_offsets');
    })().finally(() => {
      this.creatingTopic = null;
    });
    try {
      await this.creatingTopic;
      return null;
    } catch (err) {
      this.logger.error({ err, topic: OFFSETS_TOPIC_NAME }, 'could not create __consumer_offsets');
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** Loads every hosted __consumer_offsets partition led here (start-up); later leadership changes load and unload by themselves. */
  loadHostedPartitions(): void {
    this.runtime.loadHosted();
  }

  /** Starts the periodic offset expiry (offsets.retention.minutes). */
  start(): void {
    this.expiryTimer = setInterval(() => {
      this.coordinator.expireOffsets().then(
        (report) => {
          if (report.groupsRemoved.length > 0 || report.offsetsRemoved.size > 0) {
            this.logger.info({ groupsRemoved: report.groupsRemoved, offsetGroups: [...report.offsetsRemoved.keys()] }, 'expired committed offsets');
          }
        },
        (err: unknown) => this.logger.warn({ err }, 'offset expiry failed; will retry'),
      );
    }, this.settings.offsetsRetentionCheckIntervalMs);
    this.expiryTimer.unref();
  }

  stop(): void {
    this.runtime.stop();
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.coordinator.shutdown();
  }
}
