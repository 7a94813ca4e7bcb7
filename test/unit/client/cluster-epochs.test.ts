// Cluster metadata and leader epochs (KIP-320): an answer that names an older
// leader epoch than the cached one (a broker that has not seen the election
// yet) does not replace it, unless the topic was recreated (new topic id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepNewerEpochs, type PartitionMetadata, type TopicMetadata } from '../../../src/client/cluster.js';

const partition = (index: number, leaderId: number, leaderEpoch: number): PartitionMetadata => ({
  partition: index,
  errorCode: 0,
  leaderId,
  leaderEpoch,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  offlineReplicas: [],
});
const topic = (topicId: string | null, partitions: PartitionMetadata[]): TopicMetadata => ({ name: 't', errorCode: 0, topicId, isInternal: false, partitions });

test('a partition answered with an older leader epoch keeps the cached leader; newer and equal epochs replace it', () => {
  const cached = topic('id-1', [partition(0, 2, 5), partition(1, 3, 2), partition(2, 1, 0)]);
  const fresh = topic('id-1', [partition(0, 1, 4), partition(1, 1, 3), partition(2, 2, 0)]);
  const merged = keepNewerEpochs(fresh, cached);
  assert.deepEqual(
    merged.partitions.map((p) => [p.leaderId, p.leaderEpoch]),
    [
      [2, 5],
      [1, 3],
      [2, 0],
    ],
  );
});

test('a recreated topic (another id), a topic error, an unknown epoch (-1) or nothing cached: the answer is taken as it is', () => {
  const cached = topic('id-1', [partition(0, 2, 5)]);
  const recreated = topic('id-2', [partition(0, 1, 0)]);
  assert.equal(keepNewerEpochs(recreated, cached), recreated);
  const noEpoch = topic('id-1', [partition(0, 1, -1)]);
  assert.equal(keepNewerEpochs(noEpoch, cached).partitions[0]?.leaderId, 1);
  const failed: TopicMetadata = { ...topic('id-1', []), errorCode: 3 };
  assert.equal(keepNewerEpochs(failed, cached), failed);
  const fresh = topic('id-1', [partition(0, 1, 0)]);
  assert.equal(keepNewerEpochs(fresh, undefined), fresh);
});
