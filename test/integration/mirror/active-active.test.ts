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
import { Admin, Consumer, Producer } from '../../../src/client/index.js';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startMirror, type MirrorHandle } from '../../../src/mirror/index.js';

let a: EmbeddedCluster;
let b: EmbeddedCluster;
let mirror: MirrorHandle | null = null;
const RF1 = {
  'replication.factor': '1',
  'offset-syncs.topic.replication.factor': '1',
  'checkpoints.topic.replication.factor': '1',
  'heartbeats.topic.replication.factor': '1',
  'config.storage.replication.factor': '1',
  'offset.storage.replication.factor': '1',
  'status.storage.replication.factor': '1',
  'refresh.topics.interval.seconds': '1',
};

before(async () => {
  const config = { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 };
  [a, b] = await Promise.all([startCluster({ config }), startCluster({ config })]);
});
after(async () => {
  await mirror?.close();
  await Promise.all([a.stop(), b.stop()]);
});

async function values(bootstrap: string, topic: string, partitions: number, total: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrap, autoOffsetReset: 'earliest' });
  const out: string[] = [];
  const timer = setTimeout(() => void consumer.close(), 60_000);
  try {
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) out.push(String(r.value));
      if (out.length >= total) break;
    }
  } finally {
    clearTimeout(timer);
    await consumer.close();
  }
  return out;
}

async function endOffsets(bootstrap: string, topic: string, partitions: number): Promise<bigint> {
  const admin = await Admin.connect({ bootstrap });
  try {
    const ends = await admin.listOffsets(Array.from({ length: partitions }, (_, partition) => ({ topic, partition, spec: 'latest' as const })));
    return ends.reduce((n, e) => n + (e.error === null ? e.offset : 0n), 0n);
  } finally {
    await admin.close();
  }
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
  assert.equal(await endOffsets(b.bootstrap, 'A.orders', 2), BigInt(sent.A.length), 'no duplicates on B');
  assert.equal(await endOffsets(a.bootstrap, 'B.orders', 2), BigInt(sent.B.length), 'no duplicates on A');
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
