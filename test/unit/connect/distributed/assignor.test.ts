/**
 * The incremental cooperative assignor (KIP-415) round by round: what each
 * member gains and gives up when the group forms, when a worker joins
 * (only what balance needs moves, in two rounds), when one leaves (its work
 * waits for scheduled.rebalance.max.delay.ms, or for the worker to come
 * back), and when connectors are deleted or claimed twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncrementalCooperativeAssignor, type MemberAssignment } from '../../../../src/connect/distributed/assignor.js';
import { emptyAllocation, taskKey, type Allocation } from '../../../../src/connect/distributed/protocol.js';

/** "c1" is connector c1, "c1-0" its task 0. */
function alloc(items: readonly string[]): Allocation {
  const a = emptyAllocation();
  for (const i of items) {
    const m = /^(.*)-(\d+)$/.exec(i);
    if (m === null) a.connectors.push(i);
    else a.tasks.push({ connector: m[1] ?? '', task: Number(m[2]) });
  }
  return a;
}

function items(a: Allocation): string[] {
  return [...a.connectors, ...a.tasks.map(taskKey)].sort();
}

/** Configured work: each connector with `tasks` tasks. */
function configured(connectors: Record<string, number>): Allocation {
  return alloc(Object.entries(connectors).flatMap(([c, n]) => [c, ...Array.from({ length: n }, (_, i) => `${c}-${i}`)]));
}

/** A group whose members apply each assignment, as workers do. */
class Group {
  readonly owned = new Map<string, Set<string>>();
  constructor(readonly assignor = new IncrementalCooperativeAssignor(10_000)) {}

  join(...ids: string[]): void {
    for (const id of ids) this.owned.set(id, new Set());
  }

  leave(id: string): void {
    this.owned.delete(id);
  }

  round(config: Allocation, nowMs = 0): Map<string, { gained: string[]; lost: string[]; delayMs: number }> {
    const members = [...this.owned].map(([memberId, set]) => ({ memberId, owned: alloc([...set]) }));
    const result: Map<string, MemberAssignment> = this.assignor.assign(members, config, nowMs);
    const out = new Map<string, { gained: string[]; lost: string[]; delayMs: number }>();
    for (const [id, a] of result) {
      const set = this.owned.get(id) ?? new Set<string>();
      for (const i of items(a.revoked)) set.delete(i);
      for (const i of items(a.assigned)) set.add(i);
      out.set(id, { gained: items(a.assigned), lost: items(a.revoked), delayMs: a.delayMs });
    }
    return out;
  }

  holdings(): Record<string, string[]> {
    return Object.fromEntries([...this.owned].sort(([a], [b]) => a.localeCompare(b)).map(([id, s]) => [id, [...s].sort()]));
  }
}

const TWO_BY_TWO = configured({ c1: 2, c2: 2 });

test('a new group: work is spread evenly in one round, nothing revoked', () => {
  const g = new Group();
  g.join('a', 'b');
  const r = g.round(TWO_BY_TWO);
  assert.deepEqual(r.get('a'), { gained: ['c1', 'c1-0', 'c2-0'], lost: [], delayMs: 0 });
  assert.deepEqual(r.get('b'), { gained: ['c1-1', 'c2', 'c2-1'], lost: [], delayMs: 0 });
});

const JOIN_CASES: { name: string; config: Allocation; before: string[]; joining: string[]; moves: number }[] = [
  { name: '2 workers, 2 connectors x 2 tasks, a third joins', config: TWO_BY_TWO, before: ['a', 'b'], joining: ['c'], moves: 1 },
  { name: '1 worker, 3 connectors x 3 tasks, a second joins', config: configured({ x: 3, y: 3, z: 3 }), before: ['a'], joining: ['b'], moves: 1 + 4 },
  { name: '2 workers, 1 connector x 8 tasks, two join', config: configured({ big: 8 }), before: ['a', 'b'], joining: ['c', 'd'], moves: 4 },
  { name: '3 workers, 1 connector x 1 task, a fourth joins (nothing to give)', config: configured({ one: 1 }), before: ['a', 'b', 'c'], joining: ['d'], moves: 0 },
];

