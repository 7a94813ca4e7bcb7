/**
 * SASL/SCRAM-SHA-256 and SCRAM-SHA-512, server side (RFC 5802, RFC 7677),
 * as Kafka's ScramSaslServer: no channel binding (gs2 flag `n`), an
 * authorization id must equal the user name, credentials from the metadata
 * image (UserScramCredentialRecord; src/controller/metadata/scram-credentials.ts).
 *
 *   client-first   n,[a=authzid],n=user,r=cnonce
 *   server-first   r=cnonce+snonce,s=salt,i=iterations
 *   client-final   c=biws,r=cnonce+snonce,p=proof
 *   server-final   v=serverSignature
 *
 * The proof check is H(proof XOR ClientSignature) == StoredKey, compared in
 * constant time. An unknown user fails at the first message with the same
 * client-visible message as a wrong password.
 */
import { secureRandomBytes } from '../../util/secure-random.js';
import {
  constantTimeEqual, digest, hmac, parseScramAttributes, unescapeSaslName, xor, type ScramHash,
} from '../../util/scram.js';
import { SaslAuthenticationError, type SaslServer, type SaslStep } from './mechanism.js';

export interface StoredScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

/** A user's credential for this mechanism, or undefined. */
export type ScramCredentialLookup = (user: string) => StoredScramCredential | undefined;

/** Bytes of randomness in the server's half of the nonce. */
const SERVER_NONCE_BYTES = 24;

function bad(detail: string): SaslAuthenticationError {
  return new SaslAuthenticationError(`Authentication failed: ${detail}`);
}

interface FirstExchange {
  readonly user: string;
  readonly gs2Header: string;
  readonly clientFirstBare: string;
  readonly serverFirst: string;
  readonly nonce: string;
  readonly credential: StoredScramCredential;
}

export class ScramServer implements SaslServer {
  private first: FirstExchange | null = null;
  private finished = false;

  constructor(
    private readonly hash: ScramHash,
    private readonly lookup: ScramCredentialLookup,
    /** The server's half of the nonce (tests replay RFC 7677's example with a fixed one). */
    private readonly serverNonce: () => string = () => secureRandomBytes(SERVER_NONCE_BYTES).toString('base64url'),
  ) {}

  evaluate(token: Buffer): SaslStep {
    if (this.finished) throw bad('the SCRAM exchange is already over');
    if (this.first === null) {
      this.first = this.clientFirst(token.toString('utf8'));
      return { complete: false, challenge: Buffer.from(this.first.serverFirst, 'utf8') };
    }
    this.finished = true;
    return this.clientFinal(this.first, token.toString('utf8'));
  }

  private clientFirst(text: string): FirstExchange {
    const m = /^n,(?:a=([^,]*))?,(.*)$/s.exec(text);
    if (m === null) throw bad('invalid SCRAM client-first message (channel binding is not supported)');
    const clientFirstBare = m[2] as string;
    const attrs = parseScramAttributes(clientFirstBare);
    const user = unescapeSaslName(attrs?.get('n') ?? '');
    const clientNonce = attrs?.get('r') ?? '';
    if (attrs === null || user === null || user === '' || clientNonce === '' || attrs.has('m')) throw bad('invalid SCRAM client-first message');
    // Kafka's delegation-token extension: tokens are not supported here.
    if (attrs.get('t') !== undefined || /(^|,)tokenauth=true(,|$)/.test(clientFirstBare)) throw bad('delegation tokens are not supported');
    const authzid = m[1] === undefined ? '' : unescapeSaslName(m[1]);
    if (authzid !== '' && authzid !== user) throw bad('authorization id must match the user name');
    const credential = this.lookup(user);
    if (credential === undefined) throw bad('Invalid user credentials');
    const nonce = clientNonce + this.serverNonce();
    const serverFirst = `r=${nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    return { user, gs2Header: text.slice(0, text.length - clientFirstBare.length), clientFirstBare, serverFirst, nonce, credential };
  }

  private clientFinal(first: FirstExchange, text: string): SaslStep {
    const proofAt = text.lastIndexOf(',p=');
    if (proofAt < 0) throw bad('invalid SCRAM client-final message');
    const withoutProof = text.slice(0, proofAt);
    const attrs = parseScramAttributes(withoutProof);
    if (attrs === null || attrs.get('c') !== Buffer.from(first.gs2Header, 'utf8').toString('base64')) throw bad('invalid channel binding in the SCRAM client-final message');
    // Kafka's rule (endsWith, not equality): librdkafka 2.0 sends the client nonce twice before the server's.
    if (!(attrs.get('r') ?? '').endsWith(first.nonce)) throw bad('Invalid client nonce in the final client message.');
    const proof = Buffer.from(text.slice(proofAt + 3), 'base64');
    const authMessage = `${first.clientFirstBare},${first.serverFirst},${withoutProof}`;
    const { storedKey, serverKey } = first.credential;
    const clientSignature = hmac(this.hash, storedKey, authMessage);
    // A proof of the wrong length cannot match; compare anyway against a value of the right length.
    const clientKey = proof.length === clientSignature.length ? xor(proof, clientSignature) : clientSignature;
    if (!constantTimeEqual(digest(this.hash, clientKey), storedKey) || proof.length !== clientSignature.length) throw bad('Invalid user credentials');
    const serverSignature = hmac(this.hash, serverKey, authMessage);
    return { complete: true, response: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8'), user: first.user };
  }
}
