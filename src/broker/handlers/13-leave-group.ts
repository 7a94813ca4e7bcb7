// 13 LeaveGroup, v0-4 (v3 batches members[] with groupInstanceId, KIP-345;
// v4 flexible). Before v3 the single member's error is the top-level error.
import { LeaveGroupRequest, LeaveGroupResponse } from '../../protocol/messages/13-leave-group.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const leaveGroupHandler = defineHandler({
  apiKey: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 4,
  request: LeaveGroupRequest,
  response: LeaveGroupResponse,
  handle(ctx, req) {
    const members = ctx.apiVersion >= 3 ? req.members : [{ memberId: req.memberId, groupInstanceId: null }];
    const denied = ctx.services.groups.check(req.groupId, 'leaveGroup');
    if (denied !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: denied, members: [] };
    const r = ctx.services.groups.coordinator.leaveGroup({ groupId: req.groupId, members });
    const single = r.members[0];
    const errorCode = ctx.apiVersion < 3 && r.errorCode === ErrorCode.NONE && single ? single.errorCode : r.errorCode;
    return { throttleTimeMs: 0, errorCode, members: r.members.map((m) => ({ ...m })) };
  },
  errorResponse: (_req, errorCode) => ({ errorCode, members: [] }),
});
