/**
 * Every message schema, by API key. The broker's handler registry and the
 * clients look schemas up here; tests iterate it for round trips.
 */
import type { MessageSchema } from '../schema.js';
import { ProduceRequest, ProduceResponse } from './00-produce.js';
import { FetchRequest, FetchResponse } from './01-fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from './02-list-offsets.js';
import { MetadataRequest, MetadataResponse } from './03-metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from './08-offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from './09-offset-fetch.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from './10-find-coordinator.js';
import { JoinGroupRequest, JoinGroupResponse } from './11-join-group.js';
import { HeartbeatRequest, HeartbeatResponse } from './12-heartbeat.js';
import { LeaveGroupRequest, LeaveGroupResponse } from './13-leave-group.js';
import { SyncGroupRequest, SyncGroupResponse } from './14-sync-group.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from './15-describe-groups.js';
import { ListGroupsRequest, ListGroupsResponse } from './16-list-groups.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from './17-sasl-handshake.js';
import { ApiVersionsRequest, ApiVersionsResponse } from './18-api-versions.js';
import { CreateTopicsRequest, CreateTopicsResponse } from './19-create-topics.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from './20-delete-topics.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from './21-delete-records.js';
import { InitProducerIdRequest, InitProducerIdResponse } from './22-init-producer-id.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from './23-offset-for-leader-epoch.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from './24-add-partitions-to-txn.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from './25-add-offsets-to-txn.js';
import { EndTxnRequest, EndTxnResponse } from './26-end-txn.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from './27-write-txn-markers.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from './28-txn-offset-commit.js';
import { DescribeAclsRequest, DescribeAclsResponse } from './29-describe-acls.js';
import { CreateAclsRequest, CreateAclsResponse } from './30-create-acls.js';
import { DeleteAclsRequest, DeleteAclsResponse } from './31-delete-acls.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from './32-describe-configs.js';
import { AlterConfigsRequest, AlterConfigsResponse } from './33-alter-configs.js';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from './35-describe-log-dirs.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from './36-sasl-authenticate.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from './37-create-partitions.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from './42-delete-groups.js';
import { ElectLeadersRequest, ElectLeadersResponse } from './43-elect-leaders.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from './44-incremental-alter-configs.js';
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from './45-alter-partition-reassignments.js';
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from './46-list-partition-reassignments.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from './47-offset-delete.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from './48-describe-client-quotas.js';
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from './49-alter-client-quotas.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from './50-describe-user-scram-credentials.js';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from './51-alter-user-scram-credentials.js';
import { VoteRequest, VoteResponse } from './52-vote.js';
import { BeginQuorumEpochRequest, BeginQuorumEpochResponse } from './53-begin-quorum-epoch.js';
import { EndQuorumEpochRequest, EndQuorumEpochResponse } from './54-end-quorum-epoch.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from './55-describe-quorum.js';
import { AlterPartitionRequest, AlterPartitionResponse } from './56-alter-partition.js';
import { FetchSnapshotRequest, FetchSnapshotResponse } from './59-fetch-snapshot.js';
import { DescribeClusterRequest, DescribeClusterResponse } from './60-describe-cluster.js';
import { DescribeProducersRequest, DescribeProducersResponse } from './61-describe-producers.js';
import { BrokerRegistrationRequest, BrokerRegistrationResponse } from './62-broker-registration.js';
import { BrokerHeartbeatRequest, BrokerHeartbeatResponse } from './63-broker-heartbeat.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from './65-describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from './66-list-transactions.js';
import { AllocateProducerIdsRequest, AllocateProducerIdsResponse } from './67-allocate-producer-ids.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from './75-describe-topic-partitions.js';
import { MirrorAppendRequest, MirrorAppendResponse } from './10000-mirror-append.js';

export interface ApiSchemas {
  readonly apiKey: number;
  readonly name: string;
  readonly request: MessageSchema;
  readonly response: MessageSchema;
}

