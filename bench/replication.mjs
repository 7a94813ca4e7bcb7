#!/usr/bin/env node
// Replication benchmark (issue 12, "Performance"), on a 3-node combined
// cluster of real processes on loopback (the shared launcher,
// src/embedded/launcher.ts; default session and quorum timeouts). Run it
// through bench/replication.sh (build, python check); see bench/README.md.
//
//   throughput  COUNT x SIZE B to one partition, from librdkafka
//               (bench/librdkafka_bench.py produce) and from our Producer
//               (sendBatch, batchSize 1,000,000): RF 1 acks=1, then RF 3
//               acks=all with min.insync.replicas 2, in the same run.
//   failover    our Producer sends acks=all to an RF 3 partition every
//               SEND_EVERY_MS; the partition's leader is killed with SIGKILL;
//               the time from the kill to the first acknowledgement of a
//               record sent after it. The node is restarted (and given
//               SETTLE_MS to catch up) before the next trial. Median of TRIALS.
//   latency     end-to-end at RATE records/s for LAT_SECONDS with RF 3
//               acks=all (librdkafka_bench.py e2e): p50 / p99.
//
// While the brokers refuse replication factors above 1 (INVALID_REPLICATION_FACTOR),
// the RF 3 phases print that and only RF 1 runs.
//
// Env (defaults): COUNT=1000000 SIZE=100 TRIALS=10 RATE=10000 LAT_SECONDS=10 SEND_EVERY_MS=5
//   SETTLE_MS=3000 PHASE_TIMEOUT=300 PHASES="throughput failover pause latency" BROKER_DIST=dist OVERRIDES="k=v,k=v"
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', process.env.BROKER_DIST ?? 'dist');
const env = (k, d) => Number(process.env[k] ?? d);
const COUNT = env('COUNT', 1_000_000);
const SIZE = env('SIZE', 100);
const TRIALS = env('TRIALS', 10);
const RATE = env('RATE', 10_000);
const LAT_SECONDS = env('LAT_SECONDS', 10);
const SEND_EVERY_MS = env('SEND_EVERY_MS', 5);
const SETTLE_MS = env('SETTLE_MS', 3_000);
const PHASES = (process.env.PHASES ?? 'throughput failover pause latency').split(/\s+/).filter(Boolean);
const OVERRIDES = Object.fromEntries((process.env.OVERRIDES ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const PY = process.env.PY ?? '/usr/bin/python3';
const PHASE_TIMEOUT_S = env('PHASE_TIMEOUT', 300);
const READY_TIMEOUT_MS = 60_000;
const FAILOVER_TIMEOUT_MS = 60_000;
const INVALID_REPLICATION_FACTOR = 38;

const load = async (path) => import(pathToFileURL(join(dist, path)).href);
const { Admin, Producer } = await load('src/client/index.js');
const { planCluster, portsNeeded } = await load('src/embedded/cluster-plan.js');
const { launchCluster } = await load('src/embedded/launcher.js');
const { cliRunner } = await load('src/embedded/node-runner.js');
const { freePort } = await load('src/embedded/probe.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[replication ${new Date().toISOString().slice(11, 19)}]`, ...a);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function startCluster() {
  const root = mkdtempSync(join(tmpdir(), 'tributary-bench-replication-'));
  const ports = [];
  for (let i = 0; i < portsNeeded(3, 0); i++) ports.push(await freePort());
  const cluster = launchCluster({
    layout: planCluster({ controllers: 3, dir: root, ports }),
    runner: cliRunner({ main: join(dist, 'src/cli/main.js'), output: 'file', startTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs: 15_000 }),
    overrides: { 'log.level': 'warn', ...OVERRIDES },
    readyTimeoutMs: READY_TIMEOUT_MS,
    // KEEP_LOGS=1 keeps the nodes' directories (and their log files) for a look afterwards.
    removeDir: process.env.KEEP_LOGS === '1' ? undefined : root,
  });
  if (process.env.KEEP_LOGS === '1') log(`node directories and logs kept in ${root}`);
  await cluster.start();
  return cluster;
}

/** Creates a one-partition topic; the broker's refusal text for INVALID_REPLICATION_FACTOR, else null. */
async function createTopic(admin, name, replicationFactor, minIsr) {
  const [r] = await admin.createTopics([{ name, numPartitions: 1, replicationFactor, configs: { 'min.insync.replicas': String(minIsr) } }]);
  if (r.error?.kafkaErrorCode === INVALID_REPLICATION_FACTOR) return `RF ${replicationFactor} refused: ${r.error.serverMessage ?? r.error.message}`;
  if (r.error) throw r.error;
  for (let i = 0; i < 100; i++) {
    const [d] = await admin.describeTopics([name], { includeConfigs: false });
    if (d.partitions[0]?.leader >= 0) return null;
    await sleep(100);
  }
  throw new Error(`${name}: no leader`);
}

/** librdkafka_bench.py <mode> ...: its JSON line. */
function pyBench(args) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(PY, [join(here, 'librdkafka_bench.py'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      // A phase that did not finish (deadline, errors) still prints its JSON line with ok: false: report it.
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) reject(new Error(`librdkafka_bench.py ${args[0]} exited ${code}:\n${out.slice(-2000)}`));
      else resolveRun({ ok: code === 0, ...JSON.parse(line) });
    });
  });
}

