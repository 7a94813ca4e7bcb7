import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capReplicationFactors, settingsFromConfig } from '../../../src/broker/settings.js';
import { servingReplicas } from '../../../src/broker/metadata-bridge.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';

test('capReplicationFactors lowers default.replication.factor and offsets.topic.replication.factor to 1 and says which', () => {
  const high = settingsFromConfig(parseBrokerConfig({ 'default.replication.factor': '3', 'offsets.topic.replication.factor': '2' }));
  const { settings, capped } = capReplicationFactors(high);
  assert.equal(settings.defaultReplicationFactor, 1);
  assert.equal(settings.groups.offsetsTopicReplicationFactor, 1);
  assert.deepEqual(capped, [
    { key: 'default.replication.factor', configured: 3, used: 1 },
    { key: 'offsets.topic.replication.factor', configured: 2, used: 1 },
  ]);
  assert.equal(high.defaultReplicationFactor, 3, 'the input is not changed');

  const ones = settingsFromConfig(parseBrokerConfig({ 'default.replication.factor': '1', 'offsets.topic.replication.factor': '1' }));
  const same = capReplicationFactors(ones);
  assert.equal(same.settings, ones);
  assert.deepEqual(same.capped, []);
});

test('servingReplicas: one-replica partitions as registered; more replicas shrink to the leader alone (none without a leader)', () => {
  assert.deepEqual(servingReplicas({ leader: 2, replicas: [2], isr: [2] }), { replicas: [2], isr: [2] });
  assert.deepEqual(servingReplicas({ leader: -1, replicas: [2], isr: [] }), { replicas: [2], isr: [] });
  assert.deepEqual(servingReplicas({ leader: 3, replicas: [2, 3, 1], isr: [2, 3, 1] }), { replicas: [3], isr: [3] });
  assert.deepEqual(servingReplicas({ leader: -1, replicas: [2, 3], isr: [2] }), { replicas: [], isr: [] });
});
