/**
 * The pure parts of `cluster reassign` and `topic describe`'s partition
 * filters: Kafka's reassignment JSON (parse, refuse, write back), --verify's
 * states, and --under-replicated / --unavailable / --under-min-isr /
 * --at-min-isr partitions.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseReassignmentJson, reassignmentJson, verifyStates } from '../../../../src/cli/commands/cluster-reassign.js';
import { filterPartitions } from '../../../../src/cli/commands/topic.js';
import type { TopicDescription } from '../../../../src/client/admin.js';

describe('reassignment JSON', () => {
  it('parses Kafka\'s format (log_dirs "any" accepted) and writes it back', () => {
    const text = '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,1,2],"log_dirs":["any","any","any"]},{"topic":"orders","partition":1,"replicas":[2]}]}';
    const targets = parseReassignmentJson(text);
    assert.deepEqual(targets, [
      { topic: 'orders', partition: 0, replicas: [3, 1, 2] },
      { topic: 'orders', partition: 1, replicas: [2] },
    ]);
    assert.deepEqual(parseReassignmentJson(reassignmentJson(targets)), targets);
  });

  const bad: [string, RegExp][] = [
    ['not json', /not JSON/],
    ['{"version":2,"partitions":[]}', /version/],
    ['{"version":1,"partitions":[{"topic":"","partition":0,"replicas":[1]}]}', /topic/],
    ['{"version":1,"partitions":[{"topic":"t","partition":-1,"replicas":[1]}]}', /partition/],
    ['{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[]}]}', /replicas/],
    ['{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]}', /twice/],
    ['{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["/data"]}]}', /log_dirs/],
    ['{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}', /listed twice/],
  ];
  for (const [text, message] of bad) it(`refuses ${text.slice(0, 60)}`, () => assert.throws(() => parseReassignmentJson(text), message));

  it('verify: complete, in progress, not moved', () => {
    const targets = [
      { topic: 't', partition: 0, replicas: [2, 3] },
      { topic: 't', partition: 1, replicas: [2, 3] },
      { topic: 't', partition: 2, replicas: [2, 3] },
    ];
    const current = new Map<string, readonly number[]>([
      ['t:0', [2, 3]],
      ['t:1', [2, 3, 1]],
      ['t:2', [3, 2]],
    ]);
    const states = verifyStates(targets, current, [{ topic: 't', partition: 1, replicas: [2, 3, 1], addingReplicas: [3], removingReplicas: [1] }]);
    assert.deepEqual(states.map((s) => s.state), ['complete', 'in progress', 'not moved']);
  });
});

describe('topic describe partition filters', () => {
  const topic = (minIsr: string | null): TopicDescription => ({
    name: 't',
    topicId: null,
    isInternal: false,
    authorizedOperations: null,
    error: null,
    configs: minIsr === null ? null : [{ name: 'min.insync.replicas', value: minIsr, source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false, isSensitive: false, isDefault: false, synonyms: [], documentation: null, type: 'INT' } as never],
    partitions: [
      { partition: 0, leader: 1, leaderEpoch: 0, replicas: [1, 2, 3], isr: [1, 2, 3], offlineReplicas: [], elr: [], lastKnownElr: [], error: null },
      { partition: 1, leader: 1, leaderEpoch: 0, replicas: [1, 2, 3], isr: [1, 2], offlineReplicas: [], elr: [], lastKnownElr: [], error: null },
      { partition: 2, leader: 2, leaderEpoch: 0, replicas: [1, 2, 3], isr: [2], offlineReplicas: [], elr: [], lastKnownElr: [], error: null },
      { partition: 3, leader: -1, leaderEpoch: 0, replicas: [1, 2, 3], isr: [3], offlineReplicas: [], elr: [], lastKnownElr: [], error: 'LEADER_NOT_AVAILABLE' },
    ],
  });
  const ids = (t: TopicDescription): number[] => t.partitions.map((p) => p.partition);
  it('no filter keeps everything; each filter keeps its partitions', () => {
    assert.deepEqual(ids(filterPartitions(topic('2'), {})), [0, 1, 2, 3]);
    assert.deepEqual(ids(filterPartitions(topic('2'), { underReplicated: true })), [1, 2, 3]);
    assert.deepEqual(ids(filterPartitions(topic('2'), { unavailable: true })), [3]);
    assert.deepEqual(ids(filterPartitions(topic('2'), { underMinIsr: true })), [2, 3]);
    assert.deepEqual(ids(filterPartitions(topic('2'), { atMinIsr: true })), [1]);
    assert.deepEqual(ids(filterPartitions(topic(null), { underMinIsr: true })), [], 'min.insync.replicas defaults to 1');
    assert.deepEqual(ids(filterPartitions(topic('2'), { unavailable: true, atMinIsr: true })), [1, 3], 'several filters: any of them');
  });
});
