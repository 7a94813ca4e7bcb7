/**
 * Graceful hand-over of the metadata quorum (issue 6): SIGTERM of the active
 * controller of a 3-node combined cluster (real processes on loopback). The
 * leader resigns with EndQuorumEpoch (RaftNode.resign) before its listeners
 * close, and its preferred successor is elected in the next epoch at once.
 *
 * Not timed: the fetch timeout is set far above the time the resigning node
 * waits for a successor (RESIGN_WAIT_MS_DEFAULT, 2 s), so a successor it sees
 * while still running can only come from EndQuorumEpoch (without it the
 * voters would wait out their 15 s fetch timeout); the node logs whether it
 * saw one. Every wait is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection } from '../../src/net/connection.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../src/protocol/messages/55-describe-quorum.js';
import { startCluster, type ClusterProcess } from '../helpers/cluster-process.js';

const WAIT_MS = 20_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** (leaderId, epoch) as node `id` sees them (DescribeQuorum on its controller listener); null if it does not answer. */
async function quorumAt(cluster: ClusterProcess, id: number): Promise<{ leaderId: number; epoch: number } | null> {
  try {
    const conn = await Connection.connect({ host: '127.0.0.1', port: cluster.controllerPort(id), connectTimeoutMs: 1000, requestTimeoutMs: 2000 });
    try {
      const res = await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
      const p = res.topics[0]?.partitions[0];
      return p === undefined ? null : { leaderId: p.leaderId, epoch: p.leaderEpoch };
    } finally {
      conn.destroy();
    }
  } catch {
    return null;
  }
}

test('SIGTERM of the active controller hands leadership over with EndQuorumEpoch, in the next epoch', { timeout: 90_000 }, async (t) => {
  const cluster = await startCluster({
    name: 'resign',
    overrides: { 'controller.quorum.fetch.timeout.ms': '15000', 'controller.quorum.election.timeout.ms': '1000' },
  });
  t.after(() => cluster.cleanup());
  const leader = await cluster.waitForActiveController([1, 2, 3]);
  const before = await quorumAt(cluster, leader);
  assert.ok(before !== null && before.leaderId === leader, `node ${leader} answers as the leader`);
  const survivors = [1, 2, 3].filter((id) => id !== leader);

  const stopped = await cluster.node(leader).stop();
  assert.equal(stopped.killed, false, 'the leader stopped on SIGTERM');
  const log = cluster.node(leader).tail(400);
  const line = log.split('\n').find((l) => l.includes('resigned metadata leadership'));
  assert.ok(line !== undefined, `the leader resigned (EndQuorumEpoch); its log:\n${log}`);
  assert.match(line, /"handedOver":true/, 'it saw a successor elected before it stopped');
  assert.match(line, new RegExp(`"epoch":${before.epoch}\\b`));

  const deadline = Date.now() + WAIT_MS;
  let seen: { leaderId: number; epoch: number } | null = null;
  while (Date.now() < deadline) {
    seen = await quorumAt(cluster, survivors[0] ?? -1);
    if (seen !== null && seen.leaderId >= 0 && seen.leaderId !== leader) break;
    await sleep(100);
  }
  assert.ok(seen !== null && survivors.includes(seen.leaderId), `a survivor leads (seen ${JSON.stringify(seen)})`);
  assert.equal(seen.epoch, before.epoch + 1, 'the successor leads the very next epoch (no timeout, no split vote)');
  const other = await quorumAt(cluster, survivors[1] ?? -1);
  assert.deepEqual(other, seen, 'both survivors agree');
});
