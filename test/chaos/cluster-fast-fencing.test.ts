/**
 * Fast failure detection with real processes (beyond Kafka): a broker killed
 * with kill -9 drops the connection its heartbeats came on, and the active
 * controller fences it at once instead of after broker.session.timeout.ms
 * (10 s here): the others' Metadata drops it within ~1-2 s. A SIGSTOPped
 * broker keeps its connection open, so it still goes by the session timeout.
 * The killed broker then restarts without a clean-shutdown marker (an
 * unclean restart, KIP-966) and leads its single-replica partitions again
 * (it is their last known ELR member). Both victims are broker-only nodes,
 * so the quorum stays up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type ClusterProcess } from '../helpers/cluster-process.js';
import { createTopicsRaw, type MetadataV1 } from '../helpers/raw-kafka.js';

const SESSION_TIMEOUT_MS = 10_000;
const FAST_FENCE_MS_MAX = 2_500;
const TOPIC = 'fast-fencing';
const PARTITIONS = 6;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(cluster: ClusterProcess, askId: number, what: string, waitMs: number, ok: (md: MetadataV1) => boolean): Promise<number> {
  const started = performance.now();
  let last = '';
  while (performance.now() - started < waitMs) {
    try {
      const md = await cluster.metadata(askId, 2_000);
      if (ok(md)) return performance.now() - started;
      last = JSON.stringify({ brokers: md.brokers.map((b) => b.nodeId) });
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(50);
  }
  assert.fail(`node ${askId}: ${what} not seen within ${waitMs} ms; last: ${last}\n${cluster.tails(15)}`);
}

const listed = (md: MetadataV1, id: number): boolean => md.brokers.some((b) => b.nodeId === id);

test('kill -9 fences a broker at once; SIGSTOP waits for the session timeout', { timeout: 120_000 }, async (t) => {
  // Three voters and two broker-only nodes (4, 5): the victims are the broker-only ones, so the quorum never loses a voter.
  const cluster = await startCluster({ name: 'fast-fencing', brokers: 2, overrides: { 'broker.session.timeout.ms': String(SESSION_TIMEOUT_MS) } });
  t.after(() => cluster.cleanup());
  const leader = await cluster.waitForActiveController([1, 2, 3]);
  const [killed, paused] = [4, 5] as const;
  await until(cluster, leader, 'every broker in service', 20_000, (m) => [1, 2, 3, 4, 5].every((id) => listed(m, id)));
  await createTopicsRaw(cluster.node(leader).port, [{ name: TOPIC, partitions: PARTITIONS }]);
  const md = await cluster.metadata(leader);
  const ledByKilled = md.topics.find((x) => x.name === TOPIC)?.partitions.filter((p) => p.leader === killed).map((p) => p.partition) ?? [];

  await cluster.node(killed).kill9();
  const fencedAfterMs = await until(cluster, leader, `node ${killed} fenced`, SESSION_TIMEOUT_MS - 1_000, (m) => !listed(m, killed));
  t.diagnostic(`kill -9: fenced after ${Math.round(fencedAfterMs)} ms (session timeout ${SESSION_TIMEOUT_MS} ms)`);
  assert.ok(fencedAfterMs < FAST_FENCE_MS_MAX, `fenced after ${fencedAfterMs} ms`);
  assert.match(cluster.node(leader).tail(400), /fenced it without waiting for its session to expire/);

  cluster.pause(paused);
  const pausedAt = performance.now();
  await sleep(3_000);
  assert.ok(listed(await cluster.metadata(leader), paused), 'a paused broker is still in service after 3 s');
  await until(cluster, leader, `node ${paused} fenced by its session timeout`, SESSION_TIMEOUT_MS + 5_000, (m) => !listed(m, paused));
  const pausedFencedMs = performance.now() - pausedAt;
  t.diagnostic(`SIGSTOP: fenced after ${Math.round(pausedFencedMs)} ms`);
  assert.ok(pausedFencedMs >= SESSION_TIMEOUT_MS - 500, `a paused broker goes by the session timeout (${pausedFencedMs} ms)`);
  cluster.resume(paused);

  // The unclean restart: back in service, leading its partitions again.
  await cluster.node(killed).start();
  await until(cluster, leader, `node ${killed} back and leading`, 20_000, (m) => {
    const topic = m.topics.find((x) => x.name === TOPIC);
    return listed(m, killed) && topic !== undefined && ledByKilled.every((p) => topic.partitions.find((x) => x.partition === p)?.leader === killed);
  });
});

test('kill -9 of the active controller: the next controller fences it at once (its listeners refuse), not after the session timeout', { timeout: 120_000 }, async (t) => {
  // A long session timeout, so that a fence by expiry cannot pass for the fast one.
  const sessionTimeoutMs = 30_000;
  const cluster = await startCluster({ name: 'takeover-fencing', overrides: { 'broker.session.timeout.ms': String(sessionTimeoutMs) } });
  t.after(() => cluster.cleanup());
  const victim = await cluster.waitForActiveController([1, 2, 3]);
  const witness = [1, 2, 3].find((id) => id !== victim)!;
  await until(cluster, witness, 'every broker in service', 20_000, (m) => [1, 2, 3].every((id) => listed(m, id)));
  await cluster.node(victim).kill9();
  const fencedAfterMs = await until(cluster, witness, `node ${victim} fenced`, sessionTimeoutMs - 5_000, (m) => !listed(m, victim));
  t.diagnostic(`kill -9 of the active controller ${victim}: fenced after ${Math.round(fencedAfterMs)} ms (session timeout ${sessionTimeoutMs} ms)`);
  const next = await cluster.waitForActiveController([1, 2, 3].filter((id) => id !== victim));
  assert.match(cluster.node(next).tail(400), /refused connections when this controller took over/);
});
