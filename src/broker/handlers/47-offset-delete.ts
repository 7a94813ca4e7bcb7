// 47 OffsetDelete, v0 (KIP-496). Removes committed offsets of partitions the
// group no longer consumes; GROUP_SUBSCRIBED_TO_TOPIC for a topic an active
// member still subscribes to.
import { AclOperation } from '../../protocol/acl-types.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../../protocol/messages/47-offset-delete.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const offsetDeleteHandler = defineHandler({
  apiKey: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  async handle(ctx, req) {
    const denied = ctx.services.groups.check(req.groupId, 'offsetDelete');
    if (denied !== ErrorCode.NONE) return { errorCode: denied, throttleTimeMs: 0, topics: [] };
    // DELETE on the group is the connection's gate; READ on each topic here (TOPIC_AUTHORIZATION_FAILED, offsets kept).
    const unreadable = new Set(req.topics.filter((t) => !ctx.authz.topic(AclOperation.READ, t.name)).map((t) => t.name));
    const r = await ctx.services.groups.coordinator.deleteOffsets(
      req.groupId,
      req.topics.filter((t) => !unreadable.has(t.name)).flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex }))),
    );
    const byKey = new Map(r.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p.errorCode]));
    return {
      errorCode: r.errorCode,
      throttleTimeMs: 0,
      topics:
        r.errorCode === ErrorCode.NONE
          ? req.topics.map((t) => ({
              name: t.name,
              partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: unreadable.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : (byKey.get(`${t.name}\u0000${p.partitionIndex}`) ?? ErrorCode.NONE) })),
            }))
          : [],
    };
  },
  errorResponse: (_req, errorCode) => ({ errorCode, throttleTimeMs: 0, topics: [] }),
});
