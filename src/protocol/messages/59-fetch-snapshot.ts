// 59 FetchSnapshot (KIP-630), controller listener only. A follower whose
// fetch position is below the leader's log start (the Fetch answer carried a
// snapshotId) pulls the leader's snapshot in byte chunks from `position`.
// Flexible from v0. Not here: v1 (replicaDirectoryId, tag 0; KIP-853).
import { array, field, request, response, struct, type Infer } from '../schema.js';

const snapshotId = struct([field('endOffset', 'int64', { default: -1n }), field('epoch', 'int32', { default: -1 })]);

export const FetchSnapshotRequest = request(59, { versions: '0', flexible: '0+', name: 'FetchSnapshotRequest' }, [
  field('clusterId', 'string', { nullableVersions: '0+', default: null, tag: 0, taggedVersions: '0+' }),
  field('replicaId', 'int32', { default: -1 }),
  field('maxBytes', 'int32', { default: 0x7fffffff }),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('partition', 'int32'),
              field('currentLeaderEpoch', 'int32'),
              field('snapshotId', snapshotId),
              field('position', 'int64'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type FetchSnapshotRequest = Infer<typeof FetchSnapshotRequest>;

export const FetchSnapshotResponse = response(59, { versions: '0', flexible: '0+', name: 'FetchSnapshotResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('index', 'int32'),
              field('errorCode', 'int16'),
              field('snapshotId', snapshotId),
              field('currentLeader', struct([field('leaderId', 'int32', { default: -1 }), field('leaderEpoch', 'int32', { default: -1 })]), {
                tag: 0,
                taggedVersions: '0+',
              }),
              field('size', 'int64'),
              field('position', 'int64'),
              field('unalignedRecords', 'records'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type FetchSnapshotResponse = Infer<typeof FetchSnapshotResponse>;
