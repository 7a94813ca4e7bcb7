// Runs more seeds of the Raft simulation (test/chaos/raft) than CI does, lists
// every failing seed (replay one with `RAFT_SEED=n node --test dist/test/chaos/raft/raft-sim.test.js`,
// add SIM_TRACE=1 for the last events) and prints the speed in seeds per minute.
// Build first (npm run build).
// Usage: node scripts/raft-sim.mjs [count=1000] [fromSeed=1]
import { simulate } from '../dist/test/chaos/raft/sim-run.js';

const count = Number(process.argv[2] ?? 1000);
const from = Number(process.argv[3] ?? 1);
if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(from)) {
  console.error('usage: node scripts/raft-sim.mjs [count=1000] [fromSeed=1]');
  process.exit(2);
}
const failed = [];
const totals = { crashes: 0, committed: 0, snapshotsTaken: 0, snapshotLoads: 0, snapshotInstalls: 0 };
let maxRecoveryMs = 0;
const started = performance.now();
let lastReport = started;
for (let seed = from; seed < from + count; seed++) {
  try {
    const { world, recoveryMs } = simulate(seed);
    maxRecoveryMs = Math.max(maxRecoveryMs, recoveryMs);
    totals.crashes += world.stats.crashes;
    totals.committed += world.ledger.length;
    totals.snapshotsTaken += world.stats.snapshotsTaken;
    totals.snapshotLoads += world.stats.snapshotLoads;
    totals.snapshotInstalls += world.stats.snapshotInstalls;
  } catch (e) {
    failed.push(seed);
    console.error(`RAFT_SEED=${seed}: ${String(e instanceof Error ? e.message : e).split('\n')[0]}`);
  }
  const now = performance.now();
  if (now - lastReport > 10_000) {
    lastReport = now;
    const done = seed - from + 1;
    console.log(`... ${done}/${count} seeds, ${((done / (now - started)) * 60_000).toFixed(0)} seeds/min, ${failed.length} failed`);
  }
}
const secs = (performance.now() - started) / 1000;
console.log(
  `${count} seeds from ${from} in ${secs.toFixed(1)} s: ${((count / secs) * 60).toFixed(0)} seeds/min; ` +
    `${totals.crashes} crashes, ${totals.committed} committed entries, ${totals.snapshotsTaken} snapshots ` +
    `(${totals.snapshotLoads} loaded at restart, ${totals.snapshotInstalls} fetched from the leader), slowest recovery ${maxRecoveryMs} ms; ` +
    `${failed.length} failed${failed.length ? ` (${failed.join(' ')})` : ''}`,
);
process.exit(failed.length ? 1 : 0);
