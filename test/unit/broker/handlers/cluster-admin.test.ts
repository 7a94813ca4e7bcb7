/**
 * ElectLeaders (43), AlterPartitionReassignments (45),
 * ListPartitionReassignments (46) and DescribeCluster (60) on an in-process
 * one-node broker, every version, plus what ApiVersions advertises for them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { startInProcessBroker, type InProcessBroker } from '../../../helpers/in-process-broker.js';
import { AdminCaller, createTopic } from './admin-helpers.js';

let node: InProcessBroker;
let c: AdminCaller;
let nodeId: number;

before(async () => {
  node = await startInProcessBroker();
  c = await AdminCaller.connect(node);
  nodeId = node.broker.nodeId;
  await createTopic(node, 'ca-1', 2);
  await createTopic(node, 'ca-2', 1);
});

after(async () => {
  c?.close();
  await node?.stop();
});

type PartitionResult = { partitionId: number; errorCode: number; errorMessage: string | null };
type ElectResponse = { errorCode?: number; replicaElectionResults: { topic: string; partitionResult: PartitionResult[] }[] };

test('ApiVersions advertises the admin APIs with their full ranges', async () => {
  const r = await c.call<{ apiKeys: { apiKey: number; minVersion: number; maxVersion: number }[] }>(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  const range = (k: number) => r.apiKeys.find((a) => a.apiKey === k);
  assert.deepEqual(range(21), { apiKey: 21, minVersion: 0, maxVersion: 2 });
  assert.deepEqual(range(23), { apiKey: 23, minVersion: 0, maxVersion: 4 });
  assert.deepEqual(range(35), { apiKey: 35, minVersion: 0, maxVersion: 4 });
  assert.deepEqual(range(43), { apiKey: 43, minVersion: 0, maxVersion: 2 });
  assert.deepEqual(range(45), { apiKey: 45, minVersion: 0, maxVersion: 0 });
  assert.deepEqual(range(46), { apiKey: 46, minVersion: 0, maxVersion: 0 });
  assert.deepEqual(range(60), { apiKey: 60, minVersion: 0, maxVersion: 1 });
});

for (const version of [0, 1, 2]) {
  test(`ElectLeaders v${version}: not needed on one node; unknown partitions; all partitions lists none`, async () => {
    const r = await c.call<ElectResponse>(43, version, {
      electionType: 0,
      topicPartitions: [{ topic: 'ca-1', partitions: [0, 1, 5] }, { topic: 'nope', partitions: [0] }],
      timeoutMs: 1000,
    });
    if (version >= 1) assert.equal(r.errorCode, 0);
    const codes = r.replicaElectionResults.map((t) => [t.topic, t.partitionResult.map((p) => [p.partitionId, p.errorCode])]);
    assert.deepEqual(codes, [
      ['ca-1', [[0, ErrorCode.ELECTION_NOT_NEEDED], [1, ErrorCode.ELECTION_NOT_NEEDED], [5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
    ]);
    const all = await c.call<ElectResponse>(43, version, { electionType: 0, topicPartitions: null, timeoutMs: 1000 });
    const mine = all.replicaElectionResults.filter((t) => t.topic.startsWith('ca-'));
    assert.deepEqual(mine, [{ topic: 'ca-1', partitionResult: [] }, { topic: 'ca-2', partitionResult: [] }]);
  });
}

test('ElectLeaders v1+: unclean elections are not needed either; an unknown election type is refused', async () => {
  const unclean = await c.call<ElectResponse>(43, 2, { electionType: 1, topicPartitions: [{ topic: 'ca-2', partitions: [0] }], timeoutMs: 1000 });
  assert.equal(unclean.replicaElectionResults[0]?.partitionResult[0]?.errorCode, ErrorCode.ELECTION_NOT_NEEDED);
  const bad = await c.call<ElectResponse>(43, 1, { electionType: 2, topicPartitions: [{ topic: 'ca-2', partitions: [0] }], timeoutMs: 1000 });
  assert.equal(bad.errorCode, ErrorCode.INVALID_REQUEST);
  assert.equal(bad.replicaElectionResults[0]?.partitionResult[0]?.errorCode, ErrorCode.INVALID_REQUEST);
});

type AlterResponse = { errorCode: number; errorMessage: string | null; responses: { name: string; partitions: { partitionIndex: number; errorCode: number; errorMessage: string | null }[] }[] };

test('AlterPartitionReassignments v0: the current replica set is a no-op; bad targets and cancellations', async () => {
  const r = await c.call<AlterResponse>(45, 0, {
    timeoutMs: 1000,
    topics: [
      {
        name: 'ca-1',
        partitions: [
          { partitionIndex: 0, replicas: [nodeId] },
          { partitionIndex: 1, replicas: [nodeId + 100] },
          { partitionIndex: 1, replicas: [] },
          { partitionIndex: 1, replicas: [nodeId, nodeId] },
          { partitionIndex: 0, replicas: null },
          { partitionIndex: 9, replicas: [nodeId] },
        ],
      },
      { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [nodeId] }] },
    ],
  });
  assert.equal(r.errorCode, 0);
  assert.equal(r.errorMessage, null);
  assert.deepEqual(
    r.responses.map((t) => [t.name, t.partitions.map((p) => p.errorCode)]),
    [
      ['ca-1', [ErrorCode.NONE, ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
      ['nope', [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
    ],
  );
  assert.equal(r.responses[0]?.partitions[0]?.errorMessage, null);
  assert.match(r.responses[0]?.partitions[1]?.errorMessage ?? '', new RegExp(`broker ${nodeId + 100}`));
  const p = node.broker.services.metadata.topic('ca-1')?.partitions[0];
  assert.deepEqual(p?.replicas, [nodeId], 'nothing changed');
});

test('ListPartitionReassignments v0: none in progress, for all topics or the requested ones', async () => {
  type ListResponse = { errorCode: number; errorMessage: string | null; topics: unknown[] };
  const all = await c.call<ListResponse>(46, 0, { timeoutMs: 1000, topics: null });
  assert.deepEqual([all.errorCode, all.errorMessage, all.topics], [0, null, []]);
  const some = await c.call<ListResponse>(46, 0, { timeoutMs: 1000, topics: [{ name: 'ca-1', partitionIndexes: [0, 1] }, { name: 'nope', partitionIndexes: [0] }] });
  assert.deepEqual(some.topics, []);
});

type ClusterResponse = {
  errorCode: number;
  errorMessage: string | null;
  endpointType?: number;
  clusterId: string;
  controllerId: number;
  brokers: { brokerId: number; host: string; port: number; rack: string | null }[];
  clusterAuthorizedOperations: number;
};

for (const version of [0, 1]) {
  test(`DescribeCluster v${version}: this broker, the controller, the cluster id; authorized operations when asked`, async () => {
    const r = await c.call<ClusterResponse>(60, version, { includeClusterAuthorizedOperations: false, endpointType: 1 });
    assert.equal(r.errorCode, 0);
    assert.equal(r.clusterId, node.broker.clusterId);
    assert.equal(r.controllerId, nodeId);
    assert.deepEqual(r.brokers, [{ brokerId: nodeId, host: '127.0.0.1', port: node.port, rack: null }]);
    assert.equal(r.clusterAuthorizedOperations, -2147483648, '"not requested" sentinel');
    if (version >= 1) assert.equal(r.endpointType, 1);
    const asked = await c.call<ClusterResponse>(60, version, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    const ops = [5, 7, 8, 9, 10, 11, 12];
    assert.equal(asked.clusterAuthorizedOperations, ops.reduce((bits, op) => bits | (1 << op), 0));
  });
}

test('DescribeCluster v1: a controller endpoint type is a mismatch, an unknown one unsupported', async () => {
  const controller = await c.call<ClusterResponse>(60, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 });
  assert.equal(controller.errorCode, ErrorCode.MISMATCHED_ENDPOINT_TYPE);
  assert.equal(controller.brokers.length, 0);
  const unknown = await c.call<ClusterResponse>(60, 1, { includeClusterAuthorizedOperations: false, endpointType: 9 });
  assert.equal(unknown.errorCode, ErrorCode.UNSUPPORTED_ENDPOINT_TYPE);
});
