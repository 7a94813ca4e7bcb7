// 36 SaslAuthenticate, v0-2 (KIP-152). One SASL token per request after a v1
// SaslHandshake; the mechanism's answer in authBytes. A failed exchange
// answers SASL_AUTHENTICATION_FAILED with Kafka's message, then the
// connection closes (connection.ts). v1+: sessionLifetimeMs is
// connections.max.reauth.ms (KIP-368; 0 = none). v2: flexible. Out of
// order (no handshake, or already authenticated without a new handshake):
// ILLEGAL_SASL_STATE; on a listener without SASL: ILLEGAL_SASL_STATE.
import { ErrorCode } from '../../protocol/errors.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../protocol/messages/36-sasl-authenticate.js';
import { defineHandler } from '../handler.js';

export const saslAuthenticateHandler = defineHandler({
  apiKey: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 2,
  request: SaslAuthenticateRequest,
  response: SaslAuthenticateResponse,
  handle(ctx, req) {
    if (ctx.sasl === undefined) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'This listener does not use SASL.', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
    }
    const answer = ctx.sasl.authenticate(req.authBytes, ctx.apiVersion);
    if (answer.errorCode === ErrorCode.SASL_AUTHENTICATION_FAILED) ctx.logger.info({ reason: answer.errorMessage }, 'SASL authentication failed');
    else if (answer.errorCode === ErrorCode.NONE && ctx.sasl.principal !== null) ctx.logger.debug({ principal: ctx.sasl.principal }, 'SASL step done');
    return answer;
  },
  errorResponse: (_req, errorCode) => ({ errorCode, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n }),
});
