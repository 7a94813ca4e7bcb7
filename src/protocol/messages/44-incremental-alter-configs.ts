// 44 IncrementalAlterConfigs (KIP-339). v1: flexible. configOperation:
// 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT (the last two for list configs).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const IncrementalAlterConfigsRequest = request(
  44,
  { versions: '0-1', flexible: '1+', name: 'IncrementalAlterConfigsRequest' },
  [
    field(
      'resources',
      array(
        struct([
          field('resourceType', 'int8'),
          field('resourceName', 'string'),
          field(
            'configs',
            array(struct([field('name', 'string'), field('configOperation', 'int8'), field('value', 'nullableString')])),
          ),
        ]),
      ),
    ),
    field('validateOnly', 'bool'),
  ],
);
export type IncrementalAlterConfigsRequest = Infer<typeof IncrementalAlterConfigsRequest>;

export const IncrementalAlterConfigsResponse = response(
  44,
  { versions: '0-1', flexible: '1+', name: 'IncrementalAlterConfigsResponse' },
  [
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
  ],
);
export type IncrementalAlterConfigsResponse = Infer<typeof IncrementalAlterConfigsResponse>;
