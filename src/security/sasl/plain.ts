/**
 * SASL/PLAIN, server side (RFC 4616): one client message
 * `[authzid] NUL authcid NUL passwd`, checked against the `user_<name>`
 * entries of the listener's JAAS config. As Kafka's PlainSaslServer, an
 * authorization id different from the user name is refused.
 *
 * The comparison hashes both passwords first and compares the digests in
 * constant time, so neither the position of the first difference nor the
 * password's length shows in the timing. An unknown user is compared
 * against a dummy digest for the same reason.
 */
import { nodeCrypto } from '../../util/lazy-builtins.js';
import { constantTimeEqual } from '../../util/scram.js';
import { SaslAuthenticationError, type SaslServer, type SaslStep } from './mechanism.js';

const INVALID = 'Authentication failed: Invalid username or password';

function sha256(text: string): Buffer {
  return nodeCrypto().createHash('sha256').update(text, 'utf8').digest();
}

// Made on first use: hashing at module load would load node:crypto in every broker (util/lazy-builtins.ts).
let dummyDigest: Buffer | null = null;

export class PlainServer implements SaslServer {
  private done = false;

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): SaslStep {
    if (this.done) throw new SaslAuthenticationError('Authentication failed: PLAIN takes one message');
    this.done = true;
    const parts = token.toString('utf8').split('\u0000');
    if (parts.length !== 3) throw new SaslAuthenticationError('Invalid SASL/PLAIN response: expected 3 tokens');
    const [authzid = '', username = '', password = ''] = parts;
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.users.get(username);
    const matches = constantTimeEqual(sha256(password), expected === undefined ? (dummyDigest ??= sha256('\u0000no such user\u0000')) : sha256(expected));
    if (expected === undefined || !matches) throw new SaslAuthenticationError(INVALID);
    if (authzid !== '' && authzid !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    return { complete: true, response: Buffer.alloc(0), user: username };
  }
}
