/**
 * The `tributary` package entry (`import { startCluster } from 'tributary'`).
 *
 * Keep this module light: importing the package must not load the broker
 * (startCluster loads it in its worker thread or child process only).
 */
export { startCluster, START_TIMEOUT_MS_DEFAULT, STOP_TIMEOUT_MS_DEFAULT } from './embedded/cluster.js';
export type { EmbeddedBroker, EmbeddedCluster, EmbeddedNode, Isolation, RestartOptions, StartClusterOptions, StartupTimings } from './embedded/cluster.js';
export { EmbeddedError, EmbeddedErrorCode } from './embedded/errors.js';
export { ConfigError } from './config/errors.js';
export type { ConfigErrorCode, ConfigProblem } from './config/errors.js';
export type { LogLevel } from './config/broker-defs.js';

// The client library: Producer, Consumer, Admin, their options and results,
// serializers and errors (docs/client.md). An explicit list, because every
// export is a promise kept across versions: connections, frame decoders,
// group-protocol helpers and raw request helpers stay inside the package
// (src/client/index.ts is the in-package surface).
export { Producer, Serializers, BATCH_SIZE_DEFAULT, BUFFER_MEMORY_DEFAULT, DELIVERY_TIMEOUT_MS_DEFAULT, LINGER_MS_DEFAULT } from './client/producer.js';
export type { ProducerHeaders, ProducerOptions, ProducerRecord, Serializer, TransactionScope } from './client/producer.js';
export type { BatchAck, RecordMetadata } from './client/producer-accumulator.js';
export type { PartitionerArgs, PartitionerFunction, PartitionerOption, ProducerPartitioner } from './client/producer-partitioners.js';
export { DefaultPartitioner } from './client/partitioner.js';
export type { Acks, CompressionName } from './client/records.js';

export { Consumer, METADATA_MAX_AGE_MS_DEFAULT } from './client/consumer.js';
export { AUTO_COMMIT_INTERVAL_MS_DEFAULT, MAX_POLL_RECORDS_DEFAULT, MAX_PARTITION_FETCH_BYTES_DEFAULT } from './client/consumer-types.js';
export type {
  AssignorOption,
  ConsumerBatch,
  ConsumerOptions,
  ConsumerRecord,
  OffsetSpecifier,
  RebalanceListeners,
  RunOptions,
  TopicPartition,
} from './client/consumer-types.js';
export { deserializers } from './client/serde.js';
export type { Deserializer, DeserializerContext } from './client/serde.js';
export { RangeAssignor, RoundRobinAssignor } from './client/assignors.js';
export type { Assignor, AssignorMember } from './client/assignors.js';
export { CooperativeStickyAssignor } from './client/sticky-assignor.js';
export type { Assignment, Subscription, TopicPartitions } from './client/consumer-protocol.js';
export type { BrokerAddress, ClusterOptions } from './client/cluster.js';
export type { SaslOptions, SaslMechanismName } from './net/sasl-client.js';
export type { TlsOptions } from './net/connection-options.js';
export type { ScramCredentialChange, ScramMechanism, UserResult, UserScramCredentials } from './client/user-admin.js';
export type { Acl, AclCreateResult, AclDeleteResult, AclFilter } from './client/acl-admin.js';
export type { ClientQuotaAlteration, ClientQuotaAlterResult, ClientQuotaEntity, ClientQuotaEntry, ClientQuotaFilter, ClientQuotaFilterComponent, QuotaEntityType } from './client/quota-admin.js';
export { SESSION_TIMEOUT_MS_DEFAULT, REBALANCE_TIMEOUT_MS_DEFAULT, HEARTBEAT_INTERVAL_MS_DEFAULT } from './client/group.js';

export { Admin, ADMIN_TIMEOUT_MS_DEFAULT } from './client/admin.js';
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
} from './client/admin.js';
export type { AclOperation } from './client/admin-apis.js';
export type { AdminOffsetSpec, LeaderEpochQuery, LeaderEpochResult, ListOffsetsOptions, ListOffsetsQuery, ListOffsetsResult } from './client/admin-offsets.js';
export type { CreatePartitionsOptions, NewPartitions, ReplicaAssignment, TopicResult } from './client/admin-topics.js';
export type {
  DescribeGroupsOptions,
  MemberToRemove,
  RemoveMembersResult,
  RemovedMember,
  ResetOffsetsOptions,
  ResetOffsetsResult,
  ResetOffsetsTarget,
} from './client/group-admin.js';
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
} from './client/config-admin.js';
export { HIGH_WATERMARK } from './client/cluster-admin.js';
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
} from './client/cluster-admin.js';

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
} from './net/errors.js';
export type { KafkaErrorContext } from './net/errors.js';
export { DecodeError } from './protocol/primitives/decode-error.js';
/** The Streams API (StreamsBuilder, KafkaStreams, Serdes, TopologyTestDriver): see docs/streams.md. */
export * from './streams/index.js';
/** The Connector API (workers, SPI, converters, transforms): see docs/connect.md. */
export * from './connect/index.js';

/** Geo-replication, MirrorMaker 2-compatible (dedicated mode, status, offset translation): see docs/mirror.md. */
export { MirrorConfigError, applyTranslatedOffsets, mirrorStatus, parseMm2Config, readCheckpoints, startMirror, translateOffsets } from './mirror/index.js';
export type { FlowStatus, Flow as MirrorFlow, MirrorHandle, Mm2Config, TranslateOffsetsOptions } from './mirror/index.js';
