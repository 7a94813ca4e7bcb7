// @platformatic/kafka 1.35 against one real broker process. It always sends
// ApiVersions v3 (no fallback) and uses flexible versions almost everywhere:
// Metadata 9+, Produce 7+, Fetch 12+, CreateTopics 7, DeleteTopics 6,
// CreatePartitions 1-3, ListOffsets 5+. Producer.send with keys/headers/acks
// and each codec it has on Node 20 (no zstd), Admin createTopics/metadata/
// createPartitions/deleteTopics/listTopics, Consumer.listOffsets, and reading
// back with Consumer.fetch(): a plain Fetch to the leader that needs no group
// (its consume() always joins a group, which is a later issue). Records are
// also read back with kcat, so two clients agree.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, Consumer, ProduceAcks, Producer, stringSerializers, type CompressionAlgorithmValue } from '@platformatic/kafka';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { kcatConsumeAll } from '../helpers/kcat.js';
import { storedBatches } from '../helpers/log-files.js';
import { probeApiVersions } from '../helpers/raw-kafka.js';
import { assertSameRecordsInOrder, sampleRecords, uniqueName, type ConsumedRecord, type TestRecord } from '../helpers/records.js';

const PARTITIONS = 3;
type FetchResponse = Awaited<ReturnType<Consumer['fetch']>>;
type FetchResponsePartition = FetchResponse['responses'][number]['partitions'][number];

