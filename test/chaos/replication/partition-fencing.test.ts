/**
 * The partitionable network with real processes: cutting the active
 * controller off (test/helpers/node-network.ts, blackhole mode) makes the
 * two others elect a new Raft leader among themselves and fence the cut
 * node once its broker session expires, while clients through the proxies
 * can no longer reach it; after the heal it is a live broker again. This is
 * what the replication scenarios rely on: the proxies really carry the Raft
 * traffic, the heartbeats and the client connections.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from '../../helpers/cluster-process.js';
import { RawConnection, metadataV1Request } from '../../helpers/raw-kafka.js';
import { CHAOS_READY_TIMEOUT_MS, NODES } from './scenario.js';

const WAIT_MS = 30_000;

test('a partitioned active controller loses leadership and is fenced; after the heal it is back', { timeout: 120_000 }, async (t) => {
  const cluster = await startCluster({ name: 'partition-fencing', network: true, readyTimeoutMs: CHAOS_READY_TIMEOUT_MS });
  t.after(() => cluster.cleanup());
  const network = cluster.network!;
  const victim = await cluster.waitForActiveController([...NODES]);
  const others = NODES.filter((id) => id !== victim);
  const victimProxy = Number(cluster.bootstrap.split(',')[victim - 1]!.split(':')[1]);

  network.partition(victim);
  const successor = await cluster.waitForActiveController(others, victim, WAIT_MS);
  assert.ok(others.includes(successor));
  // The others stop listing the victim once its session expires (it cannot heartbeat).
  await cluster.waitForBrokers(others, others, WAIT_MS);
  // A client going through the proxies cannot reach the victim; its own port still answers (not cut).
  const viaProxy = await RawConnection.connect(victimProxy);
  await viaProxy.write(metadataV1Request(1, null));
  assert.equal((await viaProxy.next(1_000)).kind, 'timeout');
  viaProxy.close();
  assert.ok((await cluster.metadata(victim, 5_000)).brokers.length > 0, 'the node itself runs on');

  network.heal();
  await cluster.waitForBrokers([...NODES], [...NODES], WAIT_MS);
  assert.ok(network.stats.blackholed > 0, 'links were blackholed');
  // Inter-node clients should name their node (node-network.ts); /proc found these that do not.
  if (network.unnamedClientIds.size > 0) t.diagnostic(`inter-node client ids naming no node: ${[...network.unnamedClientIds].join(', ')}`);
});
