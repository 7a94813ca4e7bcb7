// 33 AlterConfigs, v0-2 (v1: no wire change; v2: flexible). kafkajs sends
// v0-1, librdkafka v0, kafka-python v1, platformatic v2.
// Replaces the whole set of dynamic configs of each resource: keys given are
// set, explicit keys not given go back to their inherited value (null values
// count as not given, as KRaft does). Topics (2) and broker resources (4:
// '' = cluster-wide default, or a node id). The controller validates the
// result (INVALID_CONFIG naming the key: unknown, read-only or bad values),
// honours validateOnly and writes ConfigRecords; the change is applied on
// this broker before the response (logs, produce rules, dynamic defaults).
// On a node that is not the active controller the request is forwarded to
// it unchanged (src/broker/controller-channel.ts); NOT_CONTROLLER while none is known.
import { alterAllowedConfigs } from '../request-authorization.js';
import { AlterConfigsRequest, AlterConfigsResponse } from '../../protocol/messages/33-alter-configs.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { RequestContext } from '../request-context.js';
import type { Input } from '../../protocol/schema.js';

export const alterConfigsHandler = defineHandler({
  apiKey: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  request: AlterConfigsRequest,
  response: AlterConfigsResponse,
  async handle(ctx, req) {
    if (!ctx.authz.enabled) return alter(ctx, req);
    const responses = await alterAllowedConfigs(ctx.authz, req.resources, async (resources) => (await alter(ctx, { ...req, resources: [...resources] })).responses);
    return { throttleTimeMs: 0, responses };
  },
  errorResponse,
});

async function alter(ctx: RequestContext, req: AlterConfigsRequest): Promise<Input<typeof AlterConfigsResponse>> {
  const forwarded = await forwardToController(ctx, { request: AlterConfigsRequest, response: AlterConfigsResponse }, req, (code) => errorResponse(req, code, ctx));
  if (forwarded !== null) return forwarded;
  const results = await ctx.services.configs.alter(req.resources, req.validateOnly);
  return {
    throttleTimeMs: 0,
    responses: results.map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })),
  };
}

function errorResponse(req: AlterConfigsRequest, errorCode: number, _ctx: RequestContext): Input<typeof AlterConfigsResponse> {
  return {
    throttleTimeMs: 0,
    responses: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  };
}
