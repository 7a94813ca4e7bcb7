/**
 * The broker side of consumer groups: owns the GroupCoordinator (the pure
 * state machine) and wires it to real time, to the __consumer_offsets topic
 * (OffsetsTopicStore writes, loadOffsetsPartition at start-up and when a
 * partition's leadership arrives here), and to FindCoordinator.
 *
 * Which node coordinates a group: the leader of __consumer_offsets partition
 * `partitionForGroup(groupId, offsets.topic.num.partitions)`. While that
 * partition is loading, requests for its groups answer
 * COORDINATOR_LOAD_IN_PROGRESS (errorWhileLoading has Kafka's exceptions);
 * when it is not led here, NOT_COORDINATOR.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../util/clock.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Partition } from '../../replication/partition.js';
import type { MetadataService } from '../metadata-service.js';
import type { ReplicaManager } from '../replica-manager.js';
import { GroupCoordinator } from './coordinator.js';
import { errorWhileLoading, type GroupApi } from './coordinator-types.js';
import { loadOffsetsPartition, OffsetsTopicStore, offsetsTopicConfigs, OFFSETS_TOPIC_NAME, partitionForGroup } from './offsets-topic/index.js';
import type { GroupCoordinatorConfig, TimerHandle, Timers } from './types.js';

export interface GroupSettings {
  /** offsets.topic.num.partitions */
  readonly offsetsTopicNumPartitions: number;
  /** offsets.topic.replication.factor (capped by the live brokers) */
  readonly offsetsTopicReplicationFactor: number;
  /** offsets.topic.segment.bytes */
  readonly offsetsTopicSegmentBytes: number;
  /** offsets.retention.check.interval.ms */
  readonly offsetsRetentionCheckIntervalMs: number;
  readonly coordinator: GroupCoordinatorConfig;
}

export interface CoordinatorLocation {
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
}

/** Timers on the real clock; handles are unref'd so they never keep the process alive. */
export const systemTimers: Timers = {
  schedule(delayMs: number, fn: () => void): TimerHandle {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

const NOT_FOUND: Omit<CoordinatorLocation, 'errorCode' | 'errorMessage'> = { nodeId: -1, host: '', port: -1 };

export class GroupService {
  readonly coordinator: GroupCoordinator;
  private readonly store: OffsetsTopicStore;
  /** __consumer_offsets partitions being loaded, and those whose groups this node owns. */
  private readonly loading = new Set<number>();
  private readonly loaded = new Set<number>();
  private creatingTopic: Promise<void> | null = null;
  private expiryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly settings: GroupSettings,
    private readonly metadata: MetadataService,
    private readonly replicaManager: ReplicaManager,
    clock: Clock,
    private readonly logger: Logger,
  ) {
    this.store = new OffsetsTopicStore({
      numPartitions: settings.offsetsTopicNumPartitions,
      partitionFor: (n) => replicaManager.get(OFFSETS_TOPIC_NAME, n),
      clock,
      onAppended: (p) => replicaManager.delayedFetches.onAppend(p),
    });
    this.coordinator = new GroupCoordinator({
      clock,
      timers: systemTimers,
      persistence: this.store,
      config: settings.coordinator,
      newMemberId: (clientId) => `${clientId}-${randomUUID()}`,
    });
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.settings.offsetsTopicNumPartitions);
  }

  /** NONE when this node may serve `api` for the group now, else the code to answer. */
  check(groupId: string, api: GroupApi): number {
    const n = this.partitionFor(groupId);
    const p = this.replicaManager.get(OFFSETS_TOPIC_NAME, n);
    if (!p || !p.isLeader) return ErrorCode.NOT_COORDINATOR;
    if (this.loading.has(n) || !this.loaded.has(n)) return errorWhileLoading(api);
    return ErrorCode.NONE;
  }

  /** True while any __consumer_offsets partition led here is still loading. */
  loadInProgress(): boolean {
    return this.loading.size > 0;
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

  /**
   * Called when a __consumer_offsets partition is added or changes here:
   * load its groups when this node leads it, drop them when it no longer does.
   */
  onOffsetsPartitionChanged(partition: number): void {
    if (this.stopped) return;
    const p = this.replicaManager.get(OFFSETS_TOPIC_NAME, partition);
    if (p && p.isLeader) {
      if (!this.loaded.has(partition) && !this.loading.has(partition)) void this.load(partition, p);
      return;
    }
    if (this.loaded.delete(partition) || this.loading.delete(partition)) {
      this.coordinator.unloadGroups((groupId) => this.partitionFor(groupId) === partition);
      this.logger.info({ partition }, 'unloaded the groups of a __consumer_offsets partition');
    }
  }

  /** Loads every hosted __consumer_offsets partition led here (start-up). */
  loadHostedPartitions(): void {
    for (let n = 0; n < this.settings.offsetsTopicNumPartitions; n++) {
      if (this.replicaManager.get(OFFSETS_TOPIC_NAME, n)) this.onOffsetsPartitionChanged(n);
    }
  }

  private async load(n: number, p: Partition): Promise<void> {
    this.loading.add(n);
    const started = performance.now();
    try {
      const state = await loadOffsetsPartition(p);
      if (!this.loading.has(n) || this.stopped) return; // unloaded meanwhile
      this.coordinator.loadPartition(state);
      this.loaded.add(n);
      const { stats } = state;
      this.logger.info({ partition: n, groups: state.groups.length, ms: Math.round(performance.now() - started), stats }, 'loaded __consumer_offsets partition');
    } catch (err) {
      this.logger.error({ err, topic: OFFSETS_TOPIC_NAME, partition: n }, 'could not load __consumer_offsets partition; its groups stay unavailable');
    } finally {
      this.loading.delete(n);
    }
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
    this.stopped = true;
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.coordinator.shutdown();
  }
}
