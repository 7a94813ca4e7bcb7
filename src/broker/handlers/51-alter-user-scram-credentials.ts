// 51 AlterUserScramCredentials, v0 (KIP-554; flexible). Deletions and
// upsertions (salted passwords) go to the active controller, which checks
// them with Kafka's rules (src/controller/scram-plan.ts: 4096-16384
// iterations, known mechanism, no (user, mechanism) twice, deleting a
// missing credential RESOURCE_NOT_FOUND) and commits UserScramCredentialRecord
// / RemoveUserScramCredentialRecord; one result per user. Forwarded to the
// active controller when this node is not it (controller-channel.ts).
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '../../protocol/messages/51-alter-user-scram-credentials.js';
import { defineHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';
import type { Input } from '../../protocol/schema.js';

export const alterUserScramCredentialsHandler = defineHandler({
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  request: AlterUserScramCredentialsRequest,
  response: AlterUserScramCredentialsResponse,
  async handle(ctx, req) {
    const forwarded = await forwardToController(ctx, { request: AlterUserScramCredentialsRequest, response: AlterUserScramCredentialsResponse }, req, (code) => errorResponse(req, code));
    if (forwarded !== null) return forwarded;
    const results = await ctx.services.metadata.alterScramCredentials(req.deletions, req.upsertions);
    return { throttleTimeMs: 0, results };
  },
  errorResponse: (req, errorCode) => errorResponse(req, errorCode),
});

function errorResponse(req: AlterUserScramCredentialsRequest, errorCode: number): Input<typeof AlterUserScramCredentialsResponse> {
  const users = [...new Set([...req.deletions, ...req.upsertions].map((c) => c.name))];
  return { throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode, errorMessage: null })) };
}
