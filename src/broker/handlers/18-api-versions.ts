// 18 ApiVersions, v0-3. Answers from the handler registry, so the advertised
// ranges are exactly the implemented ones. v3 requests carry the client's
// software name/version (KIP-511); we log them but never reject over them
// (an INVALID_REQUEST here makes librdkafka fall back to v0). A version above
// 3 is answered in connection.ts with a v0 body and UNSUPPORTED_VERSION.
import { ApiVersionsRequest, ApiVersionsResponse } from '../../protocol/messages/18-api-versions.js';
import { defineHandler } from '../handler.js';

export const apiVersionsHandler = defineHandler({
  apiKey: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 3,
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
  handle(ctx, req) {
    if (ctx.apiVersion >= 3) ctx.logger.debug({ software: req.clientSoftwareName, version: req.clientSoftwareVersion }, 'client software');
    return { errorCode: 0, apiKeys: ctx.services.apiVersions(), throttleTimeMs: 0 };
  },
  errorResponse: (_req, errorCode) => ({ errorCode, apiKeys: [] }),
});
