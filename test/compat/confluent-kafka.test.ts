// confluent-kafka-python 1.7 (librdkafka 2.0.2) against one real broker process,
// driven through test/compat/py/confluent_roundtrip.py with /usr/bin/python3:
// AdminClient create/delete topics and create partitions, produce acks=all with
// keys, headers (null values, repeated names) and each codec, consume by
// assign() with explicit offsets (read_committed, the librdkafka default),
// watermarks and offsets_for_times. No consumer groups (a later issue).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { COMPRESSIONS } from '../helpers/kcat.js';
import { assertLibrdkafkaCodecsStored } from '../helpers/log-files.js';
import { probeApiVersions } from '../helpers/raw-kafka.js';
import {
  assertSameRecordsInOrder,
  fromHexConsumed,
  sampleRecords,
  toHexRecord,
  uniqueName,
  type HexConsumed,
  type HexRecord,
  type TestRecord,
} from '../helpers/records.js';
import { runPythonJson } from '../helpers/run.js';

const SCRIPT = 'confluent_roundtrip.py';
const PARTITIONS = 4;

interface PyError {
  code: number | null;
  name: string;
  str: string;
}
interface AdminResult {
  results: Record<string, PyError | null>;
}
interface MetadataResult {
  brokers: Record<string, { host: string; port: number }>;
  controller_id: number;
  topics: Record<string, { error: PyError | null; partitions: Record<string, { leader: number; replicas: number[]; isrs: number[]; error: PyError | null }> }>;
}
interface ProduceResult {
  not_flushed: number;
  reports: ({ error: PyError | null; partition: number; offset: number } | null)[];
}
interface ConsumeResult {
  ends: Record<string, number>;
  records: HexConsumed[];
  errors: PyError[];
  complete: boolean;
}
interface OffsetsResult {
  watermarks: Record<string, [number, number]>;
  by_time: Record<string, Record<string, { offset: number; error: PyError | null }>>;
  admin_list_offsets_available: boolean;
}

