import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScramServer, type StoredScramCredential } from '../../../../src/security/sasl/scram.js';
import { SaslAuthenticationError } from '../../../../src/security/sasl/mechanism.js';
import { saltedPassword, serverKey, storedKey, type ScramHash } from '../../../../src/util/scram.js';

// RFC 7677 section 3: user "user", password "pencil".
const RFC = {
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

function credential(hash: ScramHash, password: string, salt: Buffer, iterations: number): StoredScramCredential {
  const salted = saltedPassword(hash, password, salt, iterations);
  return { salt, iterations, storedKey: storedKey(hash, salted), serverKey: serverKey(hash, salted) };
}

const rfcCredential = credential('sha256', 'pencil', Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'), 4096);

test('SCRAM-SHA-256 server replays the RFC 7677 example byte for byte', () => {
  const server = new ScramServer('sha256', (u) => (u === 'user' ? rfcCredential : undefined), () => RFC.serverNonce);
  const first = server.evaluate(Buffer.from(RFC.clientFirst));
  assert.equal(first.complete, false);
  assert.equal(!first.complete && first.challenge.toString(), RFC.serverFirst);
  const last = server.evaluate(Buffer.from(RFC.clientFinal));
  assert.ok(last.complete);
  assert.equal(last.response.toString(), RFC.serverFinal);
  assert.equal(last.user, 'user');
});

test('a wrong proof, a wrong nonce, bad channel binding and an unknown user all fail', () => {
  const make = (): ScramServer => new ScramServer('sha256', (u) => (u === 'user' ? rfcCredential : undefined), () => RFC.serverNonce);
  const badProof = RFC.clientFinal.replace(/p=.*/, `p=${Buffer.alloc(32, 1).toString('base64')}`);
  const badNonce = RFC.clientFinal.replace('hNlF$k0', 'hNlF$k1');
  const badBinding = RFC.clientFinal.replace('c=biws', 'c=eSws');
  const shortProof = RFC.clientFinal.replace(/p=.*/, 'p=AAAA');
  for (const final of [badProof, badNonce, badBinding, shortProof]) {
    const s = make();
    s.evaluate(Buffer.from(RFC.clientFirst));
    assert.throws(() => s.evaluate(Buffer.from(final)), SaslAuthenticationError, final);
  }
  assert.throws(() => make().evaluate(Buffer.from('n,,n=nobody,r=abc')), /Invalid user credentials/);
  assert.throws(() => make().evaluate(Buffer.from('p=tls-unique,,n=user,r=abc')), /channel binding/);
  assert.throws(() => make().evaluate(Buffer.from('n,a=other,n=user,r=abc')), /authorization id/);
  assert.throws(() => make().evaluate(Buffer.from('garbage')), SaslAuthenticationError);
});

test('SCRAM-SHA-512 verifies a proof computed by the client side (src/net/sasl-client.ts)', async () => {
  const { saslAuthenticate } = await import('../../../../src/net/sasl-client.js');
  const cred = credential('sha512', 'secret', Buffer.from('salt-salt-salt'), 8192);
  for (const [password, ok] of [['secret', true], ['Secret', false]] as const) {
    const server = new ScramServer('sha512', (u) => (u === 'bob' ? cred : undefined));
    let failed = false;
    const conn = {
      pickVersion: () => 2,
      send: async (api: { request: { apiKey: number } }, _v: number, body: { authBytes?: Buffer }) => {
        if (api.request.apiKey === 17) return { errorCode: 0, mechanisms: ['SCRAM-SHA-512'] };
        try {
          const step = server.evaluate(body.authBytes as Buffer);
          return { errorCode: 0, errorMessage: null, authBytes: step.complete ? step.response : step.challenge };
        } catch (err) {
          failed = true;
          return { errorCode: 58, errorMessage: (err as Error).message, authBytes: Buffer.alloc(0) };
        }
      },
    };
    // The fake stands in for a Connection: only send and pickVersion are used.
    const run = saslAuthenticate(conn as never, { mechanism: 'SCRAM-SHA-512', username: 'bob', password });
    if (ok) await run;
    else await assert.rejects(run, (err: Error & { kafkaErrorName?: string }) => err.kafkaErrorName === 'SASL_AUTHENTICATION_FAILED');
    assert.equal(failed, !ok);
  }
});
