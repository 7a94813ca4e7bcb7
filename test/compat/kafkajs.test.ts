// kafkajs 2.2.4 against one real broker process: admin (createTopics twice,
// listTopics, fetchTopicMetadata, fetchTopicOffsets, fetchTopicOffsetsByTimestamp,
// createPartitions, deleteTopics, describeCluster) and producer.send with keys,
// headers, acks -1/1/0 and gzip. kafkajs uses min(its max, broker max) and
// ignores the broker's min (docs/compatibility.md), so this exercises Produce v7,
// Metadata v6, ListOffsets v3, CreateTopics v3, DeleteTopics v1,
// CreatePartitions v1 (when advertised that high). kafkajs consumers need
// groups (a later issue), so records are read back with kcat (librdkafka):
// a second client reading what the first wrote.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes, Kafka, logLevel, type Admin, type IHeaders, type Message, type Producer } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { kcatConsumeAll } from '../helpers/kcat.js';
import { storedBatches } from '../helpers/log-files.js';
import { probeApiVersions } from '../helpers/raw-kafka.js';
import { assertSameRecordsInOrder, sampleRecords, uniqueName, type ConsumedRecord, type TestRecord } from '../helpers/records.js';

function toMessage(r: TestRecord, timestampMs?: number): Message {
  const headers: IHeaders = {};
  for (const [k, v] of r.headers) {
    assert.ok(v !== null, 'kafkajs cannot send null header values');
    const previous = headers[k];
    if (previous === undefined) headers[k] = v;
    else headers[k] = Array.isArray(previous) ? [...previous, v] : [previous, v];
  }
  const message: Message = { key: r.key, value: r.value, headers };
  if (r.partition !== undefined) message.partition = r.partition;
  if (timestampMs !== undefined) message.timestamp = String(timestampMs);
  return message;
}

