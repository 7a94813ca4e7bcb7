/**
 * Which seeds a simulation runs. Two blocks, plus regression seeds:
 *   - a fixed block 1..fixed, the same on every run, so a regression on a
 *     known schedule shows up at once;
 *   - seeds that once found a bug (a rotating block drew them), run on every
 *     run after it was fixed, so the same schedule cannot come back unseen;
 *   - a rotating block of `rotating` seeds starting at a base drawn per run
 *     (printed), so CI explores schedules it never ran before.
 * Each simulation has its own variables, named by `prefix` (e.g. RAFT):
 *   RAFT_SEED=n       replays seed n alone (totals checks are then skipped,
 *                     which is why no variable is shared between suites);
 *   RAFT_SEED_BASE=b  replays a rotating block (the base printed by a run);
 *   RAFT_SEEDS=n      sets the size of the fixed block;
 *   RAFT_SEEDS_ROTATING=n  sets the size of the rotating block (e.g. 0 with
 *                     a small fixed block for fast, deterministic runs, as
 *                     the mutation tests do).
 * docs/testing.md ("Seeds") describes the scheme.
 */

/** Rotating bases stay far from the fixed block and well inside int32. */
const BASE_MIN = 1_000_000;
const BASE_SPAN = 1_000_000_000;

export interface SeedPlan {
  readonly seeds: readonly number[];
  /** True when one seed is replayed: the suite's totals are then not meaningful. */
  readonly replay: boolean;
  /** One line naming the blocks and how to replay them, printed by the suite. */
  readonly summary: string;
  /** The variable that replays one seed, for failure messages. */
  readonly seedVariable: string;
}

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name}=${raw}: expected a non-negative integer`);
  return n;
}

export function simulationSeeds(prefix: string, fixed: number, rotating: number, regressions: readonly number[] = []): SeedPlan {
  const seedVariable = `${prefix}_SEED`;
  const only = envInt(seedVariable);
  if (only !== undefined) {
    return { seeds: [only], replay: true, summary: `${prefix}: replaying ${seedVariable}=${only}`, seedVariable };
  }
  const fixedCount = envInt(`${prefix}_SEEDS`) ?? fixed;
  const rotatingCount = envInt(`${prefix}_SEEDS_ROTATING`) ?? rotating;
  const base = envInt(`${prefix}_SEED_BASE`) ?? BASE_MIN + Math.floor(Math.random() * BASE_SPAN);
  const seeds = [
    ...Array.from({ length: fixedCount }, (_, i) => i + 1),
    ...regressions.filter((seed) => seed > fixedCount),
    ...Array.from({ length: rotatingCount }, (_, i) => base + i),
  ];
  const found = regressions.length === 0 ? '' : `, regression seeds ${regressions.join(', ')}`;
  const summary = `${prefix}: fixed seeds 1..${fixedCount}${found}, rotating seeds ${base}..${base + rotatingCount - 1} ` +
    `(replay one with ${seedVariable}=n, this rotating block with ${prefix}_SEED_BASE=${base})`;
  return { seeds, replay: false, summary, seedVariable };
}
