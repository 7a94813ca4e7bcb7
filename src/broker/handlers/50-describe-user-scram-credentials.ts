// 50 DescribeUserScramCredentials, v0 (KIP-554; flexible). Lists each user's
// SCRAM mechanisms and iteration counts from the metadata image; never a
// salt or key. users null or empty = every user with a credential. A user
// named twice: DUPLICATE_RESOURCE for that user; a user without
// credentials: RESOURCE_NOT_FOUND (Kafka's messages). Read locally: every
// node applies the same metadata log.
import { ErrorCode } from '../../protocol/errors.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../../protocol/messages/50-describe-user-scram-credentials.js';
import { defineHandler } from '../handler.js';

export const describeUserScramCredentialsHandler = defineHandler({
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  request: DescribeUserScramCredentialsRequest,
  response: DescribeUserScramCredentialsResponse,
  handle(ctx, req) {
    const metadata = ctx.services.metadata;
    const asked = req.users === null || req.users.length === 0 ? metadata.scramUsers() : req.users.map((u) => u.name);
    const counts = new Map<string, number>();
    for (const u of asked) counts.set(u, (counts.get(u) ?? 0) + 1);
    const results = [...new Set(asked)].map((user) => {
      const infos = metadata.scramCredentialsOf(user).map((c) => ({ mechanism: c.mechanism, iterations: c.iterations }));
      if ((counts.get(user) ?? 0) > 1) return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] };
      if (infos.length === 0) return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos: infos };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, results: [] }),
});
