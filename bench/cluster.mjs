#!/usr/bin/env node
// Cluster benchmark (issue 6, Performance), on a 3-node combined cluster of
// real processes on loopback (`node dist/src/cli/main.js start`, started by
// the shared cluster launcher src/embedded/launcher.ts; default quorum and
// session timeouts unless overridden):
//
//   commit   CreateTopics latency (one topic, 1 partition, per request, sent
//            to the active controller's broker listener): the metadata
//            commit = append, replicate to a majority, fsync, apply. p50/p99.
//   forward  the same sent to a follower, which forwards it to the leader.
//   failover kill -9 the active controller, then send CreateTopics to a
//            survivor every 20 ms until one succeeds; the time from the kill
//            to that answer. The killed node is restarted (and the cluster
//            waits for 3 live brokers) before the next trial. Median of TRIALS.
//   graceful SIGTERM the active controller (it moves its partitions away, then
//            resigns with EndQuorumEpoch) while CreateTopics go to the
//            survivors every 20 ms; the longest time between two accepted
//            ones, until the old process has exited and one more is
//            accepted (the write gap of a rolling restart). Median of
//            GRACEFUL_TRIALS (default TRIALS; 0 skips).
//
//   node bench/cluster.mjs                          # build first
//   TOPICS=300 TRIALS=10 node bench/cluster.mjs
//   OVERRIDES='controller.quorum.fetch.timeout.ms=1000' node bench/cluster.mjs
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', process.env.BROKER_DIST ?? 'dist');
const TOPICS = Number(process.env.TOPICS ?? 200);
const TRIALS = Number(process.env.TRIALS ?? 10);
const GRACEFUL_TRIALS = Number(process.env.GRACEFUL_TRIALS ?? TRIALS);
const OVERRIDES = Object.fromEntries((process.env.OVERRIDES ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const READY_TIMEOUT_MS = 60_000;
const FAILOVER_TIMEOUT_MS = 30_000;
const RETRY_MS = 20;

const { Connection } = await import(pathToFileURL(join(dist, 'src/net/connection.js')).href);
const { CreateTopicsRequest, CreateTopicsResponse } = await import(pathToFileURL(join(dist, 'src/protocol/messages/19-create-topics.js')).href);
const { DescribeQuorumRequest, DescribeQuorumResponse } = await import(pathToFileURL(join(dist, 'src/protocol/messages/55-describe-quorum.js')).href);

const { planCluster, portsNeeded } = await import(pathToFileURL(join(dist, 'src/embedded/cluster-plan.js')).href);
const { launchCluster } = await import(pathToFileURL(join(dist, 'src/embedded/launcher.js')).href);
const { cliRunner } = await import(pathToFileURL(join(dist, 'src/embedded/node-runner.js')).href);
const { freePort } = await import(pathToFileURL(join(dist, 'src/embedded/probe.js')).href);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function connect(port) {
  return Connection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 1000, requestTimeoutMs: 5000, negotiateVersions: false });
}

/** Three combined nodes on the shared launcher (src/embedded/launcher.ts); node logs in the temp dir. */
async function startCluster() {
  const root = mkdtempSync(join(tmpdir(), 'tributary-bench-cluster-'));
  const ports = [];
  for (let i = 0; i < portsNeeded(3, 0); i++) ports.push(await freePort());
  const cluster = launchCluster({
    layout: planCluster({ controllers: 3, dir: root, ports }),
    runner: cliRunner({ main: join(dist, 'src/cli/main.js'), output: 'file', startTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs: 15_000 }),
    overrides: { 'log.level': 'warn', ...OVERRIDES },
    readyTimeoutMs: READY_TIMEOUT_MS,
    removeDir: root,
  });
  await cluster.start();
  return cluster;
}

/** Starts a node again and waits until every node lists all three brokers. */
async function restart(cluster, node) {
  await node.start();
  await cluster.waitForBrokers(cluster.ids, cluster.ids);
}

async function leaderOf(nodes) {
  for (const n of nodes) {
    if (!n.isAlive()) continue;
    let conn;
    try {
      conn = await connect(n.controllerPort);
      const r = await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
      const id = r.topics[0]?.partitions[0]?.leaderId ?? -1;
      if (id >= 0) return nodes.find((x) => x.id === id);
    } catch {
      // next
    } finally {
      conn?.destroy();
    }
  }
  return undefined;
}

