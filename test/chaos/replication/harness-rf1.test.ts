/**
 * The replication chaos harness at replication factor 1 (the one-replica
 * path, which it was first proven on): the faults that keep every replica's
 * data must lose nothing acknowledged even without replication: a rolling
 * restart of clean shutdowns, a SIGSTOP of a leader, a network partition of
 * a leader (its partitions are offline meanwhile; their data stays on it).
 * A kill -9 at RF 1 may lose what the killed node had not flushed, so it is
 * not run here. replicated.test.ts runs every scenario at RF 3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaderPause, networkPartition, rollingRestart } from './faults.js';
import { runScenario, assertClean } from './scenario.js';

const REPLICATION_FACTOR = 1;
const MIN_INSYNC_REPLICAS = 1;
const PARTITIONS = 3;
const settings = { replicationFactor: REPLICATION_FACTOR, minInsyncReplicas: MIN_INSYNC_REPLICAS, partitions: PARTITIONS };

for (const scenario of [rollingRestart, leaderPause, networkPartition]) {
  test(`RF 1: ${scenario.name} loses no acknowledged record`, { timeout: 300_000 }, async (t) => {
    const report = await runScenario(t, scenario, settings);
    assert.ok(report !== null, 'replication factor 1 is always accepted');
    assertClean(report);
  });
}
