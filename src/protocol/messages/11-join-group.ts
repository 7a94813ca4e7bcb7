// 11 JoinGroup. v1: rebalanceTimeoutMs. v2: response throttleTimeMs. v3: same
// as v2. v4: a join with an empty memberId is answered MEMBER_ID_REQUIRED with
// a generated id (KIP-394). v5: groupInstanceId (KIP-345), also per member in
// the response. v6: flexible (KIP-482). v7+ (response protocolType, nullable
// protocolName), v8 (reason) and v9 (skipAssignment) are not covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const JoinGroupRequest = request(11, { versions: '0-6', flexible: '6+', name: 'JoinGroupRequest' }, [
  field('groupId', 'string'),
  field('sessionTimeoutMs', 'int32'),
  field('rebalanceTimeoutMs', 'int32', { versions: '1+', default: -1 }),
  field('memberId', 'string'),
  field('groupInstanceId', 'string', { versions: '5+', nullableVersions: '5+', default: null }),
  field('protocolType', 'string'),
  field('protocols', array(struct([field('name', 'string'), field('metadata', 'bytes')]))),
]);
export type JoinGroupRequest = Infer<typeof JoinGroupRequest>;

export const JoinGroupResponse = response(11, { versions: '0-6', flexible: '6+', name: 'JoinGroupResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '2+', default: 0 }),
  field('errorCode', 'int16'),
  field('generationId', 'int32', { default: -1 }),
  field('protocolName', 'string'),
  field('leader', 'string'),
  field('memberId', 'string'),
  field(
    'members',
    array(
      struct([
        field('memberId', 'string'),
        field('groupInstanceId', 'string', { versions: '5+', nullableVersions: '5+', default: null }),
        field('metadata', 'bytes'),
      ]),
    ),
  ),
]);
export type JoinGroupResponse = Infer<typeof JoinGroupResponse>;
