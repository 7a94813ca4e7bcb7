import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/client/cluster.js';
import { ClientErrorCode, KafkaProtocolError, TributaryClientError } from '../../../src/net/errors.js';
import { partitionForKey } from '../../../src/client/partitioner.js';
import { Producer, Serializers, type ProducerOptions } from '../../../src/client/producer.js';
import { createPartitioner } from '../../../src/client/producer-partitioners.js';
import { decodeRecordBatchSync } from '../../../src/protocol/record-batch/reader.js';
import { FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

interface Produced {
  partition: number;
  values: string[];
  keys: (string | null)[];
}

type ProduceHook = (partition: number, attempt: number) => number | Promise<number>;
/** Sees every request first; `next()` is the normal answer. */
type Intercept = (req: FakeRequest, next: () => Promise<FakeReply>) => FakeReply | Promise<FakeReply>;

/**
 * A one-node fake cluster with topic `t` of `partitions` partitions that
 * appends produced batches to per-partition logs. `hook` returns the error
 * code for a partition (0: append) and may wait first.
 */
async function fakeCluster(partitions: number, hook: ProduceHook = () => 0, intercept: Intercept = (_req, next) => next()) {
  const logs = new Map<number, string[]>();
  const batches: Produced[] = [];
  const attempts = new Map<number, number>();
  let metadataCalls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const answer = async (req: FakeRequest, b: FakeBroker): Promise<FakeReply> => {
    if (req.apiKey === 3) {
      metadataCalls++;
      return {
        body: {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 1, host: '127.0.0.1', port: b.port, rack: null }],
          clusterId: 'fake',
          controllerId: 1,
          topics: ((req.body.topics as { name: string }[] | null) ?? [{ name: 't' }]).map(({ name }) =>
            name !== 't'
              ? { errorCode: 3, name, isInternal: false, partitions: [] }
              : {
                  errorCode: 0,
                  name,
                  isInternal: false,
                  partitions: Array.from({ length: partitions }, (_, i) => ({
                    errorCode: 0,
                    partitionIndex: i,
                    leaderId: 1,
                    leaderEpoch: 0,
                    replicaNodes: [1],
                    isrNodes: [1],
                    offlineReplicas: [],
                  })),
                },
          ),
        },
      };
    }
    if (req.apiKey !== 0) return { none: true };
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const topicData = req.body.topicData as { name: string; partitionData: { index: number; records: Buffer }[] }[];
    const responses = [];
    for (const t of topicData) {
      const partitionResponses = [];
      for (const p of t.partitionData) {
        const attempt = attempts.get(p.index) ?? 0;
        attempts.set(p.index, attempt + 1);
        const errorCode = await hook(p.index, attempt);
        const log = logs.get(p.index) ?? [];
        logs.set(p.index, log);
        const baseOffset = BigInt(log.length);
        if (errorCode === 0) {
          const { records } = decodeRecordBatchSync(p.records);
          batches.push({ partition: p.index, values: records.map((r) => String(r.value)), keys: records.map((r) => (r.key === null ? null : String(r.key))) });
          for (const r of records) log.push(String(r.value));
        }
        partitionResponses.push({ index: p.index, errorCode, baseOffset: errorCode === 0 ? baseOffset : -1n, logAppendTimeMs: -1n, logStartOffset: 0n });
      }
      responses.push({ name: t.name, partitionResponses });
    }
    inFlight--;
    return { body: { responses, throttleTimeMs: 0 } };
  };
  const broker = await FakeBroker.start(withApiVersions((req, b) => intercept(req, () => answer(req, b))));
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  return {
    broker,
    cluster,
    logs,
    batches,
    get metadataCalls() {
      return metadataCalls;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    async stop() {
      await cluster.close();
      await broker.stop();
    },
  };
}

async function producer(cluster: Cluster, options: Omit<ProducerOptions<string | null, string>, 'cluster'> = {}) {
  return Producer.connect<string | null, string>({ cluster, keySerializer: Serializers.string, valueSerializer: Serializers.string, acks: 1, ...options });
}

const value100 = (i: number): string => String(i).padStart(100, '0');

test('a full batch is sent without waiting for linger', async (t) => {
  const fake = await fakeCluster(1);
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { batchSize: 1_000, lingerMs: 10_000 });
  const started = Date.now();
  const sends = Array.from({ length: 50 }, (_, i) => p.send({ topic: 't', value: value100(i) }));
  // The first 40 records fill batches of about 8 records; those go at once.
  const firstResults = await Promise.all(sends.slice(0, 40));
  assert.ok(Date.now() - started < 5_000, 'full batches did not wait for linger');
  assert.deepEqual(firstResults.map((r) => r.offset), Array.from({ length: 40 }, (_, i) => BigInt(i)));
  assert.ok(fake.batches.length >= 5, `batches: ${fake.batches.length}`);
  for (const b of fake.batches) assert.ok(b.values.length * 121 + 77 <= 1_000 + 121, `batch of ${b.values.length} records`);
  await p.close();
  await Promise.all(sends);
  assert.deepEqual(fake.logs.get(0), Array.from({ length: 50 }, (_, i) => value100(i)));
});

