// 28 TxnOffsetCommit. v1: the broker responds before throttling (no wire
// change). v2: committedLeaderEpoch. v3: flexible; generationId, memberId and
// groupInstanceId so the coordinator can fence zombie members (KIP-447), and
// ILLEGAL_GENERATION, FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID may be returned.
// v4: TRANSACTION_ABORTABLE may be returned (KIP-890; no wire change).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const TxnOffsetCommitRequest = request(28, { versions: '0-4', flexible: '3+', name: 'TxnOffsetCommitRequest' }, [
  field('transactionalId', 'string'),
  field('groupId', 'string'),
  field('producerId', 'int64'),
  field('producerEpoch', 'int16'),
  field('generationId', 'int32', { versions: '3+', default: -1 }),
  field('memberId', 'string', { versions: '3+', default: '' }),
  field('groupInstanceId', 'nullableString', { versions: '3+', default: null }),
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
              field('committedLeaderEpoch', 'int32', { versions: '2+', default: -1 }),
              field('committedMetadata', 'nullableString'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type TxnOffsetCommitRequest = Infer<typeof TxnOffsetCommitRequest>;

export const TxnOffsetCommitResponse = response(28, { versions: '0-4', flexible: '3+', name: 'TxnOffsetCommitResponse' }, [
  field('throttleTimeMs', 'int32'),
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
export type TxnOffsetCommitResponse = Infer<typeof TxnOffsetCommitResponse>;
