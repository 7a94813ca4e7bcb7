import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SaslSession, type SaslListenerConfig } from '../../../../src/security/sasl/session.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';

function session(over: Partial<SaslListenerConfig> = {}, clock = { now: 0 }): SaslSession {
  return new SaslSession(
    { mechanisms: ['PLAIN', 'SCRAM-SHA-256'], plainUsers: new Map([['alice', 'alice-secret'], ['bob', 'bob-secret']]), scramCredential: () => undefined, reauthMs: 0, ...over },
    () => clock.now,
  );
}
const plain = (user: string, password: string, authzid = ''): Buffer => Buffer.from(`${authzid}\u0000${user}\u0000${password}`);

test('before authentication only ApiVersions and SaslHandshake are permitted (SaslAuthenticate after a handshake)', () => {
  const s = session();
  assert.deepEqual([18, 17, 36, 0, 1, 3, 19, 60].map((k) => s.permits(k)), [true, true, false, false, false, false, false, false]);
  assert.equal(s.handshake('PLAIN', 1).errorCode, ErrorCode.NONE);
  assert.equal(s.permits(36), true);
  assert.equal(s.permits(3), false);
  const ok = s.authenticate(plain('alice', 'alice-secret'), 2);
  assert.equal(ok.errorCode, ErrorCode.NONE);
  assert.equal(s.principal, 'User:alice');
  assert.equal(s.permits(0), true);
  assert.equal(s.authenticate(plain('alice', 'alice-secret'), 2).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
});

test('a wrong password fails with SASL_AUTHENTICATION_FAILED and Kafka\'s message; nothing is permitted after', () => {
  const s = session();
  s.handshake('PLAIN', 1);
  const r = s.authenticate(plain('alice', 'nope'), 1);
  assert.equal(r.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.equal(r.errorMessage, 'Authentication failed: Invalid username or password');
  assert.equal(s.failed, true);
  assert.deepEqual([18, 17, 36, 0].map((k) => s.permits(k)), [false, false, false, false]);
  const unknown = session();
  unknown.handshake('PLAIN', 1);
  assert.equal(unknown.authenticate(plain('mallory', 'x'), 1).errorMessage, 'Authentication failed: Invalid username or password');
  const authz = session();
  authz.handshake('PLAIN', 1);
  assert.equal(authz.authenticate(plain('alice', 'alice-secret', 'bob'), 1).errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
});

test('an unknown or disabled mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled list, then failed', () => {
  const s = session({ mechanisms: ['SCRAM-SHA-512'] });
  const r = s.handshake('PLAIN', 1);
  assert.deepEqual(r, { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['SCRAM-SHA-512'] });
  assert.equal(s.failed, true);
});

test('v0 handshake: bare tokens; a failed bare token returns null (the connection closes)', () => {
  const s = session();
  s.handshake('PLAIN', 0);
  assert.equal(s.rawTokenExpected, true);
  assert.equal(s.authenticate(plain('alice', 'alice-secret'), 0).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.deepEqual(s.rawToken(plain('alice', 'alice-secret')), Buffer.alloc(0));
  assert.equal(s.principal, 'User:alice');
  assert.equal(s.rawTokenExpected, false);
  const bad = session();
  bad.handshake('PLAIN', 0);
  assert.equal(bad.rawToken(plain('alice', 'x')), null);
  assert.equal(bad.failed, true);
});

test('KIP-368: sessionLifetimeMs in v1+, expiry closes, re-authentication renews and keeps the principal', () => {
  const clock = { now: 1000 };
  const s = session({ reauthMs: 500 }, clock);
  s.handshake('PLAIN', 1);
  assert.equal(s.authenticate(plain('alice', 'alice-secret'), 0).sessionLifetimeMs, 0n, 'v0 has no lifetime field');
  clock.now = 1499;
  assert.equal(s.permits(0), true);
  // Re-authentication while the session is still valid: other requests keep flowing meanwhile.
  assert.equal(s.handshake('PLAIN', 1).errorCode, ErrorCode.NONE);
  assert.equal(s.permits(0), true);
  const again = s.authenticate(plain('alice', 'alice-secret'), 1);
  assert.equal(again.sessionLifetimeMs, 500n);
  clock.now = 1998;
  assert.equal(s.permits(0), true);
  clock.now = 1999;
  assert.equal(s.permits(0), false, 'expired: only a re-authentication is allowed');
  assert.equal(s.permits(17), true);
  s.handshake('PLAIN', 1);
  const other = s.authenticate(plain('bob', 'bob-secret'), 1);
  assert.equal(other.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.match(other.errorMessage ?? '', /Cannot change principals/);
  assert.equal(s.handshake('SCRAM-SHA-256', 1).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
});

test('re-authentication must keep the mechanism', () => {
  const s = session();
  s.handshake('PLAIN', 1);
  s.authenticate(plain('alice', 'alice-secret'), 1);
  assert.equal(s.handshake('SCRAM-SHA-256', 1).errorCode, ErrorCode.UNSUPPORTED_SASL_MECHANISM);
  assert.equal(s.failed, false, 'the authenticated session goes on');
});