test('lingerMs holds a partial batch, then sends it as one', async (t) => {
  const fake = await fakeCluster(1);
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 150 });
  const started = Date.now();
  const sends = Array.from({ length: 10 }, (_, i) => p.send({ topic: 't', value: `v${i}` }));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(fake.batches.length, 0, 'sent before linger expired');
  const results = await Promise.all(sends);
  assert.ok(Date.now() - started >= 140);
  assert.equal(fake.batches.length, 1);
  assert.deepEqual(fake.batches[0]?.values, Array.from({ length: 10 }, (_, i) => `v${i}`));
  assert.deepEqual(results.map((r) => r.offset), Array.from({ length: 10 }, (_, i) => BigInt(i)));
  await p.close();
});

test('bufferMemory applies backpressure: sends wait until batches are acknowledged', async (t) => {
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const fake = await fakeCluster(1, async () => {
    await gate;
    return 0;
  });
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { bufferMemory: 1_000, batchSize: 500, lingerMs: 0 });
  let resolved = 0;
  const sends = Array.from({ length: 30 }, (_, i) => p.send({ topic: 't', value: value100(i) }).then((r) => (resolved++, r)));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(resolved, 0);
  assert.ok(p.bufferedBytes <= 1_000, `buffered ${p.bufferedBytes}`);
  assert.ok(p.bufferedBytes > 0);
  release();
  gate = Promise.resolve();
  const results = await Promise.all(sends);
  assert.deepEqual(results.map((r) => r.offset), Array.from({ length: 30 }, (_, i) => BigInt(i)));
  assert.equal(p.bufferedBytes, 0);
  await p.close();
});

test('keyed records land on the murmur2 partition; keyless ones stick to one partition per batch (KIP-480)', async (t) => {
  const fake = await fakeCluster(6);
  t.after(() => fake.stop());
  let seed = 1;
  const random = () => ((seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff);
  const p = await producer(fake.cluster, { batchSize: 1_000, lingerMs: 10_000, random });
  const keyed = await Promise.all(Array.from({ length: 200 }, (_, i) => p.send({ topic: 't', key: `key-${i}`, value: 'x' })));
  keyed.forEach((r, i) => assert.equal(r.partition, partitionForKey(`key-${i}`, 6)));
  const keyless = Array.from({ length: 40 }, (_, i) => p.send({ topic: 't', value: value100(i) }));
  await p.flush();
  const parts = (await Promise.all(keyless)).map((r) => r.partition);
  // Runs of ~7 records (one batch) share a partition; consecutive runs differ.
  const runs: number[][] = [];
  for (const part of parts) {
    const last = runs.at(-1);
    if (last !== undefined && last[0] === part) last.push(part);
    else runs.push([part]);
  }
  assert.ok(runs.length >= 5 && runs.length <= 8, `runs: ${JSON.stringify(runs.map((r) => r.length))}`);
  for (const run of runs.slice(0, -1)) assert.ok(run.length >= 6, `a sticky run was cut short: ${run.length}`);
  for (const b of fake.batches.filter((x) => x.keys[0] === null)) assert.equal(new Set(b.values).size, b.values.length);
  await p.close();
});

test('round-robin and custom partitioners', async (t) => {
  const fake = await fakeCluster(3);
  t.after(() => fake.stop());
  const rr = await producer(fake.cluster, { partitioner: 'round-robin', lingerMs: 0 });
  const parts = await Promise.all(Array.from({ length: 6 }, (_, i) => rr.send({ topic: 't', key: 'same', value: `${i}` })));
  assert.deepEqual(parts.map((r) => r.partition), [0, 1, 2, 0, 1, 2]);
  await rr.close();
  const custom = await producer(fake.cluster, { partitioner: ({ partitionCount }) => partitionCount - 1, lingerMs: 0 });
  assert.equal((await custom.send({ topic: 't', value: 'z' })).partition, 2);
  assert.equal((await custom.send({ topic: 't', value: 'z', partition: 0 })).partition, 0);
  await assert.rejects(custom.send({ topic: 't', value: 'z', partition: 7 }), (e: KafkaProtocolError) => e.errorName === 'UNKNOWN_TOPIC_OR_PARTITION');
  await custom.close();
  const bad = await producer(fake.cluster, { partitioner: () => 9, lingerMs: 0 });
  await assert.rejects(bad.send({ topic: 't', value: 'z' }), (e: TributaryClientError) => e.code === ClientErrorCode.INVALID_ARGUMENT);
  await bad.close();
  const picker = createPartitioner('default', () => 0.99);
  assert.equal(picker.nextSticky('t', 4, 3), 2);
  assert.equal(picker.nextSticky('t', 1, 0), 0);
});

test('a retriable error is retried after a metadata refresh, then succeeds', async (t) => {
  // NOT_LEADER_OR_FOLLOWER (6) on the first attempt.
  const fake = await fakeCluster(1, (_p, attempt) => (attempt === 0 ? 6 : 0));
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 0, retryBackoffMs: 10 });
  const before = fake.metadataCalls;
  const r = await p.send({ topic: 't', value: 'v' });
  assert.equal(r.offset, 0n);
  assert.ok(fake.metadataCalls > before, 'metadata was not refreshed');
  assert.deepEqual(fake.logs.get(0), ['v']);
  await p.close();
});

