// 29 DescribeAcls, v0-3 (v1 pattern types, KIP-290; v2 flexible; v3 the USER
// resource type). Read locally: every node applies the same metadata log.
// The ACLs matching the filter (Kafka's AclBindingFilter.matches, MATCH
// included), grouped by resource pattern. Without an authorizer:
// SECURITY_DISABLED, as Kafka; a filter with an UNKNOWN field:
// INVALID_REQUEST. Needs DESCRIBE on the cluster (the connection's gate,
// src/security/authorizer/api-acls.ts).
import { DescribeAclsRequest, DescribeAclsResponse } from '../../protocol/messages/29-describe-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { filterMatches, filterProblem, type AclBindingFilter } from '../../protocol/acl-types.js';
import { defineHandler } from '../handler.js';

interface ResourceAcls {
  resourceType: number;
  resourceName: string;
  patternType: number;
  acls: { principal: string; host: string; operation: number; permissionType: number }[];
}

export const describeAclsHandler = defineHandler({
  apiKey: 29,
  name: 'DescribeAcls',
  minVersion: 0,
  maxVersion: 3,
  request: DescribeAclsRequest,
  response: DescribeAclsResponse,
  handle(ctx, req) {
    if (ctx.services.authorizer === null) return errorResponse(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker');
    const filter: AclBindingFilter = {
      resourceType: req.resourceTypeFilter,
      resourceName: req.resourceNameFilter,
      patternType: req.patternTypeFilter,
      principal: req.principalFilter,
      host: req.hostFilter,
      operation: req.operation,
      permissionType: req.permissionType,
    };
    const problem = filterProblem(filter);
    if (problem !== null) return errorResponse(ErrorCode.INVALID_REQUEST, problem);
    const byResource = new Map<string, ResourceAcls>();
    for (const acl of ctx.services.metadata.acls()) {
      if (!filterMatches(filter, acl)) continue;
      const key = `${acl.resourceType}\u0000${acl.patternType}\u0000${acl.resourceName}`;
      let entry = byResource.get(key);
      if (entry === undefined) {
        entry = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] };
        byResource.set(key, entry);
      }
      entry.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...byResource.values()] };
  },
  errorResponse: (_req, errorCode) => errorResponse(errorCode, null),
});

function errorResponse(errorCode: number, errorMessage: string | null) {
  return { throttleTimeMs: 0, errorCode, errorMessage, resources: [] };
}
