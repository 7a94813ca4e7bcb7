/**
 * One request per API for the authorization matrix
 * (authorization-matrix.test.ts): a small valid request on the test's
 * resources (NAMES), the requirements of the row it exercises, and for the
 * listing APIs how to see whether the resource is shown.
 */
import type { Connection } from '../../../src/net/connection.js';
import type { Input, MessageSchema } from '../../../src/protocol/schema.js';
import { ZERO_UUID } from '../../../src/protocol/codec.js';
import { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/00-produce.js';
import { FetchRequest, FetchResponse } from '../../../src/protocol/messages/01-fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js';
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../../../src/protocol/messages/08-offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../../../src/protocol/messages/09-offset-fetch.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../../src/protocol/messages/10-find-coordinator.js';
import { JoinGroupRequest, JoinGroupResponse } from '../../../src/protocol/messages/11-join-group.js';
import { HeartbeatRequest, HeartbeatResponse } from '../../../src/protocol/messages/12-heartbeat.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '../../../src/protocol/messages/13-leave-group.js';
import { SyncGroupRequest, SyncGroupResponse } from '../../../src/protocol/messages/14-sync-group.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../../src/protocol/messages/15-describe-groups.js';
import { ListGroupsRequest, ListGroupsResponse } from '../../../src/protocol/messages/16-list-groups.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../src/protocol/messages/19-create-topics.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../../src/protocol/messages/20-delete-topics.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../../../src/protocol/messages/21-delete-records.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../../src/protocol/messages/22-init-producer-id.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../../src/protocol/messages/23-offset-for-leader-epoch.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../../src/protocol/messages/24-add-partitions-to-txn.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../../src/protocol/messages/25-add-offsets-to-txn.js';
import { EndTxnRequest, EndTxnResponse } from '../../../src/protocol/messages/26-end-txn.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../../src/protocol/messages/27-write-txn-markers.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../../src/protocol/messages/28-txn-offset-commit.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../../../src/protocol/messages/29-describe-acls.js';
import { CreateAclsRequest, CreateAclsResponse } from '../../../src/protocol/messages/30-create-acls.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../../../src/protocol/messages/31-delete-acls.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../../src/protocol/messages/32-describe-configs.js';
import { AlterConfigsRequest, AlterConfigsResponse } from '../../../src/protocol/messages/33-alter-configs.js';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../../src/protocol/messages/35-describe-log-dirs.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../../src/protocol/messages/37-create-partitions.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../../src/protocol/messages/42-delete-groups.js';
import { ElectLeadersRequest, ElectLeadersResponse } from '../../../src/protocol/messages/43-elect-leaders.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../../src/protocol/messages/44-incremental-alter-configs.js';
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../../../src/protocol/messages/45-alter-partition-reassignments.js';
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from '../../../src/protocol/messages/46-list-partition-reassignments.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../../../src/protocol/messages/47-offset-delete.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../../../src/protocol/messages/48-describe-client-quotas.js';
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../../src/protocol/messages/49-alter-client-quotas.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../../../src/protocol/messages/50-describe-user-scram-credentials.js';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '../../../src/protocol/messages/51-alter-user-scram-credentials.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../../src/protocol/messages/55-describe-quorum.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../../../src/protocol/messages/60-describe-cluster.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '../../../src/protocol/messages/61-describe-producers.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../../../src/protocol/messages/65-describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../../../src/protocol/messages/66-list-transactions.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from '../../../src/protocol/messages/75-describe-topic-partitions.js';
import { MirrorAppendRequest, MirrorAppendResponse } from '../../../src/protocol/messages/10000-mirror-append.js';
import { recordBatch } from '../../helpers/raw-kafka.js';

/** The resources scenarios act on (the topic exists; the group and transactional id are made by the setup). */
export const NAMES = { TOPIC: 'acl-matrix-topic', GROUP: 'acl-matrix-group', TRANSACTIONAL_ID: 'acl-matrix-txn' } as const;

/** Creates the group (a committed offset) and the transactional id (InitProducerId, once its coordinator is up) as a super user. */
export async function setUpResources(conn: Connection): Promise<void> {
  await conn.send({ request: OffsetCommitRequest, response: OffsetCommitResponse }, 7, { groupId: NAMES.GROUP, topics: [{ name: NAMES.TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] }] });
  const deadline = Date.now() + 30_000;
  for (;;) {
    await conn.send({ request: FindCoordinatorRequest, response: FindCoordinatorResponse }, 3, { key: NAMES.TRANSACTIONAL_ID, keyType: 1, coordinatorKeys: [] });
    const r = await conn.send({ request: InitProducerIdRequest, response: InitProducerIdResponse }, 4, { transactionalId: NAMES.TRANSACTIONAL_ID, transactionTimeoutMs: 60_000 });
    if (r.errorCode === 0) return;
    if (Date.now() > deadline) throw new Error(`InitProducerId for ${NAMES.TRANSACTIONAL_ID} kept failing with ${r.errorCode}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Scenario {
  send(conn: Connection): Promise<unknown>;
  /** Indexes of the row's requirements exercised; default: those without a condition. */
  readonly applies?: readonly number[];
  /** Resource names other than NAMES (a topic that must not exist, ...). */
  readonly names?: Partial<Record<keyof typeof NAMES, string>>;
  /** Listing APIs: whether the answer shows the resource (denied principals must not see it). */
  readonly filtered?: { visible(response: unknown): boolean };
}

function call<Req extends MessageSchema, Res extends MessageSchema>(request: Req, response: Res, version: number, body: () => Input<Req>, extra: Omit<Scenario, 'send'> = {}): Scenario {
  return { ...extra, send: (conn) => conn.send({ request, response }, version, body()) };
}

const T = NAMES.TOPIC;
const G = NAMES.GROUP;
const TX = NAMES.TRANSACTIONAL_ID;
const partition0 = [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }];

export const SCENARIOS: Readonly<Record<number, Scenario>> = {
  0: call(ProduceRequest, ProduceResponse, 7, () => ({ transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: T, partitionData: [{ index: 0, records: recordBatch([{ key: null, value: Buffer.from('x') }]) }] }] }), { applies: [1] }),
  1: call(FetchRequest, FetchResponse, 11, () => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, topics: [{ topic: T, topicId: ZERO_UUID, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1024 }] }], forgottenTopicsData: [] }), { applies: [0] }),
  2: call(ListOffsetsRequest, ListOffsetsResponse, 5, () => ({ topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] })),
  3: call(MetadataRequest, MetadataResponse, 9, () => ({ topics: [{ topicId: ZERO_UUID, name: T }], allowAutoTopicCreation: false }), { applies: [0] }),
  8: call(OffsetCommitRequest, OffsetCommitResponse, 7, () => ({ groupId: G, topics: [{ name: T, partitions: partition0 }] })),
  9: call(OffsetFetchRequest, OffsetFetchResponse, 7, () => ({ groupId: G, topics: [{ name: T, partitionIndexes: [0] }], groups: [] }), { applies: [0, 1] }),
  10: call(FindCoordinatorRequest, FindCoordinatorResponse, 3, () => ({ key: G, keyType: 0, coordinatorKeys: [] }), { applies: [0] }),
  11: call(JoinGroupRequest, JoinGroupResponse, 5, () => ({ groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] })),
  12: call(HeartbeatRequest, HeartbeatResponse, 3, () => ({ groupId: G, generationId: 1, memberId: 'nobody-member' })),
  13: call(LeaveGroupRequest, LeaveGroupResponse, 3, () => ({ groupId: G, memberId: '', members: [{ memberId: 'nobody-member', groupInstanceId: null }] })),
  14: call(SyncGroupRequest, SyncGroupResponse, 3, () => ({ groupId: G, generationId: 1, memberId: 'nobody-member', assignments: [] })),
  15: call(DescribeGroupsRequest, DescribeGroupsResponse, 4, () => ({ groups: [G] })),
  16: call(ListGroupsRequest, ListGroupsResponse, 4, () => ({ statesFilter: [] }), {
    filtered: { visible: (r) => (r as ListGroupsResponse).groups.some((g) => g.groupId === G) },
  }),
  18: call(ApiVersionsRequest, ApiVersionsResponse, 3, () => ({ clientSoftwareName: 'matrix', clientSoftwareVersion: '1' })),
  19: call(CreateTopicsRequest, CreateTopicsResponse, 5, () => ({ topics: [{ name: 'acl-matrix-new', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }), { names: { TOPIC: 'acl-matrix-new' } }),
  20: call(DeleteTopicsRequest, DeleteTopicsResponse, 4, () => ({ topicNames: ['acl-matrix-absent'], topics: [], timeoutMs: 5000 }), { names: { TOPIC: 'acl-matrix-absent' } }),
  21: call(DeleteRecordsRequest, DeleteRecordsResponse, 1, () => ({ topics: [{ name: T, partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 5000 })),
  22: call(InitProducerIdRequest, InitProducerIdResponse, 4, () => ({ transactionalId: TX, transactionTimeoutMs: 60_000 }), { applies: [0] }),
  23: call(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 3, () => ({ replicaId: -1, topics: [{ topic: T, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] })),
  24: call(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 3, () => ({ transactionalId: TX, producerId: 999n, producerEpoch: 0, topics: [{ name: T, partitions: [0] }] }), { applies: [0, 1] }),
  25: call(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 3, () => ({ transactionalId: TX, producerId: 999n, producerEpoch: 0, groupId: G })),
  26: call(EndTxnRequest, EndTxnResponse, 3, () => ({ transactionalId: TX, producerId: 999n, producerEpoch: 0, committed: false })),
  27: call(WriteTxnMarkersRequest, WriteTxnMarkersResponse, 1, () => ({ markers: [{ producerId: 999n, producerEpoch: 0, transactionResult: false, topics: [{ name: T, partitionIndexes: [0] }], coordinatorEpoch: 0 }] })),
  28: call(TxnOffsetCommitRequest, TxnOffsetCommitResponse, 3, () => ({ transactionalId: TX, groupId: G, producerId: 999n, producerEpoch: 0, topics: [{ name: T, partitions: partition0 }] })),
  29: call(DescribeAclsRequest, DescribeAclsResponse, 2, () => ({ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 })),
  30: call(CreateAclsRequest, CreateAclsResponse, 2, () => ({ creations: [{ resourceType: 2, resourceName: 'x', resourcePatternType: 3, principal: 'User:matrix-dummy', host: '*', operation: 3, permissionType: 3 }] })),
  31: call(DeleteAclsRequest, DeleteAclsResponse, 2, () => ({ filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:matrix-dummy', hostFilter: null, operation: 1, permissionType: 1 }] })),
  32: call(DescribeConfigsRequest, DescribeConfigsResponse, 2, () => ({ resources: [{ resourceType: 2, resourceName: T, configurationKeys: null }] }), { applies: [0] }),
  33: call(AlterConfigsRequest, AlterConfigsResponse, 1, () => ({ resources: [{ resourceType: 2, resourceName: T, configs: [{ name: 'retention.ms', value: '100000' }] }], validateOnly: true }), { applies: [0] }),
  35: call(DescribeLogDirsRequest, DescribeLogDirsResponse, 4, () => ({ topics: null })),
  37: call(CreatePartitionsRequest, CreatePartitionsResponse, 1, () => ({ topics: [{ name: T, count: 2, assignments: null }], timeoutMs: 5000, validateOnly: true })),
  42: call(DeleteGroupsRequest, DeleteGroupsResponse, 1, () => ({ groupsNames: ['acl-matrix-absent-group'] }), { names: { GROUP: 'acl-matrix-absent-group' } }),
  43: call(ElectLeadersRequest, ElectLeadersResponse, 1, () => ({ electionType: 0, topicPartitions: [] })),
  44: call(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, () => ({ resources: [{ resourceType: 2, resourceName: T, configs: [{ name: 'retention.ms', configOperation: 0, value: '100000' }] }], validateOnly: true }), { applies: [0] }),
  45: call(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, () => ({ topics: [] })),
  46: call(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, () => ({ topics: null })),
  47: call(OffsetDeleteRequest, OffsetDeleteResponse, 0, () => ({ groupId: G, topics: [{ name: T, partitions: [{ partitionIndex: 0 }] }] })),
  48: call(DescribeClientQuotasRequest, DescribeClientQuotasResponse, 1, () => ({ components: [], strict: false })),
  49: call(AlterClientQuotasRequest, AlterClientQuotasResponse, 1, () => ({ entries: [{ entity: [{ entityType: 'user', entityName: 'matrix-quota-user' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: true })),
  50: call(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, () => ({ users: null })),
  51: call(AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, 0, () => ({ deletions: [{ name: 'matrix-no-such-user', mechanism: 1 }], upsertions: [] })),
  55: call(DescribeQuorumRequest, DescribeQuorumResponse, 0, () => ({ topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] })),
  60: call(DescribeClusterRequest, DescribeClusterResponse, 0, () => ({ includeClusterAuthorizedOperations: true })),
  61: call(DescribeProducersRequest, DescribeProducersResponse, 0, () => ({ topics: [{ name: T, partitionIndexes: [0] }] })),
  65: call(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, () => ({ transactionalIds: [TX] }), { applies: [0] }),
  66: call(ListTransactionsRequest, ListTransactionsResponse, 0, () => ({ stateFilters: [], producerIdFilters: [] }), {
    filtered: { visible: (r) => (r as ListTransactionsResponse).transactionStates.some((t) => t.transactionalId === TX) },
  }),
  75: call(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, () => ({ topics: [{ name: T }] })),
  // A probe (null records): the topic is no mirror topic, so an allowed principal gets POLICY_VIOLATION, not an authorization error.
  10000: call(MirrorAppendRequest, MirrorAppendResponse, 0, () => ({ acks: 1, timeoutMs: 5000, topics: [{ name: T, partitions: [{ index: 0, records: null }] }] })),
};
