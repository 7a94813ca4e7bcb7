#!/usr/bin/env node
// Cost flat in data size (issue 17, item 6): one broker process (`tributary
// start`, fresh data dir, free port), one topic with one partition, records of
// SIZE bytes. The same measurements are taken when the partition is nearly
// empty and again after it was filled to TARGET_GB:
//
//   append      produce WINDOW records (our Producer, acks=1): MB/s and the
//               broker's CPU per record;
//   fetch-tail  read the last WINDOW records back (raw batches, 8 MiB per fetch): MB/s;
//   fetch-head  read the first WINDOW records of the log (the oldest data): MB/s;
//   old-offset  OLD_FETCHES single fetches (64 KiB) at random offsets spread over
//               the whole log: latency p50 / p99 / max (the offset index lookup
//               and the read at an old position);
//   by-time     ListOffsets by timestamp at random times over the log: latency.
//
//   node bench/data-size.mjs                       # 20 GB (less when the disk has less room)
//   TARGET_GB=2 node bench/data-size.mjs           # a quick run
//   DATA_DIR=/mnt/big SEED=7 KEEP_DATA=1 node bench/data-size.mjs
//
// A warm-up of WINDOW records on a topic of its own (then deleted) comes first.
// TARGET_GB is capped at the data dir's free space minus 10 GB. The page cache
// is left as it is (this machine has 24 GiB of memory, so much of a 20 GB log
// stays cached; DROP_CACHES=1 drops it before the second set of reads, which
// needs root and slows everything else on the machine for a while). One JSON
// line per measurement goes to bench/results/data-size-<stamp>.jsonl.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const dist = resolve(repo, process.env.BROKER_DIST ?? 'dist');
const SIZE = Number(process.env.SIZE ?? 1024);
const WINDOW = Number(process.env.WINDOW ?? 500_000);
const OLD_FETCHES = Number(process.env.OLD_FETCHES ?? 300);
const FILL_TIMEOUT_S = Number(process.env.FILL_TIMEOUT_S ?? 1800);
const SEED = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
const baseDir = process.env.DATA_DIR ?? tmpdir();
const STAMP = new Date().toISOString().replace(/[:.]/g, '-');
const RESULTS = join(here, 'results', `data-size-${STAMP}.jsonl`);
const TOPIC = 'data-size';
const WARMUP_TOPIC = 'data-size-warmup';
const GB = 1e9;

