/**
 * Kafka's RackAwareReplicaSelector rules (KIP-392): the leader when the
 * consumer gives no rack, when the leader is in its rack, or when no
 * candidate is; otherwise the most caught-up candidate in its rack (larger
 * log end, then the more recently caught up). Config names are Kafka's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaderSelector, rackAwareReplicaSelector, replicaSelectorFor, type ReplicaView } from '../../../src/replication/replica-selector.js';

const view = (brokerId: number, rack: string | null, logEndOffset: bigint, timeSinceLastCaughtUpMs = 0): ReplicaView => ({ brokerId, rack, logEndOffset, timeSinceLastCaughtUpMs });

test('rack-aware: leader without a rack, leader in the rack, else the most caught-up replica of the rack', () => {
  const leader = view(1, 'a', 10n);
  const candidates = [view(2, 'b', 8n), view(3, 'b', 9n), view(4, 'c', 10n, 5), view(5, 'c', 10n, 1)];
  assert.equal(rackAwareReplicaSelector.select('', leader, candidates).brokerId, 1);
  assert.equal(rackAwareReplicaSelector.select('a', leader, candidates).brokerId, 1);
  assert.equal(rackAwareReplicaSelector.select('b', leader, candidates).brokerId, 3, 'larger log end');
  assert.equal(rackAwareReplicaSelector.select('c', leader, candidates).brokerId, 5, 'same log end: caught up more recently');
  assert.equal(rackAwareReplicaSelector.select('z', leader, candidates).brokerId, 1, 'nobody in that rack');
  assert.equal(leaderSelector.select('b', leader, candidates).brokerId, 1);
});

test('replica.selector.class takes Kafka\'s class names; unset means leaders only', () => {
  assert.equal(replicaSelectorFor(null), null);
  assert.equal(replicaSelectorFor('org.apache.kafka.common.replica.RackAwareReplicaSelector'), rackAwareReplicaSelector);
  assert.equal(replicaSelectorFor('org.apache.kafka.common.replica.LeaderSelector'), leaderSelector);
  assert.throws(() => replicaSelectorFor('com.example.Mine'), /unknown class com.example.Mine/);
});
