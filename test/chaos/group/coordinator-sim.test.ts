/**
 * Seeded simulation of the classic group coordinator: several groups of 1-8
 * simulated consumers (sim-client.ts) on virtual time, with random new
 * members, clean leaves, crashes, static-member restarts, slow members that
 * miss the rebalance timeout, paused processes, persistence failures and
 * coordinator restarts (rebuilt from what the fake persistence stored). After
 * every step: coordinator invariants, generations never decrease (nor fall
 * below one whose assignments were handed out), no partition owned by two
 * members in one generation, a Stable group's members hold the leader's
 * assignment, acknowledged commits are what OffsetFetch returns. After a
 * quiet period: every group with live members is Stable with every partition
 * assigned exactly once (liveness).
 *
 * Seeds (test/helpers/seeds.ts): 160 fixed and 40 rotating per run.
 * GROUP_SEED=n replays one, GROUP_SEED_BASE=b a rotating block, GROUP_SEEDS=n
 * sets the fixed block. The seed is printed on failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simulationSeeds } from '../../helpers/seeds.js';
import { simulate } from './sim-run.js';

describe('group coordinator simulation', () => {
  const plan = simulationSeeds('GROUP', 160, 40);
  const seeds = plan.seeds;

  it(`${seeds.length} seeded schedules keep the group invariants and converge`, async () => {
    let restarts = 0;
    let clients = 0;
    console.log(plan.summary);
    for (const seed of seeds) {
      try {
        const w = await simulate(seed);
        restarts += w.restarts;
        clients += w.clients.length;
      } catch (e) {
        // The seed, for GROUP_SEED=n replay.
        console.error(`group coordinator simulation failed with ${plan.seedVariable}=${seed}`);
        throw e;
      }
    }
    assert.ok(clients > seeds.length, 'the simulation ran consumers');
    if (seeds.length >= 20) assert.ok(restarts > 0, 'some schedules restarted the coordinator');
  });
});
