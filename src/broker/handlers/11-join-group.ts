// 11 JoinGroup, v0-6 (v6 flexible). v1: rebalanceTimeoutMs (v0 uses the
// session timeout). v4: a join without a member id is answered
// MEMBER_ID_REQUIRED with a generated id (KIP-394). v5: groupInstanceId
// (static membership, KIP-345). The state machine is GroupCoordinator; this
// maps the request and answers COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR
// when this node cannot serve the group right now.
import { JoinGroupRequest, JoinGroupResponse } from '../../protocol/messages/11-join-group.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const joinGroupHandler = defineHandler({
  apiKey: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 6,
  request: JoinGroupRequest,
  response: JoinGroupResponse,
  async handle(ctx, req) {
    const denied = ctx.services.groups.check(req.groupId, 'joinGroup');
    if (denied !== ErrorCode.NONE) return { errorCode: denied, generationId: -1, protocolName: '', leader: '', memberId: req.memberId, members: [] };
    const r = await ctx.services.groups.coordinator.joinGroup({
      groupId: req.groupId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: ctx.clientId ?? '',
      clientHost: `/${ctx.clientAddress.slice(0, ctx.clientAddress.lastIndexOf(':'))}`,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      protocolType: req.protocolType,
      protocols: req.protocols,
      requireKnownMemberId: ctx.apiVersion >= 4,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolName: r.protocolName,
      leader: r.leaderId,
      memberId: r.memberId,
      members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata })),
    };
  },
  errorResponse: (req, errorCode) => ({ errorCode, generationId: -1, protocolName: '', leader: '', memberId: req.memberId, members: [] }),
});
