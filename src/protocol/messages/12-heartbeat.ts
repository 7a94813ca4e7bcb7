// 12 Heartbeat. v1: response throttleTimeMs. v2: same as v1. v3:
// groupInstanceId (KIP-345). v4: flexible (KIP-482).
import { field, request, response, type Infer } from '../schema.js';

export const HeartbeatRequest = request(12, { versions: '0-4', flexible: '4+', name: 'HeartbeatRequest' }, [
  field('groupId', 'string'),
  field('generationId', 'int32'),
  field('memberId', 'string'),
  field('groupInstanceId', 'string', { versions: '3+', nullableVersions: '3+', default: null }),
]);
export type HeartbeatRequest = Infer<typeof HeartbeatRequest>;

export const HeartbeatResponse = response(12, { versions: '0-4', flexible: '4+', name: 'HeartbeatResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16'),
]);
export type HeartbeatResponse = Infer<typeof HeartbeatResponse>;