/** kcat until `count` records are there (acks=0 gives no signal of when they land), bounded. */
async function readBack(bootstrap: string, topic: string, count: number, timeoutMs = 15_000): Promise<ConsumedRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = await kcatConsumeAll(bootstrap, topic);
    if (records.length >= count || Date.now() > deadline) return records;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('kafkajs 2.2.4', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  let kafka: Kafka;
  let admin: Admin | undefined;
  const producers: Producer[] = [];

  async function producer(options: Parameters<Kafka['producer']>[0] = {}): Promise<Producer> {
    const p = kafka.producer({ allowAutoTopicCreation: false, ...options });
    producers.push(p);
    await p.connect();
    return p;
  }

  async function adminClient(): Promise<Admin> {
    if (admin === undefined) {
      admin = kafka.admin();
      await admin.connect();
    }
    return admin;
  }

  async function createTopic(topic: string, numPartitions: number): Promise<void> {
    const created = await (await adminClient()).createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], timeout: 10_000 });
    assert.equal(created, true, 'createTopics returns true for a new topic');
  }

  before(async () => {
    broker = await startBroker({ name: 'kafkajs' });
    kafka = new Kafka({
      clientId: 'tributary-compat-kafkajs',
      brokers: [broker.bootstrap],
      logLevel: process.env['TRIBUTARY_TEST_LOGS'] === '1' ? logLevel.DEBUG : logLevel.ERROR,
      retry: { retries: 3, initialRetryTime: 100 },
      connectionTimeout: 5000,
      requestTimeout: 15_000,
    });
  });
  after(async () => {
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await admin?.disconnect().catch(() => undefined);
    await broker?.cleanup();
  });

  it('admin: createTopics (true, then false for an existing topic), listTopics, fetchTopicMetadata, describeCluster', async () => {
    await broker.explain(async () => {
      const client = await adminClient();
      const topic = uniqueName('kjs-admin');
      await createTopic(topic, 3);
      const again = await client.createTopics({ topics: [{ topic, numPartitions: 3 }], timeout: 10_000 });
      assert.equal(again, false, 'TOPIC_ALREADY_EXISTS makes createTopics return false');
      assert.ok((await client.listTopics()).includes(topic), 'listTopics');
      const cluster = await client.describeCluster();
      assert.equal(cluster.brokers.length, 1);
      const [only] = cluster.brokers;
      assert.ok(only !== undefined);
      assert.equal(only.port, broker.port);
      assert.equal(cluster.controller, only.nodeId);
      const md = await client.fetchTopicMetadata({ topics: [topic] });
      assert.equal(md.topics.length, 1);
      const t = md.topics[0];
      assert.equal(t?.name, topic);
      assert.deepEqual(
        t?.partitions.map((p) => p.partitionId).sort((a, b) => a - b),
        [0, 1, 2],
      );
      for (const p of t?.partitions ?? []) {
        assert.equal(p.partitionErrorCode, 0);
        assert.equal(p.leader, only.nodeId);
        assert.deepEqual(p.replicas, [only.nodeId]);
        assert.deepEqual(p.isr, [only.nodeId]);
      }
    });
  });

  for (const acks of [-1, 1, 0] as const) {
    it(`producer.send acks=${acks} with keys and headers: kcat reads every record back, in order per partition`, async () => {
      await broker.explain(async () => {
        const topic = uniqueName(`kjs-acks${acks}`);
        await createTopic(topic, 3);
        const p = await producer();
        const records = sampleRecords(`kjs-${acks}`, 120, 3, { nullHeaderValues: false });
        // Several sends, so there are several batches per partition.
        for (let i = 0; i < records.length; i += 40) {
          const result = await p.send({ topic, acks, messages: records.slice(i, i + 40).map((r) => toMessage(r)) });
          if (acks !== 0) {
            assert.ok(result.length > 0, 'record metadata for acks != 0');
            for (const m of result) assert.equal(m.errorCode, 0, JSON.stringify(m));
          }
        }
        const back = await readBack(broker.bootstrap, topic, records.length);
        assertSameRecordsInOrder(records, back);
      });
    });
  }

  it('producer.send with gzip: stored as gzip, read back exactly', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('kjs-gzip');
      await createTopic(topic, 2);
      const p = await producer();
      const records = sampleRecords('kjs-gzip', 100, 2, { nullHeaderValues: false });
      const result = await p.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages: records.map((r) => toMessage(r)) });
      for (const m of result) assert.equal(m.errorCode, 0);
      assertSameRecordsInOrder(records, await readBack(broker.bootstrap, topic, records.length));
      for (const partition of [0, 1]) {
        for (const batch of storedBatches(broker.dataDir, topic, partition)) {
          assert.equal(batch.codec, 'gzip', `partition ${partition} batch at ${batch.baseOffset}`);
          assert.ok(batch.crcOk);
        }
      }
    });
  });

  it('admin: fetchTopicOffsets and fetchTopicOffsetsByTimestamp', async () => {
    await broker.explain(async () => {
      const client = await adminClient();
      const topic = uniqueName('kjs-offsets');
      await createTopic(topic, 2);
      const empty = await client.fetchTopicOffsets(topic);
      assert.deepEqual(
        empty.map((o) => [o.partition, o.low, o.high, o.offset]).sort(),
        [
          [0, '0', '0', '0'],
          [1, '0', '0', '0'],
        ],
      );
      const p = await producer();
      const base = Date.now() - 300_000;
      const messages: Message[] = [];
      for (let i = 0; i < 8; i++) messages.push(toMessage({ key: `t${i}`, value: `ts-0-${i}`, headers: [], partition: 0 }, base + i * 1000));
      for (let i = 0; i < 3; i++) messages.push(toMessage({ key: `t${i}`, value: `ts-1-${i}`, headers: [], partition: 1 }, base + i * 1000));
      await p.send({ topic, acks: -1, messages });
      const offsets = await client.fetchTopicOffsets(topic);
      assert.deepEqual(
        offsets.map((o) => [o.partition, o.low, o.high, o.offset]).sort(),
        [
          [0, '0', '8', '8'],
          [1, '0', '3', '3'],
        ],
      );
      const byTime = async (ts: number): Promise<[number, string][]> =>
        (await client.fetchTopicOffsetsByTimestamp(topic, ts)).map((o): [number, string] => [o.partition, o.offset]).sort((a, b) => a[0] - b[0]);
      assert.deepEqual(await byTime(base - 1), [
        [0, '0'],
        [1, '0'],
      ]);
      assert.deepEqual(await byTime(base + 2500), [
        [0, '3'],
        [1, '3'],
      ], 'the first *record* (not batch) with timestamp >= target; partition 1 has none, so the broker says -1 and kafkajs shows the high watermark');
      assert.deepEqual(await byTime(base + 5000), [
        [0, '5'],
        [1, '3'],
      ]);
    });
  });

  it('admin: createPartitions, then send to the new partition', async () => {
    await broker.explain(async () => {
      const client = await adminClient();
      const topic = uniqueName('kjs-grow');
      await createTopic(topic, 2);
      // kafkajs 2.2.4 resolves createPartitions with undefined (its types say boolean).
      await client.createPartitions({ topicPartitions: [{ topic, count: 4 }], timeout: 10_000 });
      const md = await client.fetchTopicMetadata({ topics: [topic] });
      assert.equal(md.topics[0]?.partitions.length, 4);
      const p = await producer();
      const records: TestRecord[] = [0, 1, 2, 3].map((partition) => ({ key: null, value: `grow-${partition}`, headers: [], partition }));
      const result = await p.send({ topic, acks: -1, messages: records.map((r) => toMessage(r)) });
      assert.deepEqual(
        result.map((m) => [m.partition, m.errorCode, m.baseOffset]).sort(),
        [
          [0, 0, '0'],
          [1, 0, '0'],
          [2, 0, '0'],
          [3, 0, '0'],
        ],
      );
      assertSameRecordsInOrder(records, await readBack(broker.bootstrap, topic, records.length));
      await assert.rejects(client.createPartitions({ topicPartitions: [{ topic, count: 3 }] }), /partition|INVALID/i, 'shrinking fails');
    });
  });

  it('admin: deleteTopics removes the topic', async () => {
    await broker.explain(async () => {
      const client = await adminClient();
      const topic = uniqueName('kjs-delete');
      await createTopic(topic, 1);
      await client.deleteTopics({ topics: [topic], timeout: 10_000 });
      assert.ok(!(await client.listTopics()).includes(topic), 'listTopics after deleteTopics');
      await assert.rejects(client.deleteTopics({ topics: [uniqueName('kjs-never')], timeout: 5000 }), /does not host this topic-partition|UNKNOWN_TOPIC/i);
    });
  });

  it('the broker is still up and answers a raw ApiVersions', async () => {
    assert.ok(broker.isAlive(), 'broker process alive');
    assert.equal((await probeApiVersions(broker.port)).errorCode, 0);
    assert.deepEqual(broker.crashes, []);
  });
});
