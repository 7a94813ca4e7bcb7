/**
 * The streams assignor as the group leader runs it: tasks from partition
 * groups (co-partitioned topics of a sub-topology go together), members
 * grouped into clients by process id, standby and host info in the
 * assignment userData, cooperative hand-over, SHUTDOWN_REQUESTED to all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AssignorMember, MemberAssignment, TopicPartitions } from '../../../../src/client/index.js';
import {
  AssignorError,
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  encodeSubscriptionInfo,
  type AssignmentInfo,
  type SubscriptionInfo,
} from '../../../../src/streams/runtime/assignment-info.js';
import { STREAMS_PROTOCOL, streamsAssignor, tasksOf } from '../../../../src/streams/runtime/streams-assignor.js';

const sourceTopics = new Map<number, string[]>([
  [0, ['orders', 'customers']],
  [1, ['app-counts-repartition']],
]);
const partitions = new Map([['orders', 3], ['customers', 3], ['app-counts-repartition', 2]]);

function info(processId: string, o: Partial<SubscriptionInfo> = {}): SubscriptionInfo {
  return { processId, endpoint: o.endpoint ?? null, prevActive: o.prevActive ?? [], prevStandby: o.prevStandby ?? [], offsetSums: o.offsetSums ?? new Map(), shutdownRequested: o.shutdownRequested ?? false };
}

function member(memberId: string, sub: SubscriptionInfo | null, owned: TopicPartitions[] = []): AssignorMember {
  return { memberId, groupInstanceId: null, subscription: { topics: [...partitions.keys()], userData: sub === null ? null : encodeSubscriptionInfo(sub), ownedPartitions: owned } };
}

function run(members: AssignorMember[], numStandbyReplicas = 0): Map<string, { partitions: TopicPartitions[]; info: AssignmentInfo }> {
  const assignor = streamsAssignor({ sourceTopics, statefulSubtopologies: new Set([1]), numStandbyReplicas, subscriptionInfo: () => info('x'), onAssignment: () => {} });
  assert.equal(assignor.name, STREAMS_PROTOCOL);
  assert.equal(assignor.protocol, 'cooperative');
  const out = assignor.assignWithUserData?.(members, partitions) as Map<string, MemberAssignment>;
  return new Map([...out].map(([id, a]) => [id, { partitions: a.partitions, info: decodeAssignmentInfo(a.userData) as AssignmentInfo }]));
}

test('the subscription and assignment userData round-trip; foreign userData decodes as null', () => {
  const s = info('p1', { endpoint: 'h:1', prevActive: ['0_1'], prevStandby: ['1_0'], offsetSums: new Map([['1_0', 12345678901234n]]), shutdownRequested: true });
  assert.deepEqual(decodeSubscriptionInfo(encodeSubscriptionInfo(s)), s);
  assert.equal(decodeSubscriptionInfo(Buffer.from([0, 1, 2])), null);
  assert.equal(decodeSubscriptionInfo(Buffer.from('{"version":99,"processId":"x"}')), null);
  assert.equal(decodeAssignmentInfo(null), null);
});

test('tasks: one per sub-topology and partition number, as many as the largest source topic', () => {
  assert.deepEqual(tasksOf(sourceTopics, partitions), ['0_0', '0_1', '0_2', '1_0', '1_1']);
});

test('a task gets the same partition of every source topic of its sub-topology; hosts map every client by endpoint', () => {
  const out = run([member('m-a', info('A', { endpoint: 'a:1' })), member('m-b', info('B', { endpoint: 'b:2' }))], 1);
  const all = [...out.values()];
  for (const { partitions: tps, info: i } of all) {
    for (const t of i.active) {
      const [sub, p] = t.split('_').map(Number);
      for (const topic of sourceTopics.get(sub as number) ?? []) assert.ok(tps.find((x) => x.topic === topic)?.partitions.includes(p as number), `${t} lacks ${topic}-${p}`);
    }
    assert.equal(i.errorCode, AssignorError.NONE);
  }
  assert.deepEqual(all.flatMap((a) => a.info.active).sort(), ['0_0', '0_1', '0_2', '1_0', '1_1']);
  assert.deepEqual(all.map((a) => a.info.active.length).sort(), [2, 3]);
  // Stateful sub-topology 1 has one standby per task, on the other client; stateless tasks have none.
  for (const [id, a] of out) {
    const other = [...out].find(([o]) => o !== id)?.[1] as { info: AssignmentInfo };
    assert.deepEqual(a.info.standby, other.info.active.filter((t) => t.startsWith('1_')));
  }
  const hosts = (out.get('m-a') as { info: AssignmentInfo }).info.hosts;
  assert.deepEqual(hosts.get('a:1')?.active, out.get('m-a')?.info.active);
  assert.deepEqual(hosts.get('b:2')?.standby, out.get('m-b')?.info.standby);
  assert.deepEqual(out.get('m-b')?.info.hosts, hosts, 'every member learns every host');
});

test('members of one process form one client; a member without our userData is a client of its own', () => {
  const out = run([member('m1', info('P')), member('m2', info('P')), member('m3', null)], 0);
  const per = [...out.values()].map((a) => a.info.active.length);
  assert.equal(per.reduce((a, b) => a + b, 0), 5);
  // P has capacity 2 of 3: floor(5*2/3) = 3 tasks (m3 floor(5/3) = 1, the remainder to P first by id): 4 over its two members.
  assert.equal((out.get('m1')?.info.active.length ?? 0) + (out.get('m2')?.info.active.length ?? 0), 4);
  assert.deepEqual(per.sort(), [1, 2, 2]);
});

test('cooperative: a task still owned by another member is left out of this round', () => {
  // A owned everything; B joins: the tasks moving to B are not handed out while A owns them.
  const owned: TopicPartitions[] = [...partitions].map(([topic, n]) => ({ topic, partitions: Array.from({ length: n }, (_, i) => i) }));
  const prev = ['0_0', '0_1', '0_2', '1_0', '1_1'];
  const first = run([member('m-a', info('A', { prevActive: prev }), owned), member('m-b', info('B'))]);
  assert.deepEqual(first.get('m-b')?.info.active, []);
  assert.deepEqual(first.get('m-b')?.partitions, []);
  const kept = first.get('m-a')?.info.active ?? [];
  assert.equal(kept.length, 3);
  // A revoked the rest and rejoins owning only its kept tasks: now B gets them.
  const keptOwned = first.get('m-a')?.partitions ?? [];
  const second = run([member('m-a', info('A', { prevActive: kept }), keptOwned), member('m-b', info('B'))]);
  assert.deepEqual(second.get('m-a')?.info.active, kept);
  assert.deepEqual(second.get('m-b')?.info.active, prev.filter((t) => !kept.includes(t)));
});

test('SHUTDOWN_APPLICATION: one member asks, every member gets SHUTDOWN_REQUESTED and no partitions', () => {
  const out = run([member('m-a', info('A')), member('m-b', info('B', { shutdownRequested: true }))]);
  for (const a of out.values()) {
    assert.equal(a.info.errorCode, AssignorError.SHUTDOWN_REQUESTED);
    assert.deepEqual(a.partitions, []);
  }
});

test('onAssignment hands the decoded info to the runtime; assign() gives the same partitions', () => {
  let got: AssignmentInfo | null = null;
  const assignor = streamsAssignor({ sourceTopics, statefulSubtopologies: new Set(), numStandbyReplicas: 0, subscriptionInfo: () => info('me', { endpoint: 'me:9' }), onAssignment: (i) => void (got = i) });
  const members = [member('m', decodeSubscriptionInfo(assignor.userData?.([], -1) ?? null))];
  const full = assignor.assignWithUserData?.(members, partitions) as Map<string, MemberAssignment>;
  assert.deepEqual(assignor.assign(members, partitions).get('m'), full.get('m')?.partitions);
  assignor.onAssignment?.(full.get('m') as MemberAssignment, { generationId: 1, memberId: 'm' });
  assert.deepEqual((got as AssignmentInfo | null)?.active, ['0_0', '0_1', '0_2', '1_0', '1_1']);
  assert.deepEqual([...((got as AssignmentInfo | null)?.hosts.keys() ?? [])], ['me:9']);
});
