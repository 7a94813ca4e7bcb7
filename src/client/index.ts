/** The client library's public surface (see README.md). */
export { Connection, decodeApiVersions, CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION } from './connection.js';
export type { ApiPair, ConnectionOptions, SendOptions, VersionRange } from './connection.js';
export { Apis, request, supports, versionFor, type ClientApi } from './apis.js';
export { Cluster, DEFAULT_BOOTSTRAP, REFRESH_METADATA_ERRORS, parseBootstrap } from './cluster.js';
export type { BrokerAddress, BrokerNode, ClusterMetadata, ClusterOptions, PartitionMetadata, TopicMetadata } from './cluster.js';
export { Admin } from './admin.js';
export type {
  AdminOptions,
  ConfigEntry,
  ConfigSource,
  CreateTopicResult,
  DeleteTopicResult,
  NewTopic,
  PartitionDescription,
  TopicDescription,
  TopicListing,
} from './admin.js';
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
export { DefaultPartitioner, murmur2, partitionForKey, toPositive } from './partitioner.js';
export {
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  ProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  UnsupportedVersionError,
  isKafkaError,
  throwIfKafkaError,
} from './errors.js';
export { FrameDecoder } from './frame-decoder.js';
