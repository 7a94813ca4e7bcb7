// 48 DescribeClientQuotas, v0-1 (KIP-546; v1 flexible; @platformatic/kafka
// sends v1 but looks for a range starting at v0). Lists the quota entities
// the filter selects (src/security/quota/describe-filter.ts) with their
// values, from the metadata image; a bad filter is INVALID_REQUEST with
// Kafka's message and entries null. Read locally: every node applies the
// same metadata log.
import { ErrorCode } from '../../protocol/errors.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../../protocol/messages/48-describe-client-quotas.js';
import { filterClientQuotas, quotaFilterProblem } from '../../security/quota/describe-filter.js';
import { defineHandler } from '../handler.js';

export const describeClientQuotasHandler = defineHandler({
  apiKey: 48,
  name: 'DescribeClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  request: DescribeClientQuotasRequest,
  response: DescribeClientQuotasResponse,
  handle(ctx, req) {
    const problem = quotaFilterProblem(req.components);
    if (problem !== null) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, entries: null };
    const entries = filterClientQuotas(ctx.services.metadata.clientQuotas(), req.components, req.strict).map((e) => ({
      entity: e.entity.map((p) => ({ entityType: p.entityType, entityName: p.entityName })),
      values: [...e.values].map(([key, value]) => ({ key, value })),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, entries: null }),
});
