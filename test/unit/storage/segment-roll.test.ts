/**
 * segmentAgeExceeded computes segment.ms in numbers when that is exact: it
 * must answer as the BigInt rule does, at the limit's edges, for timestamps
 * beyond 2^53, without timestamps (clock age), and with compaction's max lag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { segmentAgeExceeded } from '../../../src/storage/segment-roll.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../src/storage/config.js';

function byBigInt(first: bigint | null, max: bigint, ageMs: number, cfg: LogConfig): boolean {
  const waitedMs = first !== null && first >= 0n && max >= 0n ? max - first : BigInt(ageMs);
  const maxLagMs = cfg.cleanupPolicy?.compact === true ? cfg.maxCompactionLagMs ?? cfg.segmentMs : cfg.segmentMs;
  return waitedMs > BigInt(Math.min(cfg.segmentMs, maxLagMs));
}

test('segment age: the same answers as the BigInt rule', () => {
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  const configs: LogConfig[] = [];
  for (const segmentMs of [1, 1000, 604_800_000, Number.MAX_SAFE_INTEGER]) {
    configs.push({ ...DEFAULT_LOG_CONFIG, segmentMs });
    configs.push({ ...DEFAULT_LOG_CONFIG, segmentMs, cleanupPolicy: { delete: false, compact: true }, maxCompactionLagMs: 500 });
  }
  const firsts: (bigint | null)[] = [null, -1n, 0n, 1_700_000_000_000n, safe - 1n, safe, safe + 1n];
  let exceeded = 0;
  let kept = 0;
  for (const cfg of configs) {
    const limit = BigInt(Math.min(cfg.segmentMs, cfg.cleanupPolicy?.compact === true ? cfg.maxCompactionLagMs ?? cfg.segmentMs : cfg.segmentMs));
    for (const first of firsts) {
      const base = first === null || first < 0n ? 0n : first;
      const maxes = [-1n, base, base + limit - 1n, base + limit, base + limit + 1n, (1n << 63n) - 1n];
      for (const max of maxes) {
        for (const ageMs of [0, Number(limit > safe ? safe : limit), Number(limit > safe ? safe : limit) + 1]) {
          const expected = byBigInt(first, max, ageMs, cfg);
          assert.equal(segmentAgeExceeded(first, max, ageMs, cfg), expected, `first ${first} max ${max} age ${ageMs} segmentMs ${cfg.segmentMs}`);
          if (expected) exceeded++; else kept++;
        }
      }
    }
  }
  assert.ok(exceeded > 0 && kept > 0);
});
