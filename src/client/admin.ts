/**
 * The Admin client: every admin API the broker implements, as plain
 * promises of typed results. Topic operations are here (create, delete,
 * list, describe with configs, add partitions); offsets are in
 * admin-offsets.ts, configs in config-admin.ts, records/cluster/log dirs in
 * cluster-admin.ts, groups in group-admin.ts.
 *
 * Batch operations return one result per resource with `error` set instead
 * of throwing, as Kafka answers per resource (like the Java AdminClient's
 * per-resource futures); the single-resource helpers (createTopic, the
 * single-partition listOffsets, the alter-configs calls) throw a
 * KafkaProtocolError.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { Apis, request, supports } from './apis.js';
import { Cluster, type ClusterOptions, type PartitionMetadata } from './cluster.js';
import { KafkaProtocolError, invalidArgument } from './errors.js';
import type { ListedOffset } from './records.js';
import {
  listOffsetsFor,
  offsetsForLeaderEpochFor,
  type AdminOffsetSpec,
  type LeaderEpochRequest,
  type LeaderEpochResult,
  type ListOffsetsOptions,
  type ListOffsetsRequest,
  type ListOffsetsResult,
} from './admin-offsets.js';
import {
  createPartitionsFor,
  topicAuthorizedOperations,
  validateAssignment,
  type CreatePartitionsOptions,
  type NewPartitions,
  type ReplicaAssignment,
  type TopicResult,
} from './admin-topics.js';
import type { AclOperation } from './admin-apis.js';
import type { TopicPartitions } from './consumer-protocol.js';
import {
  commitGroupOffsets,
  deleteGroupOffsets,
  deleteGroups,
  describeGroups,
  fetchGroupOffsets,
  listGroups,
  removeGroupMembers,
  resetGroupOffsets,
  type DescribeGroupsOptions,
  type MemberToRemove,
  type RemoveMembersResult,
  type ResetOffsetsOptions,
  type ResetOffsetsResult,
  type ResetOffsetsTarget,
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
  apiVersions,
  deleteRecords,
  describeCluster,
  describeLogDirs,
  electLeaders,
  listPartitionReassignments,
  type BrokerApiVersions,
  type BrokerLogDirs,
  type ClusterDescription,
  type DescribeClusterOptions,
  type DeleteRecordsResult,
  type ElectionResult,
  type ElectionType,
  type PartitionReassignment,
  type ReassignmentTarget,
} from './cluster-admin.js';

export type { GroupDescription, GroupListing, GroupMemberDescription, GroupResult, PartitionResult } from './group-admin.js';

/** Default time (ms) the controller may take for topic and partition changes. */
export const ADMIN_TIMEOUT_MS_DEFAULT = 30_000;
/** DescribeConfigs resource type of a topic. */
const RESOURCE_TYPE_TOPIC = 2;

/** A topic to create (`Admin.createTopics`). */
export interface NewTopic {
  name: string;
  /** Omitted: the broker's num.partitions (CreateTopics v4+), else 1. Not with `assignments`. */
  numPartitions?: number;
  /** Omitted: the broker's default.replication.factor (v4+), else 1. Not with `assignments`. */
  replicationFactor?: number;
  /** Explicit replicas of each partition (partition i gets `assignments[i]`); replaces numPartitions/replicationFactor. */
  assignments?: ReplicaAssignment;
  /** Topic configs, e.g. `{ 'cleanup.policy': 'compact' }`. */
  configs?: Readonly<Record<string, string>>;
}

/** Options of the topic-changing calls. */
export interface AdminOptions {
  /** How long the controller may take (ms; default 30 s); the request may take this plus the request timeout. */
  timeoutMs?: number;
  /** Check the request without changing anything (CreateTopics, CreatePartitions). */
  validateOnly?: boolean;
}

