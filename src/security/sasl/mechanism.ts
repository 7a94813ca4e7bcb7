/**
 * What a server-side SASL mechanism is: a state machine fed the client's
 * tokens one at a time. Each step returns the next challenge, or completes
 * with the final server message and the authenticated user name. A failed
 * step throws SaslAuthenticationError; its message goes to the client in
 * SaslAuthenticate's errorMessage (KIP-152), so it never says more than
 * Kafka's (no "unknown user" versus "wrong password").
 */

export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export function isSaslMechanism(name: string): name is SaslMechanism {
  return (SASL_MECHANISMS as readonly string[]).includes(name);
}

export type SaslStep =
  | { readonly complete: false; readonly challenge: Buffer }
  | { readonly complete: true; readonly response: Buffer; readonly user: string };

export interface SaslServer {
  evaluate(token: Buffer): SaslStep;
}

export class SaslAuthenticationError extends Error {
  readonly code = 'ERR_TRIB_SASL_AUTHENTICATION_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'SaslAuthenticationError';
  }
}
