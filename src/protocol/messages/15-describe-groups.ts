// 15 DescribeGroups. v1: response throttleTimeMs. v2: same as v1. v3:
// includeAuthorizedOperations, response authorizedOperations (KIP-430).
// v4: member groupInstanceId (KIP-345). v5: flexible (KIP-482).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeGroupsRequest = request(15, { versions: '0-5', flexible: '5+', name: 'DescribeGroupsRequest' }, [
  field('groups', array('string')),
  field('includeAuthorizedOperations', 'bool', { versions: '3+', default: false }),
]);
export type DescribeGroupsRequest = Infer<typeof DescribeGroupsRequest>;

export const DescribeGroupsResponse = response(15, { versions: '0-5', flexible: '5+', name: 'DescribeGroupsResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field(
    'groups',
    array(
      struct([
        field('errorCode', 'int16'),
        field('groupId', 'string'),
        field('groupState', 'string'),
        field('protocolType', 'string'),
        field('protocolData', 'string'),
        field(
          'members',
          array(
            struct([
              field('memberId', 'string'),
              field('groupInstanceId', 'string', { versions: '4+', nullableVersions: '4+', default: null }),
              field('clientId', 'string'),
              field('clientHost', 'string'),
              field('memberMetadata', 'bytes'),
              field('memberAssignment', 'bytes'),
            ]),
          ),
        ),
        field('authorizedOperations', 'int32', { versions: '3+', default: -2147483648 }),
      ]),
    ),
  ),
]);
export type DescribeGroupsResponse = Infer<typeof DescribeGroupsResponse>;
