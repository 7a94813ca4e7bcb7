// kcat 1.7.1 on librdkafka 2.0.2 against one real broker process: metadata
// (-L -J), produce (-P -K: -H -l file, every -z codec) and consume (-C -e -o
// beginning -f) without groups, offsets by timestamp (-Q, and -o s@ts).
// librdkafka switches features off silently when the advertised ranges miss a
// version (docs/compatibility.md): lz4 needs FindCoordinator 0, zstd Produce 7 and
// Fetch 10. The "stored codec" test catches a codec silently dropped that way.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { assertKcatProduceClean, COMPRESSIONS, kcatConsumeAll, kcatMetadata, kcatProduce, kcatQuery, offsetFromQuery, type Compression } from '../helpers/kcat.js';
import { assertLibrdkafkaCodecsStored } from '../helpers/log-files.js';
import { createTopicsRaw, probeApiVersions } from '../helpers/raw-kafka.js';
import { assertSameRecordsInOrder, uniqueName, type TestRecord } from '../helpers/records.js';
import { KCAT, run } from '../helpers/run.js';

const PARTITIONS = 3;

/** kcat -l lines ("key:value", or "value" alone for a null key) and the records they should become. */
function recordsFor(tag: string, count: number, headers: [string, string][], partition?: number): { lines: string[]; records: TestRecord[] } {
  const lines: string[] = [];
  const records: TestRecord[] = [];
  for (let i = 0; i < count; i++) {
    let key: string | null = `${tag}-key-${i % 7}`;
    let value = `${tag}-${i}-value`;
    if (i % 11 === 5) key = null; // no delimiter on the line: null key
    if (i % 13 === 3) value += '=with=equals,and,commas'; // kcat -K splits at the last ':' (no colons in values)
    if (i % 17 === 4) value += '-unicode-é-✓-日本';
    if (i === 9) value += '-' + 'x'.repeat(20_000);
    lines.push(key === null ? value : `${key}:${value}`);
    const record: TestRecord = { key, value, headers };
    if (partition !== undefined) record.partition = partition;
    records.push(record);
  }
  return { lines, records };
}

