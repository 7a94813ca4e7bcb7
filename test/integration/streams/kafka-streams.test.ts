/**
 * KafkaStreams against a real broker (startCluster): the word count gives the
 * same output as in the TopologyTestDriver, the store answers interactive
 * queries, and a restart restores the store from its changelog
 * (exactly_once_v2: exactly-once.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useStreamsCluster } from '../../helpers/streams-cluster.js';
import { Consumer, Producer } from '../../../src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder, StreamsErrorCode, TopologyTestDriver, type StreamsStateName, type Topology } from '../../../src/streams/index.js';

const sc = useStreamsCluster();

function wordCount(input: string, output: string, storeType: 'in-memory' | 'persistent' = 'in-memory'): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'word-counts', storeType })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

async function produceLines(topic: string, lines: string[]): Promise<void> {
  const producer = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap: sc.bootstrap } });
  for (const [i, line] of lines.entries()) await producer.send({ topic, key: `k${i % 3}`, value: line });
  await producer.close();
}

/** Reads `topic` from the start until `done(map)` holds, keeping the last count per word. */
async function readCounts(topic: string, done: (m: Map<string, bigint>) => boolean): Promise<Map<string, bigint>> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: sc.bootstrap, autoOffsetReset: 'earliest' });
  const counts = new Map<string, bigint>();
  const parts = (await sc.admin.describeTopics([topic]))[0]?.partitions.length ?? 1;
  consumer.assign(Array.from({ length: parts }, (_, partition) => ({ topic, partition })));
  const deadline = Date.now() + 30_000;
  try {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) counts.set(Serdes.String().deserialize(topic, r.key) as string, Serdes.Long().deserialize(topic, r.value) as bigint);
      if (done(counts) || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return counts;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('word count on a cluster matches the test driver, answers queries, restores after a restart', async () => {
  const input = `lines-${Date.now()}`;
  const output = `counts-${Date.now()}`;
  await sc.admin.createTopics([{ name: input, numPartitions: 2 }, { name: output, numPartitions: 2 }]);
  const lines = ['a b a', 'b c', 'the cat and the hat', 'a'];

  const driver = new TopologyTestDriver(wordCount(input, output));
  const tin = driver.createInputTopic(input, Serdes.String(), Serdes.String());
  for (const line of lines) tin.pipeInput('k', line);
  const expected = driver.createOutputTopic(output, Serdes.String(), Serdes.Long()).readKeyValuesToMap();
  driver.close();

  const states: StreamsStateName[] = [];
  const logs: string[] = [];
  const config = { applicationId: `wc-${Date.now()}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 200, logger: (_l: string, m: string) => void logs.push(m) };
  const streams = new KafkaStreams(wordCount(input, output), config);
  streams.onStateChange((s) => void states.push(s));
  await streams.start();
  await produceLines(input, lines);
  const got = await readCounts(output, (m) => m.size === expected.size && [...expected].every(([k, v]) => m.get(k) === v));
  assert.deepEqual(new Map([...got].sort()), new Map([...expected].sort()));
  await waitFor(() => streams.store<string, bigint>('word-counts').get('a') === 3n, 'the store to hold a=3');
  assert.equal(streams.store<string, bigint>('word-counts').get('the'), 2n);
  assert.equal(streams.store<string, bigint>('word-counts').all().length, expected.size);
  await streams.close();
  assert.deepEqual(states.slice(0, 2), ['REBALANCING', 'RUNNING']);
  assert.deepEqual(states.slice(-2), ['PENDING_SHUTDOWN', 'NOT_RUNNING']);

  // A new instance (in-memory store) restores the counts from the changelog and continues from them.
  const again = new KafkaStreams(wordCount(input, output), config);
  await again.start();
  assert.ok(logs.some((l) => /restored \d+ changelog records/.test(l)), logs.join('\n'));
  assert.equal(again.store<string, bigint>('word-counts').get('a'), 3n);
  await produceLines(input, ['a']);
  await waitFor(() => again.store<string, bigint>('word-counts').get('a') === 4n, 'a=4 after restore');
  await again.close();
});

test('co-partitioning is checked at start', async () => {
  const left = `left-${Date.now()}`;
  const right = `right-${Date.now()}`;
  await sc.admin.createTopics([{ name: left, numPartitions: 2 }, { name: right, numPartitions: 3 }]);
  const builder = new StreamsBuilder();
  const table = builder.table(right, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  builder.stream(left, { keySerde: Serdes.String(), valueSerde: Serdes.String() }).join(table, (a, b) => `${a}${b}`).to(`${left}-out`);
  const streams = new KafkaStreams(builder.build(), { applicationId: `cp-${Date.now()}`, bootstrapServers: sc.bootstrap });
  await assert.rejects(streams.start(), (err: { code?: string; message: string }) => err.code === StreamsErrorCode.COPARTITION && /KSTREAM-JOIN/.test(err.message));
  assert.equal(streams.currentState, 'ERROR');
});

test('persistent (LMDB) store: a clean restart restores only the tail after the checkpoint; a deleted state dir restores in full', async () => {
  const input = `plines-${Date.now()}`;
  const output = `pcounts-${Date.now()}`;
  await sc.admin.createTopics([{ name: input, numPartitions: 1 }, { name: output, numPartitions: 1 }]);
  const stateDir = mkdtempSync(join(tmpdir(), 'streams-state-'));
  const logs: string[] = [];
  const config = { applicationId: `pwc-${Date.now()}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 100, stateDir, logger: (_l: string, m: string) => void logs.push(m) };
  try {
    const first = new KafkaStreams(wordCount(input, output, 'persistent'), config);
    await first.start();
    await produceLines(input, ['a b c d e f', 'a']);
    await waitFor(() => first.store<string, bigint>('word-counts').get('a') === 2n, 'a=2');
    await first.close();
    assert.ok(!logs.some((l) => l.startsWith('restored')), 'nothing to restore on the first start');

    const second = new KafkaStreams(wordCount(input, output, 'persistent'), config);
    await second.start();
    assert.equal(second.store<string, bigint>('word-counts').get('f'), 1n, 'read from disk, not replayed');
    assert.ok(!logs.some((l) => l.startsWith('restored')), `a clean restart replays nothing: ${logs.join('; ')}`);
    await produceLines(input, ['a']);
    await waitFor(() => second.store<string, bigint>('word-counts').get('a') === 3n, 'a=3');
    await second.close();

    rmSync(stateDir, { recursive: true, force: true });
    const third = new KafkaStreams(wordCount(input, output, 'persistent'), config);
    await third.start();
    const restored = logs.find((l) => l.startsWith('restored'));
    // 8 updates for 6 words; the record cache folds the updates of 'a' made between two commits.
    const [, n, perStore] = /^restored (\d+) changelog records .*word-counts@1_0=(\d+)$/.exec(restored ?? '') ?? [];
    assert.ok(n === perStore && Number(n) >= 6 && Number(n) <= 8, restored);
    assert.equal(third.store<string, bigint>('word-counts').get('a'), 3n);
    assert.equal(third.store<string, bigint>('word-counts').all().length, 6);
    await third.close();
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});
