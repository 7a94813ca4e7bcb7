// Admin calls that go to partition leaders (ListOffsets, DeleteRecords,
// OffsetForLeaderEpoch) across a leader move, against a scripted 3-broker
// cluster (fake-cluster.ts): the stale answer (NOT_LEADER_OR_FOLLOWER, or a
// leader that is gone) makes them refresh the metadata and retry at the new
// leader, with the cluster's backoff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { FakeCluster } from './fake-cluster.js';

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const fake = await FakeCluster.start({ brokers: 3, partitions: 2, leaders: [1, 2] });
  const admin = await Admin.connect({ bootstrap: fake.bootstrap, retryBackoffMs: 20 });
  t.after(async () => {
    await admin.close();
    await fake.stop();
  });
  fake.append(0, ['a', 'b', 'c']);
  fake.append(1, ['x']);
  // Load the metadata (leaders 1 and 2), then move partition 0 behind the admin's back.
  await admin.listOffsets([{ topic: 't', partition: 0, spec: 'latest' }, { topic: 't', partition: 1, spec: 'latest' }]);
  fake.moveLeader(0, 3);
  fake.append(0, ['d']);
  return { fake, admin };
}

const nodesOf = (fake: FakeCluster, apiKey: number) => fake.requestsOf(apiKey).map((r) => r.node);

test('ListOffsets after a leader move: NOT_LEADER_OR_FOLLOWER, metadata refresh, answered by the new leader', async (t) => {
  const { fake, admin } = await setup(t);
  const before = nodesOf(fake, 2).length;
  const results = await admin.listOffsets([{ topic: 't', partition: 0, spec: 'latest' }, { topic: 't', partition: 1, spec: 'latest' }]);
  assert.deepEqual(results.map((r) => [r.partition, r.offset, r.leaderEpoch, r.error]), [[0, 4n, 1, null], [1, 1n, 0, null]]);
  assert.deepEqual(nodesOf(fake, 2).slice(before).sort(), [1, 2, 3], 'the stale leader, the unmoved one, then the new leader');
});

test('OffsetForLeaderEpoch after a leader move, and a stale currentLeaderEpoch fenced: FENCED_LEADER_EPOCH comes back as that partition\'s error', async (t) => {
  const { fake, admin } = await setup(t);
  const [moved] = await admin.offsetsForLeaderEpoch([{ topic: 't', partition: 0, leaderEpoch: 0 }]);
  assert.deepEqual([moved?.leaderEpoch, moved?.endOffset, moved?.error], [0, 3n, null], 'epoch 0 ended where epoch 1 began');
  assert.deepEqual(nodesOf(fake, 23), [1, 3]);
  const [fenced] = await admin.offsetsForLeaderEpoch([{ topic: 't', partition: 0, leaderEpoch: 0, currentLeaderEpoch: 0 }]);
  assert.equal(fenced?.error?.kafkaErrorName, 'FENCED_LEADER_EPOCH');
});

test('DeleteRecords after the leader died and another took over: retried at the new leader', async (t) => {
  const { fake, admin } = await setup(t);
  await fake.kill(1);
  const results = await admin.deleteRecords('t', { 0: 2n, 1: -1 });
  assert.deepEqual(results.map((r) => [r.partition, r.lowWatermark, r.error]), [[0, 2n, null], [1, 1n, null]]);
  assert.deepEqual(nodesOf(fake, 21).sort(), [2, 3]);
});
