/**
 * The client side of SASL on a new connection (KIP-152): SaslHandshake v1
 * names the mechanism, then SaslAuthenticate carries the tokens. PLAIN is one
 * message (RFC 4616); SCRAM-SHA-256/512 is the RFC 5802 exchange, and the
 * server's final signature is checked, so a broker that does not know the
 * password cannot pretend it does.
 *
 * Failures are KafkaProtocolErrors with the broker's code and message
 * (UNSUPPORTED_SASL_MECHANISM, SASL_AUTHENTICATION_FAILED, ...); a bad server
 * signature is SASL_AUTHENTICATION_FAILED too. Re-authentication (KIP-368)
 * is not done: a broker with connections.max.reauth.ms closes the connection
 * at the end of the session, and the client reconnects.
 */
import { secureRandomBytes } from '../util/secure-random.js';
import { ErrorCode } from '../protocol/errors.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../protocol/messages/36-sasl-authenticate.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../protocol/messages/17-sasl-handshake.js';
import {
  clientKey, constantTimeEqual, digest, escapeSaslName, hmac, parseScramAttributes, saltedPassword, serverKey, xor, type ScramHash,
} from '../util/scram.js';
import { KafkaProtocolError, invalidArgument } from './errors.js';
import type { Connection } from './connection.js';

/** The SASL mechanisms the client speaks. */
export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** `sasl` option of connections, producers, consumers and admins. */
export interface SaslOptions {
  readonly mechanism: SaslMechanismName;
  readonly username: string;
  readonly password: string;
}

/** What the exchange needs of a connection. */
export type SaslTransport = Pick<Connection, 'send' | 'pickVersion'>;

const SCRAM_ITERATIONS_MAX = 16384;
const CLIENT_NONCE_BYTES = 24;

/** Runs the whole exchange; resolves once the broker accepted the credentials. */
export async function saslAuthenticate(conn: SaslTransport, sasl: SaslOptions): Promise<void> {
  if (!['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'].includes(sasl.mechanism)) throw invalidArgument(`sasl.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, got ${String(sasl.mechanism)}`);
  const handshake = await conn.send({ request: SaslHandshakeRequest, response: SaslHandshakeResponse }, 1, { mechanism: sasl.mechanism });
  if (handshake.errorCode !== ErrorCode.NONE) {
    throw new KafkaProtocolError(handshake.errorCode, { api: 'SaslHandshake', serverMessage: `the broker offers ${handshake.mechanisms.join(', ') || 'no mechanism'}` });
  }
  const version = conn.pickVersion(36, 0, 2);
  const step = async (token: Buffer): Promise<Buffer> => {
    const r = await conn.send({ request: SaslAuthenticateRequest, response: SaslAuthenticateResponse }, version, { authBytes: token });
    if (r.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(r.errorCode, { api: 'SaslAuthenticate', serverMessage: r.errorMessage });
    return r.authBytes;
  };
  if (sasl.mechanism === 'PLAIN') {
    await step(Buffer.from(`\u0000${sasl.username}\u0000${sasl.password}`, 'utf8'));
    return;
  }
  await scramExchange(sasl.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', sasl, step);
}

function scramFailure(detail: string): KafkaProtocolError {
  return new KafkaProtocolError(ErrorCode.SASL_AUTHENTICATION_FAILED, { api: 'SaslAuthenticate', serverMessage: detail });
}

async function scramExchange(hash: ScramHash, sasl: SaslOptions, step: (token: Buffer) => Promise<Buffer>): Promise<void> {
  const clientNonce = secureRandomBytes(CLIENT_NONCE_BYTES).toString('base64url');
  const clientFirstBare = `n=${escapeSaslName(sasl.username)},r=${clientNonce}`;
  const serverFirst = (await step(Buffer.from(`n,,${clientFirstBare}`, 'utf8'))).toString('utf8');
  const attrs = parseScramAttributes(serverFirst);
  const nonce = attrs?.get('r') ?? '';
  const salt = Buffer.from(attrs?.get('s') ?? '', 'base64');
  const iterations = Number(attrs?.get('i'));
  if (!nonce.startsWith(clientNonce) || nonce === clientNonce || salt.length === 0 || !Number.isInteger(iterations) || iterations < 1) {
    throw scramFailure('invalid SCRAM server-first message');
  }
  // A hostile server could ask for billions of iterations to burn our CPU.
  if (iterations > SCRAM_ITERATIONS_MAX) throw scramFailure(`the server asks for ${iterations} SCRAM iterations (at most ${SCRAM_ITERATIONS_MAX})`);
  const salted = saltedPassword(hash, sasl.password, salt, iterations);
  const withoutProof = `c=biws,r=${nonce}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const key = clientKey(hash, salted);
  const proof = xor(key, hmac(hash, digest(hash, key), authMessage));
  const serverFinal = (await step(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8'))).toString('utf8');
  const expected = hmac(hash, serverKey(hash, salted), authMessage);
  const got = Buffer.from(parseScramAttributes(serverFinal)?.get('v') ?? '', 'base64');
  if (!constantTimeEqual(got, expected)) throw scramFailure('the server signature does not match: the broker does not know this password');
}
