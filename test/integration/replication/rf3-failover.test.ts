/**
 * Partition replication on a real 3-node cluster (child processes on
 * loopback): topics get replication factor 3 from default.replication.factor,
 * followers fetch from the leader, acks=all waits for the in-sync replicas,
 * and a kill -9 of a partition's leader moves leadership to an in-sync
 * follower that has every acknowledged record, at its offset. The killed
 * node comes back as a follower, catches up and rejoins the ISR.
 * Every wait is bounded in count and time; no timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Producer as KafkaJsProducer } from 'kafkajs';
import { until } from '../../helpers/until.js';
import { startCluster, type ClusterProcess } from '../../helpers/cluster-process.js';
import { Admin } from '../../../src/client/admin.js';

const TOPIC = 'replicated';
const PARTITIONS = 2;
const BEFORE_KILL = 200;
const AFTER_KILL = 100;

type Acked = Map<number, Map<bigint, string>>;

async function produce(producer: KafkaJsProducer, from: number, count: number, acked: Acked): Promise<void> {
  for (let i = from; i < from + count; i += 10) {
    const messages = Array.from({ length: Math.min(10, from + count - i) }, (_, j) => ({ key: `k${i + j}`, value: `v${i + j}`, partition: (i + j) % PARTITIONS }));
    const results = await producer.send({ topic: TOPIC, acks: -1, messages });
    // kafkajs reports the base offset per partition; records of one send to one partition are consecutive.
    for (const r of results) {
      const base = BigInt(r.baseOffset ?? '-1');
      const mine = messages.filter((m) => m.partition === r.partition);
      mine.forEach((m, k) => {
        let byOffset = acked.get(r.partition);
        if (byOffset === undefined) acked.set(r.partition, (byOffset = new Map()));
        byOffset.set(base + BigInt(k), m.value);
      });
    }
  }
}

async function readAll(cluster: ClusterProcess, bootstrap: string[], expected: number): Promise<Map<number, Map<bigint, string>>> {
  const kafka = new Kafka({ clientId: 'repl-read', brokers: bootstrap, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `reader-${Date.now()}` });
  const seen = new Map<number, Map<bigint, string>>();
  let count = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        let byOffset = seen.get(partition);
        if (byOffset === undefined) seen.set(partition, (byOffset = new Map()));
        assert.ok(!byOffset.has(BigInt(message.offset)), `offset ${message.offset} of partition ${partition} read once`);
        byOffset.set(BigInt(message.offset), message.value?.toString() ?? '');
        count++;
      },
    });
    await until(`all ${expected} records read back`, async () => (count >= expected ? true : null));
  } catch (err) {
    (err as Error).message += `\n${cluster.tails(30)}`;
    throw err;
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

test('RF 3: acks=all records are on every in-sync replica; kill -9 of a leader loses none of them', { timeout: 150_000 }, async (t) => {
  const cluster = await startCluster({
    name: 'repl',
    overrides: {
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
      'offsets.topic.replication.factor': '3',
      'offsets.topic.num.partitions': '3',
      'group.initial.rebalance.delay.ms': '0',
    },
  });
  t.after(() => cluster.cleanup());
  await cluster.waitForBrokers([1, 2, 3], [1, 2, 3]);
  await cluster.waitForActiveController([1, 2, 3]);
  const bootstrap = [1, 2, 3].map((id) => cluster.node(id).bootstrap);
  const admin = await Admin.connect({ bootstrap: bootstrap.join(','), clientId: 'repl-test' });
  t.after(() => admin.close());
  const kafka = new Kafka({ clientId: 'repl-test', brokers: bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1_000 } });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  t.after(() => producer.disconnect());

  try {
    const [created] = await admin.createTopics([{ name: TOPIC, numPartitions: PARTITIONS }]);
    assert.equal(created?.error, null);
    assert.equal(created?.replicationFactor, 3, 'replication factor -1 takes default.replication.factor');
    const describe = async () => (await admin.describeTopics([TOPIC], { includeConfigs: false }))[0];
    const initial = await until('every partition has a leader and 3 in-sync replicas', async () => {
      const d = await describe();
      return d !== undefined && d.partitions.length === PARTITIONS && d.partitions.every((p) => p.leader >= 0 && p.isr.length === 3) ? d : null;
    });
    for (const p of initial.partitions) assert.deepEqual([...p.replicas].sort(), [1, 2, 3], `partition ${p.partition} has three replicas`);

    const acked: Acked = new Map();
    await produce(producer, 0, BEFORE_KILL, acked);

    const victim = initial.partitions[0]?.leader as number;
    await cluster.node(victim).kill9();
    const moved = await until(`partition 0 led by a node other than ${victim}`, async () => {
      const d = await describe();
      const p0 = d?.partitions[0];
      return p0 !== undefined && p0.leader >= 0 && p0.leader !== victim ? p0 : null;
    });
    assert.ok(!moved.isr.includes(victim), 'the killed node left the ISR');

    await produce(producer, BEFORE_KILL, AFTER_KILL, acked);
    const expected = BEFORE_KILL + AFTER_KILL;
    const survivors = bootstrap.filter((_, i) => i + 1 !== victim);
    const seen = await readAll(cluster, survivors, expected);
    for (const [partition, byOffset] of acked) {
      for (const [offset, value] of byOffset) {
        assert.equal(seen.get(partition)?.get(offset), value, `acknowledged ${value} at ${partition}@${offset} is there after the leader's kill`);
      }
    }
    const total = [...seen.values()].reduce((n, m) => n + m.size, 0);
    assert.equal(total, expected, 'nothing but the acknowledged records');

    // The killed node comes back as a follower and catches up to the new leader's log end.
    await cluster.node(victim).start();
    await until(`node ${victim} is registered again`, async () => ((await cluster.metadata(victim)).brokers.some((b) => b.nodeId === victim) ? true : null));
    // It fetches from the new leaders, catches up and rejoins every ISR (AlterPartition from the leaders).
    await until(`node ${victim} back in every ISR`, async () => {
      const d = await describe();
      return d !== undefined && d.partitions.every((p) => p.isr.length === 3) ? true : null;
    });
  } catch (err) {
    (err as Error).message += `\n${cluster.tails(40)}`;
    throw err;
  }
});
