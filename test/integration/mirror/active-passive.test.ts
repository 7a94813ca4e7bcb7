/**
 * Active/passive replication A -> B in dedicated mode, two real clusters on
 * this machine: records of A's orders arrive in B's A.orders with key,
 * value, headers and timestamp, in order per partition; the topic config is
 * copied; a partition added on A is picked up; a group committed on A is
 * translated to B (never ahead of its commit on A, at most one offset-sync
 * interval behind) by checkpoints, by translateOffsets, and committed to
 * B's idle group (sync.group.offsets.enabled); a kafkajs consumer reads
 * the mirrored topic from the translated offsets.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, Producer } from '../../../src/client/index.js';
import type { EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { MM2_ONE_BROKER, recordsByPartition, startTwoClusters } from '../../helpers/mirror-clusters.js';
import { until } from '../../helpers/until.js';
import { mirrorMetrics, startMirror, translateOffsets, mirrorStatus, type MirrorHandle } from '../../../src/mirror/index.js';

const OFFSET_LAG_MAX = 10;
let a: EmbeddedCluster;
let b: EmbeddedCluster;
let mirror: MirrorHandle | null = null;

function mm2(): Record<string, string> {
  return {
    clusters: 'A, B',
    'A.bootstrap.servers': a.bootstrap,
    'B.bootstrap.servers': b.bootstrap,
    'A->B.enabled': 'true',
    'A->B.topics': 'orders.*',
    'groups': 'billing.*',
    ...MM2_ONE_BROKER,
    'refresh.groups.interval.seconds': '1',
    'sync.topic.configs.interval.seconds': '1',
    'emit.checkpoints.interval.seconds': '1',
    'sync.group.offsets.enabled': 'true',
    'sync.group.offsets.interval.seconds': '1',
    'offset.lag.max': String(OFFSET_LAG_MAX),
    'offset.flush.interval.ms': '500',
  };
}

before(async () => {
  ({ a, b } = await startTwoClusters());
});
after(async () => {
  await mirror?.close();
  await Promise.all([a.stop(), b.stop()]);
});

/** Every record of a topic on a cluster, per partition as the checks compare them, read to the given total. */
async function readAll(bootstrap: string, topic: string, partitions: number, total: number): Promise<Map<number, { key: string; value: string; headers: string; timestamp: number }[]>> {
  const records = await recordsByPartition(bootstrap, topic, partitions, total);
  const n = [...records.values()].reduce((sum, list) => sum + list.length, 0);
  assert.equal(n, total, `${topic}: ${n} records read of ${total}`);
  return new Map([...records].map(([p, list]) => [p, list.map((r) => ({ key: String(r.key), value: String(r.value), headers: JSON.stringify(r.headers.map((h) => [h.key, String(h.value)])), timestamp: r.timestamp }))]));
}

