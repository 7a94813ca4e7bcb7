/**
 * Streams throughput (build first: npm run build):
 *
 *   node bench/streams/streams.mjs [--count N] [--phases stateless,hand-stateless,wordcount,wordcount-eos,hand-wordcount,restore]
 *   DIST=/path/to/other/dist node bench/streams/streams.mjs   # the same phases on another build (before/after)
 *
 * One embedded broker (worker thread, same 2 cores). N one-word text records
 * are produced once to a 2-partition input topic; then, each from offset 0
 * with a fresh group and its own output topic, the phases in the order
 * --phases names them (default: the order below). The first phase of a
 * process runs on colder client code and a smaller heap than the ones after
 * it, which measurably favours the later ones (bench/README.md, Streams,
 * 2026-12-03): compare streams and hand-written loops in both orders.
 *   - stateless: StreamsBuilder filter + mapValues + to
 *   - hand-stateless: our Consumer + the same filter/map + our Producer
 *   - wordcount: the word count (groupBy -> repartition -> count on an
 *     LMDB store, changelog, at_least_once)
 *   - hand-wordcount: our Consumer, counts in a Map, our Producer (no
 *     repartition, no changelog: the baseline the issue names)
 *   - restore: a 1M-key changelog (one record per key) restored into an
 *     empty LMDB store at start; keys/s from the runtime's restore log line
 * Time = start -> the output topic holds the expected number of records
 * (summed end offsets, polled every 50 ms); for the streams word count,
 * whose record cache folds updates of a word between commits, start -> the
 * application has committed every repartitioned record (its output is
 * flushed and acknowledged before each commit).
 * Steady state, the same for every phase: from the moment the first input
 * record reaches user code (the topology's first function, or the
 * hand-written loop's transform) to the same end, so start-up, group join
 * and the first fetch are left out for KafkaStreams and the hand-written
 * loops alike: records/s and the process CPU per 1M records in that window.
 * Prints one JSON line per phase and a table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = process.env.DIST ?? new URL('../../dist', import.meta.url).pathname;
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { startCluster } = await load('src/embedded/cluster.js');
const { Admin, Consumer, Producer } = await load('src/client/index.js');
const { KafkaStreams, Serdes, StreamsBuilder } = await load('src/streams/index.js');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const COUNT = arg('count', 1_000_000);
const PHASES = (() => {
  const i = process.argv.indexOf('--phases');
  return i < 0 ? ['stateless', 'hand-stateless', 'wordcount', 'wordcount-eos', 'hand-wordcount', 'restore'] : process.argv[i + 1].split(',');
})();
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

/** Polls `count()` every 50 ms until it reaches `expected`; returns the time from `started`. */
async function waitFor(what, count, expected, started, timeoutMs = 600_000) {
  for (;;) {
    const n = await count();
    const now = performance.now();
    if (process.env.TRACE_POLL) console.log(`poll ${Math.round(now - started)} ms ${n}`);
    if (n >= expected) return now - started;
    if (now - started > timeoutMs) throw new Error(`${what}: ${n}/${expected} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Steady state starts when the first input record reaches user code: the topology's first function (filter,
 * flatMapValues) or the hand-written loop's transform calls `firstRecord()`, so start-up, group join and the
 * first fetch are behind it on both sides alike. (Polling the output for its first record does not work as a
 * marker: under load the broker answers the poll only after most of the output is written.)
 */
let first = null;
const firstRecord = () => {
  if (first === null) first = { at: performance.now(), cpu: process.cpuUsage() };
};

const waitForOutput = (topic, expected, started) => waitFor(topic, () => endOffsets(topic), expected, started);

async function phase(name, outTopic, expected, run, done = (started) => waitForOutput(outTopic, expected, started)) {
  await admin.createTopics([{ name: outTopic, numPartitions: PARTITIONS }]);
  first = null;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const stop = await run(started);
  const ms = await done(started);
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const steadyCpu = process.cpuUsage(first.cpu);
  const steadyMs = ended - first.at;
  await stop();
  const r = {
    phase: name,
    records: COUNT,
    ms: Math.round(ms),
    recordsPerSec: Math.round((COUNT * 1000) / ms),
    // CPU of the whole process (this thread and the broker's worker) while the phase ran: what it cost beside how long it took.
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    // From the first record in user code to the end; its CPU per 1M records.
    steadyMs: Math.round(steadyMs),
    steadyRecordsPerSec: Math.round((COUNT * 1000) / steadyMs),
    steadyCpuMsPer1M: Math.round(((steadyCpu.user + steadyCpu.system) / 1000) * (1_000_000 / COUNT)),
  };
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

function streamsPhase(appId, topology, guarantee = 'at_least_once') {
  return async () => {
    // exactly_once_v2 commits at Kafka's default for it (100 ms): each commit is a transaction.
    const commit = guarantee === 'exactly_once_v2' ? {} : { commitIntervalMs: 1000 };
    const streams = new KafkaStreams(topology, { applicationId: appId, bootstrapServers: cluster.bootstrap, stateDir, processingGuarantee: guarantee, ...commit, logger: () => {} });
    const starting = performance.now();
    await streams.start();
    console.log(JSON.stringify({ phase: appId, startMs: Math.round(performance.now() - starting) }));
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

function wordCountTopology(out) {
  const b = new StreamsBuilder();
  b.stream('bench-in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => (firstRecord(), line.toLowerCase().split(/\W+/).filter(Boolean)))
    .groupBy((_k, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'word-counts', storeType: 'persistent' })
    .toStream()
    .to(out, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return b.build();
}

// Done when every repartitioned record is committed (with the record cache the output holds fewer than COUNT records),
// or when the output holds COUNT records (a build without the cache, run with DIST=); counted as the larger of the two.
const committedBy = (appId, out) => (started) =>
  waitFor('word count', async () => {
    const offsets = await admin.fetchGroupOffsets(appId, [`${appId}-word-counts-repartition`]).catch(() => []);
    const n = Array.isArray(offsets) ? offsets.reduce((sum, o) => sum + Math.max(0, Number(o.offset)), 0) : 0;
    return Math.max(n, await endOffsets(out));
  }, COUNT, started);
/** Each phase by name; they run in the order --phases gives (the first phase of a process also warms the client code for the later ones). */
const phases = {
  stateless: async () => {
    const b = new StreamsBuilder();
    b.stream('bench-in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .filter((_k, w) => (firstRecord(), keep(w)))
      .mapValues((w) => w.toUpperCase())
      .to('out-stateless', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
    await phase('streams stateless (filter+mapValues)', 'out-stateless', keptCount, streamsPhase('bench-stateless', b.build()));
  },
  'hand-stateless': () =>
    phase('hand-written stateless loop', 'out-hand-stateless', keptCount, handPhase('bench-hand-stateless', 'out-hand-stateless', (r) => (firstRecord(), keep(r.value) ? [r.key, r.value.toUpperCase()] : null))),
  wordcount: () =>
    phase('streams word count (LMDB, at_least_once)', 'out-wordcount', COUNT, streamsPhase('bench-wordcount', wordCountTopology('out-wordcount')), committedBy('bench-wordcount', 'out-wordcount')),
  'wordcount-eos': () => {
    const app = 'bench-wordcount-eos';
    return phase('streams word count (LMDB, exactly_once_v2)', 'out-wordcount-eos', COUNT, streamsPhase(app, wordCountTopology('out-wordcount-eos'), 'exactly_once_v2'), committedBy(app, 'out-wordcount-eos'));
  },
  'hand-wordcount': () => {
    const counts = new Map();
    const long = Buffer.alloc(8);
    return phase('hand-written count-in-a-Map loop', 'out-hand-wordcount', COUNT, handPhase('bench-hand-wordcount', 'out-hand-wordcount', (r) => {
      firstRecord();
      const n = (counts.get(r.value) ?? 0n) + 1n;
      counts.set(r.value, n);
      long.writeBigInt64BE(n);
      return [r.value, Buffer.from(long)];
    }));
  },
  restore: () => restorePhase(),
};
for (const name of PHASES) {
  if (!(name in phases)) throw new Error(`unknown phase '${name}' (phases: ${Object.keys(phases).join(', ')})`);
  await phases[name]();
}

/** A changelog of COUNT distinct keys, produced directly, then restored by a fresh instance into an empty LMDB store. */
async function restorePhase() {
  const app = 'bench-restore';
  const changelog = `${app}-restore-store-changelog`;
  await admin.createTopics([{ name: 'restore-in', numPartitions: 1 }, { name: changelog, numPartitions: 1, configs: { 'cleanup.policy': 'compact' } }]);
  const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap }, lingerMs: 5, batchSize: 256 * 1024 });
  const value = Buffer.alloc(8);
  for (let i = 0; i < COUNT; i += 10_000) {
    const batch = [];
    for (let j = i; j < Math.min(COUNT, i + 10_000); j++) batch.push({ topic: changelog, partition: 0, key: `key-${j}`, value });
    await producer.sendBatch(batch);
  }
  await producer.close();
  const b = new StreamsBuilder();
  b.table('restore-in', { keySerde: Serdes.String(), valueSerde: Serdes.Long() }, { storeName: 'restore-store', storeType: 'persistent' });
  let line = '';
  const streams = new KafkaStreams(b.build(), { applicationId: app, bootstrapServers: cluster.bootstrap, stateDir, logger: (_l, m) => void (m.startsWith('restored') && (line = m)) });
  const started = performance.now();
  await streams.start();
  const ms = performance.now() - started;
  await streams.close();
  const rate = /\((\d+) records\/s\)/.exec(line)?.[1];
  const r = { phase: 'restore 1M-key LMDB store (keys/s from the restore log line)', records: COUNT, ms: Math.round(ms), recordsPerSec: Number(rate ?? 0) };
  results.push(r);
  console.log(JSON.stringify({ ...r, line }));
}

console.log('\n| phase | records | ms | records/s | CPU ms | steady ms | steady records/s | steady CPU ms per 1M |\n|---|---|---|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.phase} | ${r.records} | ${r.ms} | ${r.recordsPerSec} | ${r.cpuMs ?? '-'} | ${r.steadyMs ?? '-'} | ${r.steadyRecordsPerSec ?? '-'} | ${r.steadyCpuMsPer1M ?? '-'} |`);
const find = (prefix) => results.find((r) => r.phase.startsWith(prefix));
const ratio = (a, b, field) => {
  const x = find(a)?.[field];
  const y = find(b)?.[field];
  return x && y ? `${Math.round((x / y) * 100)}%` : 'n/a';
};
// CPU: hand-written CPU / streams CPU, so that like the rates, 100% means "as cheap as the hand-written loop".
const cpuRatio = (a, b) => {
  const x = find(a)?.steadyCpuMsPer1M;
  const y = find(b)?.steadyCpuMsPer1M;
  return x && y ? `${Math.round((y / x) * 100)}%` : 'n/a';
};
for (const [label, a, b] of [
  ['stateless', 'streams stateless', 'hand-written stateless'],
  ['word count', 'streams word count (LMDB, at_least_once', 'hand-written count'],
  ['word count exactly_once_v2', 'streams word count (LMDB, exactly_once_v2', 'hand-written count'],
]) {
  console.log(`${label}: ${ratio(a, b, 'recordsPerSec')} of the hand-written loop in total, ${ratio(a, b, 'steadyRecordsPerSec')} in steady state, CPU per record in steady state ${cpuRatio(a, b)} (hand-written CPU / streams CPU)`);
}
await admin.close();
await cluster.stop();
rmSync(stateDir, { recursive: true, force: true });