const free = statfsSync(baseDir);
const freeGB = (free.bavail * free.bsize) / GB;
const TARGET_GB = Math.max(1, Math.min(Number(process.env.TARGET_GB ?? 20), Math.floor(freeGB - 10)));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;
/** The process's user + system CPU in ms (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const client = await import(pathToFileURL(join(dist, 'src', 'client', 'index.js')).href);
const { freePort } = await import(pathToFileURL(join(dist, 'src', 'embedded', 'probe.js')).href);
// The old-offset positions and lookup times replay with SEED.
const { SeededRandom } = await import(pathToFileURL(join(dist, 'src', 'util', 'random.js')).href);
const port = await freePort();
const bootstrap = `127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(baseDir, 'tributary-data-size-'));
mkdirSync(dirname(RESULTS), { recursive: true });
console.log(`data-size: SEED=${SEED} target ${TARGET_GB} GB of ${SIZE} B records (${freeGB.toFixed(0)} GB free in ${baseDir}), data dir ${dataDir}`);

function record(phase, fields) {
  const line = { phase, size: SIZE, window: WINDOW, seed: SEED, load: loadavg()[0], rssMiB: rssMiB(broker.pid), openFds: openFds(broker.pid), ...fields };
  appendFileSync(RESULTS, `${JSON.stringify(line)}\n`);
  console.log(JSON.stringify(line));
}

const broker = spawn(process.execPath, [join(dist, 'src', 'cli', 'main.js'), 'start', '--override', `listeners=PLAINTEXT://${bootstrap}`,
  '--override', `log.dirs=${dataDir}`, '--override', 'log.level=warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
const exited = new Promise((r) => broker.once('exit', (code, signal) => r({ code, signal })));

let producer = null;
let cluster = null;
let admin = null;
try {
  const t0 = performance.now();
  for (;;) {
    if (broker.exitCode !== null) throw new Error(`broker exited during start-up: ${JSON.stringify(await exited)}`);
    if (performance.now() - t0 > 60_000) throw new Error('broker did not start within 60 s');
    try {
      admin = await client.Admin.connect({ bootstrap, connectTimeoutMs: 1000 });
      break;
    } catch {
      await sleep(50);
    }
  }
  const [created] = await admin.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }]);
  if (created?.error) throw created.error;
  producer = await client.Producer.connect({ clusterOptions: { bootstrap }, acks: 1, lingerMs: 5, batchSize: 1024 * 1024 });
  cluster = await client.Cluster.connect({ bootstrap });
  const value = Buffer.alloc(SIZE, 'v');
  const CHUNK = 10_000;
  let produced = 0;

  /** Produces `count` records; returns ms taken and the broker's CPU ms meanwhile. */
  async function produceRecords(count, deadlineMs = Infinity) {
    const t = performance.now();
    const c = cpuMs(broker.pid);
    const batch = Array.from({ length: CHUNK }, () => ({ topic: TOPIC, partition: 0, key: null, value }));
    for (let sent = 0; sent < count && performance.now() < deadlineMs; sent += CHUNK) {
      const n = Math.min(CHUNK, count - sent);
      await producer.sendBatch(n === CHUNK ? batch : batch.slice(0, n));
      produced += n;
    }
    return { ms: performance.now() - t, brokerCpuMs: cpuMs(broker.pid) - c };
  }

  /** Reads [from, to) as raw batches; returns MB/s. */
  async function readRange(from, to) {
    const t = performance.now();
    const c = cpuMs(broker.pid);
    let next = from;
    let bytes = 0;
    for (let i = 0; next < to && i < 1_000_000; i++) {
      const f = await client.fetchRawBatches(cluster, TOPIC, 0, next, { maxWaitMs: 0, partitionMaxBytes: 8 * 1024 * 1024 });
      if (f.errorCode !== 0) throw new Error(`fetch at ${next}: error ${f.errorCode}`);
      const last = f.batches.at(-1);
      if (last === undefined) throw new Error(`fetch at ${next} returned nothing (high watermark ${f.highWatermark})`);
      for (const b of f.batches) bytes += b.length;
      next = last.readBigInt64BE(0) + BigInt(last.readInt32BE(23)) + 1n;
    }
    const ms = performance.now() - t;
    return { mbPerS: Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10, ms: Math.round(ms), brokerCpuMs: cpuMs(broker.pid) - c };
  }

  async function measure(label) {
    const append = await produceRecords(WINDOW);
    record(`${label}:append`, {
      logGB: (produced * SIZE) / GB,
      mbPerS: Math.round(((WINDOW * SIZE) / 1e6 / (append.ms / 1000)) * 10) / 10,
      recordsPerS: Math.round(WINDOW / (append.ms / 1000)),
      brokerUsPerRecord: Math.round((append.brokerCpuMs * 1000) / WINDOW * 100) / 100,
    });
    const end = BigInt(produced);
    const tail = await readRange(end - BigInt(WINDOW), end);
    record(`${label}:fetch-tail`, { ...tail, brokerUsPerRecord: Math.round((tail.brokerCpuMs * 1000) / WINDOW * 100) / 100 });
    if (process.env.DROP_CACHES === '1' && label === 'full') writeFileSync('/proc/sys/vm/drop_caches', '3\n');
    const head = await readRange(0n, BigInt(Math.min(WINDOW, produced)));
    record(`${label}:fetch-head`, head);

    const seeded = new SeededRandom(SEED);
    const rnd = () => seeded.next();
    const lat = [];
    for (let i = 0; i < OLD_FETCHES; i++) {
      const offset = BigInt(Math.floor(rnd() * produced));
      const t = performance.now();
      const f = await client.fetchRawBatches(cluster, TOPIC, 0, offset, { maxWaitMs: 0, partitionMaxBytes: 64 * 1024 });
      lat.push(performance.now() - t);
      if (f.errorCode !== 0 || f.batches.length === 0) throw new Error(`fetch at ${offset}: error ${f.errorCode}, ${f.batches.length} batches`);
      const base = f.batches[0].readBigInt64BE(0);
      if (base > offset) throw new Error(`fetch at ${offset} started at ${base}`);
    }
    lat.sort((a, b) => a - b);
    const ms = (v) => Math.round(v * 1000) / 1000;
    record(`${label}:old-offset`, { fetches: OLD_FETCHES, p50Ms: ms(percentile(lat, 50)), p99Ms: ms(percentile(lat, 99)), maxMs: ms(lat.at(-1)) });

    const times = [];
    const span = [fillStartMs, Date.now()];
    for (let i = 0; i < 100; i++) {
      const ts = BigInt(Math.floor(span[0] + rnd() * (span[1] - span[0])));
      const t = performance.now();
      const [r] = await admin.listOffsets([{ topic: TOPIC, partition: 0, spec: ts }]);
      times.push(performance.now() - t);
      if (r?.error) throw r.error;
    }
    times.sort((a, b) => a - b);
    record(`${label}:by-time`, { lookups: times.length, p50Ms: ms(percentile(times, 50)), p99Ms: ms(percentile(times, 99)), maxMs: ms(times.at(-1)) });
  }

  // Warm-up on a topic of its own (deleted after), so the first measurement is not also the JIT's
  // and the buffer pools' first minutes.
  await admin.createTopics([{ name: WARMUP_TOPIC, numPartitions: 1, replicationFactor: 1 }]);
  const warm = Array.from({ length: CHUNK }, () => ({ topic: WARMUP_TOPIC, partition: 0, key: null, value }));
  for (let sent = 0; sent < WINDOW; sent += CHUNK) await producer.sendBatch(warm);
  for (let next = 0n, i = 0; next < BigInt(WINDOW) && i < 100_000; i++) {
    const f = await client.fetchRawBatches(cluster, WARMUP_TOPIC, 0, next, { maxWaitMs: 0, partitionMaxBytes: 8 * 1024 * 1024 });
    const last = f.batches.at(-1);
    if (last === undefined) break;
    next = last.readBigInt64BE(0) + BigInt(last.readInt32BE(23)) + 1n;
  }
  await admin.deleteTopics([WARMUP_TOPIC]);

  const fillStartMs = Date.now();
  await measure('empty');

  // Fill to TARGET_GB, bounded in time.
  const targetRecords = Math.floor((TARGET_GB * GB) / SIZE);
  const fillDeadline = performance.now() + FILL_TIMEOUT_S * 1000;
  const fill = { ms: 0, brokerCpuMs: 0 };
  let nextReport = produced * SIZE + GB;
  while (produced < targetRecords - WINDOW && performance.now() < fillDeadline) {
    const step = await produceRecords(Math.min(200_000, targetRecords - WINDOW - produced), fillDeadline);
    fill.ms += step.ms;
    fill.brokerCpuMs += step.brokerCpuMs;
    if (produced * SIZE >= nextReport) {
      process.stderr.write(`  filled ${((produced * SIZE) / GB).toFixed(1)} GB\n`);
      nextReport += GB;
    }
  }
  const segments = readdirSync(join(dataDir, `${TOPIC}-0`)).filter((f) => f.endsWith('.log')).length;
  record('fill', { logGB: (produced * SIZE) / GB, segments, ms: Math.round(fill.ms), mbPerS: Math.round(((produced * SIZE) / 1e6 / (fill.ms / 1000)) * 10) / 10 });

  await measure('full');
} finally {
  await producer?.close().catch(() => undefined);
  await cluster?.close().catch(() => undefined);
  await admin?.close().catch(() => undefined);
  if (broker.exitCode === null) {
    broker.kill('SIGTERM');
    const timer = setTimeout(() => broker.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  }
  if (process.env.KEEP_DATA === '1') console.log(`data kept in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
