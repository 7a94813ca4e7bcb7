// 14 SyncGroup. v1: response throttleTimeMs. v2: same as v1. v3:
// groupInstanceId (KIP-345). v4: flexible (KIP-482). v5 (protocolType and
// protocolName) is not covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const SyncGroupRequest = request(14, { versions: '0-4', flexible: '4+', name: 'SyncGroupRequest' }, [
  field('groupId', 'string'),
  field('generationId', 'int32'),
  field('memberId', 'string'),
  field('groupInstanceId', 'string', { versions: '3+', nullableVersions: '3+', default: null }),
  field('assignments', array(struct([field('memberId', 'string'), field('assignment', 'bytes')]))),
]);
export type SyncGroupRequest = Infer<typeof SyncGroupRequest>;

export const SyncGroupResponse = response(14, { versions: '0-4', flexible: '4+', name: 'SyncGroupResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16'),
  field('assignment', 'bytes'),
]);
export type SyncGroupResponse = Infer<typeof SyncGroupResponse>;
