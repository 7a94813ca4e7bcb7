/**
 * The replication guarantee with real processes (issue 12, "Tests"): 3
 * nodes, replication factor 3, min.insync.replicas 2, an idempotent
 * acks=all load from librdkafka and from our Producer and a consumer group
 * reading, through each fault of faults.ts. Afterwards every partition is
 * read back and checker.ts must find nothing: every acknowledged record
 * present exactly once, in order per producer and partition, at its
 * acknowledged offset, and nothing a consumer saw truncated later.
 *
 * A build whose brokers refuse replication factors above 1 answers
 * INVALID_REPLICATION_FACTOR when the topic is created, and every test here
 * is skipped with that reason (and only that one); harness-rf1.test.ts runs
 * the same harness at replication factor 1.
 * Replay a fault schedule with REPLICATION_CHAOS_SEED=n (docs/testing.md).
 */
import { before, test } from 'node:test';
import { ALL_SCENARIOS } from './faults.js';
import { replicationRefused, runScenario, assertClean } from './scenario.js';

const REPLICATION_FACTOR = 3;
const MIN_INSYNC_REPLICAS = 2;
const PARTITIONS = 3;

let refused: string | null = null;

before(async () => {
  refused = await replicationRefused(REPLICATION_FACTOR, MIN_INSYNC_REPLICAS);
});

/** Both producers got acknowledgements through the faults, and the checker found nothing. */
for (const scenario of ALL_SCENARIOS) {
  test(`RF ${REPLICATION_FACTOR}, min ISR ${MIN_INSYNC_REPLICAS}: ${scenario.name} loses no acknowledged record`, { timeout: 300_000 }, async (t) => {
    if (refused !== null) return t.skip(refused);
    const report = await runScenario(t, scenario, { replicationFactor: REPLICATION_FACTOR, minInsyncReplicas: MIN_INSYNC_REPLICAS, partitions: PARTITIONS });
    if (report !== null) assertClean(report);
  });
}
