/**
 * The stateless topology's per-record cost inside one StreamTask, without a
 * broker (build first: npm run build):
 *
 *   node bench/streams/task-hot-path.mjs [--count N] [--rounds R]
 *   DIST=/path/to/other/dist node bench/streams/task-hot-path.mjs
 *   node --trace-gc bench/streams/task-hot-path.mjs --only streams | grep -c Scavenge   # allocation volume
 *
 * Feeds N records (decoded by the Consumer's decoder from record batches) through
 * a StreamTask running the bench's filter + mapValues + to, with a collector
 * that queues sink records and drops them every 10 000 (as the runtime's
 * collector hands them to the Producer), and the same work written by hand
 * (string deserializers in the decoder, filter, toUpperCase, a Producer record). Prints ns per record
 * for each (wall and process CPU), best of R rounds; the difference is what
 * the streams runtime adds per record on top of the work itself.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = process.env.DIST ?? new URL('../../dist', import.meta.url).pathname;
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { Serdes, StreamsBuilder } = await load('src/streams/index.js');
const { StreamTask } = await load('src/streams/runtime/stream-task.js');
const { buildRecordBatchSync } = await load('src/protocol/record-batch/builder.js');
const { decodePartition } = await load('src/client/consumer-decode.js');
// Builds since 2026-12-02 afternoon deserialize String/ByteArray source topics in the Consumer's decoder; older ones do it in the task.
const { FetchDeserializers } = await load('src/streams/runtime/fetch-deserializers.js').catch(() => ({ FetchDeserializers: null }));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const COUNT = arg('count', 1_000_000);
const ROUNDS = arg('rounds', 5);
// --only streams|hand: one side alone (e.g. to count its garbage collections with --trace-gc).
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const BATCH = 500;
const WORDS = 10_000;

const keep = (w) => w.charCodeAt(w.length - 1) % 2 === 0;
// Input: a pool of record batches (as the broker returns them), decoded again on every pass by the Consumer's
// decoder, so each side reads LazyConsumerRecords as in a real run (a consumer holds a few fetches, not the input).
const POOL_BATCHES = 100;
const batches = [];
for (let i = 0; i < POOL_BATCHES; i++) {
  const recs = [];
  for (let j = i * BATCH; j < (i + 1) * BATCH; j++) recs.push({ key: Buffer.from(`k${j % 64}`), value: Buffer.from(`w${j % WORDS}`), timestamp: 1_700_000_000_000 + j });
  batches.push(buildRecordBatchSync({ records: recs, baseOffset: BigInt(i * BATCH) }));
}
const decode = (i, key, value) =>
  decodePartition({ topic: 'bench-in', partition: 0, fetchOffset: 0n, keyDeserializer: key, valueDeserializer: value }, batches[(i / BATCH) % POOL_BATCHES], null);

let sent = 0;
let queue = [];
const collector = {
  send(record) {
    queue.push(record);
    if (queue.length >= 10_000) {
      sent += queue.length;
      queue = [];
    }
  },
  logChange() {},
};

const b = new StreamsBuilder();
b.stream('bench-in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .filter((_k, w) => keep(w))
  .mapValues((w) => w.toUpperCase())
  .to('out', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
const topology = b.build();
const [sub] = topology.subtopologies();
const fetchDeserializers = FetchDeserializers === null ? null : new FetchDeserializers(topology, (t) => t, Serdes.ByteArray(), Serdes.ByteArray());
const task = new StreamTask({
  applicationId: 'hot-path',
  taskId: '0_0',
  partition: 0,
  topology,
  nodes: sub.nodes,
  stateDir: null,
  defaultKeySerde: Serdes.ByteArray(),
  defaultValueSerde: Serdes.ByteArray(),
  collector,
  wallClockMs: () => Date.now(),
  onDeserializationError: () => 'FAIL',
  ...(fetchDeserializers === null ? {} : { decodedAtFetch: (t) => fetchDeserializers.decodes(t) }),
});
task.init();

async function streamsRound() {
  for (let i = 0; i < COUNT; i += BATCH) {
    const batch = (await decode(i, fetchDeserializers?.key ?? null, fetchDeserializers?.value ?? null)).records;
    if (typeof task.processBatch === 'function') task.processBatch(batch);
    else
      for (const r of batch) {
        task.process(r);
        task.punctuateStreamTime();
      }
  }
}

const toString = (b) => (b === null ? null : b.toString());
async function handRound() {
  for (let i = 0; i < COUNT; i += BATCH) {
    const batch = (await decode(i, toString, toString)).records;
    const out = [];
    for (const r of batch) if (keep(r.value)) out.push({ topic: 'out', key: r.key, value: r.value.toUpperCase() });
    for (const o of out) collector.send(o);
  }
}

// Best of the rounds, by wall time and by process CPU time (garbage collection helpers included), which another
// process's load disturbs less.
const best = { streams: { wall: Infinity, cpu: Infinity }, hand: { wall: Infinity, cpu: Infinity } };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of [['streams', streamsRound], ['hand', handRound]].filter(([name]) => ONLY === undefined || name === ONLY)) {
    const t = performance.now();
    const c = process.cpuUsage();
    await run();
    const cpu = process.cpuUsage(c);
    best[name].wall = Math.min(best[name].wall, ((performance.now() - t) * 1e6) / COUNT);
    best[name].cpu = Math.min(best[name].cpu, ((cpu.user + cpu.system) * 1e3) / COUNT);
  }
}
const ns = (x) => ({ wall: Math.round(x.wall), cpu: Math.round(x.cpu) });
console.log(JSON.stringify({ count: COUNT, rounds: ROUNDS, nsPerRecord: { streams: ns(best.streams), hand: ns(best.hand) }, addedCpu: Math.round(best.streams.cpu - best.hand.cpu), sent }));