for (const c of JOIN_CASES) {
  test(`join: ${c.name}: only what balance needs moves, in a revoke round and a hand-over round`, () => {
    const g = new Group();
    g.join(...c.before);
    g.round(c.config);
    const before = g.holdings();
    g.join(...c.joining);
    const first = g.round(c.config, 1);
    const revoked = [...first.values()].flatMap((x) => x.lost);
    assert.equal(revoked.length, c.moves, `revoked ${revoked.join(',')}`);
    assert.deepEqual([...first.values()].flatMap((x) => x.gained), [], 'the first round only revokes');
    const second = g.round(c.config, 2);
    assert.deepEqual([...second.values()].flatMap((x) => x.gained).sort(), revoked.sort(), 'the follow-up round hands over exactly what was revoked');
    assert.deepEqual([...second.values()].flatMap((x) => x.lost), []);
    const after = g.holdings();
    for (const id of c.before) for (const i of after[id] ?? []) assert.ok(before[id]?.includes(i), `${id} kept ${i} without a move`);
    const counts = (kind: 'c' | 't'): number[] => Object.values(after).map((l) => l.filter((i) => (kind === 't') === /-\d+$/.test(i)).length);
    for (const kind of ['c', 't'] as const) assert.ok(Math.max(...counts(kind)) - Math.min(...counts(kind)) <= 1, `balanced ${kind}: ${JSON.stringify(after)}`);
    const third = g.round(c.config, 3);
    assert.deepEqual([...third.values()].flatMap((x) => [...x.gained, ...x.lost]), [], 'a stable group moves nothing');
  });
}

test('departure: the lost work waits for scheduled.rebalance.max.delay.ms, then goes to the survivors', () => {
  const g = new Group(new IncrementalCooperativeAssignor(10_000));
  g.join('a', 'b');
  g.round(TWO_BY_TWO, 0);
  const bHad = g.holdings().b ?? [];
  g.leave('b');
  const during = g.round(TWO_BY_TWO, 1_000);
  assert.deepEqual(during.get('a'), { gained: [], lost: [], delayMs: 10_000 }, 'the delay starts when the loss is noticed');
  const still = g.round(TWO_BY_TWO, 6_000);
  assert.deepEqual(still.get('a'), { gained: [], lost: [], delayMs: 5_000 }, 'the deadline does not move with later rounds');
  const early = g.round(TWO_BY_TWO, 10_999);
  assert.deepEqual(early.get('a'), { gained: [], lost: [], delayMs: 1 });
  const after = g.round(TWO_BY_TWO, 11_000);
  assert.deepEqual(after.get('a'), { gained: bHad, lost: [], delayMs: 0 });
  assert.deepEqual(g.holdings().a, items(TWO_BY_TWO));
});

test('departure: a worker that comes back within the delay gets the lost work at once', () => {
  const g = new Group();
  g.join('a', 'b');
  g.round(TWO_BY_TWO, 0);
  const bHad = g.holdings().b ?? [];
  g.leave('b');
  g.round(TWO_BY_TWO, 1_000);
  g.join('b2');
  const back = g.round(TWO_BY_TWO, 2_000);
  assert.deepEqual(back.get('b2'), { gained: bHad, lost: [], delayMs: 0 });
  assert.deepEqual(back.get('a'), { gained: [], lost: [], delayMs: 0 });
});

test('scheduled.rebalance.max.delay.ms=0 reassigns lost work in the same round', () => {
  const g = new Group(new IncrementalCooperativeAssignor(0));
  g.join('a', 'b');
  g.round(TWO_BY_TWO, 0);
  g.leave('a');
  const r = g.round(TWO_BY_TWO, 1);
  assert.deepEqual(r.get('b')?.delayMs, 0);
  assert.deepEqual(g.holdings().b, items(TWO_BY_TWO));
});

test('deleted connectors and removed tasks are revoked from their owners; new ones are spread', () => {
  const g = new Group();
  g.join('a', 'b');
  g.round(configured({ c1: 2, c2: 2 }));
  const r = g.round(configured({ c1: 1, c3: 2 }), 1);
  const lost = [...r.values()].flatMap((x) => x.lost).sort();
  assert.deepEqual(lost, ['c1-1', 'c2', 'c2-0', 'c2-1']);
  assert.deepEqual([...r.values()].flatMap((x) => x.gained).sort(), ['c3', 'c3-0', 'c3-1']);
  const all = Object.values(g.holdings()).flat().sort();
  assert.deepEqual(all, items(configured({ c1: 1, c3: 2 })));
});

test('work claimed by two members stays with the first and is revoked from the other', () => {
  const assignor = new IncrementalCooperativeAssignor(10_000);
  const r = assignor.assign([{ memberId: 'a', owned: alloc(['c1', 'c1-0']) }, { memberId: 'b', owned: alloc(['c1-0']) }], configured({ c1: 1 }), 0);
  assert.deepEqual(items(r.get('b')?.revoked ?? emptyAllocation()), ['c1-0']);
  assert.deepEqual(items(r.get('a')?.revoked ?? emptyAllocation()), []);
});
