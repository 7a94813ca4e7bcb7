// 42 DeleteGroups. v1: the broker responds before throttling (no wire
// change). v2: flexible. Kafka spells the request field groupsNames.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DeleteGroupsRequest = request(42, { versions: '0-2', flexible: '2+', name: 'DeleteGroupsRequest' }, [
  field('groupsNames', array('string')),
]);
export type DeleteGroupsRequest = Infer<typeof DeleteGroupsRequest>;

export const DeleteGroupsResponse = response(42, { versions: '0-2', flexible: '2+', name: 'DeleteGroupsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('results', array(struct([field('groupId', 'string'), field('errorCode', 'int16')]))),
]);
export type DeleteGroupsResponse = Infer<typeof DeleteGroupsResponse>;
