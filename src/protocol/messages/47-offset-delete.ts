// 47 OffsetDelete (KIP-496). v0 only, and never flexible. Note the response
// puts errorCode before throttleTimeMs.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const OffsetDeleteRequest = request(47, { versions: '0', flexible: 'none', name: 'OffsetDeleteRequest' }, [
  field('groupId', 'string'),
  field('topics', array(struct([field('name', 'string'), field('partitions', array(struct([field('partitionIndex', 'int32')])))]))),
]);
export type OffsetDeleteRequest = Infer<typeof OffsetDeleteRequest>;

export const OffsetDeleteResponse = response(47, { versions: '0', flexible: 'none', name: 'OffsetDeleteResponse' }, [
  field('errorCode', 'int16'),
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
export type OffsetDeleteResponse = Infer<typeof OffsetDeleteResponse>;
