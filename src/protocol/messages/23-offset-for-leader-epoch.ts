// 23 OffsetForLeaderEpoch. v1: response leaderEpoch. v2: request
// currentLeaderEpoch (fencing, KIP-320); response throttleTimeMs. v3: request
// replicaId (-2 = a debug consumer, -1 = a consumer, >= 0 = a follower).
// v4: flexible.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const OffsetForLeaderEpochRequest = request(23, { versions: '0-4', flexible: '4+', name: 'OffsetForLeaderEpochRequest' }, [
  field('replicaId', 'int32', { versions: '3+', default: -2 }),
  field(
    'topics',
    array(
      struct([
        field('topic', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('partition', 'int32'),
              field('currentLeaderEpoch', 'int32', { versions: '2+', default: -1 }),
              field('leaderEpoch', 'int32'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type OffsetForLeaderEpochRequest = Infer<typeof OffsetForLeaderEpochRequest>;

export const OffsetForLeaderEpochResponse = response(23, { versions: '0-4', flexible: '4+', name: 'OffsetForLeaderEpochResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '2+' }),
  field(
    'topics',
    array(
      struct([
        field('topic', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('errorCode', 'int16'),
              field('partition', 'int32'),
              field('leaderEpoch', 'int32', { versions: '1+', default: -1 }),
              field('endOffset', 'int64', { default: -1n }),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type OffsetForLeaderEpochResponse = Infer<typeof OffsetForLeaderEpochResponse>;
