// 44 IncrementalAlterConfigs (KIP-339), v0-1 (v1: flexible). platformatic
// sends v1; librdkafka has it from 2.2.
// Per key: SET (0), DELETE (1), APPEND (2) and SUBTRACT (3); the last two
// only for list configs (cleanup.policy...), starting from the inherited
// value when the resource does not set the key. Topics (2) and broker
// resources (4: '' = cluster-wide default, or a node id). A key named twice
// in one resource is INVALID_REQUEST; bad, unknown or read-only keys are
// INVALID_CONFIG naming the key. validateOnly is honoured. Changes are
// ConfigRecords written by the controller and applied here before the
// response.
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/messages/44-incremental-alter-configs.js';
import { defineHandler } from '../handler.js';

export const incrementalAlterConfigsHandler = defineHandler({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  async handle(ctx, req) {
    const results = await ctx.services.configs.incrementalAlter(req.resources, req.validateOnly);
    return {
      throttleTimeMs: 0,
      responses: results.map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    responses: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  }),
});