/** Options of `Admin.describeTopics`. */
export interface DescribeTopicsOptions {
  /** Also load each topic's configs with DescribeConfigs (default true). */
  includeConfigs?: boolean;
  /** Ask for the operations the caller may perform on each topic (Metadata v8+). */
  includeAuthorizedOperations?: boolean;
}

/** The answer for one topic of `Admin.createTopics`. */
export interface CreateTopicResult {
  name: string;
  /** The new topic's id (CreateTopics v7+); null otherwise. */
  topicId: string | null;
  /** -1 when the broker did not say (CreateTopics before v5). */
  numPartitions: number;
  replicationFactor: number;
  error: KafkaProtocolError | null;
}

/** The answer for one topic of `Admin.deleteTopics`. */
export interface DeleteTopicResult {
  name: string;
  error: KafkaProtocolError | null;
}

/** One topic of `Admin.listTopics`. */
export interface TopicListing {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitionCount: number;
  replicationFactor: number;
}

/** One partition of a described topic. */
export interface PartitionDescription {
  partition: number;
  /** The leader's node id; -1 when the partition has no leader (offline). */
  leader: number;
  leaderEpoch: number;
  /** Node ids of the replicas; the first is the preferred leader. */
  replicas: readonly number[];
  /** The in-sync replicas. */
  isr: readonly number[];
  /** Replicas whose log directory is offline. */
  offlineReplicas: readonly number[];
  /** Kafka's name of the partition's error (e.g. 'LEADER_NOT_AVAILABLE'), null when none. */
  error: string | null;
}

/** Where a config value comes from, as Kafka names it (DescribeConfigs configSource). */
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

/** One config of a topic or broker. */
export interface ConfigEntry {
  name: string;
  value: string | null;
  source: ConfigSource;
  readOnly: boolean;
  isSensitive: boolean;
}

/** The answer for one topic of `Admin.describeTopics`. */
export interface TopicDescription {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitions: PartitionDescription[];
  /** null when configs were not asked for or the broker has no DescribeConfigs. */
  configs: ConfigEntry[] | null;
  /** With `includeAuthorizedOperations`: what the caller may do to the topic; null when not asked for or not provided. */
  authorizedOperations: AclOperation[] | null;
  error: KafkaProtocolError | null;
}

/**
 * The admin client. `Admin.connect({ bootstrap })` opens it (or
 * `new Admin(cluster)` shares a `Cluster`); `close()` closes the cluster.
 */
export class Admin {
  /** Wraps a connected cluster client; `close()` closes it. */
  constructor(
    /** The cluster client the admin's requests go through (metadata, connections, retries). */
    readonly cluster: Cluster,
  ) {}

  /** Connects to the cluster (tries the bootstrap brokers in order) and returns an Admin. */
  static async connect(options: ClusterOptions): Promise<Admin> {
    return new Admin(await Cluster.connect(options));
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await this.cluster.close();
  }

