// 9 OffsetFetch. v0: offsets from ZooKeeper. v1: offsets from Kafka. v2:
// topics may be null (= all committed offsets), response top-level errorCode.
// v3: response throttleTimeMs. v4: same as v3. v5: response
// committedLeaderEpoch (KIP-320). v6: flexible (KIP-482). v7: requireStable
// (KIP-447; answer UNSTABLE_OFFSET_COMMIT while a transaction is pending).
// v8: batched form (KIP-709): request groups[] with topics inside (null = all),
// response groups[] with a per-group errorCode; the single-group fields are
// v0-7 only. v9+ (KIP-848 memberId/memberEpoch) is not covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const OffsetFetchRequest = request(9, { versions: '0-8', flexible: '6+', name: 'OffsetFetchRequest' }, [
  field('groupId', 'string', { versions: '0-7' }),
  field('topics', array(struct([field('name', 'string'), field('partitionIndexes', array('int32'))])), {
    versions: '0-7',
    nullableVersions: '2-7',
  }),
  field(
    'groups',
    array(
      struct([
        field('groupId', 'string'),
        field('topics', array(struct([field('name', 'string'), field('partitionIndexes', array('int32'))])), {
          nullableVersions: '8+',
        }),
      ]),
    ),
    { versions: '8+' },
  ),
  field('requireStable', 'bool', { versions: '7+', default: false }),
]);
export type OffsetFetchRequest = Infer<typeof OffsetFetchRequest>;

const partitionFields = [
  field('partitionIndex', 'int32'),
  field('committedOffset', 'int64'),
  field('committedLeaderEpoch', 'int32', { versions: '5+', default: -1 }),
  field('metadata', 'nullableString'),
  field('errorCode', 'int16'),
] as const;

export const OffsetFetchResponse = response(9, { versions: '0-8', flexible: '6+', name: 'OffsetFetchResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '3+', default: 0 }),
  field('topics', array(struct([field('name', 'string'), field('partitions', array(struct(partitionFields)))])), {
    versions: '0-7',
  }),
  field('errorCode', 'int16', { versions: '2-7', default: 0 }),
  field(
    'groups',
    array(
      struct([
        field('groupId', 'string'),
        field('topics', array(struct([field('name', 'string'), field('partitions', array(struct(partitionFields)))]))),
        field('errorCode', 'int16', { default: 0 }),
      ]),
    ),
    { versions: '8+' },
  ),
]);
export type OffsetFetchResponse = Infer<typeof OffsetFetchResponse>;