test('active/passive: records, configs, new partitions, group failover', { timeout: 240_000 }, async () => {
  const adminA = await Admin.connect({ bootstrap: a.bootstrap });
  const adminB = await Admin.connect({ bootstrap: b.bootstrap });
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: a.bootstrap } });
  try {
    await adminA.createTopics([{ name: 'orders', numPartitions: 3, replicationFactor: 1, configs: { 'retention.ms': '86400000', 'min.insync.replicas': '1' } }]);
    await adminA.createTopics([{ name: 'other', numPartitions: 1, replicationFactor: 1 }]);
    const sent = [];
    for (let i = 0; i < 300; i++) sent.push({ topic: 'orders', partition: i % 3, key: `k${i}`, value: `order ${i}`, timestamp: 1_700_000_000_000 + i, headers: { seq: String(i) } });
    await producer.sendBatch(sent);
    mirror = await startMirror(mm2(), (m) => { if (process.env.MIRROR_DEBUG !== undefined) process.stderr.write(m + "\n"); });

    const got = await until('A.orders on B', async () => ((await adminB.describeTopics(['A.orders']))[0]?.error === null ? true : null), 60_000);
    assert.ok(got);
    const remote = await readAll(b.bootstrap, 'A.orders', 3, 300);
    for (let p = 0; p < 3; p++) {
      const expected: { key: string; value: string; headers: string; timestamp: number }[] = sent.filter((s) => s.partition === p).map((s) => ({ key: s.key, value: s.value, headers: JSON.stringify([['seq', s.headers.seq]]), timestamp: s.timestamp }));
      assert.deepEqual(remote.get(p), expected, `partition ${p} in order with keys, values, headers, timestamps`);
    }
    const cfg = (await adminB.describeTopicConfigs(['A.orders']))?.get('A.orders') ?? [];
    assert.equal(cfg.find((e) => e.name === 'retention.ms')?.value, '86400000', 'retention.ms copied');
    assert.notEqual(cfg.find((e) => e.name === 'min.insync.replicas')?.source, 'DYNAMIC_TOPIC_CONFIG', 'min.insync.replicas is excluded');
    assert.equal((await adminB.describeTopics(['other']))[0]?.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION', 'a topic outside the filter is not replicated');
    assert.equal((await adminA.describeTopics(['B.orders']))[0]?.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION', 'nothing flows back');

    // A config change on A follows.
    await adminA.incrementalAlterConfigs({ type: 'topic', name: 'orders' }, [{ name: 'retention.ms', op: 'set', value: '3600000' }]);
    await until('retention.ms synced', async () => ((await adminB.describeTopicConfigs(['A.orders']))?.get('A.orders')?.find((e) => e.name === 'retention.ms')?.value === '3600000' ? true : null), 60_000);

    // A new partition on A is picked up.
    await adminA.createPartitions('orders', 4);
    // The producer's metadata still says 3 partitions: it refreshes it for partition 3 (as the worker's producer must).
    await producer.send({ topic: 'orders', partition: 3, key: 'new', value: 'in partition 3' });
    await until('A.orders-3 on B', async () => {
      const d = (await adminB.describeTopics(['A.orders']))[0];
      if (d?.partitions.length !== 4) return null;
      // A fresh client: adminB's metadata may predate partition 3.
      const fresh = await Admin.connect({ bootstrap: b.bootstrap });
      try {
        const end = await fresh.listOffsets('A.orders', 3, 'latest');
        return end.offset === 1n ? true : null;
      } finally {
        await fresh.close();
      }
    }, 60_000);

    // A group that consumed part of A fails over to B.
    const committed = [57n, 100n, 3n];
    await adminA.commitGroupOffsets('billing', committed.map((offset, partition) => ({ topic: 'orders', partition, offset })));
    // More records after the commit, so translation has to be exact about where the group is.
    await producer.sendBatch(Array.from({ length: 30 }, (_, i) => ({ topic: 'orders', partition: i % 3, key: `late${i}`, value: `late ${i}` })));
    const onB = await until('billing offsets synced to B', async () => {
      const offs = await adminB.fetchGroupOffsets('billing', ['A.orders']);
      const byP = new Map(offs.filter((o) => o.offset >= 0n).map((o) => [o.partition, o.offset]));
      if (process.env.MIRROR_DEBUG !== undefined) process.stderr.write(`B offsets ${JSON.stringify(offs.map((o) => [o.partition, String(o.offset)]))} checkpoints ${JSON.stringify([...(await translateOffsets({ bootstrap: b.bootstrap, group: 'billing', sourceCluster: 'A' }))].map(([t, m]) => [t, [...m].map(([k, v]) => [k, String(v)])]))}\n`);
      return committed.every((_, p) => byP.has(p)) ? byP : null;
    }, 20_000);
    committed.forEach((c, p) => {
      const t = onB.get(p) ?? -1n;
      // Downstream offsets equal upstream ones here (B's topic was empty), so they compare directly.
      assert.ok(t <= c, `partition ${p}: translated ${t} is not ahead of the commit ${c}`);
      assert.ok(t >= c - BigInt(OFFSET_LAG_MAX) - 1n, `partition ${p}: translated ${t} is within one offset-sync interval of ${c}`);
    });
    const translated = await translateOffsets({ bootstrap: b.bootstrap, group: 'billing', sourceCluster: 'A' });
    assert.deepEqual([...(translated.get('A.orders') ?? new Map<number, bigint>())].sort((x, y) => x[0] - y[0]), [...onB].sort((x, y) => x[0] - y[0]));

    // A kafkajs consumer in that group on B starts where the translation says.
    const kafka = new Kafka({ clientId: 'failover', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: 'billing' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'A.orders' });
    const first = new Map<number, bigint>();
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          if (!first.has(partition)) first.set(partition, BigInt(message.offset));
          if ([0, 1, 2].every((p) => first.has(p))) resolve();
        },
      });
    });
    await consumer.disconnect();
    for (const p of [0, 1, 2]) assert.equal(first.get(p), onB.get(p), `kafkajs resumed partition ${p} at the translated offset`);

    const metrics = await mirrorMetrics.registry.metrics();
    const replicated = Number(/mirror_records_replicated_total\{flow="A->B"\} (\d+)/.exec(metrics)?.[1] ?? '0');
    assert.ok(replicated >= 301, `records metric counts the replicated records (${replicated})`);
    assert.match(metrics, /mirror_replication_latency_seconds_count\{flow="A->B"\} [1-9]/);
    assert.match(metrics, /mirror_offset_syncs_total\{flow="A->B"\} [1-9]/);

    const status = await mirrorStatus(mm2());
    assert.equal(status.length, 1);
    assert.equal(status[0]?.flow, 'A->B');
    assert.equal(status[0]?.states.MirrorSourceConnector, 'RUNNING');
    assert.ok((status[0]?.checkpointAgeSeconds ?? 99) < 30, 'a recent checkpoint');
  } finally {
    await producer.close();
    await adminA.close();
    await adminB.close();
  }
});
