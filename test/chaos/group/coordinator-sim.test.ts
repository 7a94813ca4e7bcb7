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
 * SEED=n replays one seed; SIM_SEEDS sets how many run (default 200). The
 * seed is printed on failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simulate } from './sim-run.js';

describe('group coordinator simulation', () => {
  const only = process.env['SEED'];
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env['SIM_SEEDS'] ?? 200) }, (_, i) => i + 1);

  it(`${seeds.length} seeded schedules keep the group invariants and converge`, async () => {
    let restarts = 0;
    let clients = 0;
    for (const seed of seeds) {
      try {
        const w = await simulate(seed);
        restarts += w.restarts;
        clients += w.clients.length;
      } catch (e) {
        // The seed, for SEED=n replay.
        console.error(`group coordinator simulation failed with SEED=${seed}`);
        throw e;
      }
    }
    assert.ok(clients > seeds.length, 'the simulation ran consumers');
    if (seeds.length >= 20) assert.ok(restarts > 0, 'some schedules restarted the coordinator');
  });
});
