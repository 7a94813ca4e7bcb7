/**
 * Streams throughput (build first: npm run build):
 *
 *   node bench/streams/streams.mjs [--count N]
 *
 * One embedded broker (worker thread, same 2 cores). N one-word text records
 * are produced once to a 2-partition input topic; then, each from offset 0
 * with a fresh group and its own output topic:
 *   - stateless: StreamsBuilder filter + mapValues + to
 *   - hand-stateless: our Consumer + the same filter/map + our Producer
 *   - wordcount: the word count (groupBy -> repartition -> count on an
 *     LMDB store, changelog, at_least_once)
 *   - hand-wordcount: our Consumer, counts in a Map, our Producer (no
 *     repartition, no changelog: the baseline the issue names)
 * Time = start -> the output topic holds the expected number of records
 * (summed end offsets, polled every 50 ms). Prints one JSON line per phase
 * and a table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../../dist/src/embedded/cluster.js';
import { Admin, Consumer, Producer } from '../../dist/src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder } from '../../dist/src/streams/index.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const COUNT = arg('count', 1_000_000);
const WORDS = 10_000;
const PARTITIONS = 2;

const cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 }, logLevel: 'error' });
const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
const stateDir = mkdtempSync(join(tmpdir(), 'streams-bench-'));
const results = [];

async function endOffsets(topic) {
  const r = await admin.listOffsets(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' })));
  return r.reduce((n, x) => n + Number(x.offset), 0);
}

async function waitForOutput(topic, expected, started, timeoutMs = 600_000) {
  for (;;) {
    const n = await endOffsets(topic);
    if (n >= expected) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`${topic}: ${n}/${expected} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function phase(name, outTopic, expected, run) {
  await admin.createTopics([{ name: outTopic, numPartitions: PARTITIONS }]);
  const started = performance.now();
  const stop = await run(started);
  const ms = await waitForOutput(outTopic, expected, started);
  await stop();
  const r = { phase: name, records: COUNT, ms: Math.round(ms), recordsPerSec: Math.round((COUNT * 1000) / ms) };
  results.push(r);
  console.log(JSON.stringify(r));
}

// Input: N records, key null, value one word of WORDS.
await admin.createTopics([{ name: 'bench-in', numPartitions: PARTITIONS }]);
{
  const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap }, lingerMs: 5, batchSize: 256 * 1024 });
  const BATCH = 10_000;
  for (let i = 0; i < COUNT; i += BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(COUNT, i + BATCH); j++) batch.push({ topic: 'bench-in', key: `k${j % 64}`, value: `w${j % WORDS}` });
    await producer.sendBatch(batch);
  }
  await producer.close();
}
const keep = (w) => w.charCodeAt(w.length - 1) % 2 === 0; // about half the words
const keptCount = await (async () => {
  let n = 0;
  for (let j = 0; j < COUNT; j++) if (keep(`w${j % WORDS}`)) n++;
  return n;
})();

function streamsPhase(appId, topology) {
  return async () => {
    const streams = new KafkaStreams(topology, { applicationId: appId, bootstrapServers: cluster.bootstrap, stateDir, commitIntervalMs: 1000, logger: () => {} });
    await streams.start();
    return () => streams.close();
  };
}

function handPhase(groupId, outTopic, transform) {
  return async () => {
    const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap } });
    const consumer = new Consumer({ bootstrap: cluster.bootstrap, groupId, autoOffsetReset: 'earliest', keyDeserializer: (b) => (b === null ? null : b.toString()), valueDeserializer: (b) => (b === null ? null : b.toString()) });
    await consumer.subscribe(['bench-in']);
    const loop = (async () => {
      for await (const batch of consumer.batches()) {
        const out = [];
        for (const r of batch.records) {
          const o = transform(r);
          if (o !== null) out.push({ topic: outTopic, key: o[0], value: o[1] });
        }
        if (out.length > 0) void producer.sendBatch(out);
      }
    })();
    return async () => {
      await consumer.close();
      await loop;
      await producer.close();
    };
  };
}

{
  const b = new StreamsBuilder();
  b.stream('bench-in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .filter((_k, w) => keep(w))
    .mapValues((w) => w.toUpperCase())
    .to('out-stateless', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  await phase('streams stateless (filter+mapValues)', 'out-stateless', keptCount, streamsPhase('bench-stateless', b.build()));
}
await phase('hand-written stateless loop', 'out-hand-stateless', keptCount, handPhase('bench-hand-stateless', 'out-hand-stateless', (r) => (keep(r.value) ? [r.key, r.value.toUpperCase()] : null)));
{
  const b = new StreamsBuilder();
  b.stream('bench-in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_k, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'word-counts', storeType: 'persistent' })
    .toStream()
    .to('out-wordcount', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  await phase('streams word count (LMDB, at_least_once)', 'out-wordcount', COUNT, streamsPhase('bench-wordcount', b.build()));
}
{
  const counts = new Map();
  const long = Buffer.alloc(8);
  await phase('hand-written count-in-a-Map loop', 'out-hand-wordcount', COUNT, handPhase('bench-hand-wordcount', 'out-hand-wordcount', (r) => {
    const n = (counts.get(r.value) ?? 0n) + 1n;
    counts.set(r.value, n);
    long.writeBigInt64BE(n);
    return [r.value, Buffer.from(long)];
  }));
}

console.log('\n| phase | records | ms | records/s |\n|---|---|---|---|');
for (const r of results) console.log(`| ${r.phase} | ${r.records} | ${r.ms} | ${r.recordsPerSec} |`);
const ratio = (a, b) => `${Math.round((results[a].recordsPerSec / results[b].recordsPerSec) * 100)}%`;
console.log(`\nstateless: ${ratio(0, 1)} of the hand-written loop; word count: ${ratio(2, 3)} of the hand-written loop`);
await admin.close();
await cluster.stop();
rmSync(stateDir, { recursive: true, force: true });