let topicSeq = 0;
/** One CreateTopics; resolves to the error code. */
async function createTopic(conn, name) {
  const r = await conn.send({ request: CreateTopicsRequest, response: CreateTopicsResponse }, 5, {
    topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  return r.topics[0]?.errorCode ?? -1;
}

async function latencies(port, count, label) {
  const conn = await connect(port);
  const ms = [];
  try {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const code = await createTopic(conn, `bench-${label}-${topicSeq++}`);
      if (code !== 0) throw new Error(`CreateTopics answered error ${code}`);
      ms.push(performance.now() - t0);
    }
  } finally {
    conn.destroy();
  }
  return ms.sort((a, b) => a - b);
}

async function failoverOnce(cluster) {
  const nodes = cluster.nodes;
  const leader = await leaderOf(nodes);
  if (leader === undefined) throw new Error('no leader');
  const survivors = nodes.filter((n) => n !== leader);
  const killedAt = performance.now();
  await leader.kill();
  const deadline = Date.now() + FAILOVER_TIMEOUT_MS;
  let attempt = 0;
  for (;;) {
    const target = survivors[attempt++ % survivors.length];
    let conn;
    try {
      conn = await connect(target.port);
      const code = await createTopic(conn, `bench-failover-${topicSeq++}`);
      if (code === 0) break;
    } catch {
      // retry
    } finally {
      conn?.destroy();
    }
    if (Date.now() > deadline) throw new Error('no controller accepted writes within 30 s');
    await sleep(RETRY_MS);
  }
  const ms = performance.now() - killedAt;
  await restart(cluster, leader);
  return ms;
}

/** SIGTERM of the leader under a stream of CreateTopics to the survivors: the longest gap between accepted ones. */
async function gracefulOnce(cluster) {
  const nodes = cluster.nodes;
  const leader = await leaderOf(nodes);
  if (leader === undefined) throw new Error('no leader');
  const survivors = nodes.filter((n) => n !== leader);
  const conns = await Promise.all(survivors.map((n) => connect(n.port)));
  let exited = false;
  let lastOk = performance.now();
  let gap = 0;
  const deadline = Date.now() + FAILOVER_TIMEOUT_MS;
  const stopping = leader.stop().then(() => (exited = true));
  try {
    for (let attempt = 0; ; attempt++) {
      const i = attempt % conns.length;
      let ok = false;
      try {
        ok = (await createTopic(conns[i], `bench-graceful-${topicSeq++}`)) === 0;
      } catch {
        conns[i].destroy();
        conns[i] = await connect(survivors[i].port).catch(() => conns[i]);
      }
      const now = performance.now();
      if (ok) {
        gap = Math.max(gap, now - lastOk);
        lastOk = now;
        if (exited) break;
      }
      if (Date.now() > deadline) throw new Error('no controller accepted writes within 30 s of the SIGTERM');
      await sleep(RETRY_MS);
    }
  } finally {
    for (const c of conns) c.destroy();
  }
  await stopping;
  await restart(cluster, leader);
  return gap;
}

const fmt = (x) => x.toFixed(1);
console.log(`cluster benchmark: 3 combined nodes, node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (before)`);
if (Object.keys(OVERRIDES).length > 0) console.log(`overrides: ${JSON.stringify(OVERRIDES)}`);
const cluster = await startCluster();
const nodes = cluster.nodes;
try {
  const leader = await leaderOf(nodes);
  const follower = nodes.find((n) => n !== leader);
  await latencies(leader.port, 10, 'warmup');
  const direct = await latencies(leader.port, TOPICS, 'leader');
  const forwarded = await latencies(follower.port, TOPICS, 'follower');
  const failovers = [];
  for (let i = 0; i < TRIALS; i++) {
    failovers.push(await failoverOnce(cluster));
    process.stdout.write('.');
  }
  const graceful = [];
  for (let i = 0; i < GRACEFUL_TRIALS; i++) {
    graceful.push(await gracefulOnce(cluster));
    process.stdout.write('+');
  }
  process.stdout.write('\n');
  failovers.sort((a, b) => a - b);
  graceful.sort((a, b) => a - b);
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (after)\n`);
  console.log('| measure | n | p50 ms | p99 ms | min–max ms |');
  console.log('|---|---|---|---|---|');
  console.log(`| CreateTopics at the active controller | ${direct.length} | ${fmt(percentile(direct, 50))} | ${fmt(percentile(direct, 99))} | ${fmt(direct[0])}–${fmt(direct.at(-1))} |`);
  console.log(`| CreateTopics at a follower (forwarded) | ${forwarded.length} | ${fmt(percentile(forwarded, 50))} | ${fmt(percentile(forwarded, 99))} | ${fmt(forwarded[0])}–${fmt(forwarded.at(-1))} |`);
  if (failovers.length > 0) {
    console.log(`| kill -9 of the active controller → next CreateTopics accepted | ${failovers.length} | ${fmt(percentile(failovers, 50))} (median; goal < 2000) | ${fmt(percentile(failovers, 99))} | ${fmt(failovers[0])}–${fmt(failovers.at(-1))} |`);
  }
  if (graceful.length > 0) {
    console.log(`| SIGTERM of the active controller: longest gap between accepted CreateTopics | ${graceful.length} | ${fmt(percentile(graceful, 50))} (median) | ${fmt(percentile(graceful, 99))} | ${fmt(graceful[0])}–${fmt(graceful.at(-1))} |`);
  }
} finally {
  await cluster.cleanup();
}
