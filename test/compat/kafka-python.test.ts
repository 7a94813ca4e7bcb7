// kafka-python 2.0.2 against one real broker process, through
// test/compat/py/kafka_python_roundtrip.py with /usr/bin/python3.
// kafka-python sends ApiVersions v0 plus a Metadata v0 probe, guesses a broker
// version from the advertised ranges and then pins request versions (Produce
// v7, Fetch v4, ListOffsets v1, Metadata v1; its admin uses min(clientMax,
// brokerMax)). Only gzip is available among the codecs (snappy, lz4 and zstd
// need Python modules the Debian package does not pull in). No groups.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { walkPartitionLog } from '../helpers/log-files.js';
import { probeApiVersions } from '../helpers/raw-kafka.js';
import { assertSameRecordsInOrder, fromHexConsumed, sampleRecords, toHexRecord, uniqueName, type HexConsumed, type TestRecord } from '../helpers/records.js';
import { runPythonJson } from '../helpers/run.js';

const SCRIPT = 'kafka_python_roundtrip.py';

interface CreateResult {
  api_version: number[] | null;
  request_version?: number;
  exception: string | null;
  message?: string;
  topic_errors?: [string, number, string | null][];
}
interface ProduceResult {
  api_version: number[];
  reports: { partition: number | null; offset: number | null; error: string | null }[];
}
interface ConsumeResult {
  api_version: number[];
  ends: Record<string, number>;
  records: HexConsumed[];
}
interface EndOffsetsResult {
  end: Record<string, number>;
  beginning: Record<string, number>;
  partitions_for_topic: number[];
}

