// The Producer end to end against an in-process broker: 100k keyed records
// with compression, read back with our fetch helpers, exactly and in order per
// partition, each key on its murmur2 partition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Cluster } from '../../../src/client/cluster.js';
import { partitionForKey } from '../../../src/client/partitioner.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { fetchMany, listOffsetsMany } from '../../../src/client/records.js';
import type { CompressionName } from '../../../src/client/records.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

const PARTITIONS = 6;
const KEYS = 997;

async function readAll(cluster: Cluster, topic: string): Promise<Map<number, { key: string; value: string; offset: bigint }[]>> {
  const ends = await listOffsetsMany(
    cluster,
    Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' as const })),
  );
  const out = new Map<number, { key: string; value: string; offset: bigint }[]>();
  const positions = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, offset: 0n }));
  for (;;) {
    const pending = positions.filter((p) => p.offset < (ends[p.partition]?.offset ?? 0n));
    if (pending.length === 0) break;
    const results = await fetchMany(cluster, pending, { maxWaitMs: 10, partitionMaxBytes: 4 * 1024 * 1024 });
    for (const r of results) {
      const list = out.get(r.partition) ?? [];
      out.set(r.partition, list);
      for (const rec of r.records) list.push({ key: String(rec.key), value: String(rec.value), offset: rec.offset });
      (positions[r.partition] as { offset: bigint }).offset = r.nextOffset;
    }
  }
  return out;
}

async function roundTrip(port: number, topic: string, compression: CompressionName, count: number, batchSize = 64 * 1024): Promise<void> {
  const admin = await Admin.connect({ bootstrap: `127.0.0.1:${port}` });
  await admin.createTopic({ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 });
  await admin.close();
  const producer = await Producer.connect<string, string>({
    clusterOptions: { bootstrap: `127.0.0.1:${port}` },
    keySerializer: Serializers.string,
    valueSerializer: Serializers.string,
    compression,
    acks: -1,
    lingerMs: 2,
    batchSize,
  });
  // Bulk sends in chunks, plus single sends whose offsets are checked.
  const singles: Promise<{ partition: number; offset: bigint }>[] = [];
  const singleIndexes: number[] = [];
  // Send order is the call order: a pending bulk run goes out before a single send.
  const CHUNK = 5_000;
  const bulk: Promise<unknown>[] = [];
  let records: { topic: string; key: string; value: string }[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 1_000 === 7) {
      bulk.push(producer.sendBatch(records));
      records = [];
      singleIndexes.push(i);
      singles.push(producer.send({ topic, key: `key-${i % KEYS}`, value: `value-${i}` }));
      continue;
    }
    records.push({ topic, key: `key-${i % KEYS}`, value: `value-${i}` });
    if (records.length === CHUNK) {
      bulk.push(producer.sendBatch(records));
      records = [];
    }
  }
  bulk.push(producer.sendBatch(records));
  await Promise.all(bulk);
  const singleResults = await Promise.all(singles);
  await producer.close();

  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${port}` });
  try {
    const read = await readAll(cluster, topic);
    let total = 0;
    for (const [partition, records] of read) {
      total += records.length;
      let last = -1;
      records.forEach((r, i) => {
        assert.equal(r.offset, BigInt(i), `${topic}-${partition} offsets are dense`);
        assert.equal(partitionForKey(r.key, PARTITIONS), partition, `${r.key} is on its murmur2 partition`);
        const n = Number(r.value.slice('value-'.length));
        assert.equal(r.key, `key-${n % KEYS}`);
        assert.ok(n > last, `${topic}-${partition}: value-${n} after value-${last}`);
        last = n;
      });
    }
    assert.equal(total, count, 'every record exactly once');
    singleResults.forEach((r, i) => {
      const rec = read.get(r.partition)?.[Number(r.offset)];
      assert.equal(rec?.value, `value-${singleIndexes[i]}`);
    });
  } finally {
    await cluster.close();
  }
}

test('100k keyed records with lz4 (and 20k with zstd) round-trip exactly and in order per partition', { timeout: 60_000 }, async (t) => {
  const broker = await startInProcessBroker();
  t.after(() => broker.stop());
  await roundTrip(broker.port, 'producer-lz4', 'lz4', 100_000);
  await roundTrip(broker.port, 'producer-zstd', 'zstd', 20_000);
});

test('uncompressed batches of 64 KiB and more, built in recycled buffers, round-trip exactly', { timeout: 60_000 }, async (t) => {
  // The Sender builds these in its pool and takes a buffer back once its batch is acknowledged; a buffer
  // reused any earlier would put one batch's bytes into another and break the checks in roundTrip.
  const broker = await startInProcessBroker();
  t.after(() => broker.stop());
  await roundTrip(broker.port, 'producer-none-large', 'none', 100_000, 128 * 1024);
});

test('a producer sending to a missing topic has it auto-created (allowAutoTopicCreation, default true), unless it turns that off', { timeout: 30_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'num.partitions': '3' });
  t.after(() => broker.stop());
  const clusterOptions = { bootstrap: `127.0.0.1:${broker.port}` };
  const admin = await Admin.connect(clusterOptions);
  t.after(() => admin.close());

  const off = await Producer.connect<string, string>({ clusterOptions, valueSerializer: Serializers.string, allowAutoTopicCreation: false, retries: 1, retryBackoffMs: 10 });
  t.after(() => off.close());
  await assert.rejects(off.send({ topic: 'not-made', value: 'v' }), (err: Error & { kafkaErrorName?: string }) => err.kafkaErrorName === 'UNKNOWN_TOPIC_OR_PARTITION');
  assert.deepEqual((await admin.listTopics()).map((x) => x.name), [], 'allowAutoTopicCreation: false creates nothing');

  const producer = await Producer.connect<string, string>({ clusterOptions, valueSerializer: Serializers.string });
  t.after(() => producer.close());
  const acked = await producer.send({ topic: 'made-on-send', value: 'first' });
  assert.equal(acked.offset, 0n);
  const [made] = await admin.describeTopics(['made-on-send'], { includeConfigs: false });
  assert.equal(made?.partitions.length, 3, 'created with the broker\'s num.partitions');
});

test('with auto.create.topics.enable=false the producer\'s request is refused: UNKNOWN_TOPIC_OR_PARTITION', { timeout: 30_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'auto.create.topics.enable': 'false' });
  t.after(() => broker.stop());
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: `127.0.0.1:${broker.port}` }, valueSerializer: Serializers.string, retries: 1, retryBackoffMs: 10 });
  t.after(() => producer.close());
  await assert.rejects(producer.send({ topic: 'never-made', value: 'v' }), (err: Error & { kafkaErrorName?: string }) => err.kafkaErrorName === 'UNKNOWN_TOPIC_OR_PARTITION');
});
