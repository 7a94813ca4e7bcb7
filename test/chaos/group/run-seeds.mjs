// Runs many seeds of the group coordinator simulation and lists every failing
// one (the node:test file stops at the first). Build first (npm run build).
// Usage: node test/chaos/group/run-seeds.mjs [fromSeed=1] [count=1000]
import { simulate } from '../../../dist/test/chaos/group/sim-run.js';

const from = Number(process.argv[2] ?? 1);
const count = Number(process.argv[3] ?? 1000);
const failed = [];
const started = Date.now();
for (let seed = from; seed < from + count; seed++) {
  try {
    await simulate(seed);
  } catch (e) {
    failed.push(seed);
    console.error(`GROUP_SEED=${seed}: ${String(e instanceof Error ? e.message : e).split('\n')[0]}`);
  }
}
console.log(`${count} seeds from ${from} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${failed.length} failed${failed.length ? ` (${failed.join(' ')})` : ''}`);
process.exit(failed.length ? 1 : 0);
