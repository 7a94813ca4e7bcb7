/**
 * Task placement (the streams assignor's core): balanced by capacity, sticky
 * to the previous owner within quota, a failed client's tasks to the client
 * holding most of their state (the standby), standbys never beside their
 * active task, deterministic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeTasks, type ClientState } from '../../../../src/streams/runtime/task-placement.js';

const tasks = (sub: number, n: number): string[] => Array.from({ length: n }, (_, p) => `${sub}_${p}`);

function client(id: string, o: Partial<Omit<ClientState, 'id'>> = {}): ClientState {
  return { id, capacity: o.capacity ?? 1, prevActive: o.prevActive ?? new Set(), prevStandby: o.prevStandby ?? new Set(), offsetSums: o.offsetSums ?? new Map() };
}

test('balanced: 6 tasks over 3 fresh clients give 2 each; capacity weighs (2 threads take twice as many)', () => {
  const p = placeTasks(tasks(0, 6), new Set(), [client('a'), client('b'), client('c')], 0);
  assert.deepEqual([...p.active.values()].map((l) => l.length), [2, 2, 2]);
  assert.deepEqual(new Set([...p.active.values()].flat()), new Set(tasks(0, 6)));
  const weighted = placeTasks(tasks(0, 6), new Set(), [client('a', { capacity: 2 }), client('b')], 0);
  assert.equal(weighted.active.get('a')?.length, 4);
  assert.equal(weighted.active.get('b')?.length, 2);
});

test('sticky: a joining client takes only what balance needs; the others keep their tasks', () => {
  const all = tasks(0, 4);
  const before = placeTasks(all, new Set(), [client('a'), client('b')], 0);
  const prevA = new Set(before.active.get('a'));
  const prevB = new Set(before.active.get('b'));
  const after = placeTasks(all, new Set(), [client('a', { prevActive: prevA }), client('b', { prevActive: prevB }), client('c')], 0);
  const kept = (id: string, prev: Set<string>): number => (after.active.get(id) ?? []).filter((t) => prev.has(t)).length;
  assert.equal(kept('a', prevA) + kept('b', prevB), 3, 'one task moves to the new client, three stay');
  assert.equal(after.active.get('c')?.length, 1);
  // The same input gives the same result (every member's leader agrees).
  assert.deepEqual(placeTasks(all, new Set(), [client('c'), client('b', { prevActive: prevB }), client('a', { prevActive: prevA })], 0), after);
});

test('a client over quota gives up its last tasks, keeps the first ones (stable across rounds)', () => {
  const all = tasks(0, 4);
  const p = placeTasks(all, new Set(), [client('a', { prevActive: new Set(all) }), client('b')], 0);
  assert.deepEqual(p.active.get('a'), ['0_0', '0_1']);
  assert.deepEqual(p.active.get('b'), ['0_2', '0_3']);
});

test('failover: the dead client\'s tasks go to the client with their state (largest offset sum), not to the least loaded', () => {
  const all = tasks(0, 2);
  const p = placeTasks(all, new Set(all), [
    client('a', { prevActive: new Set(['0_0']) }),
    client('b', { prevStandby: new Set(['0_1']), offsetSums: new Map([['0_1', 900n]]) }),
    client('c', { offsetSums: new Map([['0_1', 10n]]) }),
  ], 0);
  assert.deepEqual(p.active.get('a'), ['0_0']);
  assert.deepEqual(p.active.get('b'), ['0_1']);
  assert.deepEqual(p.active.get('c'), []);
});

test('standbys: only stateful tasks, never on the active client, spread evenly, sticky to state', () => {
  const stateful = new Set(tasks(0, 4));
  const all = [...tasks(0, 4), ...tasks(1, 2)];
  const p = placeTasks(all, stateful, [client('a'), client('b'), client('c')], 1);
  const standbys = [...p.standby.values()].flat();
  assert.deepEqual(new Set(standbys), stateful, 'one standby per stateful task, none for sub-topology 1');
  assert.equal(standbys.length, 4);
  for (const [id, list] of p.standby) for (const t of list) assert.ok(!(p.active.get(id) ?? []).includes(t), `${t} standby beside its active on ${id}`);
  const counts = [...p.standby.values()].map((l) => l.length).sort();
  assert.ok((counts.at(-1) ?? 0) - (counts[0] ?? 0) <= 1, `standbys spread: ${counts.join(',')}`);
  // Two replicas on three clients: every client holds each task once (active or standby).
  const two = placeTasks(tasks(0, 3), new Set(tasks(0, 3)), [client('a'), client('b'), client('c')], 2);
  for (const t of tasks(0, 3)) {
    const holders = [...two.active, ...two.standby].filter(([, l]) => l.includes(t)).map(([id]) => id).sort();
    assert.deepEqual(holders, ['a', 'b', 'c']);
  }
  // More replicas than other clients: as many as fit.
  const one = placeTasks(tasks(0, 2), new Set(tasks(0, 2)), [client('a')], 1);
  assert.deepEqual(one.standby.get('a'), []);
});

test('a standby is placed where the task\'s state already is', () => {
  const p = placeTasks(['0_0'], new Set(['0_0']), [
    client('a', { prevActive: new Set(['0_0']) }),
    client('b'),
    client('c', { prevStandby: new Set(['0_0']), offsetSums: new Map([['0_0', 50n]]) }),
  ], 1);
  assert.deepEqual(p.standby.get('c'), ['0_0']);
});
