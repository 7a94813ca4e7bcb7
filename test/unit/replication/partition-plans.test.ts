/**
 * Elections and reassignments decided against a metadata view
 * (src/replication/partition-plans.ts), including the multi-node cases a
 * one-node broker cannot reach, so the rules are checked before clustering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import {
  ElectionType,
  isElectionType,
  ongoingReassignment,
  planElection,
  planReassignment,
  type ClusterView,
  type PartitionRegistrationView,
} from '../../../src/replication/partition-plans.js';

function view(partitions: Record<string, PartitionRegistrationView>, brokers: { id: number; active: boolean }[]): ClusterView {
  return {
    topicExists: (topic) => Object.keys(partitions).some((k) => k.startsWith(`${topic}-`)),
    partition: (topic, p) => partitions[`${topic}-${p}`],
    isRegistered: (id) => brokers.some((b) => b.id === id),
    isActive: (id) => brokers.some((b) => b.id === id && b.active),
  };
}

const part = (replicas: number[], isr: number[], leader: number, adding: number[] = [], removing: number[] = []): PartitionRegistrationView => ({
  replicas,
  isr,
  leader,
  addingReplicas: adding,
  removingReplicas: removing,
});

test('one node: preferred and unclean elections are not needed; unknown topics and partitions', () => {
  const v = view({ 't-0': part([1], [1], 1) }, [{ id: 1, active: true }]);
  assert.equal(planElection(v, 't', 0, ElectionType.Preferred).errorCode, ErrorCode.ELECTION_NOT_NEEDED);
  assert.equal(planElection(v, 't', 0, ElectionType.Unclean).errorCode, ErrorCode.ELECTION_NOT_NEEDED);
  assert.equal(planElection(v, 't', 1, ElectionType.Preferred).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(planElection(v, 'nope', 0, ElectionType.Preferred).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(planElection(v, 't', 0, ElectionType.Preferred).change, null);
  assert.ok(isElectionType(0) && isElectionType(1) && !isElectionType(2) && !isElectionType(-1));
});

test('several nodes: a preferred election needs an active in-sync preferred replica', () => {
  const brokers = [{ id: 1, active: true }, { id: 2, active: true }, { id: 3, active: false }];
  const v = view({ 'a-0': part([1, 2], [1, 2], 2), 'a-1': part([3, 1], [3, 1], 1), 'a-2': part([2, 1], [1], 1) }, brokers);
  assert.deepEqual(planElection(v, 'a', 0, ElectionType.Preferred), { errorCode: ErrorCode.NONE, errorMessage: null, change: { kind: 'elect_leader', leader: 1 } });
  assert.equal(planElection(v, 'a', 1, ElectionType.Preferred).errorCode, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, 'preferred replica fenced');
  assert.equal(planElection(v, 'a', 2, ElectionType.Preferred).errorCode, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, 'preferred replica out of the ISR');
});

test('several nodes: an unclean election only for leaderless partitions, ISR first', () => {
  const brokers = [{ id: 1, active: false }, { id: 2, active: true }, { id: 3, active: true }];
  const v = view({ 'u-0': part([1, 2, 3], [1, 3], -1), 'u-1': part([1, 2], [1], -1), 'u-2': part([1], [1], -1) }, brokers);
  assert.deepEqual(planElection(v, 'u', 0, ElectionType.Unclean).change, { kind: 'elect_leader', leader: 3 });
  assert.deepEqual(planElection(v, 'u', 1, ElectionType.Unclean).change, { kind: 'elect_leader', leader: 2 }, 'outside the ISR when it must');
  assert.equal(planElection(v, 'u', 2, ElectionType.Unclean).errorCode, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE);
});

test('reassignments: the current set is a no-op; bad targets, cancellation without one in progress', () => {
  const v = view({ 't-0': part([1], [1], 1), 'm-0': part([1, 2], [1, 2], 1, [2], []) }, [{ id: 1, active: true }, { id: 2, active: true }]);
  assert.deepEqual(planReassignment(v, 't', 0, [1]), { errorCode: ErrorCode.NONE, errorMessage: null, change: null });
  const bad = (replicas: number[] | null, code: number, what: string) => assert.equal(planReassignment(v, 't', 0, replicas).errorCode, code, what);
  bad([], ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'empty');
  bad([1, 1], ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'duplicate');
  bad([7], ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'unregistered broker');
  bad(null, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'cancel');
  assert.equal(planReassignment(v, 't', 3, [1]).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(planReassignment(v, 'x', 0, [1]).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.match(planReassignment(v, 't', 0, [7]).errorMessage ?? '', /broker 7/);
  // Cases that need a controller change (several brokers).
  assert.deepEqual(planReassignment(v, 't', 0, [2]).change, { kind: 'reassign', targetReplicas: [2] });
  assert.deepEqual(planReassignment(v, 'm', 0, null).change, { kind: 'cancel_reassignment' });
  assert.deepEqual(ongoingReassignment(part([1, 2], [1], 1, [2], [])), { replicas: [1, 2], addingReplicas: [2], removingReplicas: [] });
  assert.equal(ongoingReassignment(part([1], [1], 1)), null);
});
