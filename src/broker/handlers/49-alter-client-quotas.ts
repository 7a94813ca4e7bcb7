// 49 AlterClientQuotas, v0-1 (KIP-546; v1 flexible). Each entry sets or
// removes quota keys of one entity; the active controller checks them with
// Kafka's rules (src/controller/quota-plan.ts) and commits
// ClientQuotaRecords; one result per entry. validateOnly checks without
// writing. Forwarded to the active controller when this node is not it
// (controller-channel.ts).
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../protocol/messages/49-alter-client-quotas.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { Input } from '../../protocol/schema.js';

export const alterClientQuotasHandler = defineHandler({
  apiKey: 49,
  name: 'AlterClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  request: AlterClientQuotasRequest,
  response: AlterClientQuotasResponse,
  async handle(ctx, req) {
    const forwarded = await forwardToController(ctx, { request: AlterClientQuotasRequest, response: AlterClientQuotasResponse }, req, (code) => errorResponse(req, code));
    if (forwarded !== null) return forwarded;
    const entries = await ctx.services.metadata.alterClientQuotas(req.entries, req.validateOnly);
    return { throttleTimeMs: 0, entries };
  },
  errorResponse: (req, errorCode) => errorResponse(req, errorCode),
});

function errorResponse(req: AlterClientQuotasRequest, errorCode: number): Input<typeof AlterClientQuotasResponse> {
  return { throttleTimeMs: 0, entries: req.entries.map((e) => ({ errorCode, errorMessage: null, entity: e.entity })) };
}
