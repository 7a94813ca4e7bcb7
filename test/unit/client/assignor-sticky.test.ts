/**
 * cooperative-sticky (sticky-assignor.ts): examples, the userData formats,
 * and fast-check properties over random groups and rebalance sequences:
 * every partition assigned at most once (exactly once after the follow-up
 * round), balance within one for equal subscriptions, owned partitions kept
 * when balance allows, and revocation only of partitions that move.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AssignorMember } from '../../../src/client/assignors.js';
import { decodeSubscription, encodeSubscription, flatten, type TopicPartitions } from '../../../src/client/consumer-protocol.js';
import { CooperativeStickyAssignor, decodeStickyUserData, encodeStickyUserData, memberOwnership, stickyAssign } from '../../../src/client/sticky-assignor.js';

type Owned = Record<string, string[]>;

function member(memberId: string, topics: string[], owned: TopicPartitions[] = [], generationId = -1): AssignorMember {
  return { memberId, groupInstanceId: null, subscription: { topics, ownedPartitions: owned, generationId } };
}

function names(tps: readonly TopicPartitions[]): string[] {
  return flatten(tps).map((p) => `${p.topic}-${p.partition}`);
}

function assign(members: AssignorMember[], partitions: Record<string, number>): Owned {
  const result = CooperativeStickyAssignor.assign(members, new Map(Object.entries(partitions)));
  return Object.fromEntries([...result].map(([id, tps]) => [id, names(tps)]));
}

const tp = (topic: string, ...partitions: number[]): TopicPartitions => ({ topic, partitions });

test('cooperative-sticky: a fresh group of two splits six partitions three and three', () => {
  const out = assign([member('a', ['t']), member('b', ['t'])], { t: 6 });
  assert.equal(out.a?.length, 3);
  assert.equal(out.b?.length, 3);
  assert.deepEqual([...(out.a ?? []), ...(out.b ?? [])].sort(), ['t-0', 't-1', 't-2', 't-3', 't-4', 't-5']);
});

test('cooperative-sticky: a joining member gets nothing in the first round; the owner gives up only what moves', () => {
  const a = member('a', ['t'], [tp('t', 0, 1, 2, 3, 4, 5)], 1);
  const c = member('c', ['t']);
  const first = assign([a, c], { t: 6 });
  // a keeps 3 of its 6 partitions (no other partition changes hands), c gets nothing yet (in transit).
  assert.equal(first.a?.length, 3);
  assert.deepEqual(first.c, []);
  // Second round: a owns its 3, c owns nothing; the 3 a gave up go to c.
  const kept = first.a as string[];
  const a2 = member('a', ['t'], [tp('t', ...kept.map((s) => Number(s.split('-')[1])))], 2);
  const second = assign([a2, member('c', ['t'], [], 2)], { t: 6 });
  assert.deepEqual(second.a, kept);
  assert.equal(second.c?.length, 3);
});

test('cooperative-sticky: a departed member\'s partitions go to the others, who keep theirs', () => {
  const a = member('a', ['t'], [tp('t', 0, 1)], 3);
  const b = member('b', ['t'], [tp('t', 2, 3)], 3);
  const out = assign([a, b], { t: 6 });
  assert.deepEqual(out.a?.slice(0, 2), ['t-0', 't-1']);
  assert.ok(out.b?.includes('t-2') && out.b.includes('t-3'));
  assert.equal((out.a?.length ?? 0) + (out.b?.length ?? 0), 6);
});

test('cooperative-sticky: a claim of an older generation loses to a newer one; a tie leaves the partition unowned', () => {
  const sticky = stickyAssign([member('a', ['t'], [tp('t', 0)], 5), member('b', ['t'], [tp('t', 0)], 4)], new Map([['t', 2]]));
  assert.deepEqual(sticky.get('a'), [{ topic: 't', partition: 0 }]);
  // b still claims it: this round leaves it out; b revokes, and the next round hands it over.
  const out = assign([member('a', ['t'], [tp('t', 0)], 5), member('b', ['t'], [tp('t', 0)], 4)], { t: 2 });
  assert.deepEqual(out.a, []);
  const tie = stickyAssign([member('a', ['t'], [tp('t', 0)], 5), member('b', ['t'], [tp('t', 0)], 5)], new Map([['t', 2]]));
  assert.equal([...tie.values()].flat().length, 2);
});

test('cooperative-sticky: partitions of deleted topics, unsubscribed topics and missing partitions are dropped from ownership', () => {
  const members = [member('a', ['t'], [tp('gone', 0), tp('t', 7), tp('u', 0)], 1), member('b', ['t', 'u'])];
  const sticky = stickyAssign(members, new Map([['t', 2], ['u', 1]]));
  assert.deepEqual([...sticky.values()].flat().map((x) => `${x.topic}-${x.partition}`).sort(), ['t-0', 't-1', 'u-0']);
  assert.ok(sticky.get('b')?.some((x) => x.topic === 'u'));
  // a still claims u-0 (it should have revoked it when it unsubscribed): u-0 waits one round.
  const out = assign(members, { t: 2, u: 1 });
  assert.deepEqual([...(out.a ?? []), ...(out.b ?? [])].sort(), ['t-0', 't-1']);
});

test('sticky userData: StickyAssignorUserData v1 round trip, Java 4-byte generation, garbage is null', () => {
  const data = { previousAssignment: [tp('orders', 0, 2), tp('audit', 1)], generation: 7 };
  assert.deepEqual(decodeStickyUserData(encodeStickyUserData(data)), data);
  const java = Buffer.alloc(4);
  java.writeInt32BE(12);
  assert.deepEqual(decodeStickyUserData(java), { previousAssignment: [], generation: 12 });
  assert.equal(decodeStickyUserData(Buffer.from([1, 2, 3])), null);
  assert.equal(decodeStickyUserData(null), null);
  // The generation comes from the v2+ field when set, else from userData.
  const v1 = decodeSubscription(encodeSubscription({ version: 1, topics: ['orders'], ownedPartitions: [tp('orders', 0)], userData: encodeStickyUserData(data) }));
  assert.equal(memberOwnership({ memberId: 'm', groupInstanceId: null, subscription: v1 }).generation, 7);
  const v3 = decodeSubscription(encodeSubscription({ topics: ['orders'], ownedPartitions: [tp('orders', 0)], generationId: 9, userData: encodeStickyUserData(data) }));
  assert.equal(memberOwnership({ memberId: 'm', groupInstanceId: null, subscription: v3 }).generation, 9);
});

// ------------------------------------------------------------------ properties

/** A random group history: topics with partition counts, and a sequence of membership changes. */
const scenario = fc.record({
  topics: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 3 }),
  steps: fc.array(fc.oneof(fc.constant<'join'>('join'), fc.constant<'leave'>('leave'), fc.constant<'grow'>('grow')), { minLength: 1, maxLength: 8 }),
  initial: fc.integer({ min: 1, max: 5 }),
});

