/** The Raft simulation driver (see raft-sim.test.ts): a fault phase, a stable phase that must make progress, then everyone rejoins. */
import assert from 'node:assert/strict';
import { majorityOf } from '../../../src/controller/raft/index.js';
import { digestOf, SimWorld, type SimNode } from './sim-world.js';

export const FAULT_PHASE_MS = 15_000;
/** After the faults stop: time allowed to elect a leader and commit a new entry. */
export const LIVENESS_BOUND_MS = 20_000;
/** Then everyone rejoins: time to catch up (the restarted wait up to 2 election timeouts before asking). */
export const REJOIN_MS = 6_000;

export interface SimResult {
  readonly world: SimWorld;
  /** Virtual ms from the end of the faults to the commit of the probe entry. */
  readonly recoveryMs: number;
  /** Virtual ms from a leader's resignation (EndQuorumEpoch) to the next epoch's leader; null if the run ended disrupted. */
  readonly handoverMs: number | null;
  /** Virtual ms from killing the leader (its followers' connections reset) to a new leader; null likewise. */
  readonly killFailoverMs: number | null;
}

/** Single flaky link: one follower's connection to the healthy leader resets again and again. */
export const FLAKY_MS = 3_000;
/** A new leader after a kill or resignation must be elected within this (virtual ms); the medians are far lower. */
export const FAILOVER_BOUND_MS = 10_000;

/** A single flaky link must not depose a healthy leader: the other voters keep fetching from it and refuse the pre-votes. */
function flakyLink(w: SimWorld, leader: SimNode): void {
  const raft = leader.raft;
  assert.ok(raft !== null);
  const epoch = raft.epoch;
  const followers = w.voters.filter((n) => n !== leader);
  const flaky = w.pick(followers);
  const untilMs = w.nowMs + FLAKY_MS;
  let nextMs = w.nowMs;
  while (w.nowMs < untilMs) {
    if (w.nowMs >= nextMs) {
      if (flaky.raft?.leaderId === leader.id) w.resetToLeader(flaky);
      nextMs = w.nowMs + 50 + w.random.int(400);
    }
    w.step();
    assert.ok(leader.raft === raft && raft.roleName === 'leader' && raft.epoch === epoch, `a flaky link of node ${flaky.id} deposed leader ${leader.id} of epoch ${epoch}`);
  }
}

/** Steps until a leader of an epoch after `epoch` is elected; returns it and the virtual ms it took. */
function awaitNewLeader(w: SimWorld, epoch: number, what: string): { leader: SimNode; ms: number } {
  const fromMs = w.nowMs;
  while (w.nowMs - fromMs < FAILOVER_BOUND_MS) {
    w.step();
    const l = w.leader();
    if (l?.raft !== null && l !== null && l.raft.epoch > epoch) return { leader: l, ms: w.nowMs - fromMs };
  }
  assert.fail(`no new leader within ${FAILOVER_BOUND_MS} ms after ${what} (epoch ${epoch})`);
}

/**
 * Graceful handover, then kill -9: the leader resigns (EndQuorumEpoch) and its preferred successor
 * leads the very next epoch; that one is then crashed with its followers' connections reset, and a
 * new leader is elected without waiting for the fetch timeout (usually).
 */
function failovers(w: SimWorld, first: SimNode): { handoverMs: number; killFailoverMs: number } {
  const r1 = first.raft;
  assert.ok(r1 !== null);
  const epoch1 = r1.epoch;
  w.resign(first);
  const handover = awaitNewLeader(w, epoch1, `leader ${first.id} resigned`);
  assert.equal(handover.leader.raft?.epoch, epoch1 + 1, 'the successor of a resigned leader leads the next epoch');
  assert.notEqual(handover.leader, first, 'a resigned leader does not lead the next epoch');
  // The resigned node stops and comes back (a rolling restart), so a majority remains after the kill.
  w.crash(first);
  w.restart(first);
  const second = handover.leader;
  const epoch2 = handover.leader.raft?.epoch ?? 0;
  // Kill it once every voter follows it (so all of them hold a connection to reset).
  const settleUntilMs = w.nowMs + FLAKY_MS;
  while (w.nowMs < settleUntilMs && !w.voters.every((n) => n === second || n.raft?.leaderId === second.id)) w.step();
  assert.ok(second.raft?.roleName === 'leader' && second.raft.epoch === epoch2, `leader ${second.id} of epoch ${epoch2} kept leading while the voters joined`);
  w.crash(second);
  w.resetConnectionsTo(second, 1);
  const failover = awaitNewLeader(w, epoch2, `leader ${second.id} was killed`);
  w.restart(second);
  return { handoverMs: handover.ms, killFailoverMs: failover.ms };
}

function randomPartition(w: SimWorld): number[] {
  // Two or three groups; each node lands in one at random.
  const groups = 2 + w.random.int(2);
  return w.nodes.map(() => w.random.int(groups));
}