async function oursThroughput(bootstrap, topic, acks) {
  const producer = await Producer.connect({ clusterOptions: { bootstrap }, acks, batchSize: 1_000_000, lingerMs: 5, deliveryTimeoutMs: PHASE_TIMEOUT_S * 1000, allowAutoTopicCreation: false });
  const WINDOW = 10_000;
  const payload = Buffer.alloc(SIZE, 0x61);
  const records = Array.from({ length: WINDOW }, () => ({ topic, partition: 0, value: payload }));
  const start = performance.now();
  const inFlight = [];
  let delivered = 0;
  const counted = (p, n) => p.then(() => (delivered += n));
  try {
    for (let i = 0; i < COUNT; i += WINDOW) {
      const batch = i + WINDOW <= COUNT ? records : records.slice(0, COUNT - i);
      inFlight.push(counted(producer.sendBatch(batch), batch.length));
      if (inFlight.length > 20) await inFlight.shift();
    }
    await Promise.all(inFlight);
  } catch (err) {
    // Not finished within the phase timeout (deliveryTimeoutMs): report how far it got.
    await Promise.allSettled(inFlight);
    await producer.close().catch(() => undefined);
    const s = (performance.now() - start) / 1000;
    return { ok: false, delivered, error: err.message, records_per_s: Math.round(delivered / s), mb_per_s: Number(((delivered * SIZE) / s / 1e6).toFixed(2)) };
  }
  const s = (performance.now() - start) / 1000;
  await producer.close();
  return { records_per_s: Math.round(COUNT / s), mb_per_s: Number(((COUNT * SIZE) / s / 1e6).toFixed(1)), seconds: Number(s.toFixed(2)) };
}

async function throughput(cluster, admin, rf3Refused) {
  const rows = [];
  const configs = [{ rf: 1, acks: 1, minIsr: 1 }, ...(rf3Refused ? [] : [{ rf: 3, acks: -1, minIsr: 2 }])];
  for (const { rf, acks, minIsr } of configs) {
    for (const client of ['librdkafka', 'ours']) {
      const topic = `rep-${client}-rf${rf}-${Date.now()}`;
      await createTopic(admin, topic, rf, minIsr);
      log(`throughput: ${client}, RF ${rf}, acks=${acks === -1 ? 'all' : acks}, ${COUNT} x ${SIZE} B`);
      const r = client === 'librdkafka'
        ? await pyBench(['produce', '-b', cluster.bootstrap, '-t', topic, '-n', String(COUNT), '-s', String(SIZE), '--acks', acks === -1 ? 'all' : String(acks), '--timeout', String(PHASE_TIMEOUT_S)])
        : await oursThroughput(cluster.bootstrap, topic, acks);
      rows.push({ phase: 'throughput', client, rf, acks: acks === -1 ? 'all' : String(acks), records_per_s: r.records_per_s, mb_per_s: r.mb_per_s, ok: r.ok !== false, delivered: r.delivered ?? COUNT });
    }
  }
  for (const client of ['librdkafka', 'ours']) {
    const base = rows.find((r) => r.client === client && r.rf === 1);
    const rep = rows.find((r) => r.client === client && r.rf === 3);
    if (base && rep) rep.of_rf1 = Number((rep.records_per_s / base.records_per_s).toFixed(2));
  }
  return rows;
}

/**
 * One failover trial: ms from the fault to the first acknowledgement of a record sent after it.
 * `fault` 'kill' is kill -9 (restarted after); 'pause' is SIGSTOP (SIGCONT after), which no
 * connection reset reveals, so the controller waits for broker.session.timeout.ms.
 */
async function failoverTrial(cluster, admin, producer, topic, fault) {
  const [d] = await admin.describeTopics([topic], { includeConfigs: false });
  const victim = cluster.node(d.partitions[0].leader);
  let killedAt = Infinity;
  let firstAck = null;
  let stop = false;
  const sender = (async () => {
    while (!stop) {
      const sentAt = performance.now();
      producer.send({ topic, partition: 0, value: 'x' }).then(
        () => { if (sentAt > killedAt && firstAck === null) firstAck = performance.now(); },
        () => undefined,
      );
      await sleep(SEND_EVERY_MS);
    }
  })();
  await sleep(1_000);
  killedAt = performance.now();
  if (process.env.KEEP_LOGS === '1') log(`${fault === 'kill' ? 'killing' : 'pausing'} node ${victim.id} at ${Date.now()} (epoch ms, as in the nodes' logs)`);
  if (fault === 'kill') await victim.kill();
  else victim.pause();
  const deadline = killedAt + FAILOVER_TIMEOUT_MS;
  while (firstAck === null && performance.now() < deadline) await sleep(5);
  stop = true;
  await sender;
  const ms = firstAck === null ? null : Math.round(firstAck - killedAt);
  if (fault === 'kill') await victim.start();
  else victim.resume();
  await cluster.waitForBrokers(cluster.ids, cluster.ids);
  await sleep(SETTLE_MS);
  return { victim: victim.id, ms };
}