describe('kcat (librdkafka 2.0.2)', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  const topicByCodec = new Map<Compression, string>();

  before(async () => {
    broker = await startBroker({ name: 'kcat' });
  });
  after(async () => {
    await broker?.cleanup();
  });

  it('-L -J: one broker, the topic, its partitions and leaders', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('kcat-md');
      await createTopicsRaw(broker.port, [{ name: topic, partitions: PARTITIONS }]);
      const md = await kcatMetadata(broker.bootstrap, topic);
      assert.equal(md.brokers.length, 1, JSON.stringify(md));
      const only = md.brokers[0];
      assert.ok(only !== undefined);
      assert.equal(only.name, broker.bootstrap, 'advertised host:port');
      const t = md.topics.find((x) => x.topic === topic);
      assert.ok(t, `topic ${topic} in ${JSON.stringify(md.topics)}`);
      assert.equal(t.error, undefined, JSON.stringify(t));
      assert.deepEqual(
        t.partitions.map((p) => p.partition).sort((a, b) => a - b),
        [0, 1, 2],
      );
      for (const p of t.partitions) {
        assert.equal(p.leader, only.id, `partition ${p.partition} leader`);
        assert.deepEqual(p.replicas.map((r) => r.id), [only.id]);
        assert.deepEqual(p.isrs.map((r) => r.id), [only.id]);
      }
      const all = await kcatMetadata(broker.bootstrap);
      assert.ok(all.topics.some((x) => x.topic === topic), 'kcat -L without -t lists the topic');
      // Plain-text -L also works.
      const text = await run(KCAT, ['-b', broker.bootstrap, '-L', '-t', topic, '-m', '10'], { timeoutMs: 30_000 });
      assert.match(text.stdout, new RegExp(`topic "${topic}" with ${PARTITIONS} partitions`));
    });
  });

  for (const compression of COMPRESSIONS) {
    it(`-z ${compression}: keyed records with headers come back exactly, in order per partition`, async () => {
      await broker.explain(async () => {
        const topic = uniqueName(`kcat-${compression}`);
        topicByCodec.set(compression, topic);
        await createTopicsRaw(broker.port, [{ name: topic, partitions: PARTITIONS }]);
        const first = recordsFor(`${compression}-a`, 150, [
          ['trace', 'abc-123'],
          ['lang', 'fr-é'],
          ['empty', ''],
        ]);
        const second = recordsFor(`${compression}-b`, 60, [['run', 'two']], 2);
        assertKcatProduceClean(await kcatProduce(broker.bootstrap, topic, first.lines, { compression, headers: [['trace', 'abc-123'], ['lang', 'fr-é'], ['empty', '']] }));
        assertKcatProduceClean(await kcatProduce(broker.bootstrap, topic, second.lines, { compression, partition: 2, headers: [['run', 'two']] }));
        const consumed = await kcatConsumeAll(broker.bootstrap, topic);
        assertSameRecordsInOrder([...first.records, ...second.records], consumed);
        // Each partition separately (-p) gives the same records.
        const p2 = await kcatConsumeAll(broker.bootstrap, topic, { partition: 2 });
        assert.deepEqual(p2, consumed.filter((r) => r.partition === 2));
      });
    });
  }

  it('stored batches keep the codec kcat sent (no silent fallback to uncompressed)', async () => {
    await broker.explain(async () => {
      // Compat tests never skip: this one reads what the produce tests stored.
      assert.ok(topicByCodec.size > 0, 'the produce tests ran first and stored their topics');
      assertLibrdkafkaCodecsStored(broker.dataDir, topicByCodec, PARTITIONS);
    });
  });

  it('-Q and -o s@: offsets by timestamp', async () => {
    await broker.explain(async () => {
      const topic = uniqueName('kcat-time');
      await createTopicsRaw(broker.port, [{ name: topic, partitions: 1 }]);
      const before = Date.now();
      const a = recordsFor('time-a', 5, []);
      assertKcatProduceClean(await kcatProduce(broker.bootstrap, topic, a.lines, { partition: 0 }));
      await new Promise((r) => setTimeout(r, 1100));
      const middle = Date.now();
      await new Promise((r) => setTimeout(r, 20));
      const b = recordsFor('time-b', 5, []);
      assertKcatProduceClean(await kcatProduce(broker.bootstrap, topic, b.lines, { partition: 0 }));
      const afterAll = Date.now();

      const consumed = await kcatConsumeAll(broker.bootstrap, topic);
      assert.equal(consumed.length, 10);
      for (const r of consumed) {
        assert.ok(r.timestamp !== undefined && r.timestamp >= BigInt(before) - 1000n && r.timestamp <= BigInt(afterAll) + 1000n, `timestamp ${r.timestamp}`);
      }

      const query = await kcatQuery(broker.bootstrap, [{ topic, partition: 0, timestampMs: middle }]);
      assert.equal(offsetFromQuery(query.stdout, topic, 0), 5, `-Q at the gap: ${query.stdout} ${query.stderr}`);
      const start = await kcatQuery(broker.bootstrap, [{ topic, partition: 0, timestampMs: before - 60_000 }]);
      assert.equal(offsetFromQuery(start.stdout, topic, 0), 0, `-Q before everything: ${start.stdout}`);
      const end = await kcatQuery(broker.bootstrap, [{ topic, partition: 0, timestampMs: -1 }]);
      assert.equal(offsetFromQuery(end.stdout, topic, 0), 10, `-Q -1 (latest): ${end.stdout}`);
      const beginning = await kcatQuery(broker.bootstrap, [{ topic, partition: 0, timestampMs: -2 }]);
      assert.equal(offsetFromQuery(beginning.stdout, topic, 0), 0, `-Q -2 (earliest): ${beginning.stdout}`);
      const future = await kcatQuery(broker.bootstrap, [{ topic, partition: 0, timestampMs: afterAll + 3_600_000 }]);
      assert.equal(offsetFromQuery(future.stdout, topic, 0), -1, `-Q after every record (no such offset): ${future.stdout}`);

      const sAt = await run(KCAT, ['-b', broker.bootstrap, '-C', '-t', topic, '-p', '0', '-o', `s@${middle}`, '-e', '-q', '-f', '%o %s\\n'], { timeoutMs: 30_000 });
      assert.deepEqual(
        sAt.stdout.trim().split('\n'),
        b.records.map((r, i) => `${5 + i} ${r.value}`),
      );
    });
  });

  it('the broker is still up and answers a raw ApiVersions', async () => {
    assert.ok(broker.isAlive(), 'broker process alive');
    const versions = await probeApiVersions(broker.port);
    assert.equal(versions.errorCode, 0);
    assert.deepEqual(broker.crashes, []);
  });
});
