// 31 DeleteAcls, v0-3 (v1 pattern types, KIP-290, v0 = LITERAL; v2
// flexible; v3 the USER resource type). Forwarded to the active controller,
// which removes every ACL a filter matches (src/controller/acl-plan.ts) and
// answers, per filter, the ACLs it matched. Without an authorizer:
// SECURITY_DISABLED for each filter, as Kafka. Needs ALTER on the cluster
// (the connection's gate).
import { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/messages/31-delete-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';

export const deleteAclsHandler = defineHandler({
  apiKey: 31,
  name: 'DeleteAcls',
  minVersion: 0,
  maxVersion: 3,
  request: DeleteAclsRequest,
  response: DeleteAclsResponse,
  async handle(ctx, req) {
    if (ctx.services.authorizer === null) return errorResponse(req, ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker');
    const forwarded = await forwardToController(ctx, { request: DeleteAclsRequest, response: DeleteAclsResponse }, req, (code) => errorResponse(req, code, null));
    if (forwarded !== null) return forwarded;
    const results = await ctx.services.metadata.deleteAcls(
      req.filters.map((f) => ({ resourceType: f.resourceTypeFilter, resourceName: f.resourceNameFilter, patternType: f.patternTypeFilter, principal: f.principalFilter, host: f.hostFilter, operation: f.operation, permissionType: f.permissionType })),
    );
    return {
      throttleTimeMs: 0,
      filterResults: results.map((r) => ({
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        matchingAcls: r.matchingAcls.map((a) => ({ errorCode: ErrorCode.NONE, errorMessage: null, resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType })),
      })),
    };
  },
  errorResponse: (req, errorCode) => errorResponse(req, errorCode, null),
});

function errorResponse(req: DeleteAclsRequest, errorCode: number, errorMessage: string | null) {
  return { throttleTimeMs: 0, filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })) };
}
