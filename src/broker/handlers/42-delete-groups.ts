// 42 DeleteGroups, v0-2 (v2 flexible). NON_EMPTY_GROUP while members remain,
// GROUP_ID_NOT_FOUND for unknown groups; otherwise the group and its offsets
// are tombstoned in __consumer_offsets.
import { AclOperation } from '../../protocol/acl-types.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../protocol/messages/42-delete-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const deleteGroupsHandler = defineHandler({
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  request: DeleteGroupsRequest,
  response: DeleteGroupsResponse,
  async handle(ctx, req) {
    const groups = ctx.services.groups;
    const denied = new Map<string, number>();
    for (const g of req.groupsNames) {
      // DELETE on each group (GROUP_AUTHORIZATION_FAILED for that group only).
      const code = ctx.authz.group(AclOperation.DELETE, g) ? groups.check(g, 'deleteGroups') : ErrorCode.GROUP_AUTHORIZATION_FAILED;
      if (code !== ErrorCode.NONE) denied.set(g, code);
    }
    const deleted = await groups.coordinator.deleteGroups(req.groupsNames.filter((g) => !denied.has(g)));
    const byId = new Map(deleted.map((d) => [d.groupId, d.errorCode]));
    return {
      throttleTimeMs: 0,
      results: req.groupsNames.map((groupId) => ({ groupId, errorCode: denied.get(groupId) ?? byId.get(groupId) ?? ErrorCode.UNKNOWN_SERVER_ERROR })),
    };
  },
  errorResponse: (req, errorCode) => ({ throttleTimeMs: 0, results: req.groupsNames.map((groupId) => ({ groupId, errorCode })) }),
});
