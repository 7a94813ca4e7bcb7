// 17 SaslHandshake, v0-1. Picks the mechanism of a SASL connection
// (src/security/sasl/session.ts). v0: the client then sends bare SASL tokens
// (connection.ts answers them); v1: tokens come in SaslAuthenticate (36).
// An unsupported mechanism answers UNSUPPORTED_SASL_MECHANISM with the
// enabled list, then the connection closes (as Kafka). On an authenticated
// connection it starts a re-authentication (KIP-368). On a listener without
// SASL (PLAINTEXT, SSL): ILLEGAL_SASL_STATE, as Kafka's KafkaApis answers.
import { ErrorCode } from '../../protocol/errors.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../protocol/messages/17-sasl-handshake.js';
import { defineHandler } from '../handler.js';

export const saslHandshakeHandler = defineHandler({
  apiKey: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  request: SaslHandshakeRequest,
  response: SaslHandshakeResponse,
  handle(ctx, req) {
    if (ctx.sasl === undefined) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    const answer = ctx.sasl.handshake(req.mechanism, ctx.apiVersion);
    if (answer.errorCode !== ErrorCode.NONE) ctx.logger.info({ mechanism: req.mechanism, errorCode: answer.errorCode }, 'SASL handshake refused');
    return answer;
  },
  errorResponse: (_req, errorCode) => ({ errorCode, mechanisms: [] }),
});
