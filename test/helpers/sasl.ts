/**
 * SASL test fixtures: a broker with a PLAINTEXT listener (first, for setup
 * and for the in-process helper) and a SASL_PLAINTEXT listener whose PLAIN
 * users come from a JAAS line, plus raw SASL frames for tests that speak
 * the protocol by hand.
 */
import { startInProcessBroker, type InProcessBroker } from './in-process-broker.js';
import { requestFrame } from './raw-kafka.js';
import { encode } from '../../src/protocol/codec.js';
import { SaslHandshakeRequest } from '../../src/protocol/messages/17-sasl-handshake.js';
import { SaslAuthenticateRequest } from '../../src/protocol/messages/36-sasl-authenticate.js';

export const PLAIN_USERS = { admin: 'admin-secret', alice: 'alice-secret' } as const;

export const PLAIN_JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" ${Object.entries(PLAIN_USERS)
  .map(([u, p]) => `user_${u}="${p}"`)
  .join(' ')};`;

export interface SaslBroker extends InProcessBroker {
  /** Port of the SASL_PLAINTEXT listener. */
  readonly saslPort: number;
}

export async function startSaslBroker(overrides: Record<string, string> = {}): Promise<SaslBroker> {
  const b = await startInProcessBroker({
    listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
    ...overrides,
  });
  const sasl = b.broker.boundAddresses.find((a) => a.name === 'SASL_PLAINTEXT');
  if (sasl === undefined) throw new Error('no SASL_PLAINTEXT listener bound');
  return { ...b, saslPort: sasl.port };
}

export function saslHandshakeFrame(version: number, correlationId: number, mechanism: string): Buffer {
  return requestFrame(17, version, correlationId, encode(SaslHandshakeRequest, version, { mechanism }));
}

export function saslAuthenticateFrame(version: number, correlationId: number, authBytes: Buffer): Buffer {
  return requestFrame(36, version, correlationId, encode(SaslAuthenticateRequest, version, { authBytes }), { flexible: version >= 2 });
}

export function plainToken(user: string, password: string): Buffer {
  return Buffer.from(`\u0000${user}\u0000${password}`, 'utf8');
}