/** `chaos` scales the fault rates per seed (0.5x..4x), so some schedules are calm and some violent. */
function injectFaults(w: SimWorld, chaos: number): void {
  const r = w.random;
  for (const n of w.nodes) {
    if (n.raft !== null && r.next() < 0.002 * chaos) {
      const wasLeader = n.raft.roleName === 'leader';
      // A graceful stop of the leader resigns first (EndQuorumEpoch) half the time.
      if (wasLeader && r.next() < 0.5) w.resign(n);
      w.crash(n);
      // Its sockets are reset: its followers may learn at once that it is gone.
      if (wasLeader) w.resetConnectionsTo(n, r.next());
    } else if (n.raft === null && r.next() < 0.01) w.restart(n);
  }
  if (r.next() < 0.003 * chaos) {
    // A flaky link: one node's connection to its leader resets although the leader is fine.
    const followers = w.live().filter((n) => n.raft?.roleName === 'follower');
    if (followers.length > 0) w.resetToLeader(w.pick(followers));
  }
  if (r.next() < 0.001 * chaos) {
    // The leader resigns and keeps running (it may stand again later).
    const leader = w.leader();
    if (leader !== null) w.resign(leader);
  }
  if (r.next() < 0.003 * chaos) w.setPartition(randomPartition(w));
  else if (r.next() < 0.004) w.heal();
  if (r.next() < 0.002) {
    w.net = { dropRate: r.next() * 0.3, duplicateRate: r.next() * 0.15, delayMaxMs: 1 + r.int(150) };
    w.log(`network drop ${w.net.dropRate.toFixed(2)} dup ${w.net.duplicateRate.toFixed(2)} delay<${w.net.delayMaxMs}`);
  }
  if (r.next() < 0.004 * chaos) {
    // A node's owner snapshots its applied state (and the node drops its log prefix).
    const live = w.live();
    if (live.length > 0) w.snapshot(w.pick(live));
  }
  if (r.next() < 0.15) {
    // Clients propose to whoever they think leads; non-leaders refuse.
    const live = w.live();
    if (live.length > 0) w.propose(w.pick(live), 1 + r.int(Math.min(3, w.nodes[0]?.config.fetchEntriesMax ?? 1)));
  }
}

/** Heal, stop losses, bring back all but a minority; that minority stays crashed or cut off. */
function stabilise(w: SimWorld): SimNode[] {
  w.heal();
  w.net = { dropRate: 0, duplicateRate: 0, delayMaxMs: 1 + w.random.int(30) };
  const minority = w.size - majorityOf(w.size);
  // Observers all come back and reconnect: the minority left out is of voters.
  for (const n of w.nodes) if (w.isObserver(n) && n.raft === null) w.restart(n);
  const shuffled = [...w.voters];
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
  for (const n of w.voters) {
    const isOut = out.includes(n);
    if (isOut && w.random.next() < 0.5) {
      if (n.raft !== null) w.crash(n);
    } else {
      if (n.raft === null) w.restart(n);
      if (isOut) groups[n.id - 1] = n.id; // alone in its own group
    }
  }
  w.setPartition(groups);
  return w.voters.filter((n) => !out.includes(n));
}

/**
 * Everyone comes back (restarted, reconnected). Pre-vote: a rejoining node whose epoch is not
 * above the leader's must not disturb it. Then every node catches up to the leader's log.
 */
function rejoin(w: SimWorld, leader: SimNode): { handoverMs: number; killFailoverMs: number } | null {
  const raft = leader.raft;
  assert.ok(raft !== null);
  const epoch = raft.epoch;
  // Half the time the leader snapshots now, so the nodes that were away must catch up from it.
  if (w.random.next() < 0.5) w.snapshot(leader);
  for (const n of w.nodes) if (n.raft === null) w.restart(n);
  const disruptable = w.nodes.some((n) => (n.raft?.epoch ?? 0) > epoch);
  w.heal();
  const untilMs = w.nowMs + REJOIN_MS;
  while (w.nowMs < untilMs) {
    w.step();
    if (!disruptable) assert.ok(leader.raft === raft && raft.roleName === 'leader' && raft.epoch === epoch, `a rejoining node disturbed leader ${leader.id} of epoch ${epoch}`);
  }
  if (disruptable || raft.roleName !== 'leader') return null;
  for (const n of w.nodes) {
    assert.equal(n.storage.endOffset, leader.storage.endOffset, `node ${n.id} caught up with the leader's log`);
    assert.equal(n.raft?.highWatermark, raft.highWatermark, `node ${n.id} caught up with the leader's high watermark`);
    assert.equal(n.state.applied, raft.highWatermark, `node ${n.id} applied everything committed`);
    assert.equal(digestOf(n.state), digestOf(leader.state), `node ${n.id} has the leader's state`);
  }
  flakyLink(w, leader);
  return failovers(w, leader);
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
  // One seed in three adds one or two observers (broker-only nodes).
  const observers = seed % 3 === 0 ? 1 + (seed % 2) : 0;
  const w = new SimWorld(seed, size, observers);
  expose(w);
  w.net = { dropRate: w.random.next() * 0.2, duplicateRate: w.random.next() * 0.1, delayMaxMs: 1 + w.random.int(100) };
  const chaos = 0.5 + w.random.next() * 3.5;
  while (w.nowMs < FAULT_PHASE_MS) {
    w.step();
    injectFaults(w, chaos);
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
      const recoveryMs = w.nowMs - stableFromMs;
      const probes = rejoin(w, leader);
      w.check(true);
      return { world: w, recoveryMs, handoverMs: probes?.handoverMs ?? null, killFailoverMs: probes?.killFailoverMs ?? null };
    }
  }
  assert.fail(`no entry committed within ${LIVENESS_BOUND_MS} ms after the faults stopped (majority ${majority.map((n) => n.id).join(',')}, ` +
    `leader ${w.leader()?.id ?? 'none'}, epochs ${w.nodes.map((n) => `${n.id}:${n.raft?.roleName ?? 'down'}@${n.raft?.epoch ?? '-'}`).join(' ')})`);
}
