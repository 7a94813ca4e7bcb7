// Mutation testing (Stryker) on demand, never in CI: `npm run mutate`
// (every target) or `STRYKER_TARGET=storage npm run mutate`. Stryker copies
// the repository into .stryker-tmp/, compiles the mutated sources with tsc
// (buildCommand) and runs the unit and chaos tests that cover each target
// with the command runner: a mutant is killed when that command fails.
// The simulations run a small fixed block of seeds and no rotating block, so
// every mutant sees the same schedules. docs/testing.md ("Mutation testing")
// has the last score and the surviving mutants.
const targets = {
  storage: {
    mutate: ['src/storage/cleaner/batch-filter.ts', 'src/storage/cleaner/dirty-section.ts'],
    tests: ['dist/test/unit/storage/cleaner.test.js', 'dist/test/chaos/storage/compaction-opfuzz.test.js'],
    env: 'COMPACTION_FUZZ_SEEDS=10 COMPACTION_FUZZ_SEEDS_ROTATING=0',
  },
  protocol: {
    mutate: ['src/protocol/primitives/varint.ts', 'src/protocol/primitives/reader.ts', 'src/protocol/primitives/writer.ts'],
    tests: ['dist/test/unit/protocol/golden.test.js', 'dist/test/unit/protocol/codec.test.js', 'dist/test/unit/protocol/raft-wire.test.js', 'dist/test/unit/record-batch/'],
    env: 'RAFT_WIRE_SEED=1',
  },
  raft: {
    mutate: ['src/controller/raft/roles.ts', 'src/controller/raft/snapshots.ts'],
    tests: ['dist/test/unit/raft/', 'dist/test/chaos/raft/raft-sim.test.js'],
    env: 'RAFT_SEEDS=40 RAFT_SEEDS_ROTATING=0',
  },
};

const chosen = (process.env.STRYKER_TARGET ?? 'storage,protocol,raft').split(',').map((name) => {
  const target = targets[name];
  if (target === undefined) throw new Error(`STRYKER_TARGET: no target ${name} (have ${Object.keys(targets).join(', ')})`);
  return target;
});

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'command',
  buildCommand: 'npx tsc -p tsconfig.build.json',
  commandRunner: {
    command: chosen.map((t) => `env ${t.env} node --test --test-concurrency=1 ${t.tests.join(' ')}`).join(' && '),
  },
  mutate: chosen.flatMap((t) => t.mutate),
  coverageAnalysis: 'off',
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  timeoutMS: 60_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  ignorePatterns: ['dist', 'reports', 'bench/results', '.stryker-tmp'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
