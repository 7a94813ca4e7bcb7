/**
 * Admin operations on topics, over `Cluster`: create, delete, list,
 * describe (with configs through DescribeConfigs when the broker has it),
 * add partitions, list offsets.
 *
 * Batch operations (createTopics, deleteTopics, describeTopics) return one
 * result per topic with `error` set instead of throwing, as Kafka answers
 * per topic; the single-topic helpers throw a KafkaProtocolError.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { Apis, request, supports } from './apis.js';
import { Cluster, type ClusterOptions, type PartitionMetadata } from './cluster.js';
import { KafkaProtocolError, invalidArgument } from './errors.js';
import { listOffsetsMany, type ListedOffset, type OffsetSpec } from './records.js';
import type { TopicPartitions } from './consumer-protocol.js';
import {
  commitGroupOffsets,
  deleteGroupOffsets,
  deleteGroups,
  describeGroups,
  fetchGroupOffsets,
  listGroups,
  type GroupDescription,
  type GroupListing,
  type GroupResult,
  type PartitionResult,
} from './group-admin.js';
import type { CommitResult, CommittedOffset, OffsetToCommit } from './group-offsets.js';
import {
  alterConfigs,
  describeConfigs,
  incrementalAlterConfigs,
  type AlterConfigsOptions,
  type ConfigOp,
  type ConfigResource,
  type ConfigResourceDescription,
  type DescribeConfigsOptions,
  type DescribeConfigsResource,
} from './config-admin.js';
import {
  alterPartitionReassignments,
  deleteRecords,
  describeCluster,
  describeLogDirs,
  electLeaders,
  listPartitionReassignments,
  type BrokerLogDirs,
  type ClusterDescription,
  type DeleteRecordsResult,
  type ElectionResult,
  type ElectionType,
  type PartitionReassignment,
  type ReassignmentTarget,
} from './cluster-admin.js';

export type { GroupDescription, GroupListing, GroupMemberDescription, GroupResult, PartitionResult } from './group-admin.js';

export const ADMIN_TIMEOUT_MS_DEFAULT = 30_000;
/** DescribeConfigs resource type of a topic. */
const RESOURCE_TYPE_TOPIC = 2;

export interface NewTopic {
  name: string;
  /** Omitted: the broker's num.partitions (CreateTopics v4+), else 1. */
  numPartitions?: number;
  /** Omitted: the broker's default.replication.factor (v4+), else 1. */
  replicationFactor?: number;
  configs?: Readonly<Record<string, string>>;
}

export interface AdminOptions {
  timeoutMs?: number;
  validateOnly?: boolean;
}

export interface CreateTopicResult {
  name: string;
  topicId: string | null;
  /** -1 when the broker did not say (CreateTopics before v5). */
  numPartitions: number;
  replicationFactor: number;
  error: KafkaProtocolError | null;
}

export interface DeleteTopicResult {
  name: string;
  error: KafkaProtocolError | null;
}

export interface TopicListing {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitionCount: number;
  replicationFactor: number;
}

export interface PartitionDescription {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
  offlineReplicas: readonly number[];
  error: string | null;
}

export type ConfigSource =
  | 'UNKNOWN'
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG'
  | 'DYNAMIC_BROKER_LOGGER_CONFIG';

const CONFIG_SOURCES: readonly ConfigSource[] = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
];

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: ConfigSource;
  readOnly: boolean;
  isSensitive: boolean;
}

export interface TopicDescription {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitions: PartitionDescription[];
  /** null when configs were not asked for or the broker has no DescribeConfigs. */
  configs: ConfigEntry[] | null;
  error: KafkaProtocolError | null;
}

export class Admin {
  constructor(readonly cluster: Cluster) {}

  static async connect(options: ClusterOptions): Promise<Admin> {
    return new Admin(await Cluster.connect(options));
  }

  async close(): Promise<void> {
    await this.cluster.close();
  }

