// 30 CreateAcls. v1: resourcePatternType (KIP-290; v0 implies LITERAL = 3);
// the broker responds before throttling. v2: flexible. v3: the USER resource
// type (no wire change).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const CreateAclsRequest = request(30, { versions: '0-3', flexible: '2+', name: 'CreateAclsRequest' }, [
  field(
    'creations',
    array(
      struct([
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
        field('resourcePatternType', 'int8', { versions: '1+', default: 3 }),
        field('principal', 'string'),
        field('host', 'string'),
        field('operation', 'int8'),
        field('permissionType', 'int8'),
      ]),
    ),
  ),
]);
export type CreateAclsRequest = Infer<typeof CreateAclsRequest>;

export const CreateAclsResponse = response(30, { versions: '0-3', flexible: '2+', name: 'CreateAclsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('results', array(struct([field('errorCode', 'int16'), field('errorMessage', 'nullableString')]))),
]);
export type CreateAclsResponse = Infer<typeof CreateAclsResponse>;
