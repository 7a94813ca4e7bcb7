/**
 * The controller's request and result shapes: plain objects shaped like the
 * wire messages (CreateTopics, DeleteTopics, CreatePartitions,
 * IncrementalAlterConfigs), with a Kafka error code and message per item, so
 * a handler copies them into its response.
 */
import type { ErrorCode } from '../protocol/errors.js';

export interface NewTopic {
  name: string;
  /** -1 = num.partitions. */
  numPartitions: number;
  /** -1 = default.replication.factor. */
  replicationFactor: number;
  /** Manual assignment (then numPartitions and replicationFactor must be -1). */
  assignments: readonly { partitionIndex: number; brokerIds: readonly number[] }[];
  configs: readonly { name: string; value: string | null }[];
}

export interface CreateTopicResultConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** Kafka's ConfigSource id: 1 = DYNAMIC_TOPIC_CONFIG (an explicit override). */
  configSource: number;
  isSensitive: boolean;
}

export interface CreateTopicResult {
  name: string;
  /** The new id; the zero uuid on error or validateOnly. */
  topicId: string;
  errorCode: ErrorCode;
  errorMessage: string | null;
  /** -1 on error. */
  numPartitions: number;
  /** -1 on error. */
  replicationFactor: number;
  /** The explicit configs of the topic (defaults are the handler's to add). */
  configs: CreateTopicResultConfig[];
}

export interface DeleteTopicRef {
  name: string | null;
  /** null or the zero uuid when deleting by name. */
  topicId: string | null;
}

export interface DeleteTopicResult {
  name: string | null;
  topicId: string;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export interface NewPartitions {
  name: string;
  /** The new total partition count. */
  count: number;
  /** Replicas of each added partition, or null for automatic placement. */
  assignments: readonly (readonly number[])[] | null;
}

export interface TopicErrorResult {
  name: string;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

/** IncrementalAlterConfigs operations (Kafka's AlterConfigOp.OpType ids). */
export const AlterConfigOp = { Set: 0, Delete: 1, Append: 2, Subtract: 3 } as const;
export type AlterConfigOp = (typeof AlterConfigOp)[keyof typeof AlterConfigOp];

export interface AlterConfigsResource {
  /** 2 = topic, 4 = broker. */
  resourceType: number;
  resourceName: string;
  configs: readonly { name: string; configOperation: number; value: string | null }[];
}

export interface AlterConfigsResult {
  resourceType: number;
  resourceName: string;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export interface ListenerEndpoint {
  name: string;
  host: string;
  port: number;
  /** Kafka SecurityProtocol id or name; derived from the listener name when absent. */
  securityProtocol?: number | string | undefined;
}

/** Validates topic config overrides; one entry per bad key, message naming the key. */
export type TopicConfigValidator = (configs: ReadonlyMap<string, string>) => readonly { key: string; message: string }[];

/** Validates dynamic broker config overrides; absent = broker configs cannot be altered yet. */
export type BrokerConfigValidator = (brokerId: string, configs: ReadonlyMap<string, string>) => readonly { key: string; message: string }[];
