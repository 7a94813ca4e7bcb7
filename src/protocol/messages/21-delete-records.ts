// 21 DeleteRecords. v1: the broker responds before throttling (no wire
// change). v2: flexible. Offset -1 in a request means the high watermark.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DeleteRecordsRequest = request(21, { versions: '0-2', flexible: '2+', name: 'DeleteRecordsRequest' }, [
  field(
    'topics',
    array(struct([field('name', 'string'), field('partitions', array(struct([field('partitionIndex', 'int32'), field('offset', 'int64')])))])),
  ),
  field('timeoutMs', 'int32'),
]);
export type DeleteRecordsRequest = Infer<typeof DeleteRecordsRequest>;

export const DeleteRecordsResponse = response(21, { versions: '0-2', flexible: '2+', name: 'DeleteRecordsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitions',
          array(struct([field('partitionIndex', 'int32'), field('lowWatermark', 'int64'), field('errorCode', 'int16')])),
        ),
      ]),
    ),
  ),
]);
export type DeleteRecordsResponse = Infer<typeof DeleteRecordsResponse>;
