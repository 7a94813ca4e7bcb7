// 36 SaslAuthenticate (KIP-152: SASL tokens framed as Kafka requests). v1:
// response sessionLifetimeMs (KIP-368; 0 = no re-authentication needed). v2:
// flexible (platformatic hard-codes v2, with no ApiVersions first).
import { field, request, response, type Infer } from '../schema.js';

export const SaslAuthenticateRequest = request(36, { versions: '0-2', flexible: '2+', name: 'SaslAuthenticateRequest' }, [
  field('authBytes', 'bytes'),
]);
export type SaslAuthenticateRequest = Infer<typeof SaslAuthenticateRequest>;

export const SaslAuthenticateResponse = response(36, { versions: '0-2', flexible: '2+', name: 'SaslAuthenticateResponse' }, [
  field('errorCode', 'int16'),
  field('errorMessage', 'nullableString'),
  field('authBytes', 'bytes'),
  field('sessionLifetimeMs', 'int64', { versions: '1+', default: 0n }),
]);
export type SaslAuthenticateResponse = Infer<typeof SaslAuthenticateResponse>;
