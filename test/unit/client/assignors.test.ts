/**
 * The range and roundrobin assignors against the results of the Java
 * client's RangeAssignorTest and RoundRobinAssignorTest (same inputs, same
 * expected partitions), plus the invariants every assignment must keep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ASSIGNORS, RangeAssignor, RoundRobinAssignor, compareMembers, type Assignor, type AssignorMember } from '../../../src/client/assignors.js';
import { flatten, type TopicPartitions } from '../../../src/client/consumer-protocol.js';

function member(memberId: string, topics: string[], groupInstanceId: string | null = null): AssignorMember {
  return { memberId, groupInstanceId, subscription: { topics } };
}

/** The assignment as 'topic-p' strings per member, for readable expectations. */
function run(assignor: Assignor, members: AssignorMember[], partitions: Record<string, number>): Record<string, string[]> {
  const result = assignor.assign(members, new Map(Object.entries(partitions)));
  return Object.fromEntries([...result].map(([id, tps]) => [id, flatten(tps).map((p) => `${p.topic}-${p.partition}`)]));
}

const t1 = 't1';
const t2 = 't2';

test('range: one consumer, no topics / non-existent topic', () => {
  assert.deepEqual(run(RangeAssignor, [member('c1', [])], {}), { c1: [] });
  assert.deepEqual(run(RangeAssignor, [member('c1', [t1])], {}), { c1: [] });
});

test('range: one consumer, one topic', () => {
  assert.deepEqual(run(RangeAssignor, [member('c1', [t1])], { t1: 3 }), { c1: ['t1-0', 't1-1', 't1-2'] });
});

test('range: only assigns partitions of subscribed topics', () => {
  assert.deepEqual(run(RangeAssignor, [member('c1', [t1])], { t1: 3, other: 3 }), { c1: ['t1-0', 't1-1', 't1-2'] });
});

test('range: two consumers, one topic with one partition (the second gets nothing)', () => {
  assert.deepEqual(run(RangeAssignor, [member('c1', [t1]), member('c2', [t1])], { t1: 1 }), { c1: ['t1-0'], c2: [] });
});

test('range: two consumers, one topic with two partitions', () => {
  assert.deepEqual(run(RangeAssignor, [member('c1', [t1]), member('c2', [t1])], { t1: 2 }), { c1: ['t1-0'], c2: ['t1-1'] });
});

test('range: multiple consumers, mixed topics (RangeAssignorTest.testMultipleConsumersMixedTopics)', () => {
  const members = [member('consumer1', [t1]), member('consumer2', [t1, t2]), member('consumer3', [t1])];
  assert.deepEqual(run(RangeAssignor, members, { t1: 3, t2: 2 }), {
    consumer1: ['t1-0'],
    consumer2: ['t1-1', 't2-0', 't2-1'],
    consumer3: ['t1-2'],
  });
});

test('range: two consumers, two topics, six partitions (testTwoConsumersTwoTopicsSixPartitions)', () => {
  const members = [member('consumer1', [t1, t2]), member('consumer2', [t1, t2])];
  assert.deepEqual(run(RangeAssignor, members, { t1: 3, t2: 3 }), {
    consumer1: ['t1-0', 't1-1', 't2-0', 't2-1'],
    consumer2: ['t1-2', 't2-2'],
  });
});

test('range: members are ordered by member id, not by input order', () => {
  const members = [member('b', [t1]), member('a', [t1])];
  assert.deepEqual(run(RangeAssignor, members, { t1: 3 }), { b: ['t1-2'], a: ['t1-0', 't1-1'] });
});

test('range: static members sort by group.instance.id, before dynamic ones (Java MemberInfo order)', () => {
  // consumer1..2 are static with instance ids ordered opposite to their member ids; c3 is dynamic.
  const members = [member('consumer1', [t1, t2], 'instance2'), member('consumer2', [t1, t2], 'instance1'), member('consumer3', [t1, t2])];
  assert.deepEqual(run(RangeAssignor, members, { t1: 5, t2: 5 }), {
    consumer2: ['t1-0', 't1-1', 't2-0', 't2-1'],
    consumer1: ['t1-2', 't1-3', 't2-2', 't2-3'],
    consumer3: ['t1-4', 't2-4'],
  });
});

test('range: the four-partition, two-member split the CLI test relies on', () => {
  assert.deepEqual(run(RangeAssignor, [member('m-2', ['orders']), member('m-1', ['orders'])], { orders: 4 }), {
    'm-2': ['orders-2', 'orders-3'],
    'm-1': ['orders-0', 'orders-1'],
  });
});

