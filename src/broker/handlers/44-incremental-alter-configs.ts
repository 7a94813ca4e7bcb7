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
// On a node that is not the active controller the request is forwarded to
// it unchanged (src/broker/controller-channel.ts); NOT_CONTROLLER while none is known.
import { alterAllowedConfigs } from '../request-authorization.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/messages/44-incremental-alter-configs.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { RequestContext } from '../request-context.js';
import type { Input } from '../../protocol/schema.js';

export const incrementalAlterConfigsHandler = defineHandler({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  async handle(ctx, req) {
    if (!ctx.authz.enabled) return alter(ctx, req);
    const responses = await alterAllowedConfigs(ctx.authz, req.resources, async (resources) => (await alter(ctx, { ...req, resources: [...resources] })).responses);
    return { throttleTimeMs: 0, responses };
  },
  errorResponse,
});

async function alter(ctx: RequestContext, req: IncrementalAlterConfigsRequest): Promise<Input<typeof IncrementalAlterConfigsResponse>> {
  const forwarded = await forwardToController(ctx, { request: IncrementalAlterConfigsRequest, response: IncrementalAlterConfigsResponse }, req, (code) => errorResponse(req, code, ctx));
  if (forwarded !== null) return forwarded;
  const results = await ctx.services.configs.incrementalAlter(req.resources, req.validateOnly);
  return {
    throttleTimeMs: 0,
    responses: results.map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })),
  };
}

function errorResponse(req: IncrementalAlterConfigsRequest, errorCode: number, _ctx: RequestContext): Input<typeof IncrementalAlterConfigsResponse> {
  return {
    throttleTimeMs: 0,
    responses: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  };
}
