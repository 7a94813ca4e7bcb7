// 29 DescribeAcls. v1: patternTypeFilter in the request and patternType in
// the response (prefixed ACLs, KIP-290); the broker responds before
// throttling. v2: flexible. v3: the USER resource type (no wire change).
// Pattern types: 0 UNKNOWN, 1 ANY, 2 MATCH, 3 LITERAL, 4 PREFIXED; v0 implies
// LITERAL, hence the default 3.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeAclsRequest = request(29, { versions: '0-3', flexible: '2+', name: 'DescribeAclsRequest' }, [
  field('resourceTypeFilter', 'int8'),
  field('resourceNameFilter', 'nullableString'),
  field('patternTypeFilter', 'int8', { versions: '1+', default: 3 }),
  field('principalFilter', 'nullableString'),
  field('hostFilter', 'nullableString'),
  field('operation', 'int8'),
  field('permissionType', 'int8'),
]);
export type DescribeAclsRequest = Infer<typeof DescribeAclsRequest>;

export const DescribeAclsResponse = response(29, { versions: '0-3', flexible: '2+', name: 'DescribeAclsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('errorMessage', 'nullableString'),
  field(
    'resources',
    array(
      struct([
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
        field('patternType', 'int8', { versions: '1+', default: 3 }),
        field(
          'acls',
          array(
            struct([
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
export type DescribeAclsResponse = Infer<typeof DescribeAclsResponse>;