test('roundrobin: one consumer, one topic; non-existent topic', () => {
  assert.deepEqual(run(RoundRobinAssignor, [member('c1', [t1])], { t1: 3 }), { c1: ['t1-0', 't1-1', 't1-2'] });
  assert.deepEqual(run(RoundRobinAssignor, [member('c1', [t1])], {}), { c1: [] });
});

test('roundrobin: two consumers, two topics, six partitions (RoundRobinAssignorTest)', () => {
  const members = [member('consumer1', [t1, t2]), member('consumer2', [t1, t2])];
  assert.deepEqual(run(RoundRobinAssignor, members, { t1: 3, t2: 3 }), {
    consumer1: ['t1-0', 't1-2', 't2-1'],
    consumer2: ['t1-1', 't2-0', 't2-2'],
  });
});

test('roundrobin: multiple consumers, mixed topics (testMultipleConsumersMixedTopics)', () => {
  const members = [member('consumer1', [t1]), member('consumer2', [t1, t2]), member('consumer3', [t1])];
  assert.deepEqual(run(RoundRobinAssignor, members, { t1: 3, t2: 2 }), {
    consumer1: ['t1-0'],
    consumer2: ['t1-1', 't2-0', 't2-1'],
    consumer3: ['t1-2'],
  });
});

test('roundrobin: the ring carries over from one topic to the next', () => {
  const members = [member('a', [t1, t2]), member('b', [t1, t2]), member('c', [t1, t2])];
  assert.deepEqual(run(RoundRobinAssignor, members, { t1: 2, t2: 2 }), { a: ['t1-0', 't2-1'], b: ['t1-1'], c: ['t2-0'] });
});

test('roundrobin: static members first, by group.instance.id (Java MemberInfo order)', () => {
  const members = [member('consumer-b', [t1], null), member('consumer-a', [t1], 'z'), member('consumer-c', [t1], 'y')];
  assert.deepEqual(run(RoundRobinAssignor, members, { t1: 3 }), { 'consumer-b': ['t1-2'], 'consumer-a': ['t1-1'], 'consumer-c': ['t1-0'] });
});

test('compareMembers is Java String.compareTo (UTF-16 units), not locale order', () => {
  assert.ok(compareMembers({ memberId: 'B', groupInstanceId: null }, { memberId: 'a', groupInstanceId: null }) < 0);
  assert.ok(compareMembers({ memberId: 'z', groupInstanceId: 'x' }, { memberId: 'a', groupInstanceId: null }) < 0);
});

test('every assignor: each subscribed partition goes to exactly one subscribed member; the result is deterministic', () => {
  const topics = ['a', 'b', 'c'];
  const arb = fc.record({
    members: fc.uniqueArray(
      fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), topics: fc.subarray(topics, { minLength: 1 }), static: fc.boolean() }),
      { minLength: 1, maxLength: 6, selector: (m) => m.id },
    ),
    counts: fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })),
  });
  for (const assignor of ASSIGNORS.values()) {
    fc.assert(
      fc.property(arb, ({ members, counts }) => {
        // group.instance.ids are unique within a group, as the broker enforces.
        const input = members.map((m) => member(m.id, m.topics, m.static ? `i-${m.id}` : null));
        const perTopic = new Map(topics.map((t, i) => [t, counts[i] as number]).filter(([, n]) => (n as number) > 0) as [string, number][]);
        const result = assignor.assign(input, perTopic);
        assert.deepEqual([...result.keys()].sort(), input.map((m) => m.memberId).sort());
        const owner = new Map<string, string>();
        for (const [id, tps] of result) {
          for (const p of flatten(tps as TopicPartitions[])) {
            const k = `${p.topic}-${p.partition}`;
            assert.ok(!owner.has(k), `${k} assigned twice`);
            owner.set(k, id);
            assert.ok(input.find((m) => m.memberId === id)?.subscription.topics.includes(p.topic), `${id} got ${k} without subscribing`);
          }
        }
        const subscribed = new Set(input.flatMap((m) => m.subscription.topics));
        const expected = [...perTopic].filter(([t]) => subscribed.has(t)).reduce((n, [, c]) => n + c, 0);
        assert.equal(owner.size, expected);
        assert.deepEqual(assignor.assign([...input].reverse(), perTopic), result);
      }),
    );
  }
});
