// 20 DeleteTopics, v0-6 (v4 flexible; v5 error messages; v6 deletes by name
// or by topic id). The controller removes the topic from the metadata; every
// broker then deletes the partitions' logs when it applies the change.
// On a node that is not the active controller the request is forwarded to
// it unchanged (src/broker/controller-channel.ts); NOT_CONTROLLER while none is known.
import { AclOperation } from '../../protocol/acl-types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/messages/20-delete-topics.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { RequestContext } from '../request-context.js';
import type { Input } from '../../protocol/schema.js';
import { ZERO_UUID } from '../../protocol/codec.js';

export const deleteTopicsHandler = defineHandler({
  apiKey: 20,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 6,
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  async handle(ctx, req) {
    // DELETE on each topic, checked before forwarding (TOPIC_AUTHORIZATION_FAILED, whether or not a named topic exists; an unknown id stays UNKNOWN_TOPIC_ID).
    if (!ctx.authz.enabled) return remove(ctx, req);
    const deniedV6 = req.topics.filter((t) => {
      const name = t.topicId === ZERO_UUID ? (t.name ?? undefined) : ctx.services.metadata.topicNameById(t.topicId);
      return name !== undefined && !ctx.authz.topic(AclOperation.DELETE, name);
    });
    const deniedNames = req.topicNames.filter((n) => !ctx.authz.topic(AclOperation.DELETE, n));
    if (deniedV6.length === 0 && deniedNames.length === 0) return remove(ctx, req);
    const allowed = { ...req, topics: req.topics.filter((t) => !deniedV6.includes(t)), topicNames: req.topicNames.filter((n) => !deniedNames.includes(n)) };
    const answered = allowed.topics.length + allowed.topicNames.length === 0 ? [] : (await remove(ctx, allowed)).responses;
    const denied = [
      ...deniedV6.map((t) => ({ name: t.topicId === ZERO_UUID ? t.name : null, topicId: t.topicId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null })),
      ...deniedNames.map((name) => ({ name, topicId: ZERO_UUID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null })),
    ];
    return { throttleTimeMs: 0, responses: [...answered, ...denied] };
  },
  errorResponse,
});

async function remove(ctx: RequestContext, req: DeleteTopicsRequest): Promise<Input<typeof DeleteTopicsResponse>> {
  const forwarded = await forwardToController(ctx, { request: DeleteTopicsRequest, response: DeleteTopicsResponse }, req, (code) => errorResponse(req, code, ctx));
  if (forwarded !== null) return forwarded;
  const refs =
    ctx.apiVersion >= 6
      ? req.topics.map((t) => ({ name: t.name, topicId: t.topicId === ZERO_UUID ? null : t.topicId }))
      : req.topicNames.map((name) => ({ name, topicId: null }));
  const results = await ctx.services.metadata.deleteTopics(refs);
  return {
    throttleTimeMs: 0,
    responses: results.map((r) => ({
      name: ctx.apiVersion >= 6 ? r.name : (r.name ?? ''),
      topicId: r.topicId,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
    })),
  };
}

function errorResponse(req: DeleteTopicsRequest, errorCode: number, ctx: RequestContext): Input<typeof DeleteTopicsResponse> {
  return {
    throttleTimeMs: 0,
    responses:
      ctx.apiVersion >= 6
        ? req.topics.map((t) => ({ name: t.name, topicId: t.topicId, errorCode }))
        : req.topicNames.map((name) => ({ name, errorCode })),
  };
}
