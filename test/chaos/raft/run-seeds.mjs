// Runs many seeds of the Raft simulation and lists every failing one (the
// node:test file stops at the first). Build first (npm run build).
// Usage: node test/chaos/raft/run-seeds.mjs [fromSeed=1] [count=1000]
import { simulate } from '../../../dist/test/chaos/raft/sim-run.js';

const from = Number(process.argv[2] ?? 1);
const count = Number(process.argv[3] ?? 1000);
const failed = [];
let maxRecoveryMs = 0;
const started = Date.now();
for (let seed = from; seed < from + count; seed++) {
  try {
    maxRecoveryMs = Math.max(maxRecoveryMs, simulate(seed).recoveryMs);
  } catch (e) {
    failed.push(seed);
    console.error(`RAFT_SEED=${seed}: ${String(e instanceof Error ? e.message : e).split('\n')[0]}`);
  }
}
const secs = (Date.now() - started) / 1000;
console.log(`${count} seeds from ${from} in ${secs.toFixed(1)} s (${(count / secs * 60).toFixed(0)} seeds/min), slowest recovery ${maxRecoveryMs} ms: ${failed.length} failed${failed.length ? ` (${failed.join(' ')})` : ''}`);
process.exit(failed.length ? 1 : 0);