describe('@platformatic/kafka 1.35', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  let admin: Admin;
  let consumer: Consumer;
  const producers: Producer<string, string, string, string>[] = [];
  let fetchMaxVersion = 12;

  const base = (): { clientId: string; bootstrapBrokers: string[]; retries: number; timeout: number } => ({
    clientId: 'tributary-compat-platformatic',
    bootstrapBrokers: [broker.bootstrap],
    retries: 2,
    timeout: 15_000,
  });

  function producer(): Producer<string, string, string, string> {
    const p = new Producer({ ...base(), serializers: stringSerializers, autocreateTopics: false });
    producers.push(p);
    return p;
  }

  async function createTopic(topic: string, partitions: number): Promise<void> {
    const created = await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
    assert.equal(created.length, 1);
    assert.equal(created[0]?.name, topic);
    assert.equal(created[0]?.partitions, partitions);
  }

  /** Every record of every partition, with Consumer.fetch() (Fetch to the leader, no group). */
  async function fetchAll(topic: string, partitions: number): Promise<ConsumedRecord[]> {
    const md = await consumer.metadata({ topics: [topic], forceUpdate: true });
    const info = md.topics.get(topic);
    assert.ok(info, `metadata for ${topic}`);
    // Fetch v12 names topics; v13+ uses topic ids.
    const topicId = fetchMaxVersion >= 13 ? info.id : topic;
    const out: ConsumedRecord[] = [];
    for (let partition = 0; partition < partitions; partition++) {
      const leader: number | undefined = info.partitions[partition]?.leader;
      assert.ok(leader !== undefined && leader >= 0, `leader of ${topic}-${partition}`);
      let fetchOffset = 0n;
      for (let round = 0; round < 100; round++) {
        const response: FetchResponse = await consumer.fetch({
          node: leader,
          maxWaitTime: 100,
          topics: [{ topicId, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }] }],
        });
        const p: FetchResponsePartition | undefined = response.responses[0]?.partitions[0];
        assert.ok(p, `fetch response for ${topic}-${partition}: ${JSON.stringify(response, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
        assert.equal(p.errorCode, 0, `fetch ${topic}-${partition} at ${fetchOffset}`);
        for (const batch of p.records ?? []) {
          for (const r of batch.records) {
            const offset = batch.firstOffset + BigInt(r.offsetDelta);
            if (offset < fetchOffset) continue;
            out.push({
              partition,
              offset,
              key: r.key === null ? null : r.key.toString('utf8'),
              value: r.value === null ? null : r.value.toString('utf8'),
              headers: r.headers.map(([k, v]) => [k === null ? '' : k.toString('utf8'), v === null ? null : v.toString('utf8')]),
            });
            fetchOffset = offset + 1n;
          }
        }
        if (fetchOffset >= p.highWatermark) break;
      }
    }
    return out;
  }

  function toMessage(topic: string, r: TestRecord): { topic: string; key?: string; value: string; headers: Map<string, string>; partition?: number } {
    const headers = new Map<string, string>();
    for (const [k, v] of r.headers) {
      assert.ok(v !== null && !headers.has(k), 'a Map of headers has neither null values nor repeated names');
      headers.set(k, v);
    }
    const m: { topic: string; key?: string; value: string; headers: Map<string, string>; partition?: number } = { topic, value: r.value, headers };
    if (r.key !== null) m.key = r.key;
    if (r.partition !== undefined) m.partition = r.partition;
    return m;
  }

  before(async () => {
    broker = await startBroker({ name: 'platformatic' });
    admin = new Admin(base());
    consumer = new Consumer({ ...base(), groupId: 'tributary-compat-unused' });
    const versions = await probeApiVersions(broker.port);
    fetchMaxVersion = versions.apiKeys.get(1)?.maxVersion ?? 12;
  });
  after(async () => {
    for (const p of producers) await p.close().catch(() => undefined);
    await consumer?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await broker?.cleanup();
  });

  it('Admin: createTopics, listTopics, metadata (partitions and leaders)', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-admin');
      await createTopic(topic, PARTITIONS);
      assert.ok((await admin.listTopics()).includes(topic), 'listTopics');
      const md = await admin.metadata({ topics: [topic], forceUpdate: true });
      assert.equal(md.brokers.size, 1);
      const [entry] = [...md.brokers];
      assert.ok(entry);
      const [nodeId, info] = entry;
      assert.equal(info.port, broker.port);
      const t = md.topics.get(topic);
      assert.ok(t);
      assert.equal(t.partitionsCount, PARTITIONS);
      for (const p of t.partitions) {
        assert.equal(p.leader, nodeId);
        assert.deepEqual(p.replicas, [nodeId]);
        assert.deepEqual(p.isr, [nodeId]);
      }
      await assert.rejects(admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 }), (err: Error) => {
        const text = JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as { errors?: unknown }).errors ?? '');
        return /TOPIC_ALREADY_EXISTS|already exists|36/.test(text);
      });
    });
  });

  const cases: [CompressionAlgorithmValue, number][] = [
    ['none', ProduceAcks.ALL],
    ['none', ProduceAcks.LEADER],
    ['gzip', ProduceAcks.ALL],
    ['snappy', ProduceAcks.ALL],
    ['lz4', ProduceAcks.ALL],
  ];
  for (const [compression, acks] of cases) {
    it(`Producer.send ${compression} acks=${acks}: Consumer.fetch and kcat read everything back, in order per partition`, async () => {
      await broker.explain(async () => {
        const topic = uniqueName(`pk-${compression}-${acks}`);
        await createTopic(topic, PARTITIONS);
        const p = producer();
        const records = sampleRecords(`pk-${compression}-${acks}`, 120, PARTITIONS, { nullHeaderValues: false, duplicateHeaders: false });
        for (let i = 0; i < records.length; i += 30) {
          const result = await p.send({ acks, compression, messages: records.slice(i, i + 30).map((r) => toMessage(topic, r)) });
          for (const o of result.offsets ?? []) assert.equal(o.topic, topic);
        }
        assertSameRecordsInOrder(records, await fetchAll(topic, PARTITIONS));
        assertSameRecordsInOrder(records, await kcatConsumeAll(broker.bootstrap, topic));
        for (let partition = 0; partition < PARTITIONS; partition++) {
          for (const batch of storedBatches(broker.dataDir, topic, partition)) {
            assert.equal(batch.codec, compression, `${topic}-${partition} batch at ${batch.baseOffset}: stored codec`);
            assert.ok(batch.crcOk, `${topic}-${partition} batch at ${batch.baseOffset}: CRC`);
          }
        }
      });
    });
  }

  it('Producer.send acks=0 (no response): the records land', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-acks0');
      await createTopic(topic, 1);
      const p = producer();
      const records: TestRecord[] = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: `acks0-${i}`, headers: [], partition: 0 }));
      for (const r of records) await p.send({ acks: ProduceAcks.NO_RESPONSE, messages: [toMessage(topic, r)] });
      // Then a request that does get a response, on the same connection: it must come back (in order).
      await p.send({ acks: ProduceAcks.ALL, messages: [toMessage(topic, { key: 'last', value: 'acks0-last', headers: [], partition: 0 })] });
      const back = await fetchAll(topic, 1);
      assertSameRecordsInOrder([...records, { key: 'last', value: 'acks0-last', headers: [], partition: 0 }], back);
    });
  });

  it('Consumer.listOffsets (ListOffsets v5+): earliest, latest, by timestamp', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-offsets');
      await createTopic(topic, 2);
      const p = producer();
      const ts = BigInt(Date.now() - 100_000);
      await p.send({
        acks: ProduceAcks.ALL,
        messages: [0, 1, 2, 3, 4].map((i) => ({ topic, key: `k${i}`, value: `off-${i}`, partition: 0, timestamp: ts + BigInt(i * 1000) })),
      });
      const latest = await consumer.listOffsets({ topics: [topic], timestamp: -1n });
      assert.deepEqual(latest.get(topic), [5n, 0n]);
      const earliest = await consumer.listOffsets({ topics: [topic], timestamp: -2n });
      assert.deepEqual(earliest.get(topic), [0n, 0n]);
      const byTime = await consumer.listOffsetsWithTimestamps({ topics: [topic], partitions: { [topic]: [0] }, timestamp: ts + 2500n });
      assert.deepEqual(byTime.get(topic)?.get(0), { offset: 3n, timestamp: ts + 3000n }, 'the first *record* (not batch) with timestamp >= target, and its timestamp');
    });
  });

  it('Admin: createPartitions, then a record reaches the new partition', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-grow');
      await createTopic(topic, 1);
      await admin.createPartitions({ topics: [{ name: topic, count: 3 }] });
      const md = await admin.metadata({ topics: [topic], forceUpdate: true });
      assert.equal(md.topics.get(topic)?.partitionsCount, 3);
      const p = producer();
      const records: TestRecord[] = [0, 1, 2].map((partition) => ({ key: null, value: `grow-${partition}`, headers: [], partition }));
      await p.send({ acks: ProduceAcks.ALL, messages: records.map((r) => toMessage(topic, r)) });
      assertSameRecordsInOrder(records, await fetchAll(topic, 3));
    });
  });

  it('Admin: deleteTopics removes the topic', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-delete');
      await createTopic(topic, 1);
      await admin.deleteTopics({ topics: [topic] });
      assert.ok(!(await admin.listTopics()).includes(topic), 'listTopics after deleteTopics');
    });
  });

  it('the broker is still up and answers a raw ApiVersions', async () => {
    assert.ok(broker.isAlive(), 'broker process alive');
    assert.equal((await probeApiVersions(broker.port)).errorCode, 0);
    assert.deepEqual(broker.crashes, []);
  });
});
