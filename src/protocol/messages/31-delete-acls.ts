// 31 DeleteAcls. v1: patternTypeFilter in each filter and patternType in each
// matching ACL (KIP-290; v0 implies LITERAL = 3); the broker responds before
// throttling. v2: flexible. v3: the USER resource type (no wire change).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DeleteAclsRequest = request(31, { versions: '0-3', flexible: '2+', name: 'DeleteAclsRequest' }, [
  field(
    'filters',
    array(
      struct([
        field('resourceTypeFilter', 'int8'),
        field('resourceNameFilter', 'nullableString'),
        field('patternTypeFilter', 'int8', { versions: '1+', default: 3 }),
        field('principalFilter', 'nullableString'),
        field('hostFilter', 'nullableString'),
        field('operation', 'int8'),
        field('permissionType', 'int8'),
      ]),
    ),
  ),
]);
export type DeleteAclsRequest = Infer<typeof DeleteAclsRequest>;

export const DeleteAclsResponse = response(31, { versions: '0-3', flexible: '2+', name: 'DeleteAclsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'filterResults',
    array(
      struct([
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString'),
        field(
          'matchingAcls',
          array(
            struct([
              field('errorCode', 'int16'),
              field('errorMessage', 'nullableString'),
              field('resourceType', 'int8'),
              field('resourceName', 'string'),
              field('patternType', 'int8', { versions: '1+', default: 3 }),
              field('principal', 'string'),
              field('host', 'string'),
              field('operation', 'int8'),
              field('permissionType', 'int8'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type DeleteAclsResponse = Infer<typeof DeleteAclsResponse>;
