/**
 * Active/active between two real clusters with the same topic names on
 * both sides: `orders` on A reaches B as `A.orders` and `orders` on B
 * reaches A as `B.orders`, each record exactly once (steady state, no
 * restarts), and nothing cycles back (no `A.B.orders`, no `B.A.orders`).
 * Also: a flow naming an unknown cluster and an unreachable cluster fail at
 * start with the reason.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, Producer } from '../../../src/client/index.js';
import type { EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startMirror, type MirrorHandle } from '../../../src/mirror/index.js';
import { MM2_ONE_BROKER as RF1, endOffsetSum, recordsByPartition, startTwoClusters } from '../../helpers/mirror-clusters.js';

let a: EmbeddedCluster;
let b: EmbeddedCluster;
let mirror: MirrorHandle | null = null;

before(async () => {
  ({ a, b } = await startTwoClusters());
});
after(async () => {
  await mirror?.close();
  await Promise.all([a.stop(), b.stop()]);
});

/** Every value of a topic's partitions, read to `total`. */
async function values(bootstrap: string, topic: string, partitions: number, total: number): Promise<string[]> {
  return [...(await recordsByPartition(bootstrap, topic, partitions, total)).values()].flat().map((r) => String(r.value));
}

test('bad input: unknown cluster and unreachable cluster fail at start', { timeout: 60_000 }, async () => {
  await assert.rejects(startMirror({ clusters: 'A, B', 'A.bootstrap.servers': a.bootstrap, 'B.bootstrap.servers': b.bootstrap, 'A->C.enabled': 'true' }), /cluster C, which is not in clusters/);
  await assert.rejects(startMirror({ clusters: 'A, B', 'A.bootstrap.servers': a.bootstrap, 'B.bootstrap.servers': '127.0.0.1:1', 'A->B.enabled': 'true', ...RF1 }), /cluster B \(127\.0\.0\.1:1\) is unreachable/);
});

test('active/active: each record exactly once on the other side, nothing cycles', { timeout: 240_000 }, async () => {
  for (const c of [a, b]) {
    const admin = await Admin.connect({ bootstrap: c.bootstrap });
    await admin.createTopics([{ name: 'orders', numPartitions: 2, replicationFactor: 1 }]);
    await admin.close();
  }
  mirror = await startMirror({ clusters: 'A, B', 'A.bootstrap.servers': a.bootstrap, 'B.bootstrap.servers': b.bootstrap, 'A->B.enabled': 'true', 'B->A.enabled': 'true', topics: 'orders', ...RF1 }, () => undefined);
  const sent = { A: [] as string[], B: [] as string[] };
  // Written while the mirror runs, on both sides.
  for (const [alias, cluster] of [['A', a], ['B', b]] as const) {
    const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: cluster.bootstrap } });
    for (let round = 0; round < 4; round++) {
      const batch = Array.from({ length: 50 }, (_, i) => ({ topic: 'orders', key: `k${i}`, value: `${alias}-${round}-${i}` }));
      await producer.sendBatch(batch);
      sent[alias].push(...batch.map((r) => r.value));
    }
    await producer.close();
  }
  const onB = await values(b.bootstrap, 'A.orders', 2, sent.A.length);
  const onA = await values(a.bootstrap, 'B.orders', 2, sent.B.length);
  assert.deepEqual([...onB].sort(), [...sent.A].sort(), 'every record of A once on B');
  assert.deepEqual([...onA].sort(), [...sent.B].sort(), 'every record of B once on A');
  // Give the mirror time to (wrongly) copy more, then check nothing else arrived or looped.
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(await endOffsetSum(b.bootstrap, 'A.orders', 2), BigInt(sent.A.length), 'no duplicates on B');
  assert.equal(await endOffsetSum(a.bootstrap, 'B.orders', 2), BigInt(sent.B.length), 'no duplicates on A');
  for (const [cluster, looped] of [[a, 'A.B.orders'], [b, 'B.A.orders'], [a, 'B.A.orders'], [b, 'A.B.orders']] as const) {
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    const names = (await admin.listTopics()).map((t) => t.name);
    await admin.close();
    assert.ok(!names.includes(looped), `${looped} must not exist`);
  }
  // Heartbeats are replicated too: A's heartbeats (from B->A) reach B as A.heartbeats.
  const admin = await Admin.connect({ bootstrap: b.bootstrap });
  const names = (await admin.listTopics()).map((t) => t.name);
  await admin.close();
  assert.ok(names.includes('heartbeats'), 'B has the heartbeats of flow A->B');
});