export const apiSchemas: ReadonlyMap<number, ApiSchemas> = new Map<number, ApiSchemas>([
  [0, { apiKey: 0, name: 'Produce', request: ProduceRequest, response: ProduceResponse }],
  [1, { apiKey: 1, name: 'Fetch', request: FetchRequest, response: FetchResponse }],
  [2, { apiKey: 2, name: 'ListOffsets', request: ListOffsetsRequest, response: ListOffsetsResponse }],
  [3, { apiKey: 3, name: 'Metadata', request: MetadataRequest, response: MetadataResponse }],
  [8, { apiKey: 8, name: 'OffsetCommit', request: OffsetCommitRequest, response: OffsetCommitResponse }],
  [9, { apiKey: 9, name: 'OffsetFetch', request: OffsetFetchRequest, response: OffsetFetchResponse }],
  [10, { apiKey: 10, name: 'FindCoordinator', request: FindCoordinatorRequest, response: FindCoordinatorResponse }],
  [11, { apiKey: 11, name: 'JoinGroup', request: JoinGroupRequest, response: JoinGroupResponse }],
  [12, { apiKey: 12, name: 'Heartbeat', request: HeartbeatRequest, response: HeartbeatResponse }],
  [13, { apiKey: 13, name: 'LeaveGroup', request: LeaveGroupRequest, response: LeaveGroupResponse }],
  [14, { apiKey: 14, name: 'SyncGroup', request: SyncGroupRequest, response: SyncGroupResponse }],
  [15, { apiKey: 15, name: 'DescribeGroups', request: DescribeGroupsRequest, response: DescribeGroupsResponse }],
  [16, { apiKey: 16, name: 'ListGroups', request: ListGroupsRequest, response: ListGroupsResponse }],
  [17, { apiKey: 17, name: 'SaslHandshake', request: SaslHandshakeRequest, response: SaslHandshakeResponse }],
  [18, { apiKey: 18, name: 'ApiVersions', request: ApiVersionsRequest, response: ApiVersionsResponse }],
  [19, { apiKey: 19, name: 'CreateTopics', request: CreateTopicsRequest, response: CreateTopicsResponse }],
  [20, { apiKey: 20, name: 'DeleteTopics', request: DeleteTopicsRequest, response: DeleteTopicsResponse }],
  [21, { apiKey: 21, name: 'DeleteRecords', request: DeleteRecordsRequest, response: DeleteRecordsResponse }],
  [22, { apiKey: 22, name: 'InitProducerId', request: InitProducerIdRequest, response: InitProducerIdResponse }],
  [23, { apiKey: 23, name: 'OffsetForLeaderEpoch', request: OffsetForLeaderEpochRequest, response: OffsetForLeaderEpochResponse }],
  [24, { apiKey: 24, name: 'AddPartitionsToTxn', request: AddPartitionsToTxnRequest, response: AddPartitionsToTxnResponse }],
  [25, { apiKey: 25, name: 'AddOffsetsToTxn', request: AddOffsetsToTxnRequest, response: AddOffsetsToTxnResponse }],
  [26, { apiKey: 26, name: 'EndTxn', request: EndTxnRequest, response: EndTxnResponse }],
  [27, { apiKey: 27, name: 'WriteTxnMarkers', request: WriteTxnMarkersRequest, response: WriteTxnMarkersResponse }],
  [28, { apiKey: 28, name: 'TxnOffsetCommit', request: TxnOffsetCommitRequest, response: TxnOffsetCommitResponse }],
  [29, { apiKey: 29, name: 'DescribeAcls', request: DescribeAclsRequest, response: DescribeAclsResponse }],
  [30, { apiKey: 30, name: 'CreateAcls', request: CreateAclsRequest, response: CreateAclsResponse }],
  [31, { apiKey: 31, name: 'DeleteAcls', request: DeleteAclsRequest, response: DeleteAclsResponse }],
  [32, { apiKey: 32, name: 'DescribeConfigs', request: DescribeConfigsRequest, response: DescribeConfigsResponse }],
  [33, { apiKey: 33, name: 'AlterConfigs', request: AlterConfigsRequest, response: AlterConfigsResponse }],
  [35, { apiKey: 35, name: 'DescribeLogDirs', request: DescribeLogDirsRequest, response: DescribeLogDirsResponse }],
  [36, { apiKey: 36, name: 'SaslAuthenticate', request: SaslAuthenticateRequest, response: SaslAuthenticateResponse }],
  [37, { apiKey: 37, name: 'CreatePartitions', request: CreatePartitionsRequest, response: CreatePartitionsResponse }],
  [42, { apiKey: 42, name: 'DeleteGroups', request: DeleteGroupsRequest, response: DeleteGroupsResponse }],
  [43, { apiKey: 43, name: 'ElectLeaders', request: ElectLeadersRequest, response: ElectLeadersResponse }],
  [44, { apiKey: 44, name: 'IncrementalAlterConfigs', request: IncrementalAlterConfigsRequest, response: IncrementalAlterConfigsResponse }],
  [45, { apiKey: 45, name: 'AlterPartitionReassignments', request: AlterPartitionReassignmentsRequest, response: AlterPartitionReassignmentsResponse }],
  [46, { apiKey: 46, name: 'ListPartitionReassignments', request: ListPartitionReassignmentsRequest, response: ListPartitionReassignmentsResponse }],
  [47, { apiKey: 47, name: 'OffsetDelete', request: OffsetDeleteRequest, response: OffsetDeleteResponse }],
  [48, { apiKey: 48, name: 'DescribeClientQuotas', request: DescribeClientQuotasRequest, response: DescribeClientQuotasResponse }],
  [49, { apiKey: 49, name: 'AlterClientQuotas', request: AlterClientQuotasRequest, response: AlterClientQuotasResponse }],
  [50, { apiKey: 50, name: 'DescribeUserScramCredentials', request: DescribeUserScramCredentialsRequest, response: DescribeUserScramCredentialsResponse }],
  [51, { apiKey: 51, name: 'AlterUserScramCredentials', request: AlterUserScramCredentialsRequest, response: AlterUserScramCredentialsResponse }],
  [52, { apiKey: 52, name: 'Vote', request: VoteRequest, response: VoteResponse }],
  [53, { apiKey: 53, name: 'BeginQuorumEpoch', request: BeginQuorumEpochRequest, response: BeginQuorumEpochResponse }],
  [54, { apiKey: 54, name: 'EndQuorumEpoch', request: EndQuorumEpochRequest, response: EndQuorumEpochResponse }],
  [55, { apiKey: 55, name: 'DescribeQuorum', request: DescribeQuorumRequest, response: DescribeQuorumResponse }],
  [56, { apiKey: 56, name: 'AlterPartition', request: AlterPartitionRequest, response: AlterPartitionResponse }],
  [59, { apiKey: 59, name: 'FetchSnapshot', request: FetchSnapshotRequest, response: FetchSnapshotResponse }],
  [60, { apiKey: 60, name: 'DescribeCluster', request: DescribeClusterRequest, response: DescribeClusterResponse }],
  [61, { apiKey: 61, name: 'DescribeProducers', request: DescribeProducersRequest, response: DescribeProducersResponse }],
  [62, { apiKey: 62, name: 'BrokerRegistration', request: BrokerRegistrationRequest, response: BrokerRegistrationResponse }],
  [63, { apiKey: 63, name: 'BrokerHeartbeat', request: BrokerHeartbeatRequest, response: BrokerHeartbeatResponse }],
  [65, { apiKey: 65, name: 'DescribeTransactions', request: DescribeTransactionsRequest, response: DescribeTransactionsResponse }],
  [66, { apiKey: 66, name: 'ListTransactions', request: ListTransactionsRequest, response: ListTransactionsResponse }],
  [67, { apiKey: 67, name: 'AllocateProducerIds', request: AllocateProducerIdsRequest, response: AllocateProducerIdsResponse }],
  [75, { apiKey: 75, name: 'DescribeTopicPartitions', request: DescribeTopicPartitionsRequest, response: DescribeTopicPartitionsResponse }],
  // Tributary's own keys start at 10000, far above Kafka's (docs/compatibility.md).
  [10000, { apiKey: 10000, name: 'MirrorAppend', request: MirrorAppendRequest, response: MirrorAppendResponse }],
]);

