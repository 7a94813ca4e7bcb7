#!/usr/bin/env node
// Mirror benchmark (issue 18, "Performance"): two single-node clusters on
// loopback (startCluster), COUNT records of SIZE bytes in PARTITIONS
// partitions of `src` on A, copied to B twice in the same run:
//
//   loop     a hand-written consume-and-produce loop on our clients
//            (Consumer.batches() -> Producer.sendBatch to the same partition)
//   mirror   `startMirror` (dedicated mode, A->B): from start until B's
//            A.src holds COUNT records (start-up included, and shown apart)
//   latency  with the mirror running, RATE records/s for LAT_SECONDS on A;
//            p50/p99 of (time read on B) - (record timestamp)
//   exact, exact-latency
//            the same two with `A->B.mode = exact` (batches copied at their
//            offsets into mirror topics), after the MM2 mirror stopped; the
//            flow's source alias is X, so its topics are X.src and X.lat
//
// Env (defaults): COUNT=1000000 SIZE=1024 PARTITIONS=4 RATE=10000 LAT_SECONDS=10 PHASES="loop mirror latency exact exact-latency"
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', 'dist');
const load = (p) => import(pathToFileURL(resolve(dist, p)).href);
const { startCluster } = await load('src/embedded/cluster.js');
const { Admin, Consumer, Producer } = await load('src/client/index.js');
const { startMirror } = await load('src/mirror/index.js');
const env = (k, d) => Number(process.env[k] ?? d);
const COUNT = env('COUNT', 1_000_000);
const SIZE = env('SIZE', 1024);
const PARTITIONS = env('PARTITIONS', 4);
const RATE = env('RATE', 10_000);
const LAT_SECONDS = env('LAT_SECONDS', 10);
const PHASES = (process.env.PHASES ?? 'loop mirror latency exact exact-latency').split(/\s+/).filter(Boolean);
const log = (m) => process.stderr.write(`[mirror.mjs] ${m}\n`);
const RF1 = Object.fromEntries(['replication.factor', 'offset-syncs.topic.replication.factor', 'checkpoints.topic.replication.factor', 'heartbeats.topic.replication.factor',
  'config.storage.replication.factor', 'offset.storage.replication.factor', 'status.storage.replication.factor'].map((k) => [k, '1']));

