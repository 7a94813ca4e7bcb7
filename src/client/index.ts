/** The client library's public surface (see README.md). */
export { Connection, decodeApiVersions, CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION } from '../net/connection.js';
export type { ApiPair, ConnectionOptions, SendOptions, VersionRange, SaslOptions, SaslMechanismName, TlsOptions } from '../net/connection.js';
export { Apis, request, supports, versionFor, type ClientApi } from './apis.js';
export { Cluster, DEFAULT_BOOTSTRAP, REFRESH_METADATA_ERRORS, parseBootstrap } from './cluster.js';
export type { BrokerAddress, BrokerNode, ClusterMetadata, ClusterOptions, PartitionMetadata, TopicMetadata } from './cluster.js';
export { ADMIN_TIMEOUT_MS_DEFAULT, Admin } from './admin.js';
export type {
  AdminOptions,
  DescribeTopicsOptions,
  ConfigEntry,
  ConfigSource,
  CreateTopicResult,
  DeleteTopicResult,
  GroupDescription,
  GroupListing,
  GroupMemberDescription,
  GroupResult,
  NewTopic,
  PartitionResult,
  PartitionDescription,
  TopicDescription,
  TopicListing,
} from './admin.js';
export { AUTHORIZED_OPERATIONS_OMITTED, AdminApis, decodeAuthorizedOperations } from './admin-apis.js';
export type { AclOperation } from './admin-apis.js';
export type { Acl, AclCreateResult, AclDeleteResult, AclFilter } from './acl-admin.js';
export type { AdminOffsetSpec, LeaderEpochQuery, LeaderEpochResult, ListOffsetsOptions, ListOffsetsQuery, ListOffsetsResult } from './admin-offsets.js';
export type { CreatePartitionsOptions, NewPartitions, ReplicaAssignment, TopicResult } from './admin-topics.js';
export type {
  DescribeGroupsOptions,
  MemberToRemove,
  RemoveMembersResult,
  RemovedMember,
  ResetOffsetsOptions,
  ResetOffsetsResult,
  ResetOffsetsTarget,
} from './group-admin.js';
export { CONFIG_OP_CODES, RESOURCE_TYPE_CODES, configSourceName, describeResource, validateResource } from './config-admin.js';
export type {
  AlterConfigsOptions,
  ConfigEntryDetail,
  ConfigOp,
  ConfigOpType,
  ConfigResource,
  ConfigResourceDescription,
  ConfigResourceType,
  ConfigSynonym,
  ConfigType,
  DescribeConfigsOptions,
  DescribeConfigsResource,
} from './config-admin.js';
export { HIGH_WATERMARK } from './cluster-admin.js';
export type {
  ApiVersionRange,
  BrokerApiVersions,
  BrokerLogDirs,
  ClusterDescription,
  DescribeClusterOptions,
  FeatureRange,
  DeleteRecordsResult,
  ElectionResult,
  ElectionType,
  LogDirDescription,
  LogDirPartition,
  PartitionReassignment,
  ReassignmentTarget,
} from './cluster-admin.js';
export { COMPRESSION_CODECS, decodeRecords, fetch, fetchMany, listOffsetsMany, produce, produceMany } from './records.js';
export type {
  Acks,
  CompressionName,
  ConsumedRecord,
  FetchOptions,
  FetchPosition,
  FetchResult,
  ListedOffset,
  OffsetSpec,
  PartitionRecords,
  ProduceOptions,
  ProduceResult,
} from './records.js';
export { fetchRawBatches, mirrorAppend } from './mirror-records.js';
export { abortTransaction, describeProducers } from './txn-admin.js';
export type { AbortSpec, ActiveProducer } from './txn-admin.js';
export type { MirrorAppendOptions, MirrorAppendResult, RawFetchOptions, RawFetchResult } from './mirror-records.js';
export { DefaultPartitioner, murmur2, partitionForKey, toPositive } from './partitioner.js';
export {
  ClientErrorCode,
  ClientConfigError,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  ProducerFencedError,
  TransactionAbortableError,
  LogTruncationError,
  ProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  TributaryError,
  UnsupportedVersionError,
  isKafkaError,
  isTributaryError,
  throwIfKafkaError,
} from '../net/errors.js';
export type { KafkaErrorContext } from '../net/errors.js';
export { DecodeError } from '../protocol/primitives/decode-error.js';
export { FrameDecoder } from '../net/frame-decoder.js';
export {
  ASSIGNMENT_VERSION_DEFAULT,
  CONSUMER_PROTOCOL_TYPE,
  ConsumerProtocolAssignment,
  ConsumerProtocolSubscription,
  SUBSCRIPTION_VERSION_DEFAULT,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  flatten,
  groupByTopic,
} from './consumer-protocol.js';
export type { Assignment, Subscription, TopicPartitions } from './consumer-protocol.js';
export { ASSIGNORS, RangeAssignor, RoundRobinAssignor, compareMembers } from './assignors.js';
export type { Assignor, AssignorMember, MemberAssignment } from './assignors.js';
export {
  GroupMember,
  HEARTBEAT_INTERVAL_MS_DEFAULT,
  REBALANCE_TIMEOUT_MS_DEFAULT,
  SESSION_TIMEOUT_MS_DEFAULT,
} from './group.js';
export type { CustomGroupProtocol, GenerationInfo, GroupMemberOptions } from './group.js';
export { GroupApis, findCoordinator, withCoordinator, type CoordinatorNode } from './group-apis.js';
export { STANDALONE_COMMIT, commitOffsets, fetchCommittedOffsets } from './group-offsets.js';
export type { CommitIdentity, CommitResult, CommittedOffset, OffsetToCommit } from './group-offsets.js';
export {
  BATCH_SIZE_DEFAULT,
  BUFFER_MEMORY_DEFAULT,
  DELIVERY_TIMEOUT_MS_DEFAULT,
  LINGER_MS_DEFAULT,
  Producer,
  Serializers,
} from './producer.js';
export type { ProducerHeaders, ProducerOptions, ProducerRecord, Serializer } from './producer.js';
export type { BatchAck, RecordMetadata } from './producer-accumulator.js';
export { createPartitioner } from './producer-partitioners.js';
export type { PartitionerArgs, PartitionerFunction, PartitionerOption, ProducerPartitioner } from './producer-partitioners.js';
export { Consumer, METADATA_MAX_AGE_MS_DEFAULT } from './consumer.js';
export {
  AUTO_COMMIT_INTERVAL_MS_DEFAULT,
  MAX_POLL_RECORDS_DEFAULT,
  MAX_PARTITION_FETCH_BYTES_DEFAULT,
} from './consumer-types.js';
export type {
  AssignorOption,
  ConsumerBatch,
  ConsumerOptions,
  ConsumerRecord,
  OffsetSpecifier,
  RebalanceListeners,
  RunOptions,
  TopicPartition,
} from './consumer-types.js';
export { CONSUMER_ASSIGNORS_DEFAULT } from './consumer-group.js';
export { deserializers } from './serde.js';
export type { Deserializer, DeserializerContext } from './serde.js';
export { CooperativeStickyAssignor, decodeStickyUserData, encodeStickyUserData, stickyAssign } from './sticky-assignor.js';
export type { StickyUserData } from './sticky-assignor.js';
