// 14 SyncGroup, v0-4 (v3 groupInstanceId; v4 flexible). The leader sends the
// assignment; everyone gets theirs once the group's metadata is stored in
// __consumer_offsets. protocolType/protocolName arrive with v5 (not in range).
import { SyncGroupRequest, SyncGroupResponse } from '../../protocol/messages/14-sync-group.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

const EMPTY = Buffer.alloc(0);

export const syncGroupHandler = defineHandler({
  apiKey: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 4,
  request: SyncGroupRequest,
  response: SyncGroupResponse,
  async handle(ctx, req) {
    const denied = ctx.services.groups.check(req.groupId, 'syncGroup');
    if (denied !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: denied, assignment: EMPTY };
    const r = await ctx.services.groups.coordinator.syncGroup({
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      protocolType: null,
      protocolName: null,
      assignments: req.assignments,
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, assignment: r.assignment };
  },
  errorResponse: (_req, errorCode) => ({ errorCode, assignment: EMPTY }),
});