async function total(bootstrap, topic) {
  const admin = await Admin.connect({ bootstrap });
  try {
    const ends = await admin.listOffsets(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' })));
    return ends.reduce((n, e) => n + (e.error === null ? Number(e.offset) : 0), 0);
  } catch { return 0; } finally { await admin.close(); }
}

async function waitTotal(bootstrap, topic, n, limitMs = 600_000) {
  const start = performance.now();
  let first = null;
  for (;;) {
    const have = await total(bootstrap, topic);
    if (have > 0 && first === null) first = performance.now();
    if (have >= n) return { doneMs: performance.now(), firstMs: first ?? performance.now() };
    if (performance.now() - start > limitMs) throw new Error(`${topic}: ${have} of ${n} after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function figures(name, ms) {
  const mb = (COUNT * SIZE) / 1e6 / (ms / 1000);
  const rps = COUNT / (ms / 1000);
  console.log(`${name.padEnd(34)} ${(ms / 1000).toFixed(2).padStart(8)} s ${rps.toFixed(0).padStart(9)} rec/s ${mb.toFixed(1).padStart(7)} MB/s`);
}

async function fill(a) {
  const admin = await Admin.connect({ bootstrap: a.bootstrap });
  await admin.createTopics([{ name: 'src', numPartitions: PARTITIONS, replicationFactor: 1 }, { name: 'lat', numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  const producer = await Producer.connect({ clusterOptions: { bootstrap: a.bootstrap }, batchSize: 1_000_000, lingerMs: 5 });
  const value = Buffer.alloc(SIZE, 120);
  for (let sent = 0; sent < COUNT; ) {
    const n = Math.min(10_000, COUNT - sent);
    await producer.sendBatch(Array.from({ length: n }, (_, i) => ({ topic: 'src', partition: (sent + i) % PARTITIONS, key: null, value })));
    sent += n;
  }
  await producer.close();
}

async function loop(a, b) {
  const start = performance.now();
  const consumer = new Consumer({ bootstrap: a.bootstrap, autoOffsetReset: 'earliest', maxPollRecords: 2000 });
  const producer = await Producer.connect({ clusterOptions: { bootstrap: b.bootstrap, allowAutoTopicCreation: true }, batchSize: 1_000_000, lingerMs: 5 });
  const admin = await Admin.connect({ bootstrap: b.bootstrap });
  await admin.createTopics([{ name: 'loop.src', numPartitions: PARTITIONS, replicationFactor: 1 }]);
  await admin.close();
  consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: 'src', partition })));
  let copied = 0;
  const pending = [];
  for await (const batch of consumer.batches()) {
    pending.push(producer.sendBatch(batch.records.map((r) => ({ topic: 'loop.src', partition: r.partition, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp }))));
    copied += batch.records.length;
    if (pending.length > 16) await pending.shift();
    if (copied >= COUNT) break;
  }
  await Promise.all(pending);
  await producer.close();
  await consumer.close();
  figures('consume-and-produce loop', performance.now() - start);
}

/** `startMirror` from alias `source` (A: MM2 mode, X: exact mode) to B, timed until B's copy of src holds COUNT records. */
async function mirrorPhase(a, b, source, exact) {
  const start = performance.now();
  const flow = `${source}->B`;
  const handle = await startMirror({
    clusters: `${source}, B`, [`${source}.bootstrap.servers`]: a.bootstrap, 'B.bootstrap.servers': b.bootstrap,
    [`${flow}.enabled`]: 'true', [`${flow}.topics`]: 'src,lat', ...(exact ? { [`${flow}.mode`]: 'exact' } : {}), ...RF1,
  }, () => undefined);
  const { doneMs, firstMs } = await waitTotal(b.bootstrap, `${source}.src`, COUNT);
  const name = exact ? 'exact mirror' : 'mirror';
  figures(`${name} (start-up included)`, doneMs - start);
  figures(`${name} (from the first record)`, doneMs - firstMs);
  return handle;
}

async function latency(a, b, source = 'A') {
  const remote = `${source}.lat`;
  const consumer = new Consumer({ bootstrap: b.bootstrap, autoOffsetReset: 'earliest' });
  const producer = await Producer.connect({ clusterOptions: { bootstrap: a.bootstrap }, lingerMs: 0 });
  const lat = [];
  const n = RATE * LAT_SECONDS;
  // One record first, so the remote topic exists and holds all of lat: the measured records then exclude start-up.
  await producer.send({ topic: 'lat', value: 'first' });
  const before = await total(a.bootstrap, 'lat');
  await waitTotal(b.bootstrap, remote, before);
  const from = BigInt(await total(b.bootstrap, remote));
  consumer.assign([{ topic: remote, partition: 0 }]);
  consumer.seek({ topic: remote, partition: 0 }, from);
  const reading = (async () => {
    for await (const batch of consumer.batches()) {
      const now = Date.now();
      for (const r of batch.records) lat.push(now - r.timestamp);
      if (lat.length >= n) return;
    }
  })();
  const start = performance.now();
  for (let i = 0; i < n; i += RATE / 100) {
    const due = start + (i / RATE) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    void producer.sendBatch(Array.from({ length: RATE / 100 }, () => ({ topic: 'lat', value: 'x'.repeat(100) })));
  }
  await Promise.race([reading, new Promise((r) => setTimeout(r, 120_000))]);
  await producer.close();
  await consumer.close();
  lat.sort((x, y) => x - y);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
  console.log(`${source === 'A' ? 'mirror' : 'exact mirror'} replication latency at ${RATE} rec/s: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms (${lat.length} of ${n} records)`);
}

const config = { 'group.initial.rebalance.delay.ms': 0 };
const [a, b] = await Promise.all([startCluster({ config }), startCluster({ config })]);
let handle = null;
try {
  log(`filling A: ${COUNT} x ${SIZE} B in ${PARTITIONS} partitions`);
  await fill(a);
  if (PHASES.includes('loop')) await loop(a, b);
  if (PHASES.includes('mirror') || PHASES.includes('latency')) handle = await mirrorPhase(a, b, 'A', false);
  if (PHASES.includes('latency')) await latency(a, b, 'A');
  await handle?.close();
  handle = null;
  if (PHASES.includes('exact') || PHASES.includes('exact-latency')) handle = await mirrorPhase(a, b, 'X', true);
  if (PHASES.includes('exact-latency')) await latency(a, b, 'X');
} finally {
  await handle?.close();
  await Promise.all([a.stop(), b.stop()]);
}
