/**
 * The broker's view of cluster metadata, as handlers need it: reads come from
 * the metadata image that every node applies from the metadata log; changes
 * (create/delete topics, add partitions) go to the active controller, which
 * validates them and appends records. With one node the controller is local;
 * with a quorum the broker's own changes (createTopics for __consumer_offsets
 * and auto-created topics, allocateProducerIds) go to the active controller
 * through routeMetadataChanges (controller-channel.ts); client admin requests
 * are forwarded whole by their handlers (forwardToController).
 */

import type { ScramCredential } from '../controller/metadata/scram-credentials.js';
import type { ScramAlterResult, ScramDeletion, ScramUpsertion } from '../controller/scram-plan.js';
import type { AclCreateResult, AclDeleteResult } from '../controller/acl-plan.js';
import type { StoredAcl } from '../controller/metadata/acls.js';
import type { AclBinding, AclBindingFilter } from '../protocol/acl-types.js';
import type { ClientQuotas } from '../controller/metadata/client-quotas.js';
import type { QuotaAlteration, QuotaAlterResult } from '../controller/quota-plan.js';

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
  /** Eligible Leader Replicas (KIP-966): out of the ISR but still electable. */
  elr: readonly number[];
  /** Replicas that were last in the ELR when the partition lost its leader (KIP-966). */
  lastKnownElr: readonly number[];
  /** Replicas whose broker is not registered or is fenced. */
  offlineReplicas: readonly number[];
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

/** A config resource (2 = topic, 4 = broker: '' for the cluster default, else a node id). */
export interface AlterConfigsSpec {
  resourceType: number;
  resourceName: string;
  configs: readonly { name: string; value: string | null }[];
}

export interface IncrementalAlterConfigsSpec {
  resourceType: number;
  resourceName: string;
  /** configOperation: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT. */
  configs: readonly { name: string; configOperation: number; value: string | null }[];
}

export interface ConfigResourceResult {
  resourceType: number;
  resourceName: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface TopicPartitionsRef {
  topic: string;
  partitions: readonly number[];
}

export interface PartitionItemResult {
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface TopicPartitionResults {
  topic: string;
  partitions: PartitionItemResult[];
}

export interface ReassignmentTarget {
  topic: string;
  /** replicas null cancels the partition's reassignment in progress. */
  partitions: readonly { partition: number; replicas: readonly number[] | null }[];
}

export interface OngoingReassignmentView {
  topic: string;
  partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[];
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
  /**
   * ElectLeaders (electionType 0 preferred, 1 unclean; the caller checks it).
   * null = every partition, answering only those that needed an election
   * (Kafka's rule); otherwise one result per requested partition.
   */
  electLeaders(electionType: 0 | 1, topicPartitions: readonly TopicPartitionsRef[] | null): Promise<TopicPartitionResults[]>;
  /** AlterPartitionReassignments: one result per requested partition. */
  alterPartitionReassignments(targets: readonly ReassignmentTarget[]): Promise<TopicPartitionResults[]>;
  /** Reassignments in progress; null = all. Unknown topics and partitions are left out. */
  listPartitionReassignments(topics: readonly TopicPartitionsRef[] | null): OngoingReassignmentView[];
  /** AlterConfigs: each resource's explicit configs become exactly the given set (validated, ConfigRecords). */
  alterConfigs(resources: readonly AlterConfigsSpec[], validateOnly: boolean): Promise<ConfigResourceResult[]>;
  /** IncrementalAlterConfigs: SET/DELETE/APPEND/SUBTRACT per key (validated, ConfigRecords). */
  incrementalAlterConfigs(resources: readonly IncrementalAlterConfigsSpec[], validateOnly: boolean): Promise<ConfigResourceResult[]>;
  /**
   * A block of producer ids for this broker from the active controller (a
   * ProducerIdsRecord): ids [firstProducerId, firstProducerId + size), or an
   * error code (NOT_CONTROLLER, UNKNOWN_SERVER_ERROR) with size 0.
   */
  allocateProducerIds(): Promise<{ errorCode: number; errorMessage: string | null; firstProducerId: bigint; size: number }>;
  /** A user's SCRAM credential for a mechanism, from the image (SASL/SCRAM logins). */
  scramCredential(mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', user: string): ScramCredential | undefined;
  /** Users with SCRAM credentials and their credentials (DescribeUserScramCredentials; the handler picks the fields it may show). */
  scramUsers(): string[];
  scramCredentialsOf(user: string): readonly ScramCredential[];
  /** AlterUserScramCredentials: validated and committed by the active controller (src/controller/scram-plan.ts). */
  alterScramCredentials(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Promise<ScramAlterResult[]>;
  /** Every ACL of the image (DescribeAcls filters them). */
  acls(): readonly StoredAcl[];
  /** CreateAcls / DeleteAcls: validated and committed by the active controller (src/controller/acl-plan.ts). */
  createAcls(bindings: readonly AclBinding[]): Promise<AclCreateResult[]>;
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]>;
  /** Client quotas in the metadata image (DescribeClientQuotas, and the quota managers' lookups). */
  clientQuotas(): ClientQuotas;
  /** AlterClientQuotas: validated and committed by the active controller (src/controller/quota-plan.ts). */
  alterClientQuotas(alterations: readonly QuotaAlteration[], validateOnly: boolean): Promise<QuotaAlterResult[]>;
  /** Broker settings the Metadata handler needs. */
  readonly autoCreateTopicsEnable: boolean;
}
