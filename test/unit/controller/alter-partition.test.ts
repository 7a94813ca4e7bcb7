/**
 * QuorumController.alterPartition (AlterPartition 56): every validation rule
 * of alter-partition.ts as a table, then what a valid change commits (ISR,
 * partition epoch, ELR below min.insync.replicas), the no-op answer, a
 * failed append, and a reassignment completed by an ISR expansion.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, errorName } from '../../../src/protocol/errors.js';
import { MetadataLogError } from '../../../src/controller/metadata-log.js';
import type { AlterPartitionItem, AlterPartitionRequest } from '../../../src/controller/alter-partition.js';
import { controllerCluster, type ControllerCluster } from './cluster-fixture.js';

/** A request from the leader of t-0 (replicas 1,2,3) changing its ISR, at version 3 unless said. */
function request(c: ControllerCluster, topicId: string, over: Partial<AlterPartitionItem> & { version?: number; brokerId?: number; brokerEpoch?: bigint; isr?: number[] } = {}): AlterPartitionRequest {
  const p = c.partition('t');
  const brokerId = over.brokerId ?? p.leader;
  const isr = over.isr ?? [1, 2];
  return {
    version: over.version ?? 3,
    brokerId,
    brokerEpoch: over.brokerEpoch ?? c.epoch(brokerId),
    topics: [
      {
        topicName: 't',
        topicId,
        partitions: [
          {
            partitionIndex: over.partitionIndex ?? 0,
            leaderEpoch: over.leaderEpoch ?? p.leaderEpoch,
            partitionEpoch: over.partitionEpoch ?? p.partitionEpoch,
            leaderRecoveryState: over.leaderRecoveryState ?? 0,
            newIsr: over.newIsr ?? isr.map((id) => ({ brokerId: id, brokerEpoch: c.epoch(id) })),
          },
        ],
      },
    ],
  };
}

async function setup(): Promise<{ c: ControllerCluster; topicId: string }> {
  const c = await controllerCluster(4);
  const topicId = await c.createTopic('t', [[1, 2, 3]]);
  return { c, topicId };
}

