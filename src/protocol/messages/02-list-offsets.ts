// 2 ListOffsets. v0: maxNumOffsets and response oldStyleOffsets[] (a list of
// offsets). v1: one timestamp/offset per partition (KIP-79). v2:
// isolationLevel, response throttleTimeMs. v3: same as v2. v4:
// currentLeaderEpoch, response leaderEpoch (KIP-320). v5: same as v4
// (OFFSET_NOT_AVAILABLE may be returned). v6: flexible, same fields. v7: same
// fields; the timestamp -3 (MAX_TIMESTAMP, KIP-734) becomes valid.
import { array, field, request, response, struct, type Infer } from '../schema.js';

/** The timestamp that asks for the log start offset. */
export const EARLIEST_TIMESTAMP = -2n;
/** The timestamp that asks for the high watermark (the last stable offset under read_committed, v2+). */
export const LATEST_TIMESTAMP = -1n;
/** The timestamp that asks for the record with the largest timestamp (v7+, KIP-734). */
export const MAX_TIMESTAMP = -3n;

export const ListOffsetsRequest = request(2, { versions: '0-7', flexible: '6+', name: 'ListOffsetsRequest' }, [
  field('replicaId', 'int32', { default: -1 }),
  field('isolationLevel', 'int8', { versions: '2+', default: 0 }),
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
              field('currentLeaderEpoch', 'int32', { versions: '4+', default: -1 }),
              field('timestamp', 'int64'),
              field('maxNumOffsets', 'int32', { versions: '0', default: 1 }),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type ListOffsetsRequest = Infer<typeof ListOffsetsRequest>;

export const ListOffsetsResponse = response(2, { versions: '0-7', flexible: '6+', name: 'ListOffsetsResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '2+', default: 0 }),
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
              field('errorCode', 'int16'),
              field('oldStyleOffsets', array('int64'), { versions: '0' }),
              field('timestamp', 'int64', { versions: '1+', default: -1n }),
              field('offset', 'int64', { versions: '1+', default: -1n }),
              field('leaderEpoch', 'int32', { versions: '4+', default: -1 }),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type ListOffsetsResponse = Infer<typeof ListOffsetsResponse>;
