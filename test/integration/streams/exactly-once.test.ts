/**
 * exactly_once_v2 against a real broker (startCluster): the word count
 * (persistent store, repartition topic, output) gives exact counts, read
 * `read_committed`, with no count repeated; a clean close leaves checkpoints
 * that a restart uses (and deletes while it runs); and a fenced transaction
 * (a second producer takes the thread's transactional id) is aborted, the
 * tasks restored from their changelogs and the input reprocessed, still
 * exactly once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { Admin, Cluster, Consumer, Producer } from '../../../src/client/index.js';
import { listTransactions } from '../../../src/client/txn-admin.js';
import { KafkaStreams, Serdes, StreamsBuilder, type StreamsConfig, type Topology } from '../../../src/streams/index.js';

let cluster: EmbeddedCluster;
let admin: Admin;
const dirs: string[] = [];

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
  admin = await Admin.connect({ bootstrap: cluster.bootstrap });
});
after(async () => {
  await admin.close();
  await cluster.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function wordCount(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' ').filter(Boolean))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'word-counts', storeType: 'persistent' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

/** Lines of three words each over `words` distinct words; adds to `expected`. */
function lines(prefix: string, n: number, from: number, expected: Map<string, number>): string[] {
  return Array.from({ length: n }, (_, i) => {
    const words = [`${prefix}${(from + i) % 25}`, `${prefix}${(from + i * 7) % 25}`, `${prefix}${(from + i * 11) % 25}`];
    for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
    return words.join(' ');
  });
}

/** Follows the output read_committed: every count seen per word, in order. */
function follow(topic: string, partitions: number): { seen: Map<string, bigint[]>; stop: () => Promise<void> } {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap, autoOffsetReset: 'earliest', isolationLevel: 'read_committed' });
  consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
  const seen = new Map<string, bigint[]>();
  const loop = (async () => {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) {
        const w = Serdes.String().deserialize(topic, r.key) as string;
        seen.set(w, [...(seen.get(w) ?? []), Serdes.Long().deserialize(topic, r.value) as bigint]);
      }
    }
  })();
  return { seen, stop: async () => (await consumer.close(), await loop) };
}

async function waitFor(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const last = (seen: Map<string, bigint[]>, w: string): bigint | undefined => seen.get(w)?.at(-1);
const exact = (seen: Map<string, bigint[]>, expected: Map<string, number>): boolean => [...expected].every(([w, n]) => last(seen, w) === BigInt(n));

/** Each word's counts only go up (a repeated or lower count is a duplicate or a lost update) and end at the expected count. */
function assertExactlyOnce(seen: Map<string, bigint[]>, expected: Map<string, number>): void {
  for (const [w, n] of expected) {
    const counts = seen.get(w) ?? [];
    for (let i = 1; i < counts.length; i++) assert.ok((counts[i] as bigint) > (counts[i - 1] as bigint), `${w}: counts ${counts.join(',')} repeat or go back`);
    assert.equal(counts.at(-1), BigInt(n), `${w}: ${counts.join(',')} for ${n} occurrences`);
  }
  assert.equal(seen.size, expected.size);
}

async function setup(name: string): Promise<{ input: string; output: string; config: StreamsConfig; logs: string[]; producer: Producer<string | null, string> }> {
  const id = `${name}-${Date.now()}`;
  const input = `${id}-in`;
  const output = `${id}-out`;
  await admin.createTopics([{ name: input, numPartitions: 2 }, { name: output, numPartitions: 2 }]);
  const stateDir = mkdtempSync(join(tmpdir(), 'streams-eos-'));
  dirs.push(stateDir);
  const logs: string[] = [];
  const config: StreamsConfig = {
    applicationId: id,
    bootstrapServers: cluster.bootstrap,
    processingGuarantee: 'exactly_once_v2',
    stateDir,
    logger: (level, message) => void logs.push(`${level} ${message}`),
  };
  const producer = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap: cluster.bootstrap } });
  return { input, output, config, logs, producer };
}

const send = (producer: Producer<string | null, string>, topic: string, values: string[]): Promise<unknown> => producer.sendBatch(values.map((value) => ({ topic, key: null, value })));

