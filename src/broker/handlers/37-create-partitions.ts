// 37 CreatePartitions, v0-3 (v2 flexible). Grows a topic to `count`
// partitions, optionally with explicit replica assignments for the new ones.
// Partitions can only be added (INVALID_PARTITIONS otherwise), as in Kafka.
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/messages/37-create-partitions.js';
import { defineHandler } from '../handler.js';

export const createPartitionsHandler = defineHandler({
  apiKey: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  request: CreatePartitionsRequest,
  response: CreatePartitionsResponse,
  async handle(ctx, req) {
    const results = await ctx.services.metadata.createPartitions(
      req.topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ? t.assignments.map((a) => a.brokerIds) : null })),
      req.validateOnly,
    );
    return { throttleTimeMs: 0, results: results.map((r) => ({ ...r })) };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    results: req.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })),
  }),
});
