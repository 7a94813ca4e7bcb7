// Mutation testing (Stryker) on demand, never in CI: `npm run mutate` runs
// every target one after the other; `STRYKER_TARGET=storage npx stryker run
// stryker.config.mjs` runs one. Stryker copies
// the repository into .stryker-tmp/, compiles the mutated sources with tsc
// (buildCommand) and runs the unit and chaos tests that cover each target
// with the command runner: a mutant is killed when that command fails.
// The simulations run a small fixed block of seeds and no rotating block, so
// every mutant sees the same schedules. docs/testing.md ("Mutation testing")
// has the last score and the surviving mutants.
const targets = {
  storage: {
    // filterBatch's record loop and horizon: which records a cleaning keeps.
    mutate: ['src/storage/cleaner/batch-filter.ts:117-137'],
    tests: ['dist/test/unit/storage/cleaner/cleaner.test.js', 'dist/test/chaos/storage/compaction-opfuzz.test.js'],
    env: 'COMPACTION_FUZZ_SEEDS=1 COMPACTION_FUZZ_SEEDS_ROTATING=0',
  },
  protocol: {
    mutate: ['src/protocol/primitives/varint.ts'],
    // The fast tests that pin the bytes: a mutant that loops forever times
    // out after a few seconds instead of a minute.
    tests: ['dist/test/unit/protocol/varint.test.js', 'dist/test/unit/protocol/golden.test.js', 'dist/test/unit/protocol/record-batch/record.test.js'],
    env: 'RAFT_WIRE_SEED=1',
    timeoutMS: 5_000,
  },
  raft: {
    mutate: ['src/controller/raft/roles.ts'],
    tests: ['dist/test/unit/controller/raft/', 'dist/test/chaos/raft/raft-sim.test.js'],
    env: 'RAFT_SEEDS=20 RAFT_SEEDS_ROTATING=0',
  },
};

const name = process.env.STRYKER_TARGET ?? 'storage';
const target = targets[name];
if (target === undefined) throw new Error(`STRYKER_TARGET: no target ${name} (have ${Object.keys(targets).join(', ')})`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'command',
  buildCommand: 'npx tsc -p tsconfig.build.json',
  commandRunner: {
    command: `env ${target.env} node --test --test-concurrency=1 ${target.tests.join(' ')}`,
  },
  mutate: target.mutate,
  coverageAnalysis: 'off',
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  timeoutMS: target.timeoutMS ?? 15_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  ignorePatterns: ['dist', 'reports', 'bench/results', '.stryker-tmp*'],
  // One temp dir per target, so targets can run side by side.
  tempDirName: `.stryker-tmp-${name}`,
  cleanTempDir: true,
};