test('exactly_once_v2 word count: exact counts read_committed, checkpoints only on clean close', { timeout: 120_000 }, async () => {
  const { input, output, config, logs, producer } = await setup('eos-wc');
  const expected = new Map<string, number>();
  const out = follow(output, 2);
  const streams = new KafkaStreams(wordCount(input, output), config);
  try {
    await streams.start();
    for (let round = 0; round < 5; round++) await send(producer, input, lines('w', 60, round * 60, expected));
    await waitFor(() => exact(out.seen, expected), 'exact counts', 60_000);
    // While the tasks run under exactly-once no checkpoint is trusted: none on disk.
    const appDir = join(config.stateDir as string, config.applicationId);
    const taskDirs = readdirSync(appDir).filter((d) => /^\d+_\d+$/.test(d));
    assert.ok(taskDirs.includes('1_0') && taskDirs.includes('1_1'), taskDirs.join(','));
    for (const d of taskDirs) assert.equal(existsSync(join(appDir, d, '.checkpoint')), false, `${d} has a checkpoint while running`);
    assert.equal(streams.store<string, bigint>('word-counts').get('w0'), BigInt(expected.get('w0') ?? 0));
    await streams.close();
    assert.ok(existsSync(join(appDir, '1_0', '.checkpoint')) && existsSync(join(appDir, '1_1', '.checkpoint')), 'a clean close writes the checkpoints');

    // The restart starts from the checkpoints (nothing or only the tail to restore) and goes on exactly once.
    const logged = logs.length;
    const again = new KafkaStreams(wordCount(input, output), config);
    await again.start();
    try {
      // Restored from the checkpoint: any restoration of the counting stores starts there, not at the beginning.
      const fromStart = logs.slice(logged).flatMap((l) => [...l.matchAll(/word-counts@(1_\d)=\d+( \(from checkpoint \d+\))?/g)]).filter((m) => m[2] === undefined);
      assert.deepEqual(fromStart.map((m) => m[1]), [], logs.slice(logged).join('\n'));
      assert.equal(again.store<string, bigint>('word-counts').get('w0'), BigInt(expected.get('w0') ?? 0), 'the store was kept through the checkpoint');
      for (const d of ['1_0', '1_1']) assert.equal(existsSync(join(appDir, d, '.checkpoint')), false, `${d}: the checkpoint is deleted once the task runs`);
      await send(producer, input, lines('w', 60, 300, expected));
      await waitFor(() => exact(out.seen, expected), 'exact counts after the restart', 60_000);
    } finally {
      await again.close();
    }
    assertExactlyOnce(out.seen, expected);
  } finally {
    await streams.close();
    await producer.close();
    await out.stop();
  }
});

test('exactly_once_v2: a fenced transaction is aborted, the tasks restored, the input reprocessed exactly once', { timeout: 120_000 }, async () => {
  const { input, output, config, logs, producer } = await setup('eos-fence');
  const expected = new Map<string, number>();
  const out = follow(output, 2);
  const streams = new KafkaStreams(wordCount(input, output), config);
  const client = await Cluster.connect({ bootstrap: cluster.bootstrap });
  let intruder: Producer<string | null, string> | null = null;
  try {
    await streams.start();
    await send(producer, input, lines('f', 100, 0, expected));
    await waitFor(() => exact(out.seen, expected), 'exact counts before the fencing', 60_000);
    // The thread's transactional id is <applicationId>-<processId>-1 (Kafka's naming).
    const ids = (await listTransactions(client)).map((t) => t.transactionalId).filter((t) => t.startsWith(`${config.applicationId}-`));
    assert.equal(ids.length, 1, ids.join(','));
    assert.match(ids[0] as string, new RegExp(`^${config.applicationId}-[0-9a-f-]{36}-1$`));
    // A second producer with that id bumps the epoch: the thread's producer is fenced.
    intruder = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap: cluster.bootstrap }, transactionalId: ids[0] as string });
    for (let round = 1; round < 4; round++) await send(producer, input, lines('f', 100, round * 100, expected));
    await waitFor(() => logs.some((l) => l.startsWith('warn transaction aborted')), 'the fenced transaction aborted', 60_000);
    await waitFor(() => exact(out.seen, expected), 'exact counts after the fencing', 60_000);
    await new Promise((r) => setTimeout(r, 500));
    assertExactlyOnce(out.seen, expected);
    assert.equal(streams.currentState, 'RUNNING');
    assert.ok(logs.some((l) => /restored \d+ changelog records/.test(l)), logs.join('\n'));
  } finally {
    await intruder?.close().catch(() => {});
    await client.close();
    await streams.close();
    await producer.close();
    await out.stop();
  }
});
