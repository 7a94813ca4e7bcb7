/**
 * Admin's per-partition offset calls (admin-offsets.ts) against a fake
 * two-broker cluster: one request per leader, a partition whose leader moved
 * is retried at the new leader after a metadata refresh, errors stay with
 * their partition, max-timestamp needs ListOffsets v7, and OffsetForLeaderEpoch
 * is sent as a consumer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_API_VERSIONS, startFakeCluster, type FakeCluster } from './admin-fixtures.js';
import type { FakeReply, FakeRequest } from './fake-broker.js';

interface WireListOffsetsTopic {
  name: string;
  partitions: { partitionIndex: number; timestamp: bigint }[];
}

/** ListOffsets answered with offset = 100 * node + partition, or `error(partition)` when it says so. */
function listOffsetsReply(req: FakeRequest, nodeId: number, error: (topic: string, partition: number) => number = () => 0): FakeReply {
  const topics = req.body.topics as WireListOffsetsTopic[];
  return {
    body: {
      throttleTimeMs: 0,
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: error(t.name, p.partitionIndex),
          oldStyleOffsets: [],
          timestamp: -1n,
          offset: BigInt(100 * nodeId + p.partitionIndex),
          leaderEpoch: 7,
        })),
      })),
    },
  };
}

const V7 = ADMIN_API_VERSIONS.map((v) => (v.apiKey === 2 ? { ...v, maxVersion: 7 } : v));

test('listOffsets: one request per leader, results in input order, errors per partition', async (t) => {
  const fake: FakeCluster = await startFakeCluster((req, nodeId) => listOffsetsReply(req, nodeId, (_topic, p) => (p === 2 ? 1 : 0)), {
    topics: { orders: { leaders: [1, 2, 1] } },
  });
  t.after(() => fake.stop());
  const results = await fake.admin.listOffsets([
    { topic: 'orders', partition: 2, spec: 'latest' },
    { topic: 'orders', partition: 1, spec: 'earliest' },
    { topic: 'orders', partition: 0, spec: 1_000 },
    { topic: 'missing', partition: 0, spec: 'latest' },
  ]);
  assert.deepEqual(
    results.map((r) => [r.partition, r.offset, r.error?.kafkaErrorName ?? null]),
    [
      [2, -1n, 'OFFSET_OUT_OF_RANGE'],
      [1, 201n, null],
      [0, 100n, null],
      [0, -1n, 'UNKNOWN_TOPIC_OR_PARTITION'],
    ],
  );
  const sent = fake.requests.filter((r) => r.req.apiKey === 2);
  assert.deepEqual(sent.map((r) => r.nodeId).sort(), [1, 2]);
  const toNode1 = sent.find((r) => r.nodeId === 1)!.req.body.topics as WireListOffsetsTopic[];
  assert.deepEqual(toNode1[0]!.partitions.map((p) => [p.partitionIndex, p.timestamp]), [[2, -1n], [0, 1_000n]]);
  await assert.rejects(
    fake.admin.listOffsets([
      { topic: 'orders', partition: 0, spec: 'latest' },
      { topic: 'orders', partition: 0, spec: 'earliest' },
    ]),
    { code: 'ERR_TRIB_INVALID_ARGUMENT' },
  );
});

test('listOffsets: a partition answered NOT_LEADER_OR_FOLLOWER is retried at its new leader after a metadata refresh', async (t) => {
  let moved = false;
  const fake: FakeCluster = await startFakeCluster(
    (req, nodeId) =>
      listOffsetsReply(req, nodeId, () => {
        if (nodeId === 1 && !moved) {
          moved = true;
          fake.topics.set('orders', { leaders: [2] });
          return 6; // NOT_LEADER_OR_FOLLOWER
        }
        return 0;
      }),
    { topics: { orders: { leaders: [1] } } },
  );
  t.after(() => fake.stop());
  const [r] = await fake.admin.listOffsets([{ topic: 'orders', partition: 0, spec: 'latest' }]);
  assert.deepEqual([r!.offset, r!.leaderEpoch, r!.error], [200n, 7, null]);
  assert.deepEqual(
    fake.requests.filter((x) => x.req.apiKey === 2).map((x) => x.nodeId),
    [1, 2],
  );
});

test('listOffsets max-timestamp needs ListOffsets v7: sent as v7 (-3), or ERR_TRIB_UNSUPPORTED_VERSION', async (t) => {
  const fake: FakeCluster = await startFakeCluster((req, nodeId) => listOffsetsReply(req, nodeId), { topics: { orders: { leaders: [1] } }, apiVersions: V7 });
  t.after(() => fake.stop());
  await fake.admin.listOffsets([{ topic: 'orders', partition: 0, spec: 'max-timestamp' }]);
  const [sent] = fake.requests.filter((r) => r.req.apiKey === 2);
  assert.equal(sent!.req.apiVersion, 7);
  assert.equal((sent!.req.body.topics as WireListOffsetsTopic[])[0]!.partitions[0]!.timestamp, -3n);

  const old: FakeCluster = await startFakeCluster((req, nodeId) => listOffsetsReply(req, nodeId), { topics: { orders: { leaders: [1] } } });
  t.after(() => old.stop());
  await assert.rejects(old.admin.listOffsets([{ topic: 'orders', partition: 0, spec: 'max-timestamp' }]), { code: 'ERR_TRIB_UNSUPPORTED_VERSION' });
});

test('offsetsForLeaderEpoch is sent to the leader as a consumer, with the fencing epoch', async (t) => {
  const versions = [...ADMIN_API_VERSIONS, { apiKey: 23, minVersion: 0, maxVersion: 4 }];
  const fake: FakeCluster = await startFakeCluster(
    (req) => {
      const topics = req.body.topics as { topic: string; partitions: { partition: number; leaderEpoch: number }[] }[];
      return {
        body: {
          throttleTimeMs: 0,
          topics: topics.map((x) => ({
            topic: x.topic,
            partitions: x.partitions.map((p) => ({ errorCode: p.leaderEpoch > 5 ? 74 : 0, partition: p.partition, leaderEpoch: p.leaderEpoch, endOffset: 42n })),
          })),
        },
      };
    },
    { topics: { orders: { leaders: [2, 2] } }, apiVersions: versions },
  );
  t.after(() => fake.stop());
  const results = await fake.admin.offsetsForLeaderEpoch([
    { topic: 'orders', partition: 0, leaderEpoch: 3, currentLeaderEpoch: 4 },
    { topic: 'orders', partition: 1, leaderEpoch: 9 },
  ]);
  assert.deepEqual(
    results.map((r) => [r.partition, r.leaderEpoch, r.endOffset, r.error?.kafkaErrorName ?? null]),
    [
      [0, 3, 42n, null],
      [1, -1, -1n, 'FENCED_LEADER_EPOCH'],
    ],
  );
  const [sent] = fake.requests.filter((r) => r.req.apiKey === 23);
  assert.equal(sent!.nodeId, 2);
  assert.equal(sent!.req.apiVersion, 4);
  assert.equal(sent!.req.body.replicaId, -1);
  const parts = (sent!.req.body.topics as { partitions: { currentLeaderEpoch: number }[] }[])[0]!.partitions;
  assert.deepEqual(parts.map((p) => p.currentLeaderEpoch), [4, -1]);
  await assert.rejects(fake.admin.offsetsForLeaderEpoch([{ topic: 'orders', partition: 0, leaderEpoch: -1 }]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
});
