/**
 * The controller side of replication on a real 3-node cluster (processes on
 * loopback), through the wire:
 *  - AlterPartition (56) is served on controller listeners only: a
 *    non-active controller answers NOT_CONTROLLER, the active one checks the
 *    sender's broker epoch (STALE_BROKER_EPOCH), and client listeners do not
 *    advertise it;
 *  - ElectLeaders and AlterPartitionReassignments sent to a node that is not
 *    the active controller are forwarded and answered by the controller's
 *    rules (single-replica partitions: ELECTION_NOT_NEEDED, the current
 *    replica list a no-op, a move to another broker accepted);
 *  - a SIGTERM stop leaves the clean-shutdown marker, and the restarted node
 *    registers cleanly and leads its partitions again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster } from '../helpers/cluster-process.js';
import { createTopicsRaw } from '../helpers/raw-kafka.js';
import { Connection } from '../../src/net/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { AlterPartitionRequest, AlterPartitionResponse } from '../../src/protocol/messages/56-alter-partition.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js';
import { ElectLeadersRequest, ElectLeadersResponse } from '../../src/protocol/messages/43-elect-leaders.js';
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../../src/protocol/messages/45-alter-partition-reassignments.js';
import { CLEAN_SHUTDOWN_FILE } from '../../src/broker/lifecycle/clean-shutdown.js';

const TOPIC = 'replication-control';
const WAIT_MS_MAX = 20_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function withConnection<T>(port: number, use: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await Connection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 1_000, requestTimeoutMs: 12_000, negotiateVersions: false });
  try {
    return await use(conn);
  } finally {
    conn.destroy();
  }
}

const ALTER_PARTITION = { request: AlterPartitionRequest, response: AlterPartitionResponse };
const alterPartition = (port: number) =>
  withConnection(port, (c) => c.send(ALTER_PARTITION, 3, { brokerId: 1, brokerEpoch: 123_456_789n, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: [{ partitionIndex: 0, leaderEpoch: 0, newIsrWithEpochs: [{ brokerId: 1, brokerEpoch: -1n }], leaderRecoveryState: 0, partitionEpoch: 0 }] }] }));

test('AlterPartition, forwarded elections and reassignments, clean restart', { timeout: 120_000 }, async (t) => {
  const cluster = await startCluster({ name: 'replication-control' });
  t.after(() => cluster.cleanup());
  const leader = await cluster.waitForActiveController([1, 2, 3]);
  const [follower] = [1, 2, 3].filter((id) => id !== leader) as [number];

  assert.equal((await alterPartition(cluster.controllerPort(follower))).errorCode, ErrorCode.NOT_CONTROLLER);
  assert.equal((await alterPartition(cluster.controllerPort(leader))).errorCode, ErrorCode.STALE_BROKER_EPOCH);
  const clientApis = await withConnection(cluster.node(follower).port, (c) => c.send({ request: ApiVersionsRequest, response: ApiVersionsResponse }, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' }));
  assert.ok(!clientApis.apiKeys.some((k) => k.apiKey === 56), 'client listeners do not serve AlterPartition');

  await createTopicsRaw(cluster.node(leader).port, [{ name: TOPIC, partitions: 3 }]);
  let md = await cluster.metadata(follower);
  const deadline = Date.now() + WAIT_MS_MAX;
  while (md.topics.find((x) => x.name === TOPIC)?.partitions.length !== 3 && Date.now() < deadline) {
    await sleep(100);
    md = await cluster.metadata(follower);
  }
  const partitions = md.topics.find((x) => x.name === TOPIC)?.partitions ?? [];
  assert.equal(partitions.length, 3);

  const elected = await withConnection(cluster.node(follower).port, (c) => c.send({ request: ElectLeadersRequest, response: ElectLeadersResponse }, 2, { electionType: 0, topicPartitions: [{ topic: TOPIC, partitions: [0, 1, 2, 7] }], timeoutMs: 5_000 }));
  assert.deepEqual(elected.replicaElectionResults[0]?.partitionResult.map((p) => p.errorCode), [ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);

  const p0 = partitions.find((p) => p.partition === 0);
  assert.ok(p0 !== undefined);
  const elsewhere = [1, 2, 3].find((id) => id !== p0.leader) as number;
  const reassigned = await withConnection(cluster.node(follower).port, (c) =>
    c.send({ request: AlterPartitionReassignmentsRequest, response: AlterPartitionReassignmentsResponse }, 0, {
      timeoutMs: 5_000,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, replicas: [p0.leader] }, { partitionIndex: 1, replicas: [elsewhere === p0.leader ? 1 : elsewhere] }, { partitionIndex: 2, replicas: null }] }],
    }),
  );
  const codes = reassigned.responses[0]?.partitions.map((p) => p.errorCode);
  assert.equal(codes?.[0], ErrorCode.NONE, 'the current replica list: a no-op');
  assert.equal(codes?.[2], ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  const p1 = partitions.find((p) => p.partition === 1);
  const movedAway = p1 !== undefined && p1.leader !== elsewhere ? 1 : -1;
  if (movedAway === 1) assert.equal(codes?.[1], ErrorCode.NONE, 'a move to another broker is accepted: the new replica catches up as a follower');

  // SIGTERM: controlled shutdown, the marker, a clean restart.
  const stopped = await cluster.node(follower).stop();
  assert.equal(stopped.code, 0);
  assert.ok(existsSync(join(cluster.node(follower).dataDir, CLEAN_SHUTDOWN_FILE)), 'the clean-shutdown marker is written');
  await cluster.node(follower).start();
  assert.ok(!existsSync(join(cluster.node(follower).dataDir, CLEAN_SHUTDOWN_FILE)), 'taken at start');
  const led = partitions.filter((p) => p.leader === follower && p.partition !== movedAway).map((p) => p.partition);
  const back = Date.now() + WAIT_MS_MAX;
  for (;;) {
    const now = await cluster.metadata(leader).catch(() => null);
    const topic = now?.topics.find((x) => x.name === TOPIC);
    if (now !== null && now.brokers.some((b) => b.nodeId === follower) && topic !== undefined && led.every((p) => topic.partitions.find((x) => x.partition === p)?.leader === follower)) break;
    assert.ok(Date.now() < back, `node ${follower} leads its partitions again`);
    await sleep(100);
  }
});
