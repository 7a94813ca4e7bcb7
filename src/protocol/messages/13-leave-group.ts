// 13 LeaveGroup. v1: response throttleTimeMs. v2: same as v1. v3: batched
// (KIP-345): members[] (memberId + groupInstanceId) replaces memberId, and the
// response answers per member. v4: flexible (KIP-482). v5 (reason) is not
// covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const LeaveGroupRequest = request(13, { versions: '0-4', flexible: '4+', name: 'LeaveGroupRequest' }, [
  field('groupId', 'string'),
  field('memberId', 'string', { versions: '0-2' }),
  field('members', array(struct([field('memberId', 'string'), field('groupInstanceId', 'nullableString')])), {
    versions: '3+',
  }),
]);
export type LeaveGroupRequest = Infer<typeof LeaveGroupRequest>;

export const LeaveGroupResponse = response(13, { versions: '0-4', flexible: '4+', name: 'LeaveGroupResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16'),
  field(
    'members',
    array(struct([field('memberId', 'string'), field('groupInstanceId', 'nullableString'), field('errorCode', 'int16')])),
    { versions: '3+' },
  ),
]);
export type LeaveGroupResponse = Infer<typeof LeaveGroupResponse>;
