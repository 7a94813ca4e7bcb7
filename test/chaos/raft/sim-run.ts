/** The Raft simulation driver (see raft-sim.test.ts): a fault phase, then a stable phase that must make progress. */
import assert from 'node:assert/strict';
import { majorityOf } from '../../../src/controller/raft/index.js';
import { SimWorld, TICK_MS, type SimNode } from './sim-world.js';

export const FAULT_PHASE_MS = 15_000;
/** After the faults stop: time allowed to elect a leader and commit a new entry. */
export const LIVENESS_BOUND_MS = 20_000;

export interface SimResult {
  readonly world: SimWorld;
  /** Virtual ms from the end of the faults to the commit of the probe entry. */
  readonly recoveryMs: number;
}

function randomPartition(w: SimWorld): number[] {
  // Two or three groups; each node lands in one at random.
  const groups = 2 + w.random.int(2);
  return w.nodes.map(() => w.random.int(groups));
}

function injectFaults(w: SimWorld): void {
  const r = w.random;
  for (const n of w.nodes) {
    if (n.raft !== null && r.next() < 0.002) w.crash(n);
    else if (n.raft === null && r.next() < 0.01) w.restart(n);
  }
  if (r.next() < 0.003) w.setPartition(randomPartition(w));
  else if (r.next() < 0.004) w.heal();
  if (r.next() < 0.002) {
    w.net = { dropRate: r.next() * 0.3, duplicateRate: r.next() * 0.15, delayMaxMs: 1 + r.int(150) };
    w.log(`network drop ${w.net.dropRate.toFixed(2)} dup ${w.net.duplicateRate.toFixed(2)} delay<${w.net.delayMaxMs}`);
  }
  if (r.next() < 0.15) {
    // Clients propose to whoever they think leads; non-leaders refuse.
    const live = w.live();
    if (live.length > 0) w.propose(w.pick(live), 1 + r.int(3));
  }
}

/** Heal, stop losses, bring back all but a minority; that minority stays crashed or cut off. */
function stabilise(w: SimWorld): SimNode[] {
  w.heal();
  w.net = { dropRate: 0, duplicateRate: 0, delayMaxMs: 1 + w.random.int(30) };
  const minority = w.nodes.length - majorityOf(w.nodes.length);
  const shuffled = [...w.nodes];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = w.random.int(i + 1);
    const a = shuffled[i];
    const b = shuffled[j];
    assert.ok(a !== undefined && b !== undefined);
    shuffled[i] = b;
    shuffled[j] = a;
  }
  const out = shuffled.slice(0, w.random.int(minority + 1));
  const groups = w.nodes.map(() => 0);
  for (const n of w.nodes) {
    const isOut = out.includes(n);
    if (isOut && w.random.next() < 0.5) {
      if (n.raft !== null) w.crash(n);
    } else {
      if (n.raft === null) w.restart(n);
      if (isOut) groups[n.id - 1] = n.id; // alone in its own group
    }
  }
  w.setPartition(groups);
  return w.nodes.filter((n) => !out.includes(n));
}

export function simulate(seed: number): SimResult {
  let world: SimWorld | null = null;
  try {
    return run(seed, (w) => (world = w));
  } catch (e) {
    // SIM_TRACE=1 appends the last events of the world to the failure.
    const w = world as SimWorld | null;
    if (process.env['SIM_TRACE'] !== undefined && w !== null && e instanceof Error) e.message += `\n--- last events ---\n${w.traceTail(80)}`;
    throw e;
  }
}

function run(seed: number, expose: (w: SimWorld) => void): SimResult {
  const size = seed % 2 === 0 ? 5 : 3;
  const w = new SimWorld(seed, size);
  expose(w);
  w.net = { dropRate: w.random.next() * 0.2, duplicateRate: w.random.next() * 0.1, delayMaxMs: 1 + w.random.int(100) };
  while (w.nowMs < FAULT_PHASE_MS) {
    w.step();
    injectFaults(w);
  }
  const majority = stabilise(w);
  const stableFromMs = w.nowMs;
  const deadline = stableFromMs + LIVENESS_BOUND_MS;
  let probe: { offset: number; epoch: number } | null = null;
  while (w.nowMs < deadline) {
    w.step();
    const leader = w.leader();
    if (leader === null || !majority.includes(leader) || leader.raft === null) continue;
    if (probe !== null && probe.epoch !== leader.raft.epoch) probe = null; // the probe may be lost with its epoch
    if (probe === null) {
      probe = w.propose(leader, 1);
      continue;
    }
    const committed = w.ledger[probe.offset];
    if (committed !== undefined && committed.epoch === probe.epoch) {
      w.check(true);
      return { world: w, recoveryMs: w.nowMs - stableFromMs };
    }
  }
  assert.fail(`no entry committed within ${LIVENESS_BOUND_MS} ms after the faults stopped (majority ${majority.map((n) => n.id).join(',')}, ` +
    `leader ${w.leader()?.id ?? 'none'}, epochs ${w.nodes.map((n) => `${n.id}:${n.raft?.roleName ?? 'down'}@${n.raft?.epoch ?? '-'}`).join(' ')})`);
}

export { TICK_MS };
