/**
 * GroupMember against a scripted fake coordinator: coordinator lookup with
 * retries, MEMBER_ID_REQUIRED, the leader's assignment, heartbeats and the
 * rejoin they trigger, UNKNOWN_MEMBER_ID resetting the id, commits with the
 * generation, LeaveGroup on close, and no timer left behind (the test
 * process would not exit otherwise).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/client/cluster.js';
import { decodeAssignment, decodeSubscription, encodeAssignment } from '../../../src/client/consumer-protocol.js';
import { KafkaProtocolError } from '../../../src/net/errors.js';
import { GroupMember } from '../../../src/client/group.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

const GROUP_API_VERSIONS = [
  ...FAKE_API_VERSIONS,
  { apiKey: 8, minVersion: 0, maxVersion: 8 },
  { apiKey: 9, minVersion: 0, maxVersion: 8 },
  { apiKey: 10, minVersion: 0, maxVersion: 4 },
  { apiKey: 11, minVersion: 0, maxVersion: 6 },
  { apiKey: 12, minVersion: 0, maxVersion: 4 },
  { apiKey: 13, minVersion: 0, maxVersion: 4 },
  { apiKey: 14, minVersion: 0, maxVersion: 4 },
];

/** A one-member coordinator; `script` may override any answer. */
class FakeCoordinator {
  generation = 0;
  joins: Record<string, unknown>[] = [];
  syncs: Record<string, unknown>[] = [];
  heartbeats: Record<string, unknown>[] = [];
  leaves: Record<string, unknown>[] = [];
  commits: Record<string, unknown>[] = [];
  findCoordinatorErrors: number[] = [];
  heartbeatErrors: number[] = [];
  commitErrors: number[] = [];

  constructor(private readonly partitions: number) {}

  handle(req: FakeRequest, broker: FakeBroker): FakeReply {
    const b = req.body;
    switch (req.apiKey) {
      case 3:
        return {
          body: {
            throttleTimeMs: 0,
            brokers: [{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null }],
            clusterId: 'fake',
            controllerId: 1,
            topics: ((b.topics as { name: string }[] | null) ?? []).map((t) => ({
              errorCode: t.name === 'orders' ? 0 : 3,
              name: t.name,
              isInternal: false,
              partitions: t.name !== 'orders' ? [] : Array.from({ length: this.partitions }, (_, i) => ({ errorCode: 0, partitionIndex: i, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] })),
            })),
          },
        };
      case 10: {
        const errorCode = this.findCoordinatorErrors.shift() ?? 0;
        return { body: { throttleTimeMs: 0, coordinators: [{ key: 'g', nodeId: 1, host: '127.0.0.1', port: broker.port, errorCode, errorMessage: null }] } };
      }
      case 11: {
        this.joins.push(b);
        const base = { throttleTimeMs: 0, generationId: -1, protocolName: '', leader: '', members: [] };
        if (b.memberId === '') return { body: { ...base, errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: `m-${this.joins.length}` } };
        this.generation++;
        const protocols = b.protocols as { name: string; metadata: Buffer }[];
        const first = protocols[0] as { name: string; metadata: Buffer };
        return {
          body: {
            ...base,
            errorCode: 0,
            generationId: this.generation,
            protocolName: first.name,
            leader: b.memberId,
            memberId: b.memberId,
            members: [{ memberId: b.memberId, groupInstanceId: null, metadata: first.metadata }],
          },
        };
      }
      case 14: {
        this.syncs.push(b);
        const mine = (b.assignments as { memberId: string; assignment: Buffer }[]).find((a) => a.memberId === b.memberId);
        return { body: { throttleTimeMs: 0, errorCode: 0, assignment: mine?.assignment ?? encodeAssignment({ assignedPartitions: [] }) } };
      }
      case 12:
        this.heartbeats.push(b);
        return { body: { throttleTimeMs: 0, errorCode: this.heartbeatErrors.shift() ?? 0 } };
      case 13:
        this.leaves.push(b);
        return { body: { throttleTimeMs: 0, errorCode: 0, members: [{ memberId: b.memberId ?? '', groupInstanceId: null, errorCode: 0 }] } };
      case 8: {
        this.commits.push(b);
        const errorCode = this.commitErrors.shift() ?? 0;
        const topics = b.topics as { name: string; partitions: { partitionIndex: number }[] }[];
        return { body: { throttleTimeMs: 0, topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })) } };
      }
      case 9: {
        const groups = b.groups as { groupId: string; topics: { name: string; partitionIndexes: number[] }[] }[];
        return {
          body: {
            throttleTimeMs: 0,
            groups: groups.map((g) => ({
              groupId: g.groupId,
              errorCode: 0,
              topics: g.topics.map((t) => ({
                name: t.name,
                partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: p === 0 ? 42n : -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 })),
              })),
            })),
          },
        };
      }
      default:
        throw new Error(`unexpected api ${req.apiKey}`);
    }
  }
}

