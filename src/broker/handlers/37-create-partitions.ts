// 37 CreatePartitions, v0-3 (v2 flexible). Grows a topic to `count`
// partitions, optionally with explicit replica assignments for the new ones.
// Partitions can only be added (INVALID_PARTITIONS otherwise), as in Kafka.
// On a node that is not the active controller the request is forwarded to
// it unchanged (src/broker/controller-channel.ts); NOT_CONTROLLER while none is known.
import { AclOperation } from '../../protocol/acl-types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { runAllowed } from '../request-authorization.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/messages/37-create-partitions.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { RequestContext } from '../request-context.js';
import type { Input } from '../../protocol/schema.js';

export const createPartitionsHandler = defineHandler({
  apiKey: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  request: CreatePartitionsRequest,
  response: CreatePartitionsResponse,
  async handle(ctx, req) {
    // ALTER on each topic, checked before forwarding (TOPIC_AUTHORIZATION_FAILED).
    if (!ctx.authz.enabled) return createPartitions(ctx, req);
    const results = await runAllowed(
      req.topics,
      (t) => ctx.authz.topic(AclOperation.ALTER, t.name),
      async (topics) => (await createPartitions(ctx, { ...req, topics: [...topics] })).results,
      (t) => ({ name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }),
    );
    return { throttleTimeMs: 0, results };
  },
  errorResponse,
});

async function createPartitions(ctx: RequestContext, req: CreatePartitionsRequest): Promise<Input<typeof CreatePartitionsResponse>> {
  const forwarded = await forwardToController(ctx, { request: CreatePartitionsRequest, response: CreatePartitionsResponse }, req, (code) => errorResponse(req, code, ctx));
  if (forwarded !== null) return forwarded;
  const results = await ctx.services.metadata.createPartitions(
    req.topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ? t.assignments.map((a) => a.brokerIds) : null })),
    req.validateOnly,
  );
  return { throttleTimeMs: 0, results: results.map((r) => ({ ...r })) };
}

function errorResponse(req: CreatePartitionsRequest, errorCode: number, _ctx: RequestContext): Input<typeof CreatePartitionsResponse> {
  return {
    throttleTimeMs: 0,
    results: req.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })),
  };
}
