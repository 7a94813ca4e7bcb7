// startCluster({ brokers: 3 }): a real three-node cluster (each node broker
// and controller) on the shared launcher. Topics (replication factor 1) are
// spread over the brokers; our client and kafkajs create, produce and consume
// through the one bootstrap string; one node is stopped and started again and
// its partitions come back with their data. A second cluster in child
// processes checks kill -9 and SIGSTOP of a single node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, Consumer, Producer, deserializers, startCluster, type EmbeddedCluster } from '../../../src/index.js';

const RECORDS = 30;
const PARTITIONS = 3;
const WAIT_MS_MAX = 30_000;
/** Short sessions so a stopped or killed node is fenced within a test; no initial rebalance delay. */
const CONFIG = {
  'group.initial.rebalance.delay.ms': 0,
  'broker.session.timeout.ms': 3_000,
  'broker.heartbeat.interval.ms': 300,
};

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) assert.fail(`${what} not seen within ${WAIT_MS_MAX} ms${last === null ? '' : `; last error: ${String(last)}`}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every record of `topic` from the beginning, read with manual assignment (no group). */
async function readAll(bootstrap: string, topic: string, count: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrap, valueDeserializer: deserializers.string, autoOffsetReset: 'earliest' });
  try {
    consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })));
    const values: string[] = [];
    for await (const record of consumer) {
      values.push(String(record.value));
      if (values.length >= count) break;
    }
    return values.sort();
  } finally {
    await consumer.close();
  }
}

describe('startCluster({ brokers: 3 }) in worker threads', () => {
  let cluster: EmbeddedCluster;
  const sent = Array.from({ length: RECORDS }, (_, i) => `record-${String(i).padStart(2, '0')}`);

  before(async () => {
    cluster = await startCluster({ brokers: 3, config: CONFIG });
  });
  after(async () => {
    await cluster.stop();
    assert.equal(existsSync(cluster.dataDir), false, 'stop() removes the temporary data dir');
  });

  test('three brokers on distinct ephemeral ports, all in the bootstrap string', async () => {
    assert.deepEqual(cluster.brokers.map((b) => b.nodeId), [1, 2, 3]);
    assert.equal(new Set(cluster.brokers.map((b) => b.port)).size, 3);
    assert.equal(cluster.bootstrap, cluster.brokers.map((b) => `127.0.0.1:${b.port}`).join(','));
    for (const id of [1, 2, 3]) {
      const node = cluster.node(id);
      assert.equal(node.running, true);
      assert.ok(node.controllerPort !== null && node.controllerPort > 0, 'every node is a controller');
      assert.equal(node.dataDir, join(cluster.dataDir, `node-${id}`));
    }
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    try {
      const described = await admin.describeCluster();
      assert.deepEqual(described.brokers.map((b) => b.nodeId).sort(), [1, 2, 3]);
      assert.equal(described.clusterId, cluster.clusterId);
    } finally {
      await admin.close();
    }
  });

  test('our client: create, produce, consume; a stopped node comes back with its data', { timeout: 120_000 }, async () => {
    const topic = `ours-${process.pid}`;
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    try {
      const [created] = await admin.createTopics([{ name: topic, numPartitions: PARTITIONS }]);
      assert.equal(created?.error, null);
      const leaders = await until('a leader for every partition', async () => {
        const [d] = await admin.describeTopics([topic]);
        const ls = d?.partitions.map((p) => p.leader) ?? [];
        return ls.length === PARTITIONS && ls.every((l) => l > 0) ? ls : null;
      });
      assert.ok(new Set(leaders).size > 1, `partitions spread over the brokers (leaders ${leaders.join(',')})`);

      const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap }, acks: -1 });
      try {
        await Promise.all(sent.map((value, i) => producer.send({ topic, partition: i % PARTITIONS, value })));
      } finally {
        await producer.close();
      }
      assert.deepEqual(await readAll(cluster.bootstrap, topic, RECORDS), sent);

      // Stop the leader of partition 0 alone: the others keep serving and stop listing it.
      const victim = leaders[0] as number;
      await cluster.node(victim).stop();
      assert.equal(cluster.node(victim).running, false);
      await until(`broker ${victim} gone from the cluster`, async () => {
        const d = await admin.describeCluster();
        return d.brokers.some((b) => b.nodeId === victim) ? null : d;
      });

      await cluster.node(victim).start();
      assert.equal(cluster.node(victim).running, true);
      const port = cluster.brokers.find((b) => b.nodeId === victim)?.port;
      assert.equal(cluster.node(victim).port, port, 'same port after the restart');
      await until('three brokers again', async () => ((await admin.describeCluster()).brokers.length === 3 ? true : null));
      assert.deepEqual(await readAll(cluster.bootstrap, topic, RECORDS), sent, 'every record back, its partitions included');
    } finally {
      await admin.close();
    }
  });

  test('kafkajs: create a topic, produce, consume with a group across the three brokers', { timeout: 90_000 }, async () => {
    const topic = `kafkajs-${process.pid}`;
    const kafka = new Kafka({ clientId: 'multi-node', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    const admin = kafka.admin();
    await admin.connect();
    try {
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }] }), true);
      const md = await admin.fetchTopicMetadata({ topics: [topic] });
      assert.ok(new Set(md.topics[0]?.partitions.map((p) => p.leader)).size > 1, 'partitions spread over the brokers');
    } finally {
      await admin.disconnect();
    }
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: sent.map((value) => ({ key: value, value })) });
    } finally {
      await producer.disconnect();
    }
    const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    const received: string[] = [];
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`received ${received.length} of ${RECORDS} within ${WAIT_MS_MAX} ms`)), WAIT_MS_MAX);
        void consumer.run({
          eachMessage: async ({ message }) => {
            received.push(String(message.value));
            if (received.length >= RECORDS) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    assert.deepEqual(received.sort(), sent);
  });

  test('one operation per node at a time', { timeout: 60_000 }, async () => {
    const restarting = cluster.node(2).restart();
    await assert.rejects(cluster.node(2).stop(), { code: 'ERR_TRIB_EMBEDDED_UNSUPPORTED' });
    await assert.rejects(cluster.restart(), { code: 'ERR_TRIB_EMBEDDED_UNSUPPORTED' });
    await restarting;
    assert.equal(cluster.node(2).running, true);
  });

  test('kill, pause and hard restarts of a worker node are refused', async () => {
    await assert.rejects(cluster.node(2).kill(), { code: 'ERR_TRIB_EMBEDDED_UNSUPPORTED' });
    assert.throws(() => cluster.node(2).pause(), { code: 'ERR_TRIB_EMBEDDED_UNSUPPORTED' });
    await assert.rejects(cluster.node(2).restart({ hard: true }), { code: 'ERR_TRIB_EMBEDDED_UNSUPPORTED' });
    assert.throws(() => cluster.node(4), { code: 'ERR_TRIB_EMBEDDED_INVALID_OPTIONS' });
  });
});

describe("startCluster({ brokers: 3, controllers: 2, isolation: 'process' })", () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await startCluster({ brokers: 3, controllers: 2, isolation: 'process', config: CONFIG });
  });
  after(() => cluster.stop());

  test('two controllers, one broker-only node; kill -9 and SIGSTOP of one broker', { timeout: 120_000 }, async () => {
    assert.equal(cluster.node(1).controllerPort !== null, true);
    assert.equal(cluster.node(2).controllerPort !== null, true);
    assert.equal(cluster.node(3).controllerPort, null, 'broker-only');
    const pids = [1, 2, 3].map((id) => cluster.node(id).pid);
    assert.equal(new Set(pids).size, 3, `one process per node (${pids.join(',')})`);

    const topic = `killed-${process.pid}`;
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    try {
      await admin.createTopics([{ name: topic, numPartitions: PARTITIONS }]);
      const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap }, acks: -1 });
      try {
        await Promise.all(Array.from({ length: RECORDS }, (_, i) => producer.send({ topic, partition: i % PARTITIONS, value: `v${i}` })));
      } finally {
        await producer.close();
      }

      // SIGSTOP: the node stops answering; its session expires and the controller fences it.
      cluster.node(3).pause();
      await until('broker 3 fenced while paused', async () => ((await admin.describeCluster()).brokers.some((b) => b.nodeId === 3) ? null : true));
      cluster.node(3).resume();
      await until('broker 3 back after SIGCONT', async () => ((await admin.describeCluster()).brokers.length === 3 ? true : null));

      // kill -9 of one node, then a start: its logs are recovered.
      // (node 3: a two-voter quorum needs both voters)
      const oldPid = cluster.node(3).pid;
      await cluster.node(3).kill();
      assert.equal(cluster.node(3).running, false);
      await cluster.node(3).start();
      assert.notEqual(cluster.node(3).pid, oldPid);
      assert.equal((await readAll(cluster.bootstrap, topic, RECORDS)).length, RECORDS);
    } finally {
      await admin.close();
    }
  });
});
