// 8 OffsetCommit. v0: offsets stored in ZooKeeper (no generation/member).
// v1: generationIdOrMemberEpoch, memberId and a per-partition commitTimestamp
// (v1 only). v2: retentionTimeMs (v2-v4), commitTimestamp gone. v3: response
// throttleTimeMs. v4: same as v3. v5: retentionTimeMs removed (KIP-211).
// v6: committedLeaderEpoch (KIP-320). v7: groupInstanceId (KIP-345).
// v8: flexible (KIP-482). v9+ (KIP-848 member epochs) is not covered; the
// field keeps Kafka's current name, generationIdOrMemberEpoch (it holds the
// classic generation id in every version here).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const OffsetCommitRequest = request(8, { versions: '0-8', flexible: '8+', name: 'OffsetCommitRequest' }, [
  field('groupId', 'string'),
  field('generationIdOrMemberEpoch', 'int32', { versions: '1+', default: -1 }),
  field('memberId', 'string', { versions: '1+', default: '' }),
  field('groupInstanceId', 'string', { versions: '7+', nullableVersions: '7+', default: null }),
  field('retentionTimeMs', 'int64', { versions: '2-4', default: -1n }),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('committedOffset', 'int64'),
              field('committedLeaderEpoch', 'int32', { versions: '6+', default: -1 }),
              field('commitTimestamp', 'int64', { versions: '1', default: -1n }),
              field('committedMetadata', 'nullableString'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type OffsetCommitRequest = Infer<typeof OffsetCommitRequest>;

export const OffsetCommitResponse = response(8, { versions: '0-8', flexible: '8+', name: 'OffsetCommitResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '3+', default: 0 }),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field('partitions', array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16')]))),
      ]),
    ),
  ),
]);
export type OffsetCommitResponse = Infer<typeof OffsetCommitResponse>;
