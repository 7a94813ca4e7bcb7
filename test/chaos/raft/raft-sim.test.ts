/**
 * Seeded simulation of the Raft quorum (src/controller/raft), in the manner
 * of Kafka's RaftEventSimulationTest. Odd seeds run 3 voters, even seeds 5;
 * one seed in three adds one or two observers (non-voters: they fetch, apply,
 * are crashed and partitioned like the others, never vote or lead, and are
 * counted neither for commit, durability nor check-quorum; the applied-state
 * check and the final catch-up include them).
 *
 * Fault phase (15 s virtual): message drops, duplicates, random delays (so
 * reordering), partitions into 2-3 groups, crashes that keep only a random
 * prefix of the unflushed writes, restarts, and proposals to random nodes.
 * After every delivery and tick (sim-world.ts `check`):
 *  - at most one leader per epoch;
 *  - committed entries (those below any node's high watermark) never change
 *    or disappear: every node's log agrees with them below its high
 *    watermark, every leader holds all of them, a majority holds them durably;
 *  - an acknowledged proposal that commits in its epoch is what was proposed;
 *  - a node's high watermark never goes back (per incarnation: it is volatile);
 *  - the applied state machine (a running digest of the data entries) is identical
 *    on every node at the same offset, whether reached by applying entries, by
 *    loading the node's own snapshot at restart, or by installing the leader's
 *    snapshot (FetchSnapshot, in chunks of 7 bytes to 1 MiB);
 *  - a node's log starts where its latest snapshot ends, within the committed
 *    prefix, with the epoch of the committed entry there.
 * Nodes snapshot their applied state at random points (dropping the log prefix),
 * and the leader does so again before the final rejoin half of the time, so
 * nodes that were down catch up from a snapshot.
 * Right after every leader's tick: check-quorum — a leader that has led for
 * 1.5 x fetch timeout and received nothing from a majority in that window
 * has resigned.
 * Fast failover faults: a crashed leader resigns first (EndQuorumEpoch) half
 * the time and its followers get "connection reset" (RaftNode.leaderUnreachable)
 * at random; followers of a crashed but reachable leader get "connection
 * refused" every tick; healthy leaders get spurious resets from a follower and
 * resign at random while running. After the final rejoin: a single flaky link
 * (one follower reset again and again for 3 s) must not depose the leader; a
 * resignation must be followed by another node leading the very next epoch;
 * a kill with resets by a new leader. The medians over the seeds (virtual
 * time) must be below one election timeout after a kill and one request
 * timeout after a resignation.
 * Then the faults stop with a majority connected (a minority may stay down
 * or cut off): a leader is elected and a new entry commits within 20 s.
 * Finally everyone restarts and reconnects for 6 s: unless a returning node
 * already has a higher epoch, the leader keeps its epoch (pre-vote), and every
 * node ends with the leader's log, high watermark and applied state.
 *
 * Seeds (test/helpers/seeds.ts): 400 fixed and 100 rotating per run (500 in
 * all, about 9 s here: issue 6 asks CI for at least 500). RAFT_SEED=n replays
 * one (SIM_TRACE=1 adds the last events to the failure), RAFT_SEED_BASE=b a
 * rotating block, RAFT_SEEDS=n sets the fixed block. The seed is printed on
 * failure; run-seeds.mjs runs any number.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RAFT_TIMEOUTS } from '../../../src/controller/raft/index.js';
import { simulationSeeds } from '../../helpers/seeds.js';
import { simulate } from './sim-run.js';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor(s.length / 2)] ?? 0);
}

describe('raft simulation', () => {
  const plan = simulationSeeds('RAFT', 400, 100);
  const seeds = plan.seeds;

  it(`${seeds.length} seeded fault schedules keep Raft safe and live`, () => {
    let crashes = 0;
    let committed = 0;
    let snapshots = 0;
    let installs = 0;
    let loads = 0;
    let maxRecoveryMs = 0;
    let observerApplied = 0;
    const handovers: number[] = [];
    const killFailovers: number[] = [];
    console.log(plan.summary);
    for (const seed of seeds) {
      let result: ReturnType<typeof simulate>;
      try {
        result = simulate(seed);
      } catch (e) {
        console.error(`raft simulation failed with ${plan.seedVariable}=${seed}`);
        throw e;
      }
      crashes += result.world.stats.crashes;
      snapshots += result.world.stats.snapshotsTaken;
      installs += result.world.stats.snapshotInstalls;
      loads += result.world.stats.snapshotLoads;
      committed += result.world.ledger.length;
      maxRecoveryMs = Math.max(maxRecoveryMs, result.recoveryMs);
      for (const n of result.world.nodes) if (result.world.isObserver(n)) observerApplied += n.state.applied;
      if (result.handoverMs !== null) handovers.push(result.handoverMs);
      if (result.killFailoverMs !== null) killFailovers.push(result.killFailoverMs);
    }
    console.log(
      `raft simulation: ${seeds.length} seeds, ${crashes} crashes, ${committed} committed entries, ` +
        `${snapshots} snapshots (${loads} loaded at restart, ${installs} fetched from the leader), ${observerApplied} entries applied by observers, slowest recovery ${maxRecoveryMs} ms; ` +
        `new leader after a kill with resets: median ${median(killFailovers)} ms, max ${Math.max(0, ...killFailovers)} ms; ` +
        `after a resignation: median ${median(handovers)} ms, max ${Math.max(0, ...handovers)} ms (virtual)`,
    );
    assert.ok(committed > seeds.length, 'entries were committed');
    if (seeds.length >= 20) {
      assert.ok(crashes > 0, 'some schedules crashed nodes');
      assert.ok(snapshots > 0 && loads > 0 && installs > 0, 'snapshots were taken, loaded at restart and fetched from leaders');
      assert.ok(observerApplied > 0, 'observers applied committed entries');
      // Virtual time: a killed leader whose sockets reset is replaced well before the fetch timeout,
      // a resigned one within a few round trips (DEFAULT_RAFT_TIMEOUTS).
      assert.ok(killFailovers.length >= seeds.length / 2 && handovers.length === killFailovers.length, 'most runs ended with the failover probes');
      assert.ok(median(killFailovers) < DEFAULT_RAFT_TIMEOUTS.electionTimeoutMs, `median failover after a kill ${median(killFailovers)} ms`);
      assert.ok(median(handovers) < DEFAULT_RAFT_TIMEOUTS.requestTimeoutMs, `median handover after a resignation ${median(handovers)} ms`);
    }
  });
});