  async createTopics(topics: readonly NewTopic[], options: AdminOptions = {}): Promise<CreateTopicResult[]> {
    for (const t of topics) validateNewTopic(t);
    const { version, response } = await this.cluster.withRetry(async () => {
      const conn = await this.cluster.controllerConnection();
      return request(
        conn,
        Apis.CreateTopics,
        (v) => ({
          topics: topics.map((t) => ({
            name: t.name,
            // v4+ (KIP-464): -1 means the broker default.
            numPartitions: t.numPartitions ?? (v >= 4 ? -1 : 1),
            replicationFactor: t.replicationFactor ?? (v >= 4 ? -1 : 1),
            assignments: [],
            configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
          })),
          timeoutMs: options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT,
          validateOnly: options.validateOnly ?? false,
        }),
        (options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT) + conn.requestTimeoutMs,
      );
    });
    const byName = new Map(response.topics.map((t) => [t.name, t]));
    return topics.map((t) => {
      const r = byName.get(t.name);
      if (r === undefined) return { name: t.name, topicId: null, numPartitions: -1, replicationFactor: -1, error: missing('CreateTopics', t.name) };
      const error =
        r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'CreateTopics', topic: t.name, serverMessage: r.errorMessage });
      return {
        name: t.name,
        topicId: version >= 7 && r.topicId !== ZERO_UUID ? r.topicId : null,
        numPartitions: r.numPartitions,
        replicationFactor: r.replicationFactor,
        error,
      };
    });
  }

  /** Creates one topic; throws KafkaProtocolError (e.g. TOPIC_ALREADY_EXISTS). */
  async createTopic(topic: NewTopic, options: AdminOptions = {}): Promise<CreateTopicResult> {
    const [result] = await this.createTopics([topic], options);
    if (result === undefined) throw missing('CreateTopics', topic.name);
    if (result.error !== null) throw result.error;
    return result;
  }

  async deleteTopics(names: readonly string[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<DeleteTopicResult[]> {
    const timeoutMs = options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT;
    const { response } = await this.cluster.withRetry(async () => {
      const conn = await this.cluster.controllerConnection();
      return request(
        conn,
        Apis.DeleteTopics,
        () => ({
          // v6+ names topics in `topics`, earlier versions in `topicNames`; the codec writes the one the version has.
          topics: names.map((name) => ({ name, topicId: ZERO_UUID })),
          topicNames: [...names],
          timeoutMs,
        }),
        timeoutMs + conn.requestTimeoutMs,
      );
    });
    const byName = new Map(response.responses.map((r) => [r.name, r]));
    return names.map((name) => {
      const r = byName.get(name);
      if (r === undefined) return { name, error: missing('DeleteTopics', name) };
      return { name, error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'DeleteTopics', topic: name, serverMessage: r.errorMessage }) };
    });
  }

  async listTopics(options: { includeInternal?: boolean } = {}): Promise<TopicListing[]> {
    const metadata = await this.cluster.withRetry(() => this.cluster.refreshMetadata(null));
    return [...metadata.topics.values()]
      .filter((t) => t.errorCode === 0 && (options.includeInternal === true || !t.isInternal))
      .map((t) => ({
        name: t.name,
        topicId: t.topicId,
        isInternal: t.isInternal,
        partitionCount: t.partitions.length,
        replicationFactor: t.partitions[0]?.replicas.length ?? 0,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Describes the named topics, or every non-internal topic when `names` is empty. */
  async describeTopics(names: readonly string[] = [], options: { includeConfigs?: boolean } = {}): Promise<TopicDescription[]> {
    const all = names.length === 0;
    const metadata = await this.cluster.withRetry(() => this.cluster.refreshMetadata(all ? null : names));
    const wanted = all ? [...metadata.topics.values()].filter((t) => !t.isInternal).map((t) => t.name).sort() : [...names];
    const configs = options.includeConfigs === false ? null : await this.describeTopicConfigs(wanted.filter((n) => metadata.topics.get(n)?.errorCode === 0));
    return wanted.map((name) => {
      const t = metadata.topics.get(name);
      if (t === undefined || t.errorCode !== 0) {
        return {
          name,
          topicId: null,
          isInternal: false,
          partitions: [],
          configs: null,
          error: new KafkaProtocolError(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: name }),
        };
      }
      return {
        name,
        topicId: t.topicId,
        isInternal: t.isInternal,
        partitions: t.partitions.map(describePartition),
        configs: configs?.get(name) ?? null,
        error: null,
      };
    });
  }

  /**
   * Topic configs through DescribeConfigs; null when the broker does not
   * support it. Topics whose configs failed are missing from the map.
   */
  async describeTopicConfigs(topics: readonly string[]): Promise<Map<string, ConfigEntry[]> | null> {
    if (topics.length === 0) return new Map();
    const conn = await this.cluster.anyConnection();
    if (!supports(conn, Apis.DescribeConfigs)) return null;
    const { response } = await this.cluster.withRetry(async () =>
      request(await this.cluster.anyConnection(), Apis.DescribeConfigs, () => ({
        resources: topics.map((name) => ({ resourceType: RESOURCE_TYPE_TOPIC, resourceName: name, configurationKeys: null })),
        includeSynonyms: false,
        includeDocumentation: false,
      })),
    );
    const out = new Map<string, ConfigEntry[]>();
    for (const r of response.results) {
      if (r.errorCode !== 0) continue;
      out.set(
        r.resourceName,
        r.configs
          .map((c) => ({
            name: c.name,
            value: c.isSensitive ? null : c.value,
            source: CONFIG_SOURCES[c.configSource] ?? 'UNKNOWN',
            readOnly: c.readOnly,
            isSensitive: c.isSensitive,
          }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      );
    }
    return out;
  }

  /** Grows `topic` to `totalCount` partitions. */
  async createPartitions(topic: string, totalCount: number, options: AdminOptions = {}): Promise<void> {
    if (!Number.isInteger(totalCount) || totalCount < 1) throw invalidArgument(`partition count must be a positive integer, got ${totalCount}`);
    const timeoutMs = options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT;
    const { response } = await this.cluster.withRetry(async () => {
      const conn = await this.cluster.controllerConnection();
      return request(
        conn,
        Apis.CreatePartitions,
        () => ({ topics: [{ name: topic, count: totalCount, assignments: null }], timeoutMs, validateOnly: options.validateOnly ?? false }),
        timeoutMs + conn.requestTimeoutMs,
      );
    });
    const r = response.results.find((x) => x.name === topic);
    if (r === undefined) throw missing('CreatePartitions', topic);
    if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, { api: 'CreatePartitions', topic, serverMessage: r.errorMessage });
  }

  /** The offset for 'earliest', 'latest' or a timestamp (ms) in one partition. */
  async listOffsets(topic: string, partition: number, spec: OffsetSpec): Promise<ListedOffset> {
    const [result] = await listOffsetsMany(this.cluster, [{ topic, partition, spec }]);
    if (result === undefined) throw missing('ListOffsets', topic);
    return result;
  }

  // ---------------------------------------------------------------- configs
  // Implemented in config-admin.ts.

  /**
   * Configs of topics and brokers (broker name: a node id, or '' for the
   * cluster-wide dynamic defaults); one result per resource with `error`.
   */
  describeConfigs(resources: readonly DescribeConfigsResource[], options: DescribeConfigsOptions = {}): Promise<ConfigResourceDescription[]> {
    return describeConfigs(this.cluster, resources, options);
  }

  /** Legacy AlterConfigs: `configs` replaces the resource's whole set of dynamic configs. Throws KafkaProtocolError. */
  alterConfigs(resource: ConfigResource, configs: Readonly<Record<string, string>>, options: AlterConfigsOptions = {}): Promise<void> {
    return alterConfigs(this.cluster, resource, configs, options);
  }

  /** IncrementalAlterConfigs: set / delete / append / subtract keys of one resource. Throws KafkaProtocolError (INVALID_CONFIG names the key). */
  incrementalAlterConfigs(resource: ConfigResource, ops: readonly ConfigOp[], options: AlterConfigsOptions = {}): Promise<void> {
    return incrementalAlterConfigs(this.cluster, resource, ops, options);
  }

  // ------------------------------------------------- records, cluster, log dirs
  // Implemented in cluster-admin.ts.

  /** Deletes records below `{ partition: offset }` (-1: the high watermark); one result per partition. */
  deleteRecords(
    topic: string,
    offsets: Readonly<Record<number, bigint | number>> | ReadonlyMap<number, bigint | number>,
    options: Pick<AdminOptions, 'timeoutMs'> = {},
  ): Promise<DeleteRecordsResult[]> {
    return deleteRecords(this.cluster, topic, offsets, options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT);
  }

  /** Cluster id, controller and brokers (DescribeCluster, or Metadata on brokers without it). */
  describeCluster(): Promise<ClusterDescription> {
    return describeCluster(this.cluster);
  }

  /** Log directories of every broker with the size of each partition; `topics` limits the partitions. */
  describeLogDirs(topics: readonly string[] | null = null): Promise<BrokerLogDirs[]> {
    return describeLogDirs(this.cluster, topics);
  }

  /** ElectLeaders for the given partitions (null: all); ELECTION_NOT_NEEDED per partition when the leader is already right. */
  electLeaders(type: ElectionType, partitions: readonly TopicPartitions[] | null = null, options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<ElectionResult[]> {
    return electLeaders(this.cluster, type, partitions, options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT);
  }

  /** Partition reassignments in progress (null: all partitions). */
  listPartitionReassignments(partitions: readonly TopicPartitions[] | null = null, options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<PartitionReassignment[]> {
    return listPartitionReassignments(this.cluster, partitions, options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT);
  }

  /** Starts (replicas) or cancels (null) partition reassignments; one result per partition. */
  alterPartitionReassignments(targets: readonly ReassignmentTarget[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<ElectionResult[]> {
    return alterPartitionReassignments(this.cluster, targets, options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT);
  }

  // ----------------------------------------------------------------- groups
  // Implemented in group-admin.ts; each request goes to the group's coordinator.

  /** Groups on every broker, sorted by id; `states` filters by state (e.g. ['Stable']). */
  listGroups(states: readonly string[] = []): Promise<GroupListing[]> {
    return listGroups(this.cluster, states);
  }

  /** Describes groups; member assignments are decoded for consumer groups. */
  describeGroups(groupIds: readonly string[]): Promise<GroupDescription[]> {
    return describeGroups(this.cluster, groupIds);
  }

  /** Deletes groups (each must have no members: NON_EMPTY_GROUP otherwise); one result per group. */
  deleteGroups(groupIds: readonly string[]): Promise<GroupResult[]> {
    return deleteGroups(this.cluster, groupIds);
  }

  /** The group's committed offsets (partitions that have one), optionally for some topics only. */
  fetchGroupOffsets(groupId: string, topics?: readonly string[]): Promise<CommittedOffset[]> {
    return fetchGroupOffsets(this.cluster, groupId, topics);
  }

  /** A standalone commit (generation -1, no member id): accepted only while the group has no members. */
  commitGroupOffsets(groupId: string, offsets: readonly OffsetToCommit[]): Promise<CommitResult[]> {
    return commitGroupOffsets(this.cluster, groupId, offsets);
  }

  /** Deletes committed offsets (OffsetDelete); GROUP_SUBSCRIBED_TO_TOPIC for topics the group still consumes. */
  deleteGroupOffsets(groupId: string, partitions: readonly TopicPartitions[]): Promise<PartitionResult[]> {
    return deleteGroupOffsets(this.cluster, groupId, partitions);
  }
}

function describePartition(p: PartitionMetadata): PartitionDescription {
  return {
    partition: p.partition,
    leader: p.leaderId,
    leaderEpoch: p.leaderEpoch,
    replicas: p.replicas,
    isr: p.isr,
    offlineReplicas: p.offlineReplicas,
    error: p.errorCode === 0 ? null : new KafkaProtocolError(p.errorCode).errorName,
  };
}

function validateNewTopic(t: NewTopic): void {
  if (t.name.length === 0 || t.name.length > 249 || !/^[a-zA-Z0-9._-]+$/.test(t.name) || t.name === '.' || t.name === '..') {
    throw invalidArgument(`invalid topic name '${t.name}': use 1-249 characters from [a-zA-Z0-9._-], not '.' or '..'`);
  }
  if (t.numPartitions !== undefined && (!Number.isInteger(t.numPartitions) || t.numPartitions < 1)) {
    throw invalidArgument(`partitions must be a positive integer, got ${t.numPartitions}`);
  }
  if (t.replicationFactor !== undefined && (!Number.isInteger(t.replicationFactor) || t.replicationFactor < 1 || t.replicationFactor > 0x7fff)) {
    throw invalidArgument(`replication factor must be a positive integer, got ${t.replicationFactor}`);
  }
}

function missing(api: string, topic: string): KafkaProtocolError {
  return new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api, topic, serverMessage: 'the broker did not answer for this topic' });
}

