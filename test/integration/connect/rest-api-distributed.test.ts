/**
 * Kafka Connect's REST API on a distributed group of two workers, as a
 * table of requests sent to the leader or the follower: reads are served by
 * either; changes sent to the follower are forwarded to the leader (config
 * writes, restarts, stop, offsets) and answer as the leader does (201, 409
 * for a duplicate, 400 with the validation errors); pause and resume are
 * written by the worker that gets them. KIP-875 offsets of a stopped source
 * and sink connector are read, altered and reset through the follower.
 * Then the 409s Kafka answers: a request with forward=false that would need
 * forwarding, a worker that has not joined yet (no known leader), and a
 * change sent while a rebalance cannot finish (a member that stopped taking
 * part holds it open), after waiting REBALANCE_WAIT_MS for it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startDistributed, type DistributedWorkerHandle } from '../../../src/connect/index.js';
import { NO_LEADER, REBALANCE_EXPECTED, REBALANCE_WAIT_MS } from '../../../src/connect/distributed/herder.js';
import { encodeMetadata } from '../../../src/connect/distributed/protocol.js';
import { Cluster, GroupMember } from '../../../src/client/index.js';
import { distributedProps, rest, waitFor } from '../../helpers/connect-distributed.js';

let cluster: EmbeddedCluster;
const dir = mkdtempSync(join(tmpdir(), 'connect-rest-dist-'));
const workers: DistributedWorkerHandle[] = [];
let leader: DistributedWorkerHandle;
let follower: DistributedWorkerHandle;
// Slow heartbeats keep a rebalance open long enough to see its 409s.
const props = (): Record<string, string> => distributedProps(cluster.bootstrap, 'rest-dist', { 'heartbeat.interval.ms': '2000', 'session.timeout.ms': '10000' });

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  writeFileSync(join(dir, 'in.txt'), 'one\ntwo\n');
  workers.push(await startDistributed(props(), () => undefined), await startDistributed(props(), () => undefined));
  const [a, b] = workers as [DistributedWorkerHandle, DistributedWorkerHandle];
  await waitFor('a settled group', () => a.herder.leaderUrl !== null && a.herder.leaderUrl === b.herder.leaderUrl);
  [leader, follower] = a.herder.isLeader ? [a, b] : [b, a];
});
after(async () => {
  for (const w of workers) await w.close().catch(() => undefined);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Json = unknown;
interface Step {
  name: string;
  on: 'leader' | 'follower';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: Json;
  status: number;
  check?: (body: Json) => void;
  eventually?: boolean;
}

const obj = (b: Json): Record<string, Json> => {
  assert.ok(typeof b === 'object' && b !== null && !Array.isArray(b), `an object: ${JSON.stringify(b)}`);
  return b as Record<string, Json>;
};
const errorBody = (status: number, pattern: RegExp) => (b: Json): void => {
  assert.deepEqual(Object.keys(obj(b)).sort(), ['error_code', 'message']);
  assert.equal(obj(b).error_code, status);
  assert.match(String(obj(b).message), pattern);
};
const state = (connector: string, tasks?: string[]) => (b: Json): void => {
  assert.equal(obj(obj(b).connector).state, connector);
  if (tasks !== undefined) assert.deepEqual((obj(b).tasks as Json[]).map((t) => obj(t).state), tasks);
};
const src = () => ({ 'connector.class': 'FileStreamSource', file: join(dir, 'in.txt'), topic: 'rest-dist-lines', 'tasks.max': '1' });
const inFile = () => ({ filename: join(dir, 'in.txt') });
const invalid = { name: 'x', config: { 'connector.class': 'FileStreamSource' } };

const STEPS: Step[] = [
  { name: 'server info', on: 'follower', method: 'GET', path: '/', status: 200, check: (b) => assert.deepEqual(Object.keys(obj(b)).sort(), ['commit', 'kafka_cluster_id', 'version']) },
  { name: 'create, forwarded to the leader', on: 'follower', method: 'POST', path: '/connectors', body: { name: 'src', config: src() }, status: 201, check: (b) => assert.equal(obj(b).name, 'src') },
  { name: 'a duplicate, forwarded', on: 'follower', method: 'POST', path: '/connectors', body: { name: 'src', config: src() }, status: 409, check: errorBody(409, /Connector src already exists/) },
  { name: 'an invalid config, forwarded', on: 'follower', method: 'POST', path: '/connectors', body: { name: 'bad', config: { 'connector.class': 'FileStreamSource' } }, status: 400, check: errorBody(400, /Missing required configuration "topic"/) },
  { name: 'list on the leader', on: 'leader', method: 'GET', path: '/connectors', status: 200, check: (b) => assert.deepEqual(b, ['src']) },
  { name: 'list on the follower', on: 'follower', method: 'GET', path: '/connectors', status: 200, eventually: true, check: (b) => assert.deepEqual(b, ['src']) },
  { name: 'status from the status topic', on: 'follower', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: state('RUNNING', ['RUNNING']) },
  { name: 'list with status and info', on: 'follower', method: 'GET', path: '/connectors?expand=status&expand=info', status: 200, check: (b) => assert.deepEqual(Object.keys(obj(obj(b).src)).sort(), ['info', 'status']) },
  { name: 'tasks', on: 'follower', method: 'GET', path: '/connectors/src/tasks', status: 200, eventually: true, check: (b) => assert.deepEqual((b as { id: Json }[]).map((t) => t.id), [{ connector: 'src', task: 0 }]) },
  { name: 'task status', on: 'leader', method: 'GET', path: '/connectors/src/tasks/0/status', status: 200, check: (b) => assert.equal(obj(b).state, 'RUNNING') },
  { name: 'update the config, forwarded', on: 'follower', method: 'PUT', path: '/connectors/src/config', body: { ...src(), 'batch.size': '10' }, status: 200, check: (b) => assert.equal(obj(obj(b).config)['batch.size'], '10') },
  { name: 'pause, written by the follower', on: 'follower', method: 'PUT', path: '/connectors/src/pause', status: 202 },
  { name: 'paused', on: 'leader', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: state('PAUSED', ['PAUSED']) },
  { name: 'resume', on: 'follower', method: 'PUT', path: '/connectors/src/resume', status: 202 },
  { name: 'resumed', on: 'follower', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: state('RUNNING', ['RUNNING']) },
  { name: 'restart, forwarded', on: 'follower', method: 'POST', path: '/connectors/src/restart', status: 204 },
  { name: 'restart with tasks, forwarded', on: 'follower', method: 'POST', path: '/connectors/src/restart?includeTasks=true', status: 202, check: (b) => {
    assert.equal(obj(b).name, 'src');
    assert.equal(obj(obj(b).connector).state, 'RESTARTING');
  } },
  { name: 'restart a task, forwarded to the leader and on to its owner', on: 'follower', method: 'POST', path: '/connectors/src/tasks/0/restart', status: 204 },
  { name: 'restart an unknown task', on: 'follower', method: 'POST', path: '/connectors/src/tasks/5/restart', status: 404, check: errorBody(404, /src-5/) },
  { name: 'topics', on: 'follower', method: 'GET', path: '/connectors/src/topics', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { src: { topics: ['rest-dist-lines'] } }) },
  { name: 'offsets from the offset topic', on: 'follower', method: 'GET', path: '/connectors/src/offsets', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { offsets: [{ partition: inFile(), offset: { position: 8 } }] }) },
  { name: 'alter offsets of a running connector', on: 'follower', method: 'PATCH', path: '/connectors/src/offsets', body: { offsets: [{ partition: inFile(), offset: { position: 4 } }] }, status: 400, check: errorBody(400, /STOPPED state/) },
  { name: 'stop, forwarded', on: 'follower', method: 'PUT', path: '/connectors/src/stop', status: 204 },
  { name: 'stopped, no tasks', on: 'follower', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: state('STOPPED', []) },
  { name: 'alter source offsets, forwarded', on: 'follower', method: 'PATCH', path: '/connectors/src/offsets', body: { offsets: [{ partition: inFile(), offset: { position: 4 } }] }, status: 200, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been altered successfully' }) },
  { name: 'altered', on: 'follower', method: 'GET', path: '/connectors/src/offsets', status: 200, check: (b) => assert.deepEqual(b, { offsets: [{ partition: inFile(), offset: { position: 4 } }] }) },
  { name: 'an empty offsets body', on: 'follower', method: 'PATCH', path: '/connectors/src/offsets', body: { offsets: [] }, status: 400, check: errorBody(400, /must not be null or empty/) },
  { name: 'reset source offsets', on: 'leader', method: 'DELETE', path: '/connectors/src/offsets', status: 200, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been reset successfully' }) },
  { name: 'reset', on: 'follower', method: 'GET', path: '/connectors/src/offsets', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { offsets: [] }) },
  { name: 'a sink, created by PUT on the follower', on: 'follower', method: 'PUT', path: '/connectors/snk/config', body: { 'connector.class': 'FileStreamSink', topics: 'rest-dist-lines', file: join(dir, 'out.txt') }, status: 201, check: (b) => assert.equal(obj(b).type, 'sink') },
  { name: 'sink offsets once it consumed', on: 'follower', method: 'GET', path: '/connectors/snk/offsets', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { offsets: [{ partition: { kafka_topic: 'rest-dist-lines', kafka_partition: 0 }, offset: { kafka_offset: 2 } }] }) },
  { name: 'stop the sink', on: 'follower', method: 'PUT', path: '/connectors/snk/stop', status: 204 },
  { name: 'the sink is stopped', on: 'leader', method: 'GET', path: '/connectors/snk/status', status: 200, eventually: true, check: state('STOPPED', []) },
  { name: 'a bad sink offset', on: 'follower', method: 'PATCH', path: '/connectors/snk/offsets', body: { offsets: [{ partition: { kafka_topic: 'rest-dist-lines', kafka_partition: -1 }, offset: { kafka_offset: 1 } }] }, status: 400, check: errorBody(400, /partitions must be valid non-negative integers/) },
  { name: 'alter sink offsets (the group connect-snk)', on: 'follower', method: 'PATCH', path: '/connectors/snk/offsets', body: { offsets: [{ partition: { kafka_topic: 'rest-dist-lines', kafka_partition: 0 }, offset: { kafka_offset: 1 } }] }, status: 200, eventually: true, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been altered successfully' }) },
  { name: 'altered sink offsets', on: 'leader', method: 'GET', path: '/connectors/snk/offsets', status: 200, check: (b) => assert.deepEqual(b, { offsets: [{ partition: { kafka_topic: 'rest-dist-lines', kafka_partition: 0 }, offset: { kafka_offset: 1 } }] }) },
  { name: 'reset sink offsets (the group is deleted)', on: 'follower', method: 'DELETE', path: '/connectors/snk/offsets', status: 200, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been reset successfully' }) },
  { name: 'no sink offsets', on: 'follower', method: 'GET', path: '/connectors/snk/offsets', status: 200, check: (b) => assert.deepEqual(b, { offsets: [] }) },
  { name: 'a third hop is refused', on: 'follower', method: 'DELETE', path: '/connectors/snk?forward=false', status: 409, check: errorBody(409, /conflicting operation/) },
  { name: 'delete, forwarded', on: 'follower', method: 'DELETE', path: '/connectors/snk', status: 204 },
  { name: 'deleted on the leader', on: 'leader', method: 'GET', path: '/connectors/snk', status: 404, check: errorBody(404, /Connector snk not found/) },
  { name: 'deleted on the follower', on: 'follower', method: 'GET', path: '/connectors/snk', status: 404, eventually: true, check: errorBody(404, /Connector snk not found/) },
  { name: 'delete an unknown connector, forwarded', on: 'follower', method: 'DELETE', path: '/connectors/snk', status: 404, check: errorBody(404, /not found/) },
];

test('the REST API of a distributed group answers each request as Kafka Connect does', async (t) => {
  for (const step of STEPS) {
    await t.test(`${step.on} ${step.method} ${step.path}: ${step.name}`, async () => {
      const target = step.on === 'leader' ? leader : follower;
      const deadline = Date.now() + (step.eventually === true ? 30_000 : 0);
      for (;;) {
        const { status, body } = await rest(target.url, step.method, step.path, step.body);
        try {
          assert.equal(status, step.status, `status of ${step.name}: ${JSON.stringify(body)}`);
          step.check?.(body);
          return;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    });
  }
});

test('409 before a new worker has joined, and while a rebalance cannot finish', async () => {
  // A member that joins and then stops taking part: the next rebalance waits for it (up to its rebalance timeout).
  const zombieCluster = await Cluster.connect({ bootstrap: cluster.bootstrap });
  const zombie = new GroupMember(zombieCluster, {
    groupId: 'rest-dist',
    topics: [],
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 45_000,
    heartbeatIntervalMs: 1_000,
    protocol: {
      protocolType: 'connect',
      metadata: () => [{ name: 'compatible', metadata: encodeMetadata({ url: 'http://127.0.0.1:9', configOffset: 0n, allocation: null }) }],
      assign: () => new Map(),
      onAssignment: () => undefined,
    },
  });
  try {
    await zombie.ensureActive();
    await waitFor('the group settled with the zombie', async () => (await rest(leader.url, 'POST', '/connectors', invalid)).status === 400);
    const third = await startDistributed(props(), () => undefined);
    workers.push(third);
    const early = await rest(third.url, 'POST', '/connectors', invalid);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    errorBody(409, new RegExp(NO_LEADER.replace(/[.()]/g, '\\$&')))(early.body);
    await waitFor('the leader in the rebalance', () => leader.herder.coordinator.member.isJoining || leader.herder.coordinator.member.rejoinNeeded, 10_000);
    const started = Date.now();
    const during = await rest(leader.url, 'POST', '/connectors', invalid);
    assert.equal(during.status, 409, JSON.stringify(during.body));
    errorBody(409, new RegExp(REBALANCE_EXPECTED))(during.body);
    assert.ok(Date.now() - started >= REBALANCE_WAIT_MS - 1_000, 'the request waited for the rebalance first');
    await zombie.close();
    await waitFor('the third worker joined', () => third.herder.leaderUrl !== null, 30_000);
    const after = await rest(third.url, 'POST', '/connectors', invalid);
    assert.equal(after.status, 400, `once joined, the request reaches the leader: ${JSON.stringify(after.body)}`);
    const status = await rest(third.url, 'GET', '/connectors/src/status');
    assert.equal(status.status, 200, 'the new worker reads statuses from the status topic');
  } finally {
    await zombie.close();
    await zombieCluster.close();
  }
});
