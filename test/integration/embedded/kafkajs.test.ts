// startCluster from a plain node:test file with kafkajs, as a user's project
// would write it (docs/testing.md shows the same code): create a topic,
// produce, and consume with a consumer group. The broker runs in a worker
// thread, so kafkajs' timers in this thread see real time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { startCluster, type EmbeddedCluster } from '../../../src/index.js';

const GROUP_TEST_TIMEOUT_MS = 60_000;
let cluster: EmbeddedCluster;
let kafka: Kafka;

before(async () => {
  // No initial rebalance delay: a group's first join completes at once (Kafka waits 3 s by default).
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
  kafka = new Kafka({ clientId: 'embedded-test', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING });
});

after(async () => {
  await cluster.stop();
  assert.equal(existsSync(cluster.dataDir), false, 'stop() removes the temporary data dir');
});

test('the cluster reports one broker on a loopback ephemeral port', () => {
  assert.equal(cluster.brokers.length, 1);
  const [broker] = cluster.brokers;
  assert.ok(broker);
  assert.equal(broker.host, '127.0.0.1');
  assert.ok(broker.port > 0 && broker.port !== 9092, `ephemeral port, got ${broker.port}`);
  assert.equal(cluster.bootstrap, `127.0.0.1:${broker.port}`);
  assert.equal(cluster.isolation, 'worker');
  assert.equal(cluster.pid, null);
});

test('kafkajs: create a topic, produce, consume with a group', { timeout: GROUP_TEST_TIMEOUT_MS }, async () => {
  const topic = `orders-${process.pid}-${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] }), true);
  } finally {
    await admin.disconnect();
  }

  const producer: Producer = kafka.producer();
  await producer.connect();
  const sent = Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 7}`, value: `order ${i}` }));
  try {
    await producer.send({ topic, messages: sent });
  } finally {
    await producer.disconnect();
  }

  const consumer: Consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 });
  const received: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            received.push(message.value?.toString() ?? '');
            if (received.length === sent.length) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  assert.deepEqual([...received].sort(), sent.map((m) => m.value).sort());

  // The group committed its position: its offsets add up to what was produced.
  const admin2 = kafka.admin();
  await admin2.connect();
  try {
    const [committed] = await admin2.fetchOffsets({ groupId: `${topic}-group`, topics: [topic] });
    const total = (committed?.partitions ?? []).reduce((n, p) => n + Number(p.offset), 0);
    assert.equal(total, sent.length);
  } finally {
    await admin2.disconnect();
  }
});
