/**
 * The admin APIs of issue 5 (item 2) with real clients against a broker
 * process: kafkajs (deleteTopicRecords = DeleteRecords v1, describeCluster,
 * fetchTopicOffsets, a group consumer whose committed offset fell below the
 * log start), @platformatic/kafka (deleteRecords = DeleteRecords v2 flexible,
 * describeLogDirs = DescribeLogDirs v4), kcat -Q (ListOffsets earliest after
 * DeleteRecords), and confluent-kafka-python 1.7 (its AdminClient has no
 * delete_records / describe_cluster; its consumer assigned below the new log
 * start gets OFFSET_OUT_OF_RANGE and resets per auto.offset.reset).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin as KafkajsAdmin } from 'kafkajs';
import { Admin as PlatformaticAdmin } from '@platformatic/kafka';
import { repoRoot } from '../../helpers/broker-process.js';
import { startCluster, type EmbeddedCluster } from '../../../src/index.js';
import { kcatQuery, offsetFromQuery } from '../../helpers/kcat.js';
import { runPythonJson } from '../../helpers/run.js';

const PY = join(repoRoot, 'test', 'integration', 'admin', 'py', 'admin_confluent.py');
const RECORDS = 20;

// The broker comes from the embeddable startCluster (what docs/testing.md
// recommends to Node projects), in a worker thread outside this event loop.
describe('admin APIs with real clients', { timeout: 240_000 }, () => {
  let cluster: EmbeddedCluster;
  let broker: { bootstrap: string; port: number; dataDir: string };
  let kafka: Kafka;
  let admin: KafkajsAdmin;

  before(async () => {
    cluster = await startCluster();
    broker = { bootstrap: cluster.bootstrap, port: cluster.brokers[0]!.port, dataDir: cluster.dataDir };
    kafka = new Kafka({ clientId: 'tributary-admin-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3 } });
    admin = kafka.admin();
    await admin.connect();
  });

  after(async () => {
    await admin?.disconnect();
    await cluster?.stop();
  });

  async function topicWithRecords(topic: string, partitions = 1): Promise<void> {
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true }), true);
    const producer = kafka.producer();
    await producer.connect();
    try {
      for (let p = 0; p < partitions; p++) {
        await producer.send({ topic, messages: Array.from({ length: RECORDS }, (_, i) => ({ partition: p, value: `v${i}` })) });
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** kafkajs looks partition leaders up in its metadata cache before loading the topic: load it first. */
  async function deleteTopicRecords(topic: string, partitions: { partition: number; offset: string }[]): Promise<void> {
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions });
  }

  it('kafkajs deleteTopicRecords moves the low watermark (and -1 deletes up to the high watermark)', async () => {
    await topicWithRecords('adm-kafkajs', 2);
    await deleteTopicRecords('adm-kafkajs', [{ partition: 0, offset: '8' }, { partition: 1, offset: '-1' }]);
    const offsets = (await admin.fetchTopicOffsets('adm-kafkajs')).sort((a, b) => a.partition - b.partition);
    assert.deepEqual(
      offsets.map((o) => [o.partition, o.low, o.high]),
      [
        [0, '8', String(RECORDS)],
        [1, String(RECORDS), String(RECORDS)],
      ],
    );
  });

  it('kafkajs describeCluster lists this broker and the controller', async () => {
    const cluster = await admin.describeCluster();
    assert.equal(cluster.brokers.length, 1);
    assert.equal(cluster.brokers[0]?.port, broker.port);
    assert.equal(cluster.controller, cluster.brokers[0]?.nodeId);
    assert.ok(cluster.clusterId.length > 0);
  });

  it('a kafkajs group consumer whose committed offset is below the log start resets to the new start', async () => {
    const topic = 'adm-kafkajs-reset';
    const groupId = 'adm-kafkajs-reset-group';
    await topicWithRecords(topic);
    await deleteTopicRecords(topic, [{ partition: 0, offset: '12' }]);
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '3' }] });
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500 });
    const seen: number[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const done = new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(Number(message.offset));
            if (seen.length === RECORDS - 12) resolve();
          },
        });
      });
      await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`consumed only ${JSON.stringify(seen)}`)), 60_000))]);
    } finally {
      await consumer.disconnect();
    }
    assert.deepEqual(seen, Array.from({ length: RECORDS - 12 }, (_, i) => 12 + i));
  });

  it('platformatic deleteRecords (v2) and describeLogDirs (v4)', async () => {
    await topicWithRecords('adm-platformatic');
    const pAdmin = new PlatformaticAdmin({ clientId: 'tributary-admin-test', bootstrapBrokers: [broker.bootstrap], retries: 2, timeout: 10_000 });
    try {
      const deleted = await pAdmin.deleteRecords({ topics: [{ name: 'adm-platformatic', partitions: [{ partition: 0, offset: 5n }] }] });
      assert.deepEqual(deleted, [{ name: 'adm-platformatic', partitions: [{ partition: 0, lowWatermark: 5n }] }]);
      const dirs = await pAdmin.describeLogDirs({ topics: [{ name: 'adm-platformatic', partitions: [0] }] });
      assert.equal(dirs.length, 1);
      const dir = dirs[0]?.results[0];
      assert.ok(dir);
      assert.equal(dir.logDir, broker.dataDir);
      const partition = dir.topics.find((t) => t.name === 'adm-platformatic')?.partitions[0];
      assert.equal(partition?.partitionIndex, 0);
      assert.ok((partition?.partitionSize ?? 0n) > 0n);
      assert.ok(dir.totalBytes > 0n && dir.usableBytes > 0n);
    } finally {
      await pAdmin.close();
    }
  });

  it('kcat -Q sees the moved earliest offset', async () => {
    await topicWithRecords('adm-kcat');
    await deleteTopicRecords('adm-kcat', [{ partition: 0, offset: '7' }]);
    const earliest = await kcatQuery(broker.bootstrap, [{ topic: 'adm-kcat', partition: 0, timestampMs: -2 }]);
    assert.equal(offsetFromQuery(earliest.stdout, 'adm-kcat', 0), 7, earliest.stdout);
  });

  it('confluent-kafka-python 1.7: no delete_records/describe_cluster; a consumer below the log start resets', async () => {
    const { methods } = await runPythonJson<{ methods: string[] }>(PY, 'admin_methods', {});
    assert.ok(!methods.includes('delete_records') && !methods.includes('describe_cluster'), `AdminClient methods: ${methods.join(', ')}`);
    await topicWithRecords('adm-confluent');
    await deleteTopicRecords('adm-confluent', [{ partition: 0, offset: '15' }]);
    const r = await runPythonJson<{ offsets: number[]; low: number; high: number; errors: string[] }>(
      PY,
      'consume_from',
      { bootstrap: broker.bootstrap, topic: 'adm-confluent', partition: 0, offset: 2, expect: RECORDS - 15, reset: 'earliest' },
      { timeoutMs: 60_000 },
    );
    assert.deepEqual(r.offsets, [15, 16, 17, 18, 19], JSON.stringify(r));
    assert.deepEqual([r.low, r.high], [15, RECORDS]);
  });
});