export * from './00-produce.js';
export * from './01-fetch.js';
export * from './02-list-offsets.js';
export * from './03-metadata.js';
export * from './08-offset-commit.js';
export * from './09-offset-fetch.js';
export * from './10-find-coordinator.js';
export * from './11-join-group.js';
export * from './12-heartbeat.js';
export * from './13-leave-group.js';
export * from './14-sync-group.js';
export * from './15-describe-groups.js';
export * from './16-list-groups.js';
export * from './17-sasl-handshake.js';
export * from './18-api-versions.js';
export * from './19-create-topics.js';
export * from './20-delete-topics.js';
export * from './21-delete-records.js';
export * from './22-init-producer-id.js';
export * from './23-offset-for-leader-epoch.js';
export * from './24-add-partitions-to-txn.js';
export * from './25-add-offsets-to-txn.js';
export * from './26-end-txn.js';
export * from './27-write-txn-markers.js';
export * from './28-txn-offset-commit.js';
export * from './29-describe-acls.js';
export * from './30-create-acls.js';
export * from './31-delete-acls.js';
export * from './32-describe-configs.js';
export * from './33-alter-configs.js';
export * from './35-describe-log-dirs.js';
export * from './36-sasl-authenticate.js';
export * from './37-create-partitions.js';
export * from './42-delete-groups.js';
export * from './43-elect-leaders.js';
export * from './44-incremental-alter-configs.js';
export * from './45-alter-partition-reassignments.js';
export * from './46-list-partition-reassignments.js';
export * from './47-offset-delete.js';
export * from './48-describe-client-quotas.js';
export * from './49-alter-client-quotas.js';
export * from './50-describe-user-scram-credentials.js';
export * from './51-alter-user-scram-credentials.js';
export * from './52-vote.js';
export * from './53-begin-quorum-epoch.js';
export * from './54-end-quorum-epoch.js';
export * from './55-describe-quorum.js';
export * from './56-alter-partition.js';
export * from './59-fetch-snapshot.js';
export * from './60-describe-cluster.js';
export * from './62-broker-registration.js';
export * from './63-broker-heartbeat.js';
export * from './67-allocate-producer-ids.js';
export * from './75-describe-topic-partitions.js';
export * from './10000-mirror-append.js';
