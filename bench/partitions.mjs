#!/usr/bin/env node
// Partition-scale benchmark (issue 17): one broker process (`tributary start`,
// fresh data dir, free port) with TOPICS x PARTITIONS partitions.
//
//   1. create the topics (timed), produce RECORDS records round-robin over every
//      partition (sendBatch, acks=1, 100 B), print RSS and open descriptors;
//   2. stop it gracefully and start it again: start-up time to the port
//      accepting and to the first Metadata answer, RSS, open descriptors;
//   3. kill -9 it and start it again: the same, and (builds that recover logs
//      lazily after a crash) how long until the background recovery of every
//      log finished (`recoveredMs`, from the broker's log line);
//   4. ListOffsets of every partition (the end offsets after the kill -9).
//
//   node bench/partitions.mjs                        # 10 topics x 1,000 partitions (build first)
//   TOPICS=2 PARTITIONS=500 ULIMIT=1024 node bench/partitions.mjs
//   OVERRIDES="log.open.files.max=2000" node bench/partitions.mjs
//   KEEP_DATA=1 ... keeps the data dir (printed) for profiling a start-up
//
// ULIMIT (default 20000) runs the broker under `ulimit -n`; the broker's file
// descriptors are bounded by log.open.files.max (default: half of the limit),
// so a smaller ULIMIT only means more reopening. One JSON line per phase goes
// to bench/results/partitions-<stamp>.jsonl. The broker logs at info (LOG_LEVEL)
// to a pipe this reads for the recovery line; nothing else is printed.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const dist = resolve(repo, process.env.BROKER_DIST ?? 'dist');
const TOPICS = Number(process.env.TOPICS ?? 10);
const PARTITIONS = Number(process.env.PARTITIONS ?? 1000);
const RECORDS = Number(process.env.RECORDS ?? TOPICS * PARTITIONS * 10);
const ULIMIT = Number(process.env.ULIMIT ?? 20000);
const OVERRIDES = (process.env.OVERRIDES ?? '').split(/\s+/).filter((s) => s !== '');
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'info';
const RECOVERED_LINE = /"recoveryMs":(\d+).*"msg":"recovered every log the crash left for later"/;
const START_TIMEOUT_MS = 120_000;
const STAMP = new Date().toISOString().replace(/[:.]/g, '-');
const RESULTS = join(here, 'results', `partitions-${STAMP}.jsonl`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

function accepts(port) {
  return new Promise((ok) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => ok(false));
  });
}

function record(phase, fields) {
  const line = { phase, topics: TOPICS, partitionsPerTopic: PARTITIONS, ulimit: ULIMIT, load: loadavg()[0], ...fields };
  appendFileSync(RESULTS, `${JSON.stringify(line)}\n`);
  console.log(JSON.stringify(line));
}

const client = await import(pathToFileURL(join(dist, 'src', 'client', 'index.js')).href);
const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), 'tributary-partitions-'));
mkdirSync(dirname(RESULTS), { recursive: true });
let child = null;
/** Resolves with the broker's `recoveryMs` once it logs that the background recovery finished (a promise per start). */
let recovered = null;

