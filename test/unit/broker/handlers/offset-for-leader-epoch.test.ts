/**
 * OffsetForLeaderEpoch (23) on an in-process broker, every version: end
 * offsets from the leader epoch cache (including after a leader epoch bump
 * applied through the replica manager, as a metadata change would),
 * currentLeaderEpoch fencing, unknown partitions, replicaId values.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { startInProcessBroker, type InProcessBroker } from '../../../helpers/in-process-broker.js';
import { AdminCaller, createTopic, produce } from './admin-helpers.js';

type Answer = { errorCode: number; partition: number; leaderEpoch: number; endOffset: bigint };
type Response = { throttleTimeMs?: number; topics: { topic: string; partitions: Answer[] }[] };

let node: InProcessBroker;
let c: AdminCaller;

before(async () => {
  node = await startInProcessBroker();
  c = await AdminCaller.connect(node);
  await createTopic(node, 'epochs', 2);
  await produce(c, 'epochs', 0, 6);
});

after(async () => {
  c?.close();
  await node?.stop();
});

async function ask(version: number, partitions: { partition: number; leaderEpoch: number; currentLeaderEpoch?: number }[], topic = 'epochs', replicaId = -1): Promise<Answer[]> {
  const r = await c.call<Response>(23, version, {
    replicaId,
    topics: [{ topic, partitions: partitions.map((p) => ({ currentLeaderEpoch: -1, ...p })) }],
  });
  assert.equal(r.topics[0]?.topic, topic);
  return r.topics[0]?.partitions ?? [];
}

for (const version of [0, 1, 2, 3, 4]) {
  test(`v${version}: the current epoch ends at the log end offset; unknown epochs answer -1/-1`, async () => {
    const [current, newer, undef, other] = await ask(version, [
      { partition: 0, leaderEpoch: 0 },
      { partition: 0, leaderEpoch: 7 },
      { partition: 0, leaderEpoch: -1 },
      { partition: 1, leaderEpoch: 0 },
    ]);
    // v0 has no leaderEpoch in the response: it decodes as -1.
    assert.deepEqual(current, { errorCode: 0, partition: 0, leaderEpoch: version >= 1 ? 0 : -1, endOffset: 6n });
    assert.deepEqual(newer, { errorCode: 0, partition: 0, leaderEpoch: -1, endOffset: -1n });
    assert.deepEqual(undef, { errorCode: 0, partition: 0, leaderEpoch: -1, endOffset: -1n });
    assert.equal(other?.endOffset, 0n, 'an empty partition: its epoch starts and ends at 0');
  });
}

test('unknown topic or partition; replicaId values are all answered', async () => {
  assert.equal((await ask(4, [{ partition: 0, leaderEpoch: 0 }], 'nope'))[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal((await ask(4, [{ partition: 9, leaderEpoch: 0 }]))[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  for (const replicaId of [-2, -1, 1]) assert.equal((await ask(3, [{ partition: 0, leaderEpoch: 0 }], 'epochs', replicaId))[0]?.endOffset, 6n);
});

test('after a leader epoch bump: old epochs end where the next began; currentLeaderEpoch fences', async () => {
  const rm = node.broker.services.replicaManager;
  const p = rm.get('epochs', 0);
  assert.ok(p);
  rm.applyAssignment({ topic: 'epochs', topicId: p.topicId, partition: 0, replicas: [node.broker.nodeId], isr: [node.broker.nodeId], leader: node.broker.nodeId, leaderEpoch: 3, partitionEpoch: 3 });
  await produce(c, 'epochs', 0, 4);
  const [e0, e1, e3] = await ask(4, [
    { partition: 0, leaderEpoch: 0, currentLeaderEpoch: 3 },
    { partition: 0, leaderEpoch: 2 },
    { partition: 0, leaderEpoch: 3 },
  ]);
  assert.deepEqual(e0, { errorCode: 0, partition: 0, leaderEpoch: 0, endOffset: 6n });
  assert.deepEqual(e1, { errorCode: 0, partition: 0, leaderEpoch: 0, endOffset: 6n }, 'an epoch that never wrote: the one below it');
  assert.deepEqual(e3, { errorCode: 0, partition: 0, leaderEpoch: 3, endOffset: 10n });
  const [fenced, unknown] = await ask(2, [
    { partition: 0, leaderEpoch: 0, currentLeaderEpoch: 2 },
    { partition: 0, leaderEpoch: 0, currentLeaderEpoch: 4 },
  ]);
  assert.equal(fenced?.errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.equal(unknown?.errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
  // Deleting every record of epoch 0: asking for it now answers the log start.
  const del = await c.call<{ topics: { partitions: { errorCode: number }[] }[] }>(21, 2, { topics: [{ name: 'epochs', partitions: [{ partitionIndex: 0, offset: 8n }] }], timeoutMs: 1000 });
  assert.equal(del.topics[0]?.partitions[0]?.errorCode, 0);
  const [old] = await ask(4, [{ partition: 0, leaderEpoch: 0 }]);
  assert.deepEqual(old, { errorCode: 0, partition: 0, leaderEpoch: 0, endOffset: 8n });
});
