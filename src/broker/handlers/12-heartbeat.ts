// 12 Heartbeat, v0-4 (v3 groupInstanceId; v4 flexible). Keeps a member's
// session alive; REBALANCE_IN_PROGRESS tells it to rejoin.
import { HeartbeatRequest, HeartbeatResponse } from '../../protocol/messages/12-heartbeat.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const heartbeatHandler = defineHandler({
  apiKey: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  request: HeartbeatRequest,
  response: HeartbeatResponse,
  handle(ctx, req) {
    const denied = ctx.services.groups.check(req.groupId, 'heartbeat');
    if (denied !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: denied };
    const errorCode = ctx.services.groups.coordinator.heartbeat({
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
    });
    return { throttleTimeMs: 0, errorCode };
  },
  errorResponse: (_req, errorCode) => ({ errorCode }),
});
