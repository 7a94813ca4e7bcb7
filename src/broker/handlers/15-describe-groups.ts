// 15 DescribeGroups, v0-5 (v3 authorizedOperations, answered "not requested"
// until ACLs exist; v4 member groupInstanceId; v5 flexible). An unknown group
// is described as Dead with no error, as Kafka does.
import { AclOperation } from '../../protocol/acl-types.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../protocol/messages/15-describe-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const describeGroupsHandler = defineHandler({
  apiKey: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 5,
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  handle(ctx, req) {
    const groups = ctx.services.groups;
    return {
      throttleTimeMs: 0,
      groups: req.groups.map((groupId) => {
        // DESCRIBE on each group (Kafka: GROUP_AUTHORIZATION_FAILED for that group only).
        const denied = ctx.authz.group(AclOperation.DESCRIBE, groupId) ? groups.check(groupId, 'describeGroups') : ErrorCode.GROUP_AUTHORIZATION_FAILED;
        if (denied !== ErrorCode.NONE) return { errorCode: denied, groupId, groupState: '', protocolType: '', protocolData: '', members: [] };
        const [d] = groups.coordinator.describeGroups([groupId]);
        if (!d) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, groupId, groupState: '', protocolType: '', protocolData: '', members: [] };
        return {
          errorCode: d.errorCode,
          groupId,
          groupState: d.state,
          protocolType: d.protocolType,
          protocolData: d.protocolName,
          members: d.members.map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            memberMetadata: m.metadata,
            memberAssignment: m.assignment,
          })),
        };
      }),
    };
  },
  errorResponse: (req, errorCode) => ({
    groups: req.groups.map((groupId) => ({ errorCode, groupId, groupState: '', protocolType: '', protocolData: '', members: [] })),
  }),
});