/** Starts the broker; resolves with ms to the port accepting and to the first Metadata answer. */
async function start() {
  const args = [join(dist, 'src', 'cli', 'main.js'), 'start', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dataDir}`,
    '--override', `log.level=${LOG_LEVEL}`, ...OVERRIDES.flatMap((o) => ['--override', o])];
  const t0 = performance.now();
  child = spawn('bash', ['-c', `ulimit -n ${ULIMIT} && exec "$0" "$@"`, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  recovered = new Promise((ok) => {
    let partial = '';
    child.stdout.on('data', (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) {
        const m = RECOVERED_LINE.exec(l);
        if (m !== null) ok({ recoveryMs: Number(m[1]), sinceSpawnMs: performance.now() - t0 });
      }
    });
    child.once('exit', () => ok(null));
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  child.exited = exited;
  while (!(await accepts(port))) {
    if (performance.now() - t0 > START_TIMEOUT_MS) throw new Error('broker did not start');
    if (child.exitCode !== null) throw new Error(`broker exited during start-up: ${JSON.stringify(await exited)}`);
    await sleep(10);
  }
  const acceptMs = performance.now() - t0;
  const admin = await client.Admin.connect({ bootstrap: `127.0.0.1:${port}`, connectTimeoutMs: 60_000 });
  await admin.listTopics();
  const metadataMs = performance.now() - t0;
  return { admin, acceptMs, metadataMs };
}

async function stop(signal) {
  const c = child;
  c.kill(signal);
  await c.exited;
}

try {
  const topics = Array.from({ length: TOPICS }, (_, i) => `scale-${i}`);
  let { admin, acceptMs, metadataMs } = await start();
  record('first-start', { acceptMs, metadataMs, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });
  let t = performance.now();
  for (const name of topics) {
    const [r] = await admin.createTopics([{ name, numPartitions: PARTITIONS, replicationFactor: 1 }], { timeoutMs: 120_000 });
    if (r?.error) throw r.error;
  }
  record('create', { ms: performance.now() - t, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });
  await admin.close();

  const producer = await client.Producer.connect({ clusterOptions: { bootstrap: `127.0.0.1:${port}` }, acks: 1, lingerMs: 5 });
  const value = Buffer.alloc(100, 'x');
  const total = TOPICS * PARTITIONS;
  t = performance.now();
  const CHUNK = 20_000;
  for (let sent = 0; sent < RECORDS; sent += CHUNK) {
    const n = Math.min(CHUNK, RECORDS - sent);
    await producer.sendBatch(Array.from({ length: n }, (_, i) => {
      const k = (sent + i) % total;
      return { topic: topics[Math.floor(k / PARTITIONS)], partition: k % PARTITIONS, key: null, value };
    }));
  }
  const produceMs = performance.now() - t;
  await producer.close();
  record('produce', { records: RECORDS, ms: produceMs, recordsPerS: Math.round(RECORDS / (produceMs / 1000)), rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });

  await stop('SIGTERM');
  ({ admin, acceptMs, metadataMs } = await start());
  record('restart-clean', { acceptMs, metadataMs, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });
  await admin.close();

  await stop('SIGKILL');
  ({ admin, acceptMs, metadataMs } = await start());
  record('restart-kill9', { acceptMs, metadataMs, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });
  // Builds that recover lazily log when the background recovery is done; older ones recovered before the port opened.
  const lazy = readFileSync(join(dist, 'src', 'storage', 'log-manager.js'), 'utf8').includes('recoverSome');
  const done = lazy ? await Promise.race([recovered, sleep(START_TIMEOUT_MS).then(() => null)]) : null;
  record('recovered-kill9', { recoveredMs: done?.sinceSpawnMs ?? null, brokerRecoveryMs: done?.recoveryMs ?? null, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });

  // The latest offset of every partition is what was produced to it. One
  // ListOffsets per topic: one request for 40,000 partitions or more got no answer.
  t = performance.now();
  const expectedPer = (k) => Math.floor(RECORDS / total) + (k < RECORDS % total ? 1 : 0);
  let wrong = 0;
  let checked = 0;
  for (const [ti, topic] of topics.entries()) {
    const offsets = await admin.listOffsets(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' })));
    checked += offsets.length;
    for (const o of offsets) if (o.error !== null || o.offset !== BigInt(expectedPer(ti * PARTITIONS + o.partition))) wrong++;
  }
  record('verify', { partitions: checked, wrongEndOffsets: wrong, ms: performance.now() - t, rssMiB: rssMiB(child.pid), openFds: openFds(child.pid) });
  await admin.close();
  await stop('SIGTERM');
  if (wrong > 0) process.exitCode = 1;
} finally {
  if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  if (process.env.KEEP_DATA === '1') console.log(`data kept in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
