// 16 ListGroups, v0-4 (v3 flexible; v4 statesFilter and groupState, KIP-518).
// Lists the groups this node coordinates.
import { AclOperation } from '../../protocol/acl-types.js';
import { ListGroupsRequest, ListGroupsResponse } from '../../protocol/messages/16-list-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const listGroupsHandler = defineHandler({
  apiKey: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 4,
  request: ListGroupsRequest,
  response: ListGroupsResponse,
  handle(ctx, req) {
    // DESCRIBE on the cluster lists every group; otherwise only the groups the principal may DESCRIBE (Kafka's rule).
    const all = ctx.services.groups.coordinator.listGroups(req.statesFilter);
    const groups = !ctx.authz.enabled || ctx.authz.cluster(AclOperation.DESCRIBE, false) ? all : all.filter((g) => ctx.authz.group(AclOperation.DESCRIBE, g.groupId, false));
    return {
      throttleTimeMs: 0,
      // Kafka answers COORDINATOR_LOAD_IN_PROGRESS while any partition loads.
      errorCode: ctx.services.groups.loadInProgress() ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE,
      groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state })),
    };
  },
  errorResponse: (_req, errorCode) => ({ errorCode, groups: [] }),
});
