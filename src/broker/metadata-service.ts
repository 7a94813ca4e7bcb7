/**
 * The broker's view of cluster metadata, as handlers need it: reads come from
 * the metadata image that every node applies from the metadata log; changes
 * (create/delete topics, add partitions) go to the active controller, which
 * validates them and appends records. With one node the controller is local;
 * with a quorum the same calls forward to the active controller.
 */

export interface BrokerEndpoint {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionView {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
}

export interface TopicView {
  name: string;
  topicId: string;
  isInternal: boolean;
  partitions: readonly PartitionView[];
}

export interface NewTopicSpec {
  name: string;
  /** -1 = the broker's num.partitions. */
  numPartitions: number;
  /** -1 = the broker's default.replication.factor. */
  replicationFactor: number;
  /** Manual assignment: partition index -> broker ids. */
  assignments: readonly { partitionIndex: number; brokerIds: readonly number[] }[];
  configs: readonly { name: string; value: string | null }[];
}

export interface CreatedTopic {
  name: string;
  errorCode: number;
  errorMessage: string | null;
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
  configs: readonly { name: string; value: string | null; readOnly: boolean; configSource: number; isSensitive: boolean }[];
}

export interface DeletedTopicResult {
  name: string | null;
  topicId: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface NewPartitionsSpec {
  name: string;
  count: number;
  assignments: readonly (readonly number[])[] | null;
}

export interface TopicErrorResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface MetadataService {
  readonly clusterId: string;
  /** The active controller's node id (this node, for a cluster of one). */
  controllerId(): number;
  topicExists(name: string): boolean;
  topic(name: string): TopicView | undefined;
  topicNameById(topicId: string): string | undefined;
  topics(): TopicView[];
  /** Live (registered, unfenced) brokers' endpoints on the given listener. */
  brokers(listenerName: string): BrokerEndpoint[];
  createTopics(topics: readonly NewTopicSpec[], validateOnly: boolean): Promise<CreatedTopic[]>;
  deleteTopics(refs: readonly { name: string | null; topicId: string | null }[]): Promise<DeletedTopicResult[]>;
  createPartitions(specs: readonly NewPartitionsSpec[], validateOnly: boolean): Promise<TopicErrorResult[]>;
  /** Broker settings the Metadata handler needs. */
  readonly autoCreateTopicsEnable: boolean;
}
