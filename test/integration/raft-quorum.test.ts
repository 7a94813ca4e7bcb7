/**
 * Three RaftMetadataLogs in one process, each behind a real controller
 * listener (SocketServer + the quorum handlers) on 127.0.0.1 with its own
 * data dir: they elect a leader, replicate appends to every listener in the
 * same order, elect a new leader when the leader stops, and a restarted node
 * catches up from the new leader's snapshot (its log ends before it).
 * Small timeouts; every wait is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { HandlerRegistry } from '../../src/broker/handler-registry.js';
import { SocketServer } from '../../src/broker/server.js';
import type { BrokerServices } from '../../src/broker/services.js';
import { RequestMetrics } from '../../src/broker/request-metrics.js';
import { apiVersionsHandler } from '../../src/broker/handlers/18-api-versions.js';
import { fetchHandler } from '../../src/broker/handlers/01-fetch.js';
import { voteHandler } from '../../src/broker/handlers/52-vote.js';
import { beginQuorumEpochHandler } from '../../src/broker/handlers/53-begin-quorum-epoch.js';
import { describeQuorumHandler } from '../../src/broker/handlers/55-describe-quorum.js';
import { fetchSnapshotHandler } from '../../src/broker/handlers/59-fetch-snapshot.js';
import type { AnyHandler } from '../../src/broker/handler.js';
import { Connection } from '../../src/net/connection.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../src/protocol/messages/55-describe-quorum.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { RaftMetadataLog } from '../../src/controller/quorum/raft-metadata-log.js';
import type { VoterEndpoint } from '../../src/controller/quorum/transport.js';
import type { MetadataBatch } from '../../src/controller/metadata/batch.js';
import { MetadataImage } from '../../src/controller/metadata/image.js';
import type { MetadataRecord } from '../../src/controller/metadata/records.js';
import { NodeFileSystem } from '../../src/storage/fs.js';
import { systemClock } from '../../src/util/clock.js';
import { SeededRandom } from '../../src/util/random.js';
import { systemTimer } from '../../src/util/timer.js';

const CLUSTER_ID = 'raft-quorum-test-clust';
const WAIT_MS_MAX = 20_000;
const RAFT = { electionTimeoutMs: 150, fetchTimeoutMs: 400, fetchBackoffMs: 10, requestTimeoutMs: 60 };
const SNAPSHOT_EVERY_RECORDS = 8;

const controllerHandlers = [apiVersionsHandler, fetchHandler, voteHandler, beginQuorumEpochHandler, describeQuorumHandler, fetchSnapshotHandler] as unknown as AnyHandler[];
const registry = new HandlerRegistry(controllerHandlers);

interface Node {
  readonly id: number;
  readonly dataDir: string;
  port: number;
  server: SocketServer | null;
  log: RaftMetadataLog | null;
  batches: MetadataBatch[];
  image: MetadataImage;
}

/** The nodes under test, for failure messages. */
let allNodes: readonly Node[] = [];
const nodesState = (): string => allNodes.map((n) => `node ${n.id} ${JSON.stringify(n.log?.status() ?? 'stopped')} epoch ${n.log?.epoch} leader ${n.log?.leaderId}`).join('; ');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${nodesState()}`);
    await sleep(10);
  }
}

/** The controller listener's services: only what its connections and handlers reach (request metrics, ApiVersions, the quorum). */
function controllerServices(node: Node): BrokerServices {
  const services = {
    metrics: new RequestMetrics(),
    apiVersions: () => registry.ranges(),
    get raft() {
      return node.log?.service;
    },
  };
  return services as unknown as BrokerServices;
}

async function bind(node: Node): Promise<void> {
  const server = new SocketServer(registry, controllerServices(node), { requestBytesMax: 8 * 1024 * 1024, inFlightRequestsMax: 64 }, pino({ level: 'silent' }));
  const bound = await server.listen({ name: 'CONTROLLER', host: '127.0.0.1', port: node.port });
  node.port = bound.port;
  node.server = server;
}

async function startLog(node: Node, voters: readonly VoterEndpoint[]): Promise<void> {
  node.batches = [];
  node.image = new MetadataImage(CLUSTER_ID);
  const log = RaftMetadataLog.open({
    fs: new NodeFileSystem(),
    clock: systemClock,
    random: new SeededRandom(node.id * 7919),
    timer: systemTimer,
    dataDir: node.dataDir,
    nodeId: node.id,
    voters,
    clusterId: CLUSTER_ID,
    raft: RAFT,
    tickIntervalMs: 5,
    snapshotIntervalRecords: SNAPSHOT_EVERY_RECORDS,
    onWarning: (m) => {
      if (process.env['RAFT_DEBUG'] !== undefined) console.error(`[node ${node.id}] ${m}`);
    },
  });
  node.log = log;
  await log.start((batch) => {
    node.image.apply(batch); // the image's invariants check order and content
    node.batches.push(batch);
  });
}

async function stop(node: Node): Promise<void> {
  await node.log?.close();
  node.log = null;
  await node.server?.shutdown(100);
  node.server = null;
}

function leaderOf(nodes: readonly Node[]): Node | undefined {
  const leaders = nodes.filter((n) => n.log?.isLeader === true);
  return leaders.length === 1 ? leaders[0] : undefined;
}

function configRecords(from: number, count: number): MetadataRecord[][] {
  return Array.from({ length: count }, (_, i) => [
    { type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `key.${from + i}`, value: `v${from + i}` } },
    { type: 'FeatureLevelRecord', data: { name: `feature.${(from + i) % 3}`, featureLevel: from + i + 1 } },
  ]);
}

/** Appends through whoever leads now; a leader change mid-append retries (the records are idempotent sets). */
async function appendViaLeader(nodes: readonly Node[], records: MetadataRecord[]): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX;
  for (;;) {
    const leader = await waitFor('a leader', () => leaderOf(nodes));
    try {
      await (leader.log as RaftMetadataLog).append(records);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_TRIB_METADATA_NOT_LEADER' || Date.now() > deadline) throw err;
    }
  }
}

/** Every node delivered the same data batches (at least `count`) and holds the same image. */
function agree(nodes: readonly Node[], count: number): boolean {
  const first = nodes[0] as Node;
  return dataBatches(first).length >= count && nodes.every((n) => dataBatches(n).join() === dataBatches(first).join()) && agreeOnState(nodes);
}

function agreeOnState(nodes: readonly Node[]): boolean {
  return nodes.every((n) => stateOf(n) === stateOf(nodes[0] as Node));
}

const stateOf = (n: Node): string =>
  n.image
    .toRecords()
    .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
    .sort()
    .join('\n');
const dataBatches = (n: Node): string[] => n.batches.filter((b) => b.records.length > 0).map((b) => `${b.baseOffset}-${b.lastOffset}`);

test('three voters on loopback: elect, replicate, fail over, catch up from a snapshot', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'trib-raft-'));
  const nodes: Node[] = [1, 2, 3].map((id) => ({ id, dataDir: join(root, `node-${id}`), port: 0, server: null, log: null, batches: [], image: new MetadataImage(CLUSTER_ID) }));
  try {
    allNodes = nodes;
    for (const n of nodes) await bind(n);
    const voters = nodes.map((n) => ({ id: n.id, host: '127.0.0.1', port: n.port }));
    await Promise.all(nodes.map((n) => startLog(n, voters)));

    // 1. A leader is elected; it appends; every listener sees the same batches in the same order.
    await waitFor('a leader', () => leaderOf(nodes));
    for (const records of configRecords(0, 5)) await appendViaLeader(nodes, records);
    await waitFor('every node applied the 5 appends', () => agree(nodes, 5));
    const leaderNow = await waitFor('a leader', () => leaderOf(nodes));

    // A follower refuses appends and names the leader.
    const follower = nodes.find((n) => n !== leaderNow) as Node;
    await assert.rejects((follower.log as RaftMetadataLog).append(configRecords(100, 1)[0] as MetadataRecord[]), (err: Error & { code?: string; leaderId?: number | null }) => {
      assert.equal(err.code, 'ERR_TRIB_METADATA_NOT_LEADER');
      assert.ok(err.leaderId === leaderNow.id || err.leaderId === null || leaderOf(nodes) !== leaderNow, `names the leader (${err.leaderId})`);
      return true;
    });

    // DescribeQuorum over the wire: the leader reports all three voters; a follower answers NOT_LEADER_OR_FOLLOWER.
    const ask = async (n: Node): Promise<DescribeQuorumResponse> => {
      const c = await Connection.connect({ host: '127.0.0.1', port: n.port });
      try {
        return await c.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
      } finally {
        await c.close();
      }
    };
    const described = await waitFor('DescribeQuorum from the leader', async () => {
      const l = leaderOf(nodes);
      return l === undefined ? undefined : { id: l.id, p: (await ask(l)).topics[0]?.partitions[0] };
    });
    assert.equal(described.p?.errorCode, ErrorCode.NONE);
    assert.equal(described.p?.leaderId, described.id);
    assert.deepEqual(described.p?.currentVoters.map((v) => v.replicaId).sort(), [1, 2, 3]);
    assert.ok(described.p !== undefined && described.p.highWatermark > 0n);
    const other = nodes.find((n) => n.id !== described.id) as Node;
    assert.equal((await ask(other)).topics[0]?.partitions[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);

    // 2. The leader stops: the other two elect a new leader, whose appends commit (and trigger snapshots).
    const stopped = await waitFor('a leader', () => leaderOf(nodes));
    const oldEnd = stopped.log?.status().endOffset ?? 0;
    await stop(stopped);
    const rest = nodes.filter((n) => n !== stopped);
    const second = await waitFor('a new leader', () => leaderOf(rest));
    assert.notEqual(second.id, stopped.id);
    for (const records of configRecords(5, 12)) await appendViaLeader(rest, records);
    await waitFor('both live nodes applied 17 appends', () => agree(rest, 17));
    const leaderStart = await waitFor('the leader snapshotted past the stopped node', () => {
      const s = leaderOf(rest)?.log?.status();
      return s !== undefined && s.logStartOffset > oldEnd ? s.logStartOffset : undefined;
    });

    // 3. The old leader restarts behind the snapshot: it loads it and catches up to the same image.
    await bind(stopped);
    await startLog(stopped, voters);
    await waitFor('the restarted node caught up', () => agreeOnState(nodes) && (stopped.log?.status().appliedOffset ?? 0) >= leaderStart);
    assert.ok((stopped.log?.status().logStartOffset ?? 0) >= leaderStart, 'the restarted node installed the snapshot');
    // The snapshot reached its listener as one batch, not as the appends it covers.
    assert.ok(dataBatches(stopped).length < 17, `the snapshot arrived as one batch (${dataBatches(stopped).length} batches)`);
    for (const records of configRecords(17, 2)) await appendViaLeader(nodes, records);
    await waitFor('all three agree after more appends', () => agreeOnState(nodes) && nodes.every((n) => n.image.configs(4, '').get('key.18') === 'v18'));
  } finally {
    for (const n of nodes) await stop(n);
    rmSync(root, { recursive: true, force: true });
  }
});
