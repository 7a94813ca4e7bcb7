/**
 * The replication chaos harness proven end to end at replication factor 1,
 * where the faults that keep every replica's data must lose nothing
 * acknowledged even without replication: a rolling restart of clean
 * shutdowns, a SIGSTOP of a leader, a network partition of a leader (its
 * partitions are offline meanwhile; their data stays on it). A kill -9 at
 * RF 1 may lose what the killed node had not flushed, so that run is only
 * reported (the checker's counts and the availability), not asserted.
 * replicated.test.ts runs the same scenarios at RF 3 once brokers accept it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeViolations } from './checker.js';
import { leaderKill, leaderPause, networkPartition, rollingRestart } from './faults.js';
import { runScenario, assertClean } from './scenario.js';

const REPLICATION_FACTOR = 1;
const MIN_INSYNC_REPLICAS = 1;
const PARTITIONS = 3;
const settings = { replicationFactor: REPLICATION_FACTOR, minInsyncReplicas: MIN_INSYNC_REPLICAS, partitions: PARTITIONS };

for (const scenario of [rollingRestart, leaderPause, networkPartition]) {
  test(`RF 1: ${scenario.name} loses no acknowledged record`, { timeout: 150_000 }, async (t) => {
    const report = await runScenario(t, scenario, settings);
    assert.ok(report !== null, 'replication factor 1 is always accepted');
    assertClean(report);
  });
}

test('RF 1: kill -9 of a leader runs through the harness (reported, not asserted: unflushed data may go)', { timeout: 150_000 }, async (t) => {
  const report = await runScenario(t, leaderKill, settings);
  assert.ok(report !== null);
  for (const load of report.loads) assert.ok(load.acked.length > 0, `${load.producer} got acknowledgements`);
  if (report.check.violations.length > 0) t.diagnostic(`as allowed at RF 1:\n${describeViolations(report.check.violations)}`);
});
