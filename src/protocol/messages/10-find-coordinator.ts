// 10 FindCoordinator. v1: keyType (0 group, 1 transaction), response
// throttleTimeMs and errorMessage. v2: same as v1. v3: flexible (KIP-482).
// v4: batched form (KIP-699): coordinatorKeys[] replaces key, and the
// response answers per key in coordinators[]; the single-key response fields
// are v0-3 only. v5/v6 are not covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const FindCoordinatorRequest = request(10, { versions: '0-4', flexible: '3+', name: 'FindCoordinatorRequest' }, [
  field('key', 'string', { versions: '0-3' }),
  field('keyType', 'int8', { versions: '1+', default: 0 }),
  field('coordinatorKeys', array('string'), { versions: '4+' }),
]);
export type FindCoordinatorRequest = Infer<typeof FindCoordinatorRequest>;

export const FindCoordinatorResponse = response(10, { versions: '0-4', flexible: '3+', name: 'FindCoordinatorResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16', { versions: '0-3', default: 0 }),
  field('errorMessage', 'string', { versions: '1-3', nullableVersions: '1-3', default: null }),
  field('nodeId', 'int32', { versions: '0-3', default: -1 }),
  field('host', 'string', { versions: '0-3', default: '' }),
  field('port', 'int32', { versions: '0-3', default: -1 }),
  field(
    'coordinators',
    array(
      struct([
        field('key', 'string'),
        field('nodeId', 'int32'),
        field('host', 'string'),
        field('port', 'int32'),
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString'),
      ]),
    ),
    { versions: '4+' },
  ),
]);
export type FindCoordinatorResponse = Infer<typeof FindCoordinatorResponse>;
