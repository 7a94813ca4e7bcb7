/**
 * Admin's records, cluster, log-dir and partition calls against fake
 * brokers: DeleteRecords to each leader (retried after a leader moved),
 * DescribeCluster (and the Metadata fallback), DescribeLogDirs on every
 * broker (v4 sizes, older versions without totals), ElectLeaders (unclean
 * needs v1) and ListPartitionReassignments mapping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientErrorCode, KafkaProtocolError } from '../../../src/net/errors.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ADMIN_API_VERSIONS, requestsOf, startFakeCluster } from './admin-fixtures.js';

type DeleteTopics = { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[];

test('deleteRecords sends each partition to its leader and retries one whose leader moved', async (t) => {
  let moved = false;
  const fake = await startFakeCluster(
    (req, nodeId) => {
      const topics = req.body.topics as DeleteTopics;
      return {
        body: {
          throttleTimeMs: 0,
          topics: topics.map((tp) => ({
            name: tp.name,
            partitions: tp.partitions.map((p) => {
              // Partition 1 moves from broker 2 to broker 1 after the first attempt.
              if (p.partitionIndex === 1 && nodeId === 2) {
                moved = true;
                fake.topics.set('orders', { leaders: [1, 1, 2] });
                return { partitionIndex: 1, lowWatermark: -1n, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
              }
              if (p.partitionIndex === 2) return { partitionIndex: 2, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE };
              return { partitionIndex: p.partitionIndex, lowWatermark: p.offset === -1n ? 42n : p.offset, errorCode: 0 };
            }),
          })),
        },
      };
    },
    { topics: { orders: { leaders: [1, 2, 2] } } },
  );
  t.after(() => fake.stop());
  const results = await fake.admin.deleteRecords('orders', { 0: 5n, 1: -1, 2: 99 });
  assert.ok(moved);
  assert.deepEqual(
    results.map((r) => [r.partition, r.lowWatermark, r.error?.errorName ?? null]),
    [
      [0, 5n, null],
      [1, 42n, null],
      [2, -1n, 'OFFSET_OUT_OF_RANGE'],
    ],
  );
  const sent = requestsOf(fake.requests, 21);
  assert.equal(sent[0]?.req.apiVersion, 2);
  const first = sent.filter((r) => r.nodeId === 2)[0]?.req.body.topics as DeleteTopics;
  assert.deepEqual(
    first[0]?.partitions.map((p) => [p.partitionIndex, p.offset]),
    [
      [1, -1n],
      [2, 99n],
    ],
    'partitions 1 and 2 go to broker 2 together; -1 is the high watermark',
  );
  const retried = sent.slice(2).flatMap((r) => (r.req.body.topics as DeleteTopics).flatMap((tp) => tp.partitions.map((p) => [r.nodeId, p.partitionIndex])));
  assert.deepEqual(retried, [[1, 1]], 'only partition 1 is retried, at its new leader');
});

test('deleteRecords: unknown partitions per partition, an unknown topic throws, bad offsets are refused', async (t) => {
  const fake = await startFakeCluster(
    (req) => {
      const topics = req.body.topics as DeleteTopics;
      return { body: { throttleTimeMs: 0, topics: topics.map((tp) => ({ name: tp.name, partitions: tp.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: 0n, errorCode: 0 })) })) } };
    },
    { topics: { orders: { leaders: [1] } } },
  );
  t.after(() => fake.stop());
  const results = await fake.admin.deleteRecords('orders', new Map([[0, 0n], [7, 0n]]));
  assert.deepEqual(
    results.map((r) => [r.partition, r.error?.errorName ?? null]),
    [
      [0, null],
      [7, 'UNKNOWN_TOPIC_OR_PARTITION'],
    ],
  );
  await assert.rejects(fake.admin.deleteRecords('nope', { 0: 0 }), (err: unknown) => err instanceof KafkaProtocolError && err.errorName === 'UNKNOWN_TOPIC_OR_PARTITION');
  const invalid = (err: unknown): boolean => (err as { code?: unknown }).code === ClientErrorCode.INVALID_ARGUMENT;
  await assert.rejects(fake.admin.deleteRecords('orders', { 0: -2 }), invalid);
  await assert.rejects(fake.admin.deleteRecords('orders', { 0: 1.5 }), invalid);
});

test('describeCluster uses DescribeCluster v1 and falls back to Metadata', async (t) => {
  const fake = await startFakeCluster((req) => {
    assert.equal(req.apiKey, 60);
    return {
      body: {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        endpointType: 1,
        clusterId: 'abc',
        controllerId: 2,
        brokers: [
          { brokerId: 2, host: 'h2', port: 2, rack: 'r' },
          { brokerId: 1, host: 'h1', port: 1, rack: null },
        ],
        clusterAuthorizedOperations: -2147483648,
      },
    };
  });
  t.after(() => fake.stop());
  assert.deepEqual(await fake.admin.describeCluster(), {
    clusterId: 'abc',
    controllerId: 2,
    brokers: [
      { nodeId: 1, host: 'h1', port: 1, rack: null },
      { nodeId: 2, host: 'h2', port: 2, rack: 'r' },
    ],
    authorizedOperations: null,
  });
  const [sent] = requestsOf(fake.requests, 60);
  assert.equal(sent?.req.apiVersion, 1);
  assert.equal(sent?.req.body.endpointType, 1);

  const old = await startFakeCluster(() => ({ none: true }), { apiVersions: ADMIN_API_VERSIONS.filter((v) => v.apiKey !== 60) });
  t.after(() => old.stop());
  const d = await old.admin.describeCluster();
  assert.equal(d.clusterId, 'fake-cluster');
  assert.equal(d.controllerId, 1);
  assert.deepEqual(
    d.brokers.map((b) => [b.nodeId, b.rack]),
    [
      [1, null],
      [2, 'r2'],
    ],
  );
  assert.equal(requestsOf(old.requests, 60).length, 0);
});

test('describeCluster throws the top-level error with its message', async (t) => {
  const fake = await startFakeCluster(() => ({
    body: { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'no', endpointType: 1, clusterId: '', controllerId: -1, brokers: [], clusterAuthorizedOperations: 0 },
  }));
  t.after(() => fake.stop());
  await assert.rejects(fake.admin.describeCluster(), (err: unknown) => err instanceof KafkaProtocolError && err.errorName === 'CLUSTER_AUTHORIZATION_FAILED' && err.serverMessage === 'no');
});

function logDirsReply(nodeId: number): { body: Record<string, unknown> } {
  return {
    body: {
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          errorCode: 0,
          logDir: `/data/${nodeId}`,
          topics: [
            {
              name: 'orders',
              partitions: [
                { partitionIndex: nodeId === 1 ? 2 : 1, partitionSize: 300n, offsetLag: 0n, isFutureKey: false },
                { partitionIndex: 0, partitionSize: 100n, offsetLag: 0n, isFutureKey: false },
              ],
            },
          ],
          totalBytes: 1000n,
          usableBytes: 500n,
        },
      ],
    },
  };
}

test('describeLogDirs asks every broker, sorts partitions and maps sizes (v4 totals)', async (t) => {
  const fake = await startFakeCluster((_req, nodeId) => logDirsReply(nodeId), { topics: { orders: { leaders: [1, 2, 1] } } });
  t.after(() => fake.stop());
  const all = await fake.admin.describeLogDirs();
  assert.deepEqual(
    all.map((b) => [b.nodeId, b.logDirs[0]?.path, b.logDirs[0]?.totalBytes, b.logDirs[0]?.usableBytes, b.logDirs[0]?.partitions.map((p) => [p.partition, p.sizeBytes])]),
    [
      [1, '/data/1', 1000n, 500n, [[0, 100n], [2, 300n]]],
      [2, '/data/2', 1000n, 500n, [[0, 100n], [1, 300n]]],
    ],
  );
  const sent = requestsOf(fake.requests, 35);
  assert.deepEqual(sent.map((r) => r.nodeId).sort(), [1, 2]);
  assert.equal(sent[0]?.req.apiVersion, 4);
  assert.equal(sent[0]?.req.body.topics, null, 'every partition');

  fake.requests.length = 0;
  await fake.admin.describeLogDirs(['orders']);
  assert.deepEqual(requestsOf(fake.requests, 35)[0]?.req.body.topics, [{ topic: 'orders', partitions: [0, 1, 2] }], 'the topic filter names its partitions');
  await assert.rejects(fake.admin.describeLogDirs(['nope']), (err: unknown) => err instanceof KafkaProtocolError && err.errorName === 'UNKNOWN_TOPIC_OR_PARTITION');
});

test('describeLogDirs before v4 has no totals; a v3 top-level error is per broker', async (t) => {
  const versions = ADMIN_API_VERSIONS.map((v) => (v.apiKey === 35 ? { ...v, maxVersion: 3 } : v));
  const fake = await startFakeCluster(
    (_req, nodeId) => (nodeId === 2 ? { body: { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] } } : logDirsReply(nodeId)),
    { apiVersions: versions },
  );
  t.after(() => fake.stop());
  const [one, two] = await fake.admin.describeLogDirs();
  assert.equal(one?.logDirs[0]?.totalBytes, null);
  assert.equal(one?.logDirs[0]?.usableBytes, null);
  assert.equal(one?.error, null);
  assert.equal(two?.error?.errorName, 'CLUSTER_AUTHORIZATION_FAILED');
});

test('electLeaders: preferred at v2 per partition; unclean needs v1', async (t) => {
  const fake = await startFakeCluster((req) => {
    const tps = req.body.topicPartitions as { topic: string; partitions: number[] }[];
    return {
      body: {
        throttleTimeMs: 0,
        errorCode: 0,
        replicaElectionResults: tps.map((tp) => ({
          topic: tp.topic,
          partitionResult: tp.partitions.map((p) => ({
            partitionId: p,
            errorCode: p === 0 ? ErrorCode.ELECTION_NOT_NEEDED : 0,
            errorMessage: p === 0 ? 'already leads' : null,
          })),
        })),
      },
    };
  });
  t.after(() => fake.stop());
  const results = await fake.admin.electLeaders('preferred', [{ topic: 'orders', partitions: [1, 0] }]);
  assert.deepEqual(
    results.map((r) => [r.topic, r.partition, r.error?.errorName ?? null]),
    [
      ['orders', 0, 'ELECTION_NOT_NEEDED'],
      ['orders', 1, null],
    ],
  );
  const [sent] = requestsOf(fake.requests, 43);
  assert.equal(sent?.req.apiVersion, 2);
  assert.equal(sent?.req.body.electionType, 0);
  assert.equal(sent?.nodeId, 1, 'the controller');

  const v0 = await startFakeCluster(() => ({ none: true }), { apiVersions: ADMIN_API_VERSIONS.map((v) => (v.apiKey === 43 ? { ...v, maxVersion: 0 } : v)) });
  t.after(() => v0.stop());
  await assert.rejects(v0.admin.electLeaders('unclean', null), (err: unknown) => (err as { code?: unknown }).code === ClientErrorCode.UNSUPPORTED_VERSION);
});

test('listPartitionReassignments maps the reassignments in progress', async (t) => {
  const fake = await startFakeCluster(() => ({
    body: {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 3, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1] }] }],
    },
  }));
  t.after(() => fake.stop());
  assert.deepEqual(await fake.admin.listPartitionReassignments(), [{ topic: 'orders', partition: 3, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1] }]);
  assert.equal(requestsOf(fake.requests, 46)[0]?.req.body.topics, null);
});
