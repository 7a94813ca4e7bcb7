/**
 * A 3-node combined cluster (real processes on loopback): kafkajs creates
 * topics one after another while the active controller is killed with
 * SIGKILL. Afterwards a new controller leads, every topic whose creation was
 * acknowledged exists on every live node (Metadata from each), metadata
 * requests succeed, and the killed node, restarted, catches up.
 * Admin requests sent to a node that is not the active controller are
 * forwarded to it (the bootstrap list starts with a follower).
 * Topics are placed on the surviving nodes (manual assignment): with one
 * replica per partition (no partition replication yet) a topic on the killed
 * node has no leader until it returns, and kafkajs's metadata refresh fails
 * on LEADER_NOT_AVAILABLE partitions (that case is cluster-fencing.test.ts).
 * Short quorum timeouts (test/helpers/cluster-process.ts); every loop is
 * bounded in count and time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type ClusterProcess } from '../helpers/cluster-process.js';

const TOPICS_BEFORE_KILL = 5;
const TOPICS_MAX = 40;
const STREAM_MS_MAX = 20_000;
const CONVERGE_MS_MAX = 20_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function topicsOn(cluster: ClusterProcess, id: number): Promise<Set<string>> {
  const md = await cluster.metadata(id);
  return new Set(md.topics.filter((t) => t.errorCode === 0 && t.name !== null).map((t) => t.name as string));
}

async function waitForTopics(cluster: ClusterProcess, id: number, names: readonly string[]): Promise<void> {
  const deadline = Date.now() + CONVERGE_MS_MAX;
  let missing: string[] = [...names];
  while (Date.now() < deadline) {
    try {
      const have = await topicsOn(cluster, id);
      missing = names.filter((n) => !have.has(n));
      if (missing.length === 0) return;
    } catch {
      // node still starting
    }
    await sleep(100);
  }
  assert.fail(`node ${id} lacks acknowledged topics after ${CONVERGE_MS_MAX} ms: ${missing.join(', ')}`);
}

test('kill -9 of the active controller during a CreateTopics stream loses no acknowledged topic', { timeout: 90_000 }, async (t) => {
  // Snapshots every 1 KiB of metadata: the leader drops its log prefix often, so the
  // restarted node is usually behind the leader's log start and installs a snapshot.
  const cluster = await startCluster({ name: 'failover', overrides: { 'metadata.log.max.record.bytes.between.snapshots': '1024' } });
  t.after(() => cluster.cleanup());
  const leader = await cluster.waitForActiveController([1, 2, 3]);
  const others = [1, 2, 3].filter((id) => id !== leader);
  // Bootstrap from a follower first: its admin requests are forwarded to the leader.
  const order = [...others, leader];
  const kafka = new Kafka({
    clientId: 'cluster-failover',
    brokers: order.map((id) => cluster.node(id).bootstrap),
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 },
    requestTimeout: 15_000,
    connectionTimeout: 1_000,
  });
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());

  const acknowledged: string[] = [];
  const failed: string[] = [];
  const errors = new Set<string>();
  let killedAt = -1;
  const started = Date.now();
  for (let i = 0; i < TOPICS_MAX && Date.now() - started < STREAM_MS_MAX; i++) {
    if (i === TOPICS_BEFORE_KILL) {
      await cluster.node(leader).kill9();
      killedAt = i;
    }
    const topic = `failover-${i}`;
    try {
      // false = it already existed: an earlier attempt was committed before its answer was lost.
      await admin.createTopics({ topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [others[i % 2] as number] }] }], waitForLeaders: false });
      acknowledged.push(topic);
    } catch (err) {
      failed.push(topic);
      errors.add(`${(err as Error).name}: ${(err as Error).message} ${JSON.stringify((err as { errors?: unknown }).errors ?? '')}`);
    }
    if (killedAt >= 0 && acknowledged.length >= TOPICS_BEFORE_KILL + 5) break;
  }
  t.diagnostic(`leader ${leader} killed after ${TOPICS_BEFORE_KILL} topics; acknowledged ${acknowledged.length}, failed ${failed.length}: ${[...errors].join(" | ").slice(0, 1500)}`);
  assert.equal(killedAt, TOPICS_BEFORE_KILL, 'the leader was killed mid-stream');
  assert.ok(acknowledged.length >= TOPICS_BEFORE_KILL + 5, `topics were acknowledged after the kill (acknowledged ${acknowledged.length}, failed ${failed.join(',') || 'none'}; errors: ${[...errors].join(' | ')})\n${cluster.tails(20)}`);

  const newLeader = await cluster.waitForActiveController(others, leader);
  assert.ok(others.includes(newLeader));
  await cluster.waitForBrokers(others, others);
  for (const id of others) await waitForTopics(cluster, id, acknowledged);

  // Metadata answers on every live node, and a write after the failover commits.
  assert.equal(await admin.createTopics({ topics: [{ topic: 'after-failover', numPartitions: 2 }] }), true);
  for (const id of others) await waitForTopics(cluster, id, ['after-failover']);

  // metadata.log.max.record.bytes.between.snapshots reached Raft: the new leader has written snapshots.
  const metadataDir = join(cluster.node(newLeader).dataDir, '__cluster_metadata-0');
  assert.ok(readdirSync(metadataDir).some((f) => f.endsWith('.checkpoint')), `a snapshot in ${metadataDir}`);

  // The killed node restarts and catches up from the new leader.
  await cluster.node(leader).start();
  await cluster.waitForBrokers([1, 2, 3], [1, 2, 3]);
  await waitForTopics(cluster, leader, [...acknowledged, 'after-failover']);
});
