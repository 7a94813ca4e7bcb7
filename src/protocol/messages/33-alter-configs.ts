// 33 AlterConfigs (whole-resource replace; see 44 for incremental changes).
// v1: the broker responds before throttling (no wire change). v2: flexible.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const AlterConfigsRequest = request(33, { versions: '0-2', flexible: '2+', name: 'AlterConfigsRequest' }, [
  field(
    'resources',
    array(
      struct([
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
        field('configs', array(struct([field('name', 'string'), field('value', 'nullableString')]))),
      ]),
    ),
  ),
  field('validateOnly', 'bool'),
]);
export type AlterConfigsRequest = Infer<typeof AlterConfigsRequest>;

export const AlterConfigsResponse = response(33, { versions: '0-2', flexible: '2+', name: 'AlterConfigsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'responses',
    array(
      struct([
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString'),
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
      ]),
    ),
  ),
]);
export type AlterConfigsResponse = Infer<typeof AlterConfigsResponse>;