async function failover(cluster, admin, fault) {
  const topic = `rep-failover-${fault}-${Date.now()}`;
  await createTopic(admin, topic, 3, 2);
  const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap }, acks: -1, lingerMs: 0, retries: 10_000, retryBackoffMs: 20, deliveryTimeoutMs: FAILOVER_TIMEOUT_MS, requestTimeoutMs: 5_000, allowAutoTopicCreation: false });
  const trials = [];
  try {
    for (let i = 0; i < TRIALS; i++) {
      const t = await failoverTrial(cluster, admin, producer, topic, fault);
      log(`failover trial ${i + 1}/${TRIALS}: node ${t.victim} ${fault === 'kill' ? 'killed' : 'paused'}, next ack after ${t.ms ?? 'none within the timeout'} ms`);
      trials.push(t.ms ?? FAILOVER_TIMEOUT_MS);
    }
  } finally {
    await producer.close().catch(() => undefined);
  }
  return [{ phase: 'failover', fault, rf: 3, acks: 'all', trials, median_ms: median(trials), max_ms: Math.max(...trials) }];
}

async function latency(cluster, admin) {
  const topic = `rep-e2e-${Date.now()}`;
  await createTopic(admin, topic, 3, 2);
  log(`latency: ${RATE} records/s for ${LAT_SECONDS} s, RF 3 acks=all`);
  const r = await pyBench(['e2e', '-b', cluster.bootstrap, '-t', topic, '-s', String(SIZE), '--acks', 'all', '--rate', String(RATE), '--seconds', String(LAT_SECONDS), '--timeout', String(PHASE_TIMEOUT_S)]);
  return [{ phase: 'latency', rf: 3, acks: 'all', rate: RATE, p50_ms: r.p50_ms, p99_ms: r.p99_ms, ack_p50_ms: r.ack_p50_ms, ack_p99_ms: r.ack_p99_ms }];
}

function print(rows, refused) {
  console.log(`\nreplication bench: 3 nodes on ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}, ${COUNT} x ${SIZE} B`);
  if (refused) console.log(`${refused}; only RF 1 was measured`);
  for (const r of rows) {
    if (r.phase === 'throughput') console.log(`throughput ${r.client.padEnd(10)} RF ${r.rf} acks=${r.acks.padEnd(3)} ${String(r.records_per_s).padStart(9)} rec/s ${String(r.mb_per_s).padStart(7)} MB/s${r.of_rf1 ? `  (${Math.round(r.of_rf1 * 100)}% of RF 1)` : ''}${r.ok ? '' : `  NOT FINISHED: ${r.delivered} of ${COUNT} delivered within ${PHASE_TIMEOUT_S} s`}`);
    if (r.phase === 'failover') console.log(`failover   ${r.fault === 'kill' ? 'kill -9' : 'SIGSTOP'} of the leader -> next acks=all ack: median ${r.median_ms} ms, max ${r.max_ms} ms (${r.trials.join(', ')})`);
    if (r.phase === 'latency') console.log(`latency    ${r.rate} rec/s RF 3 acks=all: p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (produce ack p50 ${r.ack_p50_ms}, p99 ${r.ack_p99_ms})`);
  }
}

const cluster = await startCluster();
const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
const rows = [];
let refused = null;
try {
  refused = await createTopic(admin, `rep-probe-${Date.now()}`, 3, 2);
  if (refused) log(`${refused}: the RF 3 phases are skipped until replication lands`);
  if (PHASES.includes('throughput')) rows.push(...(await throughput(cluster, admin, refused !== null)));
  if (refused === null && PHASES.includes('failover')) rows.push(...(await failover(cluster, admin, 'kill')));
  if (refused === null && PHASES.includes('pause')) rows.push(...(await failover(cluster, admin, 'pause')));
  if (refused === null && PHASES.includes('latency')) rows.push(...(await latency(cluster, admin)));
} finally {
  await admin.close().catch(() => undefined);
  await cluster.cleanup();
}
print(rows, refused);
const results = join(here, 'results');
mkdirSync(results, { recursive: true });
const line = JSON.stringify({ ts: new Date().toISOString(), count: COUNT, size: SIZE, load1: loadavg()[0], rf3: refused ?? 'ok', rows });
appendFileSync(join(results, `replication-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}.jsonl`), `${line}\n`);
console.log(line);
