// 16 ListGroups. v1: response throttleTimeMs. v2: same as v1. v3: flexible
// (KIP-482). v4: statesFilter, response groupState (KIP-518). v5 (typesFilter,
// groupType) is not covered.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ListGroupsRequest = request(16, { versions: '0-4', flexible: '3+', name: 'ListGroupsRequest' }, [
  field('statesFilter', array('string'), { versions: '4+' }),
]);
export type ListGroupsRequest = Infer<typeof ListGroupsRequest>;

export const ListGroupsResponse = response(16, { versions: '0-4', flexible: '3+', name: 'ListGroupsResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16'),
  field(
    'groups',
    array(struct([field('groupId', 'string'), field('protocolType', 'string'), field('groupState', 'string', { versions: '4+', default: '' })])),
  ),
]);
export type ListGroupsResponse = Infer<typeof ListGroupsResponse>;
