// 37 CreatePartitions. v1: the broker responds before throttling (no wire
// change). v2: flexible. v3: THROTTLING_QUOTA_EXCEEDED may be returned
// (KIP-599; no wire change). assignments null lets the broker place the new
// partitions; otherwise it has one entry per new partition.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const CreatePartitionsRequest = request(37, { versions: '0-3', flexible: '2+', name: 'CreatePartitionsRequest' }, [
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        /** The new total number of partitions. */
        field('count', 'int32'),
        field('assignments', array(struct([field('brokerIds', array('int32'))])), { nullableVersions: '0+' }),
      ]),
    ),
  ),
  field('timeoutMs', 'int32'),
  field('validateOnly', 'bool'),
]);
export type CreatePartitionsRequest = Infer<typeof CreatePartitionsRequest>;

export const CreatePartitionsResponse = response(37, { versions: '0-3', flexible: '2+', name: 'CreatePartitionsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'results',
    array(struct([field('name', 'string'), field('errorCode', 'int16'), field('errorMessage', 'nullableString', { default: null })])),
  ),
]);
export type CreatePartitionsResponse = Infer<typeof CreatePartitionsResponse>;
