// 30 CreateAcls, v0-3 (v1 resourcePatternType, KIP-290, v0 = LITERAL; v2
// flexible; v3 the USER resource type). Forwarded to the active controller,
// which validates each ACL with Kafka's rules and commits
// AccessControlEntryRecords (src/controller/acl-plan.ts); one result per
// creation, in order. Without an authorizer: SECURITY_DISABLED for each, as
// Kafka. Needs ALTER on the cluster (the connection's gate).
import { CreateAclsRequest, CreateAclsResponse } from '../../protocol/messages/30-create-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';

export const createAclsHandler = defineHandler({
  apiKey: 30,
  name: 'CreateAcls',
  minVersion: 0,
  maxVersion: 3,
  request: CreateAclsRequest,
  response: CreateAclsResponse,
  async handle(ctx, req) {
    if (ctx.services.authorizer === null) return errorResponse(req, ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker');
    const forwarded = await forwardToController(ctx, { request: CreateAclsRequest, response: CreateAclsResponse }, req, (code) => errorResponse(req, code, null));
    if (forwarded !== null) return forwarded;
    const results = await ctx.services.metadata.createAcls(
      req.creations.map((c) => ({ resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType, principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType })),
    );
    return { throttleTimeMs: 0, results };
  },
  errorResponse: (req, errorCode) => errorResponse(req, errorCode, null),
});

function errorResponse(req: CreateAclsRequest, errorCode: number, errorMessage: string | null) {
  return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage })) };
}