describe('confluent-kafka-python (librdkafka 2.0.2)', { timeout: 400_000 }, () => {
  let broker: BrokerProcess;
  const py = <T>(command: string, args: Record<string, unknown>): Promise<T> => runPythonJson<T>(SCRIPT, command, { bootstrap: broker.bootstrap, ...args }, { timeoutMs: 90_000 });

  async function createTopic(name: string, partitions: number): Promise<void> {
    const created = await py<AdminResult>('create_topics', { topics: [{ name, partitions }] });
    assert.deepEqual(created.results, { [name]: null }, 'create_topics result');
  }

  async function produceAndCheck(topic: string, records: TestRecord[], compression: string, timestamps?: number[]): Promise<ProduceResult> {
    const produced = await py<ProduceResult>('produce', {
      topic,
      acks: 'all',
      compression,
      records: records.map((r, i): HexRecord => toHexRecord(r, timestamps?.[i])),
    });
    assert.equal(produced.not_flushed, 0, 'every record delivered within the flush timeout');
    produced.reports.forEach((report, i) => {
      assert.ok(report !== null, `record ${i}: no delivery report`);
      assert.equal(report.error, null, `record ${i}: delivery error ${JSON.stringify(report.error)}`);
      const want = records[i]?.partition;
      if (want !== undefined) assert.equal(report.partition, want, `record ${i}: partition`);
    });
    return produced;
  }

  async function consumeAll(topic: string, partitions: number): Promise<ConsumeResult> {
    const start: Record<string, number> = {};
    for (let p = 0; p < partitions; p++) start[String(p)] = 0;
    const result = await py<ConsumeResult>('consume', { topic, start });
    assert.deepEqual(result.errors, [], 'consumer errors');
    assert.ok(result.complete, `consumed to the end of every partition (ends ${JSON.stringify(result.ends)}, got ${result.records.length})`);
    return result;
  }

  before(async () => {
    broker = await startBroker({ name: 'confluent' });
  });
  after(async () => {
    await broker?.cleanup();
  });

  it('AdminClient: create_topics, list_topics metadata, and TOPIC_ALREADY_EXISTS on a second create', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('ck-admin');
      await createTopic(topic, PARTITIONS);
      const md = await py<MetadataResult>('metadata', { topic });
      const brokerIds = Object.keys(md.brokers).map(Number);
      assert.equal(brokerIds.length, 1, JSON.stringify(md.brokers));
      const [brokerId] = brokerIds;
      assert.equal(md.brokers[String(brokerId)]?.port, broker.port);
      const t = md.topics[topic];
      assert.ok(t, JSON.stringify(md.topics));
      assert.equal(t.error, null);
      assert.deepEqual(Object.keys(t.partitions).sort(), ['0', '1', '2', '3']);
      for (const [p, info] of Object.entries(t.partitions)) {
        assert.equal(info.error, null, `partition ${p}`);
        assert.equal(info.leader, brokerId, `partition ${p} leader`);
        assert.deepEqual(info.replicas, [brokerId]);
        assert.deepEqual(info.isrs, [brokerId]);
      }
      const again = await py<AdminResult>('create_topics', { topics: [{ name: topic, partitions: PARTITIONS }] });
      assert.equal(again.results[topic]?.name, 'TOPIC_ALREADY_EXISTS', JSON.stringify(again));
      assert.equal(again.results[topic]?.code, 36);
    });
  });

  const topicByCodec = new Map<string, string>();

  for (const compression of COMPRESSIONS) {
    it(`produce acks=all -z ${compression}, consume by assign(): records come back exactly, in order per partition`, async () => {
      await broker.explain(async () => {
        const topic = uniqueName(`ck-${compression}`);
        topicByCodec.set(compression, topic);
        await createTopic(topic, PARTITIONS);
        const records = sampleRecords(`ck-${compression}`, 240, PARTITIONS);
        const produced = await produceAndCheck(topic, records, compression);
        const consumed = await consumeAll(topic, PARTITIONS);
        const back = consumed.records.map(fromHexConsumed);
        assertSameRecordsInOrder(records, back);
        // Each delivery report points at the offset where the record really is.
        const at = new Map(back.map((r) => [`${r.partition}/${r.offset}`, r.value]));
        produced.reports.forEach((report, i) => {
          assert.equal(at.get(`${report?.partition}/${report?.offset}`), records[i]?.value, `record ${i}: reported offset holds another record`);
        });
        for (const [p, end] of Object.entries(consumed.ends)) {
          assert.equal(end, back.filter((r) => String(r.partition) === p).length, `partition ${p}: high watermark`);
        }
      });
    });
  }

  it('stored batches keep the codec the producer was configured with (no silent fallback to uncompressed)', async () => {
    await broker.explain(async () => {
      assertLibrdkafkaCodecsStored(broker.dataDir, topicByCodec, PARTITIONS);
    });
  });

  it('get_watermark_offsets and offsets_for_times', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('ck-offsets');
      await createTopic(topic, 2);
      const base = Date.now() - 600_000;
      const records: TestRecord[] = [];
      const timestamps: number[] = [];
      for (let i = 0; i < 10; i++) {
        records.push({ key: null, value: `t0-${i}`, headers: [], partition: 0 });
        timestamps.push(base + i * 1000);
      }
      for (let i = 0; i < 5; i++) {
        records.push({ key: null, value: `t1-${i}`, headers: [], partition: 1 });
        timestamps.push(base + i * 2000);
      }
      await produceAndCheck(topic, records, 'none', timestamps);
      // The timestamps stored are the producer's (CreateTime).
      const consumed = (await consumeAll(topic, 2)).records.map(fromHexConsumed);
      for (const r of consumed) {
        const i = records.findIndex((x) => x.value === r.value);
        assert.equal(r.timestamp, BigInt(timestamps[i] ?? -1), `${r.value}: timestamp`);
      }
      const offsets = await py<OffsetsResult>('offsets', { topic, partitions: [0, 1], times: [base - 1, base + 3500, base + 4000, base + 3_600_000] });
      assert.deepEqual(offsets.watermarks, { '0': [0, 10], '1': [0, 5] });
      const at = (t: number, p: number): number | undefined => offsets.by_time[String(t)]?.[String(p)]?.offset;
      assert.equal(at(base - 1, 0), 0);
      assert.equal(at(base - 1, 1), 0);
      assert.equal(at(base + 3500, 0), 4, 'the first *record* (not batch) with timestamp >= target');
      assert.equal(at(base + 3500, 1), 2);
      assert.equal(at(base + 4000, 0), 4, 'exact timestamp match');
      assert.equal(at(base + 4000, 1), 2);
      assert.equal(at(base + 3_600_000, 0), -1, 'no record at or after: -1 (OFFSET_END)');
      assert.equal(at(base + 3_600_000, 1), -1);
      for (const byPartition of Object.values(offsets.by_time)) {
        for (const { error } of Object.values(byPartition)) assert.equal(error, null);
      }
    });
  });

  it('AdminClient create_partitions, then records reach the new partitions', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('ck-grow');
      await createTopic(topic, 2);
      const grown = await py<AdminResult>('create_partitions', { topic, total: 5 });
      assert.deepEqual(grown.results, { [topic]: null });
      const md = await py<MetadataResult>('metadata', { topic });
      assert.deepEqual(Object.keys(md.topics[topic]?.partitions ?? {}).sort(), ['0', '1', '2', '3', '4']);
      const records: TestRecord[] = [0, 1, 2, 3, 4].flatMap((p) => [0, 1, 2].map((i) => ({ key: `p${p}`, value: `grow-${p}-${i}`, headers: [], partition: p })));
      await produceAndCheck(topic, records, 'none');
      assertSameRecordsInOrder(records, (await consumeAll(topic, 5)).records.map(fromHexConsumed));
      const shrink = await py<AdminResult>('create_partitions', { topic, total: 3 });
      assert.equal(shrink.results[topic]?.name, 'INVALID_PARTITIONS', `shrinking: ${JSON.stringify(shrink)}`);
    });
  });

  it('AdminClient delete_topics removes the topic from metadata', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('ck-delete');
      const keep = uniqueName('ck-keep');
      await createTopic(topic, 2);
      await createTopic(keep, 1);
      const deleted = await py<AdminResult>('delete_topics', { topics: [topic] });
      assert.deepEqual(deleted.results, { [topic]: null });
      const md = await py<MetadataResult>('metadata', {});
      assert.ok(!(topic in md.topics), `deleted topic still listed: ${JSON.stringify(Object.keys(md.topics))}`);
      assert.ok(keep in md.topics, 'the other topic is still there');
      const missing = await py<AdminResult>('delete_topics', { topics: [uniqueName('ck-never')] });
      const err = Object.values(missing.results)[0];
      assert.equal(err?.name, 'UNKNOWN_TOPIC_OR_PART', JSON.stringify(missing));
    });
  });

  it('the broker is still up and answers a raw ApiVersions', async () => {
    assert.ok(broker.isAlive(), 'broker process alive');
    assert.equal((await probeApiVersions(broker.port)).errorCode, 0);
    assert.deepEqual(broker.crashes, []);
  });
});
