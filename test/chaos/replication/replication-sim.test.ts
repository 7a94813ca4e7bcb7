/**
 * Seeded simulation of partition replication (sim-world.ts, sim-run.ts): the
 * real controller, replica managers and follower fetchers of three brokers on
 * virtual time, with crashes that lose unflushed writes, partitions of one
 * broker and lossy links, checked after every step and for liveness once the
 * faults stop.
 *
 * Seeds (test/helpers/seeds.ts): a fixed and a rotating block per run.
 * REPLICATION_SEED=n replays one, REPLICATION_SEED_BASE=b a rotating block,
 * REPLICATION_SEEDS=n sets the fixed block. The seed is printed on failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simulationSeeds } from '../../helpers/seeds.js';
import { simulate } from './sim-run.js';

describe('replication simulation', () => {
  const plan = simulationSeeds('REPLICATION', 800, 200);

  it(`${plan.seeds.length} seeded schedules keep the replication invariants and converge`, { timeout: 900_000 }, async () => {
    console.log(plan.summary);
    let acked = 0;
    let crashes = 0;
    for (const seed of plan.seeds) {
      try {
        const s = await simulate(seed);
        acked += s.acked;
        crashes += s.crashes;
      } catch (e) {
        console.error(`replication simulation failed with ${plan.seedVariable}=${seed}`);
        throw e;
      }
    }
    if (!plan.replay) {
      assert.ok(acked > plan.seeds.length * 10, `the simulation acknowledged records (${acked})`);
      assert.ok(crashes > 0, 'some schedules crashed brokers');
    }
  });
});