async function setup(partitions = 4): Promise<{ coordinator: FakeCoordinator; broker: FakeBroker; cluster: Cluster }> {
  const coordinator = new FakeCoordinator(partitions);
  const broker = await FakeBroker.start(withApiVersions((req, b) => coordinator.handle(req, b), GROUP_API_VERSIONS));
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}`, retryBackoffMs: 1 });
  return { coordinator, broker, cluster };
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('join: coordinator retries, MEMBER_ID_REQUIRED, leader assigns with range, heartbeats, leave on close', async (t) => {
  const { coordinator, broker, cluster } = await setup();
  t.after(async () => {
    await cluster.close();
    await broker.stop();
  });
  coordinator.findCoordinatorErrors.push(ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  const assigned: string[][] = [];
  const revoked: string[][] = [];
  const member = new GroupMember(cluster, {
    groupId: 'g',
    topics: ['orders'],
    heartbeatIntervalMs: 20,
    sessionTimeoutMs: 1000,
    rebalanceTimeoutMs: 2000,
    onAssigned: (tps) => void assigned.push(tps.flatMap((x) => x.partitions.map((p) => `${x.topic}-${p}`))),
    onRevoked: (tps) => void revoked.push(tps.flatMap((x) => x.partitions.map((p) => `${x.topic}-${p}`))),
  });
  assert.equal(await member.ensureActive(), true);
  assert.equal(await member.ensureActive(), false, 'nothing to do once stable');
  assert.equal(member.memberId, 'm-1');
  assert.deepEqual(assigned, [['orders-0', 'orders-1', 'orders-2', 'orders-3']]);
  assert.equal(coordinator.joins.length, 2);
  assert.equal(coordinator.joins[0]?.memberId, '');
  assert.equal(coordinator.joins[1]?.memberId, 'm-1');
  const join = coordinator.joins[1] as { protocolType: string; protocols: { name: string; metadata: Buffer }[]; sessionTimeoutMs: number; rebalanceTimeoutMs: number };
  assert.equal(join.protocolType, 'consumer');
  assert.deepEqual(join.protocols.map((p) => p.name), ['range']);
  assert.deepEqual(decodeSubscription(join.protocols[0]?.metadata as Buffer).topics, ['orders']);
  assert.equal(join.sessionTimeoutMs, 1000);
  assert.equal(join.rebalanceTimeoutMs, 2000);
  const sync = coordinator.syncs[0] as { generationId: number; assignments: { memberId: string; assignment: Buffer }[] };
  assert.equal(sync.generationId, 1);
  assert.deepEqual(decodeAssignment(sync.assignments[0]?.assignment as Buffer).assignedPartitions, [{ topic: 'orders', partitions: [0, 1, 2, 3] }]);

  await until(() => coordinator.heartbeats.length >= 2);
  assert.deepEqual(
    { generationId: coordinator.heartbeats[0]?.generationId, memberId: coordinator.heartbeats[0]?.memberId },
    { generationId: 1, memberId: 'm-1' },
  );

  const committed = await member.fetchCommitted();
  assert.deepEqual(committed.map((c) => [c.partition, c.offset]), [[0, 42n], [1, -1n], [2, -1n], [3, -1n]]);
  await member.commit([{ topic: 'orders', partition: 1, offset: 7n }]);
  const commit = coordinator.commits[0] as { generationIdOrMemberEpoch: number; memberId: string };
  assert.equal(commit.generationIdOrMemberEpoch, 1);
  assert.equal(commit.memberId, 'm-1');

  await member.close();
  assert.deepEqual(revoked, [['orders-0', 'orders-1', 'orders-2', 'orders-3']]);
  assert.equal(coordinator.leaves.length, 1);
  const beats = coordinator.heartbeats.length;
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(coordinator.heartbeats.length, beats, 'no heartbeat after close');
  await assert.rejects(member.ensureActive(), /closed/);
});

test('a heartbeat REBALANCE_IN_PROGRESS asks for a rejoin; ensureActive revokes then joins the next generation', async (t) => {
  const { coordinator, broker, cluster } = await setup(2);
  t.after(async () => {
    await cluster.close();
    await broker.stop();
  });
  const events: string[] = [];
  const member = new GroupMember(cluster, {
    groupId: 'g',
    topics: ['orders'],
    heartbeatIntervalMs: 10,
    sessionTimeoutMs: 1000,
    onAssigned: (_tps, gen) => void events.push(`assigned ${gen.generationId}`),
    onRevoked: () => void events.push('revoked'),
    onRejoinNeeded: (reason) => void events.push(`rejoin: ${reason}`),
  });
  await member.ensureActive();
  coordinator.heartbeatErrors.push(ErrorCode.REBALANCE_IN_PROGRESS);
  await until(() => member.rejoinNeeded);
  assert.equal(await member.ensureActive(), true);
  assert.equal(member.memberId, 'm-1', 'REBALANCE_IN_PROGRESS keeps the member id');
  assert.deepEqual(events, ['assigned 1', 'rejoin: heartbeat: REBALANCE_IN_PROGRESS', 'revoked', 'assigned 2']);
  await member.close();
});

test('UNKNOWN_MEMBER_ID resets the member id; a commit refused with ILLEGAL_GENERATION throws and asks for a rejoin', async (t) => {
  const { coordinator, broker, cluster } = await setup(1);
  t.after(async () => {
    await cluster.close();
    await broker.stop();
  });
  const member = new GroupMember(cluster, { groupId: 'g', topics: ['orders'], heartbeatIntervalMs: 10, sessionTimeoutMs: 1000 });
  await member.ensureActive();
  coordinator.heartbeatErrors.push(ErrorCode.UNKNOWN_MEMBER_ID);
  await until(() => member.rejoinNeeded);
  assert.equal(member.memberId, '');
  await member.ensureActive();
  assert.equal(coordinator.joins.at(-2)?.memberId, '', 'joins again without an id');
  assert.equal(member.memberId, 'm-3');

  coordinator.commitErrors.push(ErrorCode.ILLEGAL_GENERATION);
  await assert.rejects(
    member.commit([{ topic: 'orders', partition: 0, offset: 1n }]),
    (err: unknown) => err instanceof KafkaProtocolError && err.errorName === 'ILLEGAL_GENERATION',
  );
  assert.equal(member.rejoinNeeded, true);
  await member.close();
});

test('options are validated', async (t) => {
  const { broker, cluster } = await setup(1);
  t.after(async () => {
    await cluster.close();
    await broker.stop();
  });
  assert.throws(() => new GroupMember(cluster, { groupId: '', topics: ['x'] }), /group id/);
  assert.throws(() => new GroupMember(cluster, { groupId: 'g', topics: [] }), /at least one topic/);
  assert.throws(() => new GroupMember(cluster, { groupId: 'g', topics: ['x'], heartbeatIntervalMs: 5000, sessionTimeoutMs: 4000 }), /lower than sessionTimeoutMs/);
});

test('a custom protocol (KIP-style embedded protocol): its type and metadata at join, the leader assigns bytes, requestRejoin runs a new round', async (t) => {
  const { coordinator, broker, cluster } = await setup();
  t.after(async () => {
    await cluster.close();
    await broker.stop();
  });
  const received: { bytes: string; generation: number }[] = [];
  const assignedTo: string[][] = [];
  let round = 0;
  const member = new GroupMember(cluster, {
    groupId: 'g',
    topics: [],
    heartbeatIntervalMs: 20,
    sessionTimeoutMs: 1000,
    protocol: {
      protocolType: 'connect',
      metadata: () => [{ name: 'compatible', metadata: Buffer.from(`meta-${round}`) }],
      assign: (generation, members) => {
        assignedTo.push(members.map((m) => `${m.memberId}:${m.metadata.toString()}`));
        return new Map(members.map((m) => [m.memberId, Buffer.from(`work for ${m.memberId} in ${generation.generationId}`)]));
      },
      onAssignment: (bytes, generation) => void received.push({ bytes: bytes.toString(), generation: generation.generationId }),
    },
    onAssigned: () => assert.fail('no partition callbacks with a custom protocol'),
  });
  assert.equal(await member.ensureActive(), true);
  const join = coordinator.joins[1] as { protocolType: string; protocols: { name: string; metadata: Buffer }[] };
  assert.equal(join.protocolType, 'connect');
  assert.deepEqual(join.protocols.map((p) => [p.name, p.metadata.toString()]), [['compatible', 'meta-0']]);
  assert.deepEqual(assignedTo, [['m-1:meta-0']]);
  assert.deepEqual(received, [{ bytes: 'work for m-1 in 1', generation: 1 }]);
  assert.deepEqual(member.assignment, [], 'a custom protocol owns no partitions here');
  assert.equal(await member.ensureActive(), false);
  round = 1;
  member.requestRejoin('test');
  assert.equal(member.rejoinNeeded, true);
  assert.equal(await member.ensureActive(), true);
  assert.deepEqual(assignedTo[1], ['m-1:meta-1'], 'metadata is built again for each join');
  assert.deepEqual(received[1], { bytes: 'work for m-1 in 2', generation: 2 });
  await member.close();
});
