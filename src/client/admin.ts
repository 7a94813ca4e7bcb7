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
import { createAcls, deleteAcls, describeAcls, type Acl, type AclCreateResult, type AclDeleteResult, type AclFilter } from './acl-admin.js';
import { alterClientQuotas, describeClientQuotas, type ClientQuotaAlteration, type ClientQuotaAlterResult, type ClientQuotaEntry, type ClientQuotaFilter } from './quota-admin.js';
import { alterUserScramCredentials, describeUserScramCredentials, type ScramCredentialChange, type UserResult, type UserScramCredentials } from './user-admin.js';
import { Cluster, type ClusterOptions } from './cluster.js';
import { invalidArgument } from '../net/errors.js';
import type { ListedOffset } from './records.js';
import {
  listOffsetsFor,
  offsetsForLeaderEpochFor,
  type AdminOffsetSpec,
  type LeaderEpochQuery,
  type LeaderEpochResult,
  type ListOffsetsOptions,
  type ListOffsetsQuery,
  type ListOffsetsResult,
} from './admin-offsets.js';
import {
  ADMIN_TIMEOUT_MS_DEFAULT,
  createPartitionsFor,
  createTopic,
  createTopics,
  deleteTopics,
  describeTopicConfigs,
  describeTopics,
  listTopics,
  missing,
  type AdminOptions,
  type CreatePartitionsOptions,
  type CreateTopicResult,
  type DeleteTopicResult,
  type DescribeTopicsOptions,
  type NewPartitions,
  type NewTopic,
  type TopicDescription,
  type TopicListing,
  type TopicResult,
} from './admin-topics.js';
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
  type ConfigEntry,
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

export { ADMIN_TIMEOUT_MS_DEFAULT } from './admin-topics.js';
export type {
  AdminOptions,
  CreateTopicResult,
  DeleteTopicResult,
  DescribeTopicsOptions,
  NewTopic,
  PartitionDescription,
  TopicDescription,
  TopicListing,
} from './admin-topics.js';
export type { ConfigEntry, ConfigSource } from './config-admin.js';


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
  createTopics(topics: readonly NewTopic[], options: AdminOptions = {}): Promise<CreateTopicResult[]> {
    return createTopics(this.cluster, topics, options);
  }

  /** Creates one topic; throws KafkaProtocolError (e.g. TOPIC_ALREADY_EXISTS). */
  createTopic(topic: NewTopic, options: AdminOptions = {}): Promise<CreateTopicResult> {
    return createTopic(this.cluster, topic, options);
  }

  /** Deletes topics (DeleteTopics); one result per topic, in order, with `error` (e.g. UNKNOWN_TOPIC_OR_PARTITION). */
  deleteTopics(names: readonly string[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<DeleteTopicResult[]> {
    return deleteTopics(this.cluster, names, options);
  }

  /** Every topic, sorted by name; internal ones (`__consumer_offsets`) only with `includeInternal`. */
  listTopics(options: { includeInternal?: boolean } = {}): Promise<TopicListing[]> {
    return listTopics(this.cluster, options);
  }

  /**
   * Describes the named topics, or every non-internal topic when `names` is
   * empty: partitions with leader, replicas, ISR and offline replicas, topic
   * id, configs, and (when asked) authorized operations. One result per
   * topic with `error` (UNKNOWN_TOPIC_OR_PARTITION for a missing one).
   */
  describeTopics(names: readonly string[] = [], options: DescribeTopicsOptions = {}): Promise<TopicDescription[]> {
    return describeTopics(this.cluster, names, options);
  }

  /** Topic configs through DescribeConfigs; null when the broker does not support it. Topics whose configs failed are missing from the map. */
  describeTopicConfigs(topics: readonly string[]): Promise<Map<string, ConfigEntry[]> | null> {
    return describeTopicConfigs(this.cluster, topics);
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
  async listOffsets(requests: readonly ListOffsetsQuery[], options?: ListOffsetsOptions): Promise<ListOffsetsResult[]>;
  async listOffsets(
    topicOrRequests: string | readonly ListOffsetsQuery[],
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
  offsetsForLeaderEpoch(requests: readonly LeaderEpochQuery[]): Promise<LeaderEpochResult[]> {
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

  // ----------------------------------------------------------------- SCRAM users
  // Implemented in user-admin.ts (KIP-554).

  /** Sets (`password`) or deletes (`delete: true`) SCRAM credentials; one result per user with `error`. */
  alterUserScramCredentials(changes: readonly ScramCredentialChange[]): Promise<UserResult[]> {
    return alterUserScramCredentials(this.cluster, changes);
  }

  /** Mechanisms and iteration counts per user (never secrets); empty `users`: every user with a credential. */
  describeUserScramCredentials(users: readonly string[] = []): Promise<UserScramCredentials[]> {
    return describeUserScramCredentials(this.cluster, users);
  }

  // ----------------------------------------------------------------- ACLs
  // Implemented in acl-admin.ts (needs an authorizer on the brokers: SECURITY_DISABLED otherwise).

  /** Creates ACLs; one result per ACL with `error` (an ACL that exists already succeeds). */
  createAcls(acls: readonly Acl[]): Promise<AclCreateResult[]> {
    return createAcls(this.cluster, acls);
  }

  /** The ACLs matching the filter (omitted fields match anything). */
  describeAcls(filter: AclFilter = {}): Promise<Acl[]> {
    return describeAcls(this.cluster, filter);
  }

  /** Deletes every ACL each filter matches; per filter, the ACLs it deleted. */
  deleteAcls(filters: readonly AclFilter[]): Promise<AclDeleteResult[]> {
    return deleteAcls(this.cluster, filters);
  }

  // ----------------------------------------------------------------- client quotas
  // Implemented in quota-admin.ts (KIP-546).

  /** Quota entities and values the filter selects (no filter: all); entity `{ user: null }` is the default user. */
  describeClientQuotas(filter: ClientQuotaFilter = {}): Promise<ClientQuotaEntry[]> {
    return describeClientQuotas(this.cluster, filter);
  }

  /** Sets (`value`) or removes (`remove: true`) quota keys per entity; one result per entry with `error`. */
  alterClientQuotas(alterations: readonly ClientQuotaAlteration[], options: { validateOnly?: boolean } = {}): Promise<ClientQuotaAlterResult[]> {
    return alterClientQuotas(this.cluster, alterations, options);
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