  /** Creates topics (CreateTopics); one result per topic, in order, with `error` (e.g. TOPIC_ALREADY_EXISTS). */
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
            // v4+ (KIP-464): -1 means the broker default; with assignments both are -1.
            numPartitions: t.assignments !== undefined ? -1 : (t.numPartitions ?? (v >= 4 ? -1 : 1)),
            replicationFactor: t.assignments !== undefined ? -1 : (t.replicationFactor ?? (v >= 4 ? -1 : 1)),
            assignments: (t.assignments ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds: [...brokerIds] })),
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

  /** Deletes topics (DeleteTopics); one result per topic, in order, with `error` (e.g. UNKNOWN_TOPIC_OR_PARTITION). */
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

  /** Every topic, sorted by name; internal ones (`__consumer_offsets`) only with `includeInternal`. */
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

  /**
   * Describes the named topics, or every non-internal topic when `names` is
   * empty: partitions with leader, replicas, ISR and offline replicas, topic
   * id, configs, and (when asked) authorized operations. One result per
   * topic with `error` (UNKNOWN_TOPIC_OR_PARTITION for a missing one).
   */
  async describeTopics(names: readonly string[] = [], options: DescribeTopicsOptions = {}): Promise<TopicDescription[]> {
    const all = names.length === 0;
    const metadata = await this.cluster.withRetry(() => this.cluster.refreshMetadata(all ? null : names));
    const wanted = all ? [...metadata.topics.values()].filter((t) => !t.isInternal).map((t) => t.name).sort() : [...names];
    const existing = wanted.filter((n) => metadata.topics.get(n)?.errorCode === 0);
    const configs = options.includeConfigs === false ? null : await this.describeTopicConfigs(existing);
    const operations = options.includeAuthorizedOperations === true ? await topicAuthorizedOperations(this.cluster, existing) : null;
    return wanted.map((name) => {
      const t = metadata.topics.get(name);
      if (t === undefined || t.errorCode !== 0) {
        return {
          name,
          topicId: null,
          isInternal: false,
          partitions: [],
          configs: null,
          authorizedOperations: null,
          error: new KafkaProtocolError(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: name }),
        };
      }
      return {
        name,
        topicId: t.topicId,
        isInternal: t.isInternal,
        partitions: t.partitions.map(describePartition),
        configs: configs?.get(name) ?? null,
        authorizedOperations: operations?.get(name) ?? null,
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

  /** Grows `topic` to `totalCount` partitions; throws a KafkaProtocolError (INVALID_PARTITIONS, ...). */
  async createPartitions(topic: string, totalCount: number, options?: CreatePartitionsOptions): Promise<void>;
  /** Grows several topics (optionally with replica assignments for the new partitions); one result per topic with `error`. */
  async createPartitions(list: readonly NewPartitions[], options?: CreatePartitionsOptions): Promise<TopicResult[]>;
  async createPartitions(
    topicOrList: string | readonly NewPartitions[],
    countOrOptions?: number | CreatePartitionsOptions,
    maybeOptions: CreatePartitionsOptions = {},
  ): Promise<void | TopicResult[]> {
    const single = typeof topicOrList === 'string';
    const options = (single ? maybeOptions : countOrOptions) ?? {};
    if (typeof options !== 'object') throw invalidArgument('createPartitions(list, options): options must be an object');
    if (single && typeof countOrOptions !== 'number') throw invalidArgument(`partition count must be a positive integer, got ${String(countOrOptions)}`);
    const list: readonly NewPartitions[] = single ? [{ topic: topicOrList, totalCount: countOrOptions as number }] : topicOrList;
    const results = await createPartitionsFor(this.cluster, list, options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT, options.validateOnly ?? false);
    if (!single) return results;
    const error = results[0]?.error;
    if (error !== undefined && error !== null) throw error;
  }

  /** The offset for 'earliest', 'latest', 'max-timestamp' or a timestamp (ms) in one partition; throws a KafkaProtocolError. */
  async listOffsets(topic: string, partition: number, spec: AdminOffsetSpec): Promise<ListedOffset>;
  /** Offsets of many partitions (one request per leader); one result per partition, in order, with `error`. */
  async listOffsets(requests: readonly ListOffsetsRequest[], options?: ListOffsetsOptions): Promise<ListOffsetsResult[]>;
  async listOffsets(
    topicOrRequests: string | readonly ListOffsetsRequest[],
    partitionOrOptions?: number | ListOffsetsOptions,
    spec?: AdminOffsetSpec,
  ): Promise<ListedOffset | ListOffsetsResult[]> {
    if (typeof topicOrRequests !== 'string') {
      return listOffsetsFor(this.cluster, topicOrRequests, typeof partitionOrOptions === 'object' ? partitionOrOptions : {});
    }
    if (typeof partitionOrOptions !== 'number' || spec === undefined) throw invalidArgument('listOffsets(topic, partition, spec) needs a partition and a spec');
    const [result] = await listOffsetsFor(this.cluster, [{ topic: topicOrRequests, partition: partitionOrOptions, spec }]);
    if (result === undefined) throw missing('ListOffsets', topicOrRequests);
    if (result.error !== null) throw result.error;
    return { topic: result.topic, partition: result.partition, offset: result.offset, timestamp: result.timestamp, leaderEpoch: result.leaderEpoch };
  }

  /**
   * OffsetForLeaderEpoch: for each partition, the end offset of the given
   * leader epoch (where a follower or consumer that saw that epoch must
   * truncate, KIP-101/320); one result per partition with `error`.
   */
  offsetsForLeaderEpoch(requests: readonly LeaderEpochRequest[]): Promise<LeaderEpochResult[]> {
    return offsetsForLeaderEpochFor(this.cluster, requests);
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
  describeCluster(options: DescribeClusterOptions = {}): Promise<ClusterDescription> {
    return describeCluster(this.cluster, options);
  }

  /** What one broker advertises (ApiVersions): API version ranges and feature flags; `nodeId` omitted: the lowest node id. */
  apiVersions(nodeId?: number): Promise<BrokerApiVersions> {
    return apiVersions(this.cluster, nodeId);
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

  /** Describes groups; member assignments are decoded for consumer groups. One result per group with `error`. */
  describeGroups(groupIds: readonly string[], options: DescribeGroupsOptions = {}): Promise<GroupDescription[]> {
    return describeGroups(this.cluster, groupIds, options);
  }

  /**
   * Removes members from a group (one batched LeaveGroup v3+; Java's
   * removeMembersFromConsumerGroup); no `members`: every current member.
   * Errors come back per member and per group.
   */
  removeGroupMembers(groupId: string, members?: readonly MemberToRemove[]): Promise<RemoveMembersResult> {
    return removeGroupMembers(this.cluster, groupId, members);
  }

  /** Deletes groups (each must have no members: NON_EMPTY_GROUP otherwise); one result per group. */
  deleteGroups(groupIds: readonly string[]): Promise<GroupResult[]> {
    return deleteGroups(this.cluster, groupIds);
  }

  /** The group's committed offsets (partitions that have one), optionally for some topics only. */
  fetchGroupOffsets(groupId: string, topics?: readonly string[]): Promise<CommittedOffset[]> {
    return fetchGroupOffsets(this.cluster, groupId, topics);
  }

  /**
   * Sets a group's committed offsets (Java's alterConsumerGroupOffsets): a
   * standalone commit (generation -1, no member id), accepted only while the
   * group has no members. One result per partition with `error`.
   */
  commitGroupOffsets(groupId: string, offsets: readonly OffsetToCommit[]): Promise<CommitResult[]> {
    return commitGroupOffsets(this.cluster, groupId, offsets);
  }

  /** Deletes committed offsets (OffsetDelete); GROUP_SUBSCRIBED_TO_TOPIC for topics the group still consumes. */
  deleteGroupOffsets(groupId: string, partitions: readonly TopicPartitions[]): Promise<PartitionResult[]> {
    return deleteGroupOffsets(this.cluster, groupId, partitions);
  }

  /**
   * Moves a group's committed offsets for `topics` to 'earliest', 'latest',
   * a timestamp, `{ offset }` or `{ shiftBy }` (kafka-consumer-groups.sh
   * --reset-offsets); the group must be empty. `dryRun` only computes them.
   */
  resetGroupOffsets(
    groupId: string,
    topics: readonly (string | TopicPartitions)[],
    to: ResetOffsetsTarget,
    options: ResetOffsetsOptions = {},
  ): Promise<ResetOffsetsResult[]> {
    return resetGroupOffsets(this.cluster, groupId, topics, to, options);
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
  if (t.assignments !== undefined) {
    if (t.numPartitions !== undefined || t.replicationFactor !== undefined) throw invalidArgument(`${t.name}: give assignments or numPartitions/replicationFactor, not both`);
    validateAssignment(t.name, t.assignments);
  }
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

