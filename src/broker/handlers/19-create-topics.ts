// 19 CreateTopics, v0-7 (v5 flexible; v5 answers the resulting partition
// count, replication factor and configs; v7 the topic id). sarama sends v2,
// kafkajs 3, kafka-python and librdkafka up to 4, platformatic 7.
// Validation lives in the controller (names, counts, assignments, configs);
// this handler maps requests and results. timeoutMs is not needed: the
// controller answers once the records are committed.
// On a node that is not the active controller the request is forwarded to
// it unchanged (src/broker/controller-channel.ts); NOT_CONTROLLER while none is known.
import { AclOperation } from '../../protocol/acl-types.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../protocol/messages/19-create-topics.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { RequestContext } from '../request-context.js';
import type { Input } from '../../protocol/schema.js';

export const createTopicsHandler = defineHandler({
  apiKey: 19,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 7,
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
  async handle(ctx, req) {
    // CREATE on the cluster, or on each topic (TOPIC_AUTHORIZATION_FAILED); checked here, before forwarding, so only allowed topics reach the controller.
    if (!ctx.authz.enabled || ctx.authz.cluster(AclOperation.CREATE, false)) return create(ctx, req);
    const denied = new Set(req.topics.filter((t) => !ctx.authz.topic(AclOperation.CREATE, t.name)).map((t) => t.name));
    if (denied.size === 0) return create(ctx, req);
    const allowed = req.topics.filter((t) => !denied.has(t.name));
    const answered = allowed.length === 0 ? [] : (await create(ctx, { ...req, topics: allowed })).topics;
    const byName = new Map(answered.map((t) => [t.name, t]));
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => (denied.has(t.name) ? { name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' } : (byName.get(t.name) ?? { name: t.name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null }))),
    };
  },
  errorResponse,
});

async function create(ctx: RequestContext, req: CreateTopicsRequest): Promise<Input<typeof CreateTopicsResponse>> {
  const forwarded = await forwardToController(ctx, { request: CreateTopicsRequest, response: CreateTopicsResponse }, req, (code) => errorResponse(req, code, ctx));
  if (forwarded !== null) return forwarded;
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const t of req.topics) (seen.has(t.name) ? duplicates : seen).add(t.name);
  const unique = req.topics.filter((t) => !duplicates.has(t.name));
  const results = await ctx.services.metadata.createTopics(
    unique.map((t) => ({
      name: t.name,
      numPartitions: t.numPartitions,
      replicationFactor: t.replicationFactor,
      assignments: t.assignments,
      configs: t.configs,
    })),
    req.validateOnly,
  );
  const byName = new Map(results.map((r) => [r.name, r]));
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => {
      const r = byName.get(t.name);
      if (!r || duplicates.has(t.name)) {
        return { name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${t.name}' appears more than once in the request` };
      }
      return {
        name: r.name,
        topicId: r.topicId,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        numPartitions: r.errorCode === ErrorCode.NONE ? r.numPartitions : -1,
        replicationFactor: r.errorCode === ErrorCode.NONE ? r.replicationFactor : -1,
        configs: r.errorCode === ErrorCode.NONE ? r.configs.map((c) => ({ ...c })) : [],
      };
    }),
  };
}

function errorResponse(req: CreateTopicsRequest, errorCode: number, _ctx: RequestContext): Input<typeof CreateTopicsResponse> {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })),
  };
}
