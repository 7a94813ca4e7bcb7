/**
 * Broker liveness with real processes: a broker frozen with SIGSTOP misses
 * its heartbeats and is fenced after broker.session.timeout.ms (Metadata from
 * the other nodes drops it and answers LEADER_NOT_AVAILABLE for the
 * partitions it alone hosts); after SIGCONT it heartbeats again and is
 * unfenced. A broker stopped with SIGTERM runs a controlled shutdown: the
 * controller takes it out of service before it exits, and it exits cleanly.
 * The paused / stopped node is never the active controller, so the quorum
 * stays up (that failover is cluster-failover.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type ClusterProcess } from '../helpers/cluster-process.js';
import { createTopicsRaw, type MetadataV1 } from '../helpers/raw-kafka.js';

const WAIT_MS_MAX = 20_000;
const LEADER_NOT_AVAILABLE = 5;
const TOPIC = 'fencing';
const PARTITIONS = 6;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitForMetadata(cluster: ClusterProcess, askId: number, what: string, ok: (md: MetadataV1) => boolean): Promise<MetadataV1> {
  const deadline = Date.now() + WAIT_MS_MAX;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const md = await cluster.metadata(askId, 2_000);
      if (ok(md)) return md;
      last = JSON.stringify({ brokers: md.brokers.map((b) => b.nodeId), topics: md.topics });
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  assert.fail(`node ${askId}: ${what} not seen within ${WAIT_MS_MAX} ms; last: ${last}\n${cluster.tails(15)}`);
}

/** Partitions of TOPIC hosted (led) by `id` when everything is live. */
function ledBy(md: MetadataV1, id: number): number[] {
  return md.topics.find((t) => t.name === TOPIC)?.partitions.filter((p) => p.leader === id).map((p) => p.partition) ?? [];
}

test('a SIGSTOPped broker is fenced after the session timeout and unfenced after SIGCONT; SIGTERM is a controlled shutdown', { timeout: 90_000 }, async (t) => {
  const cluster = await startCluster({ name: 'fencing' });
  t.after(() => cluster.cleanup());
  const leader = await cluster.waitForActiveController([1, 2, 3]);
  const [victim, witness] = [1, 2, 3].filter((id) => id !== leader) as [number, number];

  await createTopicsRaw(cluster.node(witness).port, [{ name: TOPIC, partitions: PARTITIONS }]);
  const before = await waitForMetadata(cluster, witness, 'every partition led', (md) => {
    const t = md.topics.find((x) => x.name === TOPIC);
    return t !== undefined && t.partitions.length === PARTITIONS && t.partitions.every((p) => p.leader >= 0);
  });
  const victims = ledBy(before, victim);
  assert.ok(victims.length > 0, `node ${victim} leads some partition of ${TOPIC}`);

  cluster.pause(victim);
  const fenced = await waitForMetadata(cluster, witness, `node ${victim} fenced`, (md) => {
    const t = md.topics.find((x) => x.name === TOPIC);
    return !md.brokers.some((b) => b.nodeId === victim) && t !== undefined && victims.every((p) => t.partitions.find((x) => x.partition === p)?.errorCode === LEADER_NOT_AVAILABLE);
  });
  // The other partitions keep their leaders.
  const stillLed = fenced.topics.find((x) => x.name === TOPIC)?.partitions.filter((p) => !victims.includes(p.partition)) ?? [];
  assert.ok(stillLed.every((p) => p.errorCode === 0 && p.leader >= 0 && p.leader !== victim));

  cluster.resume(victim);
  await waitForMetadata(cluster, witness, `node ${victim} unfenced and leading again`, (md) => {
    const t = md.topics.find((x) => x.name === TOPIC);
    return md.brokers.some((b) => b.nodeId === victim) && t !== undefined && victims.every((p) => t.partitions.find((x) => x.partition === p)?.leader === victim);
  });

  // Controlled shutdown: the node exits cleanly once the controller agreed, and the others see it gone at once.
  const stopped = await cluster.node(victim).stop();
  assert.equal(stopped.killed, false);
  assert.equal(stopped.code, 0);
  assert.match(cluster.node(victim).tail(200), /controlled shutdown done/);
  await waitForMetadata(cluster, witness, `node ${victim} out of service after its shutdown`, (md) => {
    const t = md.topics.find((x) => x.name === TOPIC);
    return !md.brokers.some((b) => b.nodeId === victim) && t !== undefined && victims.every((p) => t.partitions.find((x) => x.partition === p)?.leader !== victim);
  });
});
