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

/**
 * BrokerRegistration (apiKey 62) as the controller takes it. A new incarnation
 * id of a known broker id replaces the old registration (a restarted broker);
 * the same incarnation id again is a retry and answers the same epoch.
 */
export interface BrokerRegistrationRequest {
  brokerId: number;
  /** The broker process's uuid (base64url, as topic ids), new at every start. */
  incarnationId: string;
  endpoints: readonly ListenerEndpoint[];
  rack: string | null;
  /** Supported feature ranges (informational for now). */
  features?: readonly { name: string; minSupportedVersion: number; maxSupportedVersion: number }[] | undefined;
  /**
   * BrokerRegistration v3 (KIP-966): the broker epoch this broker had when it
   * last shut down cleanly (its clean-shutdown marker), else -1. Anything but
   * the registered epoch means an unclean shutdown: the broker may have lost
   * its unflushed tail, so it leaves every ISR and ELR.
   */
  previousBrokerEpoch?: bigint | undefined;
}

export interface BrokerRegistrationReply {
  errorCode: ErrorCode;
  errorMessage: string | null;
  /** The epoch the broker must send in its heartbeats; -1n on error. */
  brokerEpoch: bigint;
}

/** BrokerHeartbeat (apiKey 63). */
export interface BrokerHeartbeatRequest {
  brokerId: number;
  brokerEpoch: bigint;
  /** The offset of the last metadata record the broker has applied (its image's lastAppliedOffset). */
  currentMetadataOffset: bigint;
  /** The broker asks to stay (or become) fenced, e.g. while it recovers its logs. */
  wantFence: boolean;
  /** The broker wants to shut down (controlled shutdown, SIGTERM). */
  wantShutDown: boolean;
}

export interface BrokerHeartbeatReply {
  errorCode: ErrorCode;
  errorMessage: string | null;
  /** The broker has applied the metadata up to its own registration. */
  isCaughtUp: boolean;
  isFenced: boolean;
  /** Controlled shutdown is done: the broker leads no partition any more and may exit. */
  shouldShutDown: boolean;
}
