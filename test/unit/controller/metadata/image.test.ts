import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AssertionError } from 'node:assert';
import { MetadataImage } from '../../../../src/controller/metadata/image.js';
import type { MetadataBatch } from '../../../../src/controller/metadata/batch.js';
import type { MetadataRecord } from '../../../../src/controller/metadata/records.js';
import { registerBroker } from '../fixtures.js';

const A = 'AAAAAAAAAAAAAAAAAAAAEA';
const B = 'AAAAAAAAAAAAAAAAAAAAIA';

class Feed {
  readonly image = new MetadataImage('cluster-x');
  private next = 0n;
  apply(...records: MetadataRecord[]) {
    const batch: MetadataBatch = { baseOffset: this.next, lastOffset: this.next + BigInt(Math.max(records.length, 1) - 1), epoch: 0, timestampMs: 0n, records };
    this.next = batch.lastOffset + 1n;
    return this.image.apply(batch);
  }
}

function partition(topicId: string, partitionId: number, replicas: number[], extra: Partial<{ leader: number; leaderEpoch: number; partitionEpoch: number; isr: number[] }> = {}): MetadataRecord {
  return {
    type: 'PartitionRecord',
    data: {
      partitionId,
      topicId,
      replicas,
      isr: extra.isr ?? replicas,
      removingReplicas: [],
      addingReplicas: [],
      leader: extra.leader ?? (replicas[0] as number),
      leaderRecoveryState: 0,
      leaderEpoch: extra.leaderEpoch ?? 0,
      partitionEpoch: extra.partitionEpoch ?? 0,
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
    },
  };
}

function topic(name: string, topicId: string): MetadataRecord {
  return { type: 'TopicRecord', data: { name, topicId } };
}

function config(resourceName: string, name: string, value: string | null, resourceType = 2): MetadataRecord {
  return { type: 'ConfigRecord', data: { resourceType, resourceName, name, value } };
}

test('creating a topic fills the image and the delta', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n), registerBroker(2, 1n, null, true));
  const delta = f.apply(topic('orders', A), partition(A, 0, [1, 2]), partition(A, 1, [2, 1]), config('orders', 'retention.ms', '60000'));
  const t = f.image.topicByName('orders');
  assert.ok(t);
  assert.equal(f.image.topicById(A), t);
  assert.equal(t.partitions.size, 2);
  assert.deepEqual(f.image.partition('orders', 1)?.replicas, [2, 1]);
  assert.equal(f.image.topicConfigs('orders').get('retention.ms'), '60000');
  assert.equal(f.image.lastAppliedOffset, 5n);
  assert.deepEqual(delta.topicsCreated, [{ name: 'orders', topicId: A }]);
  assert.deepEqual(delta.partitionsAdded.map((p) => [p.topicName, p.partition.partitionId]), [['orders', 0], ['orders', 1]]);
  assert.deepEqual(delta.configsChanged, [{ resourceType: 2, resourceName: 'orders', name: 'retention.ms', value: '60000' }]);
  assert.equal(delta.initial, false);
  assert.deepEqual(f.image.unfencedBrokers().map((b) => b.brokerId), [1]);
});

test('deleting a topic removes it, its partitions and its configs', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n));
  f.apply(topic('orders', A), partition(A, 0, [1]), partition(A, 1, [1]), config('orders', 'cleanup.policy', 'compact'));
  const delta = f.apply({ type: 'RemoveTopicRecord', data: { topicId: A } });
  assert.equal(f.image.topicByName('orders'), undefined);
  assert.equal(f.image.topicById(A), undefined);
  assert.equal(f.image.topicConfigs('orders').size, 0);
  assert.deepEqual(delta.topicsDeleted, [{ name: 'orders', topicId: A, partitionIds: [0, 1] }]);
  assert.equal(delta.topicsCreated.length, 0);
  // a re-created topic starts from defaults
  f.apply(topic('orders', B), partition(B, 0, [1]));
  assert.equal(f.image.topicConfigs('orders').size, 0);
  assert.equal(f.image.topicByName('orders')?.topicId, B);
});

test('a topic created and deleted in one batch leaves an empty delta; delete + re-create shows both', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n));
  const d1 = f.apply(topic('tmp', A), partition(A, 0, [1]), config('tmp', 'retention.ms', '1'), { type: 'RemoveTopicRecord', data: { topicId: A } });
  assert.equal(d1.topicsCreated.length + d1.topicsDeleted.length + d1.partitionsAdded.length + d1.configsChanged.length, 0);
  f.apply(topic('t', A), partition(A, 0, [1]));
  const d2 = f.apply({ type: 'RemoveTopicRecord', data: { topicId: A } }, topic('t', B), partition(B, 0, [1]));
  assert.deepEqual(d2.topicsDeleted.map((t) => t.topicId), [A]);
  assert.deepEqual(d2.topicsCreated.map((t) => t.topicId), [B]);
  assert.deepEqual(d2.partitionsAdded.map((p) => p.topicId), [B]);
});