test('ordering within a partition is kept across retries with maxInFlight 1 (one batch in flight per partition)', async (t) => {
  // Every third attempt fails with REQUEST_TIMED_OUT (7, retriable).
  let n = 0;
  const fake = await fakeCluster(2, async () => {
    await new Promise((r) => setTimeout(r, 2));
    return n++ % 3 === 0 ? 7 : 0;
  });
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 1, batchSize: 600, retryBackoffMs: 5, retries: 10, maxInFlight: 1 });
  const sends = [];
  for (let i = 0; i < 300; i++) sends.push(p.send({ topic: 't', partition: i % 2, value: value100(i) }));
  const results = await Promise.all(sends);
  for (const part of [0, 1]) {
    const expected = Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 2 === part).map(value100);
    assert.deepEqual(fake.logs.get(part), expected);
  }
  results.forEach((r, i) => assert.equal(fake.logs.get(r.partition)?.[Number(r.offset)], value100(i)));
  // Two partitions: at most two produce requests pending at once.
  assert.ok(fake.maxInFlight <= 2, `max in flight ${fake.maxInFlight}`);
  await p.close();
});

test('non-retriable errors, exhausted retries, closed producer and sendBatch', async (t) => {
  // MESSAGE_TOO_LARGE (10) for partition 1; REQUEST_TIMED_OUT (7) forever for partition 2.
  const fake = await fakeCluster(3, (part) => (part === 1 ? 10 : part === 2 ? 7 : 0));
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 0, retries: 2, retryBackoffMs: 1 });
  await assert.rejects(p.send({ topic: 't', partition: 1, value: 'x' }), (e: KafkaProtocolError) => e.errorName === 'MESSAGE_TOO_LARGE');
  await assert.rejects(p.send({ topic: 't', partition: 2, value: 'x' }), (e: KafkaProtocolError) => e.errorName === 'REQUEST_TIMED_OUT');
  const acks = await p.sendBatch(Array.from({ length: 100 }, (_, i) => ({ topic: 't', partition: 0, value: `${i}` })));
  assert.equal(acks.reduce((n, a) => n + a.recordCount, 0), 100);
  assert.deepEqual(acks[0], { topic: 't', partition: 0, baseOffset: 0n, recordCount: acks[0]?.recordCount });
  await assert.rejects(
    p.sendBatch([{ topic: 't', partition: 0, value: 'ok' }, { topic: 't', partition: 1, value: 'too big' }]),
    (e: KafkaProtocolError) => e.errorName === 'MESSAGE_TOO_LARGE',
  );
  await assert.rejects(p.send({ topic: 'missing', value: 'x' }), (e: KafkaProtocolError) => e.errorName === 'UNKNOWN_TOPIC_OR_PARTITION');
  const json = await Producer.connect<string, { n: number }>({ cluster: fake.cluster, valueSerializer: Serializers.json, lingerMs: 0 });
  assert.equal((await json.send({ topic: 't', partition: 0, value: { n: 1 } })).offset, 101n);
  assert.equal(fake.logs.get(0)?.at(-1), '{"n":1}');
  await json.close();
  await p.close();
  await assert.rejects(p.send({ topic: 't', value: 'late' }), (e: TributaryClientError) => e.code === ClientErrorCode.PRODUCER_CLOSED);
});

test('a connection closed before the response is retried on a new connection (at-least-once)', async (t) => {
  let produceCalls = 0;
  const fake = await fakeCluster(1, () => 0, (req, next) => (req.apiKey === 0 && produceCalls++ === 0 ? { close: true } : next()));
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 0, retryBackoffMs: 5 });
  const r = await p.send({ topic: 't', value: 'again' });
  assert.equal(r.offset, 0n);
  assert.equal(produceCalls, 2);
  await p.close();
});

test('acks=0 resolves once written, with offset -1', async (t) => {
  // The broker appends but sends no response, as Kafka does for acks=0.
  const fake = await fakeCluster(1, () => 0, async (req, next) => {
    const reply = await next();
    return req.apiKey === 0 ? { none: true } : reply;
  });
  t.after(() => fake.stop());
  const p = await producer(fake.cluster, { lingerMs: 0, acks: 0 });
  const results = await Promise.all([p.send({ topic: 't', value: 'a' }), p.send({ topic: 't', value: 'b' })]);
  assert.deepEqual(results.map((r) => r.offset), [-1n, -1n]);
  await p.close();
  for (let i = 0; i < 50 && (fake.logs.get(0)?.length ?? 0) < 2; i++) await new Promise((res) => setTimeout(res, 10));
  assert.deepEqual(fake.logs.get(0), ['a', 'b']);
});
