// 17 SaslHandshake. v0: after the handshake the client sends raw
// length-prefixed SASL tokens (pre-KIP-152; kafka-python does this).
// v1: tokens travel in SaslAuthenticate requests instead (KIP-152).
// No version is flexible.
import { array, field, request, response, type Infer } from '../schema.js';

export const SaslHandshakeRequest = request(17, { versions: '0-1', flexible: 'none', name: 'SaslHandshakeRequest' }, [
  field('mechanism', 'string'),
]);
export type SaslHandshakeRequest = Infer<typeof SaslHandshakeRequest>;

export const SaslHandshakeResponse = response(17, { versions: '0-1', flexible: 'none', name: 'SaslHandshakeResponse' }, [
  field('errorCode', 'int16'),
  field('mechanisms', array('string')),
]);
export type SaslHandshakeResponse = Infer<typeof SaslHandshakeResponse>;