test('adding partitions and changing leaders move the epochs forward', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n), registerBroker(2, 1n));
  f.apply(topic('t', A), partition(A, 0, [1, 2]));
  const added = f.apply(partition(A, 1, [2, 1]));
  assert.deepEqual(added.partitionsAdded.map((p) => p.partition.partitionId), [1]);
  assert.equal(added.topicsCreated.length, 0);
  const change = f.apply({
    type: 'PartitionChangeRecord',
    data: { partitionId: 0, topicId: A, isr: [2], leader: 2, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, eligibleLeaderReplicas: null, lastKnownElr: null },
  });
  const p = f.image.partition('t', 0);
  assert.deepEqual({ leader: p?.leader, isr: p?.isr, leaderEpoch: p?.leaderEpoch, partitionEpoch: p?.partitionEpoch }, { leader: 2, isr: [2], leaderEpoch: 1, partitionEpoch: 1 });
  assert.equal(change.partitionsChanged.length, 1);
  assert.equal(change.partitionsChanged[0]?.previous.leader, 1);
  // an ISR-only change bumps the partition epoch, not the leader epoch
  f.apply({
    type: 'PartitionChangeRecord',
    data: { partitionId: 0, topicId: A, isr: [2, 1], leader: -2, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, eligibleLeaderReplicas: null, lastKnownElr: null },
  });
  assert.deepEqual([f.image.partition('t', 0)?.leaderEpoch, f.image.partition('t', 0)?.partitionEpoch], [1, 2]);
});

test('config set, overwrite and delete', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n));
  f.apply(topic('t', A), partition(A, 0, [1]));
  f.apply(config('t', 'retention.ms', '10'));
  const same = f.apply(config('t', 'retention.ms', '10'));
  assert.equal(same.configsChanged.length, 0, 'setting the same value changes nothing');
  const del = f.apply(config('t', 'retention.ms', null), config('1', 'log.retention.ms', '5', 4));
  assert.deepEqual(del.configsChanged, [
    { resourceType: 2, resourceName: 't', name: 'retention.ms', value: null },
    { resourceType: 4, resourceName: '1', name: 'log.retention.ms', value: '5' },
  ]);
  assert.equal(f.image.topicConfigs('t').size, 0);
  assert.equal(f.image.configs(4, '1').get('log.retention.ms'), '5');
});

test('brokers register, fence, unfence and unregister; features set and remove', () => {
  const f = new Feed();
  const d = f.apply(registerBroker(1, 0n, 'r1'));
  assert.equal(d.brokersChanged[0]?.registration?.rack, 'r1');
  f.apply({ type: 'FenceBrokerRecord', data: { id: 1, epoch: 0n } });
  assert.equal(f.image.broker(1)?.fenced, true);
  f.apply({ type: 'UnfenceBrokerRecord', data: { id: 1, epoch: 0n } });
  assert.equal(f.image.broker(1)?.fenced, false);
  const u = f.apply({ type: 'UnregisterBrokerRecord', data: { brokerId: 1, brokerEpoch: 0n } });
  assert.equal(f.image.broker(1), undefined);
  assert.equal(u.brokersChanged[0]?.registration, null);
  f.apply({ type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 3 } });
  assert.equal(f.image.featureLevel('metadata.version'), 3);
  const fd = f.apply({ type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 0 } });
  assert.equal(f.image.featureLevel('metadata.version'), undefined);
  assert.deepEqual(fd.featuresChanged, [{ name: 'metadata.version', featureLevel: 0 }]);
});

test('invariants: a leader outside the replicas, unknown topics, epochs going back, offsets going back', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 5n), registerBroker(2, 6n));
  f.apply(topic('t', A), partition(A, 0, [1, 2], { leaderEpoch: 3, partitionEpoch: 3 }));
  assert.throws(() => f.apply(partition(A, 1, [1], { leader: 2 })), AssertionError);
  assert.throws(() => f.apply(partition(B, 0, [1])), AssertionError);
  assert.throws(() => f.apply(partition(A, 0, [1, 2], { leaderEpoch: 2, partitionEpoch: 3 })), AssertionError);
  assert.throws(() => f.apply(partition(A, 5, [1])), AssertionError, 'partition ids leave no gap');
  assert.throws(() => f.apply(partition(A, 1, [1, 1])), AssertionError, 'replicas are distinct');
  assert.throws(() => f.apply(partition(A, 1, [1], { isr: [2] })), AssertionError, 'isr within replicas');
  assert.throws(() => f.apply(topic('t', B)), AssertionError, 'duplicate name');
  assert.throws(() => f.apply(registerBroker(1, 4n)), AssertionError, 'broker epoch goes back');
  assert.throws(
    () => f.image.apply({ baseOffset: 0n, lastOffset: 0n, epoch: 0, timestampMs: 0n, records: [] }),
    AssertionError,
    'offsets go back',
  );
});

test('toRecords rebuilds an identical image, and the initial delta lists everything', () => {
  const f = new Feed();
  f.apply(registerBroker(1, 0n, 'r1'), registerBroker(2, 1n, 'r2'));
  f.apply({ type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 1 } });
  f.apply(topic('a', A), partition(A, 0, [1, 2]), partition(A, 1, [2, 1]), config('a', 'retention.ms', '5'));
  f.apply(topic('b', B), partition(B, 0, [2]));
  const copy = new MetadataImage('cluster-x');
  copy.apply({ baseOffset: 0n, lastOffset: 0n, epoch: 0, timestampMs: 0n, records: f.image.toRecords() });
  assert.deepEqual(copy.toRecords(), f.image.toRecords());
  const initial = f.image.toInitialDelta();
  assert.equal(initial.initial, true);
  assert.equal(initial.lastOffset, f.image.lastAppliedOffset);
  assert.deepEqual(initial.topicsCreated.map((t) => t.name).sort(), ['a', 'b']);
  assert.equal(initial.partitionsAdded.length, 3);
  assert.equal(initial.brokersChanged.length, 2);
  assert.equal(initial.configsChanged.length, 1);
});