interface Sim {
  owned: Map<string, string[]>;
  generation: number;
}

function ownedOf(list: readonly string[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const s of list) {
    const [topic, p] = s.split('-') as [string, string];
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(p)]);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/** One rebalance round with what each member owns; returns the new ownership after members revoke what they lost. */
function round(sim: Sim, partitions: Record<string, number>): { assigned: Owned; revoked: Owned } {
  const topics = Object.keys(partitions);
  const members = [...sim.owned].map(([id, list]) => member(id, topics, ownedOf(list), sim.generation));
  const assigned = assign(members, partitions);
  const revoked: Owned = {};
  for (const [id, list] of sim.owned) revoked[id] = list.filter((x) => !(assigned[id] ?? []).includes(x));
  sim.generation++;
  for (const id of sim.owned.keys()) sim.owned.set(id, assigned[id] ?? []);
  return { assigned, revoked };
}

function checkNoDoubleOwner(assigned: Owned): void {
  const all = Object.values(assigned).flat();
  assert.equal(new Set(all).size, all.length, `a partition is assigned twice: ${JSON.stringify(assigned)}`);
}

test('property: at most one owner per round, every partition owned once and balanced within one after the follow-up round, only moved partitions revoked', () => {
  fc.assert(
    fc.property(scenario, ({ topics, steps, initial }) => {
      const partitions: Record<string, number> = Object.fromEntries(topics.map((n, i) => [`t${i}`, n]));
      const sim: Sim = { owned: new Map(Array.from({ length: initial }, (_, i) => [`m${i}`, []])), generation: 1 };
      let next = initial;
      for (const step of steps) {
        if (step === 'join') sim.owned.set(`m${next++}`, []);
        else if (step === 'leave' && sim.owned.size > 1) sim.owned.delete([...sim.owned.keys()][0] as string);
        else if (step === 'grow') partitions.t0 = (partitions.t0 ?? 1) + 1;
        const before = new Map(sim.owned);
        const first = round(sim, partitions);
        checkNoDoubleOwner(first.assigned);
        // Stickiness: a member that still owns a partition after the round owned it before, or it was free.
        const heldBefore = new Map<string, string>();
        for (const [id, list] of before) for (const x of list) heldBefore.set(x, id);
        for (const [id, list] of Object.entries(first.assigned)) {
          for (const x of list) {
            const prior = heldBefore.get(x);
            assert.ok(prior === undefined || prior === id, `${x} moved from ${String(prior)} to ${id} without a revoke round`);
          }
        }
        // Follow-up round(s) hand over what was revoked; at most one more is needed.
        const second = round(sim, partitions);
        checkNoDoubleOwner(second.assigned);
        const revokedAgain = Object.values(second.revoked).flat();
        assert.deepEqual(revokedAgain, [], `the follow-up round revoked ${JSON.stringify(second.revoked)}`);
        const total = Object.values(partitions).reduce((a, b) => a + b, 0);
        const owned = Object.values(second.assigned).flat();
        assert.equal(owned.length, total, 'every partition is owned after the follow-up round');
        const sizes = Object.values(second.assigned).map((l) => l.length);
        assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `unbalanced: ${JSON.stringify(sizes)}`);
      }
    }),
    { numRuns: 150 },
  );
});