describe('alterPartition validation (Kafka ReplicationControlManager order)', () => {
  const cases: { name: string; build: (c: ControllerCluster, topicId: string) => Promise<AlterPartitionRequest> | AlterPartitionRequest; code: ErrorCode; top?: boolean }[] = [
    { name: 'stale broker epoch of the sender', build: (c, id) => request(c, id, { brokerEpoch: c.epoch(1) - 1n }), code: ErrorCode.STALE_BROKER_EPOCH, top: true },
    { name: 'unregistered sender', build: (c, id) => request(c, id, { brokerId: 9, brokerEpoch: 0n }), code: ErrorCode.STALE_BROKER_EPOCH, top: true },
    { name: 'unknown topic id (v2+)', build: (c) => request(c, 'AAAAAAAAAAAAAAAAAAAAAg'), code: ErrorCode.UNKNOWN_TOPIC_ID },
    { name: 'unknown topic name (v1)', build: (c, id) => ({ ...request(c, id, { version: 1 }), topics: [{ ...request(c, id).topics[0]!, topicName: 'nope' }] }), code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    { name: 'unknown partition', build: (c, id) => request(c, id, { partitionIndex: 5 }), code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    { name: 'leader epoch newer than the controller knows', build: (c, id) => request(c, id, { leaderEpoch: c.partition('t').leaderEpoch + 1 }), code: ErrorCode.NOT_CONTROLLER },
    { name: 'partition epoch newer than the controller knows', build: (c, id) => request(c, id, { partitionEpoch: c.partition('t').partitionEpoch + 1 }), code: ErrorCode.NOT_CONTROLLER },
    {
      name: 'older leader epoch',
      build: async (c, id) => {
        await c.controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: c.epoch(1), currentMetadataOffset: c.image.lastAppliedOffset, wantFence: true, wantShutDown: false });
        await c.heartbeat(1);
        // Broker 2 leads now (epoch 1); broker 1 still speaks of epoch 0.
        return request(c, id, { brokerId: 2, leaderEpoch: 0, isr: [2, 3] });
      },
      code: ErrorCode.FENCED_LEADER_EPOCH,
    },
    { name: 'sender is not the leader', build: (c, id) => request(c, id, { brokerId: 2 }), code: ErrorCode.INVALID_REQUEST },
    {
      name: 'older partition epoch',
      build: async (c, id) => {
        const r = await c.controller.alterPartition(request(c, id, { isr: [1, 2] }));
        assert.equal(r.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
        return request(c, id, { partitionEpoch: c.partition('t').partitionEpoch - 1, isr: [1] });
      },
      code: ErrorCode.INVALID_UPDATE_VERSION,
    },
    { name: 'ISR with a non-replica', build: (c, id) => request(c, id, { isr: [1, 4] }), code: ErrorCode.INVALID_REQUEST },
    { name: 'ISR with a duplicate', build: (c, id) => request(c, id, { isr: [1, 2, 2] }), code: ErrorCode.INVALID_REQUEST },
    { name: 'ISR without the leader', build: (c, id) => request(c, id, { isr: [2, 3] }), code: ErrorCode.INVALID_REQUEST },
    { name: 'unknown leaderRecoveryState', build: (c, id) => request(c, id, { leaderRecoveryState: 2 }), code: ErrorCode.INVALID_REQUEST },
    { name: 'RECOVERING with more than one ISR member', build: (c, id) => request(c, id, { leaderRecoveryState: 1, isr: [1, 2] }), code: ErrorCode.INVALID_REQUEST },
    { name: 'RECOVERED -> RECOVERING', build: (c, id) => request(c, id, { leaderRecoveryState: 1, isr: [1] }), code: ErrorCode.INVALID_REQUEST },
    {
      name: 'fenced ISR member (v3)',
      build: async (c, id) => {
        await c.heartbeat(3, { wantFence: true });
        return request(c, id, { isr: [1, 3] });
      },
      code: ErrorCode.INELIGIBLE_REPLICA,
    },
    {
      name: 'ISR member in controlled shutdown',
      build: async (c, id) => {
        await c.heartbeat(3, { wantShutDown: true });
        return request(c, id, { isr: [1, 2, 3] });
      },
      code: ErrorCode.INELIGIBLE_REPLICA,
    },
    { name: 'ISR member with a stale broker epoch (KIP-903)', build: (c, id) => request(c, id, { newIsr: [{ brokerId: 1, brokerEpoch: c.epoch(1) }, { brokerId: 2, brokerEpoch: c.epoch(2) - 1n }] }), code: ErrorCode.INELIGIBLE_REPLICA },
    {
      name: 'fenced ISR member before v2',
      build: async (c, id) => {
        await c.heartbeat(3, { wantFence: true });
        return { ...request(c, id, { isr: [1, 3], version: 1 }), topics: [{ ...request(c, id, { isr: [1, 3] }).topics[0]!, topicName: 't' }] };
      },
      code: ErrorCode.OPERATION_NOT_ATTEMPTED,
    },
  ];
  for (const tc of cases) {
    it(`${tc.name} -> ${errorName(tc.code)}`, async () => {
      const { c, topicId } = await setup();
      const req = await tc.build(c, topicId);
      const appendsBefore = c.log.appends.length;
      const before = c.partition('t');
      const reply = await c.controller.alterPartition(req);
      if (tc.top === true) assert.equal(reply.errorCode, tc.code);
      else assert.equal(reply.topics[0]?.partitions[0]?.errorCode, tc.code);
      assert.equal(c.log.appends.length, appendsBefore, 'nothing is written');
      assert.deepEqual(c.partition('t'), before);
    });
  }
});

describe('alterPartition commits', () => {
  it('a shrink commits one PartitionChangeRecord and answers the new state', async () => {
    const { c, topicId } = await setup();
    const reply = await c.controller.alterPartition(request(c, topicId, { isr: [1, 2] }));
    assert.deepEqual(reply.topics[0]?.partitions[0], { partitionIndex: 0, errorCode: ErrorCode.NONE, leaderId: 1, leaderEpoch: 0, isr: [1, 2], leaderRecoveryState: 0, partitionEpoch: 1 });
    const p = c.partition('t');
    assert.deepEqual([p.isr, p.partitionEpoch, p.leaderEpoch, p.elr], [[1, 2], 1, 0, []]);
    const last = c.log.appends.at(-1);
    assert.equal(last?.length, 1);
    assert.equal(last?.[0]?.type, 'PartitionChangeRecord');
  });

  it('an expansion back to every replica is accepted (v0 names the topic; epochs unchecked)', async () => {
    const { c, topicId } = await setup();
    await c.controller.alterPartition(request(c, topicId, { isr: [1] }));
    const v0 = request(c, topicId, { version: 0, newIsr: [1, 2, 3].map((brokerId) => ({ brokerId, brokerEpoch: -1n })) });
    const reply = await c.controller.alterPartition(v0);
    assert.equal(reply.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    assert.deepEqual(c.partition('t').isr, [1, 2, 3]);
  });

  it('the same ISR again is a no-op: the current state, nothing written', async () => {
    const { c, topicId } = await setup();
    const before = c.log.appends.length;
    const reply = await c.controller.alterPartition(request(c, topicId, { isr: [1, 2, 3] }));
    assert.deepEqual(reply.topics[0]?.partitions[0], { partitionIndex: 0, errorCode: ErrorCode.NONE, leaderId: 1, leaderEpoch: 0, isr: [1, 2, 3], leaderRecoveryState: 0, partitionEpoch: 0 });
    assert.equal(c.log.appends.length, before);
  });

  it('below min.insync.replicas the members that leave become ELR (KIP-966); back at min ISR the ELR clears', async () => {
    const c = await controllerCluster(3);
    const topicId = await c.createTopic('t', [[1, 2, 3]], [{ name: 'min.insync.replicas', value: '2' }]);
    await c.controller.alterPartition(request(c, topicId, { isr: [1, 2] }));
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1, 2], []], 'at min ISR: no ELR');
    await c.controller.alterPartition(request(c, topicId, { isr: [1] }));
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1], [2]], 'below: broker 2 is eligible');
    await c.controller.alterPartition(request(c, topicId, { isr: [1, 3] }));
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1, 3], []]);
  });

  it('a leader recovering from an unclean election may end RECOVERING', async () => {
    const c = await controllerCluster(3, { uncleanLeaderElectionDefault: true });
    const topicId = await c.createTopic('t', [[1, 2]]);
    await c.controller.alterPartition(request(c, topicId, { isr: [1] }));
    await c.heartbeat(1, { wantFence: true });
    await c.heartbeat(2, { wantFence: true });
    await c.heartbeat(2);
    const p = c.partition('t');
    assert.deepEqual([p.leader, p.isr, p.leaderRecoveryState], [2, [2], 1], 'broker 2 won an unclean election');
    const reply = await c.controller.alterPartition(request(c, topicId, { isr: [2], leaderRecoveryState: 0 }));
    assert.equal(reply.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    assert.equal(c.partition('t').leaderRecoveryState, 0);
  });

  it('a failed append answers NOT_CONTROLLER per partition', async () => {
    const { c, topicId } = await setup();
    c.log.failWith = new MetadataLogError('ERR_TRIB_METADATA_NOT_LEADER', 'deposed');
    const reply = await c.controller.alterPartition(request(c, topicId, { isr: [1, 2] }));
    assert.equal(reply.topics[0]?.partitions[0]?.errorCode, ErrorCode.NOT_CONTROLLER);
  });
});
