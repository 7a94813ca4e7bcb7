/**
 * Partition reassignment committed by the controller (KIP-455) on a
 * controller-level cluster: the target replicas are added, the leader's
 * AlterPartition that brings them all into the ISR completes the move (the
 * old replicas go, leadership moves when the leader was removed:
 * NEW_LEADER_ELECTED to the old leader), a pure shrink completes at once,
 * cancel reverts, and the request-level errors.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ongoingReassignment } from '../../../src/controller/partition-admin.js';
import { controllerCluster, type ControllerCluster } from './cluster-fixture.js';

async function isr(c: ControllerCluster, topicId: string, members: number[]): Promise<number> {
  const p = c.partition('t');
  const r = await c.controller.alterPartition({
    version: 3,
    brokerId: p.leader,
    brokerEpoch: c.epoch(p.leader),
    topics: [{ topicName: 't', topicId, partitions: [{ partitionIndex: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: members.map((brokerId) => ({ brokerId, brokerEpoch: c.epoch(brokerId) })) }] }],
  });
  return r.topics[0]?.partitions[0]?.errorCode ?? -100;
}

const reassign = (c: ControllerCluster, replicas: number[] | null, partition = 0) => c.controller.alterPartitionReassignments([{ topic: 't', partitions: [{ partition, replicas }] }]);

describe('reassignment', () => {
  it('moves [1,2,3] to [4,5,6]: adding/removing, completion by AlterPartition, leader moved', async () => {
    const c = await controllerCluster(6);
    const topicId = await c.createTopic('t', [[1, 2, 3]]);
    const [r] = await reassign(c, [4, 5, 6]);
    assert.equal(r?.partitions[0]?.errorCode, ErrorCode.NONE);
    const p = c.partition('t');
    assert.deepEqual([p.replicas, p.addingReplicas, p.removingReplicas, p.isr, p.leader], [[4, 5, 6, 1, 2, 3], [4, 5, 6], [1, 2, 3], [1, 2, 3], 1]);
    assert.deepEqual(ongoingReassignment(p), { replicas: [4, 5, 6, 1, 2, 3], addingReplicas: [4, 5, 6], removingReplicas: [1, 2, 3] });
    // The new replicas catch up one by one; the leader adds them to the ISR.
    assert.equal(await isr(c, topicId, [1, 2, 3, 4, 5]), ErrorCode.NONE);
    assert.deepEqual(c.partition('t').addingReplicas, [4, 5, 6], 'not complete while 6 is behind');
    assert.equal(await isr(c, topicId, [1, 2, 3, 4, 5, 6]), ErrorCode.NEW_LEADER_ELECTED, 'the old leader is told leadership moved');
    const done = c.partition('t');
    assert.deepEqual([done.replicas, done.addingReplicas, done.removingReplicas, done.isr, done.leader], [[4, 5, 6], [], [], [4, 5, 6], 4]);
    assert.equal(ongoingReassignment(done), null);
  });

  it('a shrink completes at once; a reorder changes the preferred leader only', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2, 3]]);
    await reassign(c, [2, 3]);
    const p = c.partition('t');
    assert.deepEqual([p.replicas, p.isr, p.leader, p.addingReplicas, p.removingReplicas], [[2, 3], [2, 3], 2, [], []]);
    await reassign(c, [3, 2]);
    assert.deepEqual([c.partition('t').replicas, c.partition('t').leader], [[3, 2], 2], 'the leader stays until a preferred election');
    assert.equal((await reassign(c, [3, 2]))[0]?.partitions[0]?.errorCode, ErrorCode.NONE, 'the same target is a no-op');
  });

  it('cancel reverts to the original replicas; NO_REASSIGNMENT_IN_PROGRESS when none is', async () => {
    const c = await controllerCluster(4);
    const topicId = await c.createTopic('t', [[1, 2]]);
    assert.equal((await reassign(c, null))[0]?.partitions[0]?.errorCode, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
    await reassign(c, [3, 4]);
    assert.equal(await isr(c, topicId, [1, 2, 3]), ErrorCode.NONE);
    assert.equal((await reassign(c, null))[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    const p = c.partition('t');
    assert.deepEqual([p.replicas, p.isr, p.addingReplicas, p.removingReplicas, p.leader], [[1, 2], [1, 2], [], [], 1]);
  });

  it('Kafka\'s target checks', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2]]);
    const codes = async (replicas: number[], partition = 0) => (await reassign(c, replicas, partition))[0]?.partitions[0]?.errorCode;
    assert.equal(await codes([]), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.equal(await codes([1, 1]), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.equal(await codes([1, 9]), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.equal(await codes([1, 2], 5), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal((await c.controller.alterPartitionReassignments([{ topic: 'nope', partitions: [{ partition: 0, replicas: [1] }] }]))[0]?.partitions[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.deepEqual(c.partition('t').replicas, [1, 2], 'nothing changed');
  });
});