describe('kafka-python 2.0.2', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  const py = <T>(command: string, args: Record<string, unknown>): Promise<T> => runPythonJson<T>(SCRIPT, command, { bootstrap: broker.bootstrap, ...args }, { timeoutMs: 90_000 });

  async function createTopic(name: string, partitions: number): Promise<CreateResult> {
    const created = await py<CreateResult>('create_topics', { topics: [{ name, partitions }] });
    assert.equal(created.exception, null, `create_topics: ${created.message ?? ''}`);
    assert.deepEqual(
      (created.topic_errors ?? []).map((e) => [e[0], e[1]]),
      [[name, 0]],
    );
    return created;
  }

  before(async () => {
    broker = await startBroker({ name: 'kafka-python' });
  });
  after(async () => {
    await broker?.cleanup();
  });

  it('KafkaAdminClient.create_topics, then TopicAlreadyExistsError on a second create', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('kp-admin');
      const created = await createTopic(topic, 3);
      assert.ok(created.api_version !== null && (created.api_version[0] ?? 0) >= 2, `guessed broker version ${JSON.stringify(created.api_version)} (expected >= 2.x from the advertised ranges)`);
      const again = await py<CreateResult>('create_topics', { topics: [{ name: topic, partitions: 3 }] });
      assert.equal(again.exception, 'TopicAlreadyExistsError', JSON.stringify(again));
      const offsets = await py<EndOffsetsResult>('end_offsets', { topic, partitions: [0, 1, 2] });
      assert.deepEqual(offsets.partitions_for_topic, [0, 1, 2]);
      assert.deepEqual(offsets.end, { '0': 0, '1': 0, '2': 0 });
      assert.deepEqual(offsets.beginning, { '0': 0, '1': 0, '2': 0 });
    });
  });

  for (const [acks, compression] of [
    ['1', null],
    ['all', null],
    ['all', 'gzip'],
    ['1', 'gzip'],
  ] as const) {
    it(`KafkaProducer acks=${acks} compression=${compression ?? 'none'}; KafkaConsumer assign + seek_to_beginning reads it all back`, async () => {
      await broker.explain(async () => {
        const topic = uniqueName(`kp-${acks}-${compression ?? 'none'}`);
        await createTopic(topic, 3);
        // kafka-python asserts header values are bytes: no null header values.
        const records = sampleRecords(`kp-${acks}-${compression ?? 'none'}`, 150, 3, { nullHeaderValues: false });
        const produced = await py<ProduceResult>('produce', { topic, acks: acks === 'all' ? 'all' : Number(acks), compression, records: records.map((r) => toHexRecord(r)) });
        produced.reports.forEach((report, i) => {
          assert.equal(report.error, null, `record ${i}: ${report.error}`);
          const want = records[i]?.partition;
          if (want !== undefined) assert.equal(report.partition, want, `record ${i}: partition`);
        });
        const consumed = await py<ConsumeResult>('consume', { topic, partitions: [0, 1, 2] });
        const back = consumed.records.map(fromHexConsumed);
        assertSameRecordsInOrder(records, back);
        const at = new Map(back.map((r) => [`${r.partition}/${r.offset}`, r.value]));
        produced.reports.forEach((report, i) => {
          assert.equal(at.get(`${report.partition}/${report.offset}`), records[i]?.value, `record ${i}: reported offset`);
        });
        const ends = await py<EndOffsetsResult>('end_offsets', { topic, partitions: [0, 1, 2] });
        for (let p = 0; p < 3; p++) {
          assert.equal(ends.end[String(p)], back.filter((r) => r.partition === p).length, `end_offsets partition ${p}`);
          assert.equal(ends.beginning[String(p)], 0);
        }
        assert.deepEqual(consumed.ends, ends.end);
        // kafka-python sends a batch uncompressed when compressing does not make it smaller
        // (DefaultRecordBatchBuilder._maybe_compress), so small batches are 'none'; the batch
        // with the 20 KB value compresses.
        const codecs = new Set<string>();
        for (let p = 0; p < 3; p++) {
          for (const batch of walkPartitionLog(broker.dataDir, topic, p).batches) {
            assert.ok(batch.crcOk, `${topic}-${p} batch at ${batch.baseOffset}: CRC-32C`);
            codecs.add(batch.codec);
          }
        }
        if (compression === null) assert.deepEqual([...codecs], ['none'], 'stored codecs');
        else {
          assert.ok(codecs.has(compression), `stored codecs ${[...codecs].join(',')}: none is ${compression}`);
          assert.ok([...codecs].every((c) => c === compression || c === 'none'), `stored codecs ${[...codecs].join(',')}`);
        }
      });
    });
  }

  it('a keyless record and a tombstone (null value), no headers, round-trip', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('kp-null');
      await createTopic(topic, 1);
      const records: TestRecord[] = [{ key: null, value: 'v0', headers: [], partition: 0 }];
      const produced = await py<ProduceResult>('produce', {
        topic,
        acks: 'all',
        compression: null,
        // kafka-python refuses a record with neither key nor value, so the tombstone has a key.
        records: [...records.map((r) => toHexRecord(r)), { k: 'aa', v: null, h: [], p: 0 }],
      });
      assert.deepEqual(
        produced.reports.map((r) => [r.error, r.offset]),
        [
          [null, 0],
          [null, 1],
        ],
      );
      const consumed = await py<ConsumeResult>('consume', { topic, partitions: [0] });
      assert.equal(consumed.records.length, 2);
      const v0 = Buffer.from('v0').toString('hex');
      assert.deepEqual(consumed.records[0], { ...consumed.records[0], o: 0, k: null, v: v0, h: [] }, 'keyless record: null key stays null');
      assert.deepEqual(consumed.records[1], { ...consumed.records[1], o: 1, k: 'aa', v: null, h: [] }, 'tombstone (null value) stays null');
    });
  });

  it('the broker is still up and answers a raw ApiVersions', async () => {
    assert.ok(broker.isAlive(), 'broker process alive');
    assert.equal((await probeApiVersions(broker.port)).errorCode, 0);
    assert.deepEqual(broker.crashes, []);
  });
});
