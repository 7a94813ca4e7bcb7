// Certificates made with openssl in a temp dir: the RFC 2253 subject as
// Java's X500Principal writes it (order, escaping, OIDs without a keyword,
// multi-valued RDNs), and Kafka's PEM stores: key store file with an
// encrypted key, inline PEM without line breaks, and every config error
// (missing file, wrong or missing password, JKS, no key, both forms).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { certificateSubject } from '../../../../src/security/tls/distinguished-name.js';
import { readPemStores, TlsConfigError } from '../../../../src/security/tls/pem-stores.js';
import { createTestPki, KEY_PASSWORD, type TestPki } from '../../../helpers/tls.js';

function subjectOf(pem: string): string {
  return certificateSubject(new X509Certificate(pem).raw);
}

function lookup(values: Record<string, string>): (key: string) => string | undefined {
  return (key) => values[key];
}

function refusal(values: Record<string, string>, key: string, text: RegExp): void {
  assert.throws(() => readPemStores(lookup(values)), (err: unknown) => {
    assert.ok(err instanceof TlsConfigError, String(err));
    assert.equal(err.key, key);
    assert.match(err.message, text);
    assert.ok(!err.message.includes(KEY_PASSWORD), 'the password is never echoed');
    return true;
  });
}

describe('TLS certificates and PEM stores', () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki.cleanup());

  it('writes the subject most specific first, as Kafka\'s principals show it', () => {
    assert.equal(subjectOf(pki.alice.cert), 'CN=alice,OU=eng,O=Tributary');
    assert.equal(subjectOf(pki.server.cert), 'CN=localhost,O=Tributary');
  });

  it('escapes RFC 2253 specials, joins multi-valued RDNs with + and writes unnamed attributes as OID=#hex', () => {
    const key = join(pki.dir, 'alice.key');
    const pem = execFileSync('openssl', ['req', '-new', '-x509', '-key', key, '-days', '1', '-multivalue-rdn', '-subj', '/C=US/O=Acme\\, Inc./CN=Smith+UID=js42/emailAddress=j@x.io'], { encoding: 'utf8' });
    const email = Buffer.concat([Buffer.from([0x16, 6]), Buffer.from('j@x.io')]).toString('hex');
    assert.equal(subjectOf(pem), `1.2.840.113549.1.9.1=#${email},CN=Smith+UID=js42,O=Acme\\, Inc.,C=US`);
  });

  it('reads a key store file with an encrypted key and a trust store', () => {
    const stores = readPemStores(lookup({ 'ssl.keystore.location': pki.server.keystoreFile, 'ssl.key.password': KEY_PASSWORD, 'ssl.truststore.location': pki.caFile, 'ssl.keystore.type': 'PEM' }));
    assert.match(stores.key ?? '', /BEGIN ENCRYPTED PRIVATE KEY/);
    assert.equal((stores.cert ?? '').match(/BEGIN CERTIFICATE/g)?.length, 2, 'leaf and CA');
    assert.equal(stores.passphrase, KEY_PASSWORD);
    assert.match(stores.ca ?? '', /BEGIN CERTIFICATE/);
  });

  it('reads inline PEM whose line breaks were lost in a properties file', () => {
    const flat = (pem: string): string => pem.replace(/\n/g, ' ');
    const stores = readPemStores(lookup({ 'ssl.keystore.key': flat(pki.alice.key), 'ssl.keystore.certificate.chain': flat(pki.alice.cert), 'ssl.truststore.certificates': flat(pki.ca) }));
    assert.equal(new X509Certificate(stores.cert ?? '').subject.includes('CN=alice'), true);
    assert.equal(new X509Certificate(stores.ca ?? '').fingerprint256, new X509Certificate(pki.ca).fingerprint256);
  });

  it('refuses what it cannot use, naming the key', () => {
    refusal({ 'ssl.keystore.location': join(pki.dir, 'nope.pem') }, 'ssl.keystore.location', /cannot read .*nope\.pem \(no such file\)/);
    refusal({ 'ssl.truststore.location': join(pki.dir, 'nope.pem') }, 'ssl.truststore.location', /no such file/);
    refusal({ 'ssl.keystore.location': pki.server.keystoreFile, 'ssl.key.password': 'wrong' }, 'ssl.key.password', /wrong ssl\.key\.password/);
    refusal({ 'ssl.keystore.location': pki.server.keystoreFile }, 'ssl.key.password', /encrypted: set ssl\.key\.password/);
    refusal({ 'ssl.keystore.type': 'JKS', 'ssl.keystore.location': '/x.jks' }, 'ssl.keystore.type', /JKS is not supported: only PEM .*keytool -importkeystore/);
    refusal({ 'ssl.truststore.type': 'PKCS12' }, 'ssl.truststore.type', /PKCS12 is not supported/);
    refusal({ 'ssl.keystore.location': pki.caFile }, 'ssl.keystore.location', /holds no PEM private key/);
    refusal({ 'ssl.keystore.key': pki.alice.key }, 'ssl.keystore.certificate.chain', /go together/);
    refusal({ 'ssl.keystore.location': pki.alice.keystoreFile, 'ssl.keystore.key': pki.alice.key }, 'ssl.keystore.location', /not both/);
    refusal({ 'ssl.truststore.certificates': 'not pem' }, 'ssl.truststore.certificates', /holds no PEM certificate/);
    assert.ok(readFileSync(pki.caFile, 'utf8').includes('BEGIN CERTIFICATE'));
  });
});