test('property: with nothing changed, a stable assignment stays exactly the same (no revocation)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 20 }), (memberCount, partitionCount) => {
      const sim: Sim = { owned: new Map(Array.from({ length: memberCount }, (_, i) => [`m${i}`, []])), generation: 1 };
      round(sim, { t: partitionCount });
      round(sim, { t: partitionCount });
      const stable = new Map(sim.owned);
      const again = round(sim, { t: partitionCount });
      for (const [id, list] of stable) assert.deepEqual(again.assigned[id], list);
      assert.deepEqual(Object.values(again.revoked).flat(), []);
    }),
    { numRuns: 100 },
  );
});

test('property: different subscriptions: each partition goes to a subscribed member, and no move could improve balance', () => {
  const subs = fc.array(fc.subarray(['a', 'b', 'c'], { minLength: 1 }), { minLength: 1, maxLength: 5 });
  fc.assert(
    fc.property(subs, fc.integer({ min: 1, max: 6 }), (subscriptions, n) => {
      const counts = new Map([['a', n], ['b', n + 1], ['c', 2]]);
      const members = subscriptions.map((topics, i) => member(`m${i}`, topics));
      const result = stickyAssign(members, counts);
      const all = [...result.values()].flat();
      assert.equal(new Set(all.map((x) => `${x.topic}-${x.partition}`)).size, all.length);
      const wanted = [...counts].filter(([t]) => subscriptions.some((s) => s.includes(t))).reduce((sum, [, c]) => sum + c, 0);
      assert.equal(all.length, wanted);
      for (const [id, list] of result) {
        const m = members.find((x) => x.memberId === id) as AssignorMember;
        for (const x of list) assert.ok(m.subscription.topics.includes(x.topic));
        // Balanced in the sticky sense: nobody with 2+ fewer could take one of this member's partitions.
        for (const [otherId, other] of result) {
          if (other.length + 2 > list.length) continue;
          const o = members.find((x) => x.memberId === otherId) as AssignorMember;
          assert.ok(!list.some((x) => o.subscription.topics.includes(x.topic)), `${otherId} (${other.length}) could take from ${id} (${list.length})`);
        }
      }
    }),
    { numRuns: 150 },
  );
});
