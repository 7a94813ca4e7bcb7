/**
 * TLS test fixtures: a throw-away PKI made with the openssl CLI in a temp
 * directory (never committed), and an in-process broker with PLAINTEXT,
 * SSL and SASL_SSL listeners whose TLS log lines (principal of each TLS
 * connection, refused clients) are kept for assertions.
 *
 * PKI: a CA; a server certificate for 127.0.0.1 and localhost (SAN) whose
 * PEM key store holds an encrypted PKCS#8 key ("server-pass") and the
 * chain; client certificates for CN=alice,OU=eng,O=Tributary and
 * CN=bob,OU=ops,O=Tributary signed by the CA; one client certificate
 * signed by another CA (not trusted).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBroker, type RunningBroker } from '../../src/broker/broker.js';
import { settingsFromConfig } from '../../src/broker/settings.js';
import { parseBrokerConfig } from '../../src/config/broker.js';
import { PLAIN_JAAS } from './sasl.js';

export const KEY_PASSWORD = 'server-pass';

export interface PemIdentity {
  /** Unencrypted PKCS#8 key file and certificate file. */
  readonly keyFile: string;
  readonly certFile: string;
  readonly key: string;
  readonly cert: string;
  /** Kafka PEM key store: encrypted key (KEY_PASSWORD) + certificate chain. */
  readonly keystoreFile: string;
}

export interface TestPki {
  readonly dir: string;
  readonly caFile: string;
  readonly ca: string;
  readonly server: PemIdentity;
  readonly alice: PemIdentity;
  readonly bob: PemIdentity;
  /** Signed by a CA the broker does not trust. */
  readonly stranger: PemIdentity;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/O=Tributary Test/CN=${name}`]);
}

function issue(dir: string, ca: string, name: string, subject: string, sans?: string): PemIdentity {
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, sans === undefined ? 'basicConstraints=CA:FALSE\n' : `basicConstraints=CA:FALSE\nsubjectAltName=${sans}\n`);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', ext]);
  openssl(dir, ['pkcs8', '-topk8', '-in', `${name}.key`, '-out', `${name}.enc.key`, '-passout', `pass:${KEY_PASSWORD}`, '-v2', 'aes-256-cbc']);
  const key = readFileSync(join(dir, `${name}.key`), 'utf8');
  const cert = readFileSync(join(dir, `${name}.pem`), 'utf8');
  const keystoreFile = join(dir, `${name}-keystore.pem`);
  writeFileSync(keystoreFile, readFileSync(join(dir, `${name}.enc.key`), 'utf8') + cert + readFileSync(join(dir, `${ca}.pem`), 'utf8'));
  return { keyFile: join(dir, `${name}.key`), certFile: join(dir, `${name}.pem`), key, cert, keystoreFile };
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'trib-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  const server = issue(dir, 'ca', 'server', '/O=Tributary/CN=localhost', 'IP:127.0.0.1,DNS:localhost');
  const alice = issue(dir, 'ca', 'alice', '/O=Tributary/OU=eng/CN=alice');
  const bob = issue(dir, 'ca', 'bob', '/O=Tributary/OU=ops/CN=bob');
  const stranger = issue(dir, 'other-ca', 'stranger', '/O=Elsewhere/CN=stranger');
  const caFile = join(dir, 'ca.pem');
  return { dir, caFile, ca: readFileSync(caFile, 'utf8'), server, alice, bob, stranger, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Broker keys of an SSL listener named `listener` (lower case) with the server key store. */
export function tlsListenerConfig(pki: TestPki, listener: string, clientAuth: 'none' | 'requested' | 'required' = 'none'): Record<string, string> {
  return {
    [`listener.name.${listener}.ssl.keystore.location`]: pki.server.keystoreFile,
    [`listener.name.${listener}.ssl.key.password`]: KEY_PASSWORD,
    [`listener.name.${listener}.ssl.truststore.location`]: pki.caFile,
    [`listener.name.${listener}.ssl.client.auth`]: clientAuth,
  };
}

export interface TlsBroker {
  readonly broker: RunningBroker;
  readonly plainPort: number;
  readonly sslPort: number;
  readonly saslSslPort: number;
  /** The broker's TLS log lines so far (parsed JSON): 'TLS connection established' with its principal, 'TLS client refused'. */
  readonly tlsLog: { msg: string; principal?: string; reason?: string; listener?: string }[];
  stop(): Promise<void>;
}

/**
 * A broker with PLAINTEXT, SSL (ssl.client.auth as given) and SASL_SSL
 * (PLAIN users of PLAIN_JAAS, SCRAM) listeners.
 */
export async function startTlsBroker(pki: TestPki, clientAuth: 'none' | 'requested' | 'required', overrides: Record<string, string> = {}): Promise<TlsBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trib-tls-'));
  const config = parseBrokerConfig({
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
    'log.dirs': dataDir,
    ...tlsListenerConfig(pki, 'ssl', clientAuth),
    ...tlsListenerConfig(pki, 'sasl_ssl'),
    'listener.name.sasl_ssl.plain.sasl.jaas.config': PLAIN_JAAS,
    ...overrides,
  });
  const tlsLog: TlsBroker['tlsLog'] = [];
  const sink = {
    write(line: string): void {
      if (!line.includes('"msg":"TLS')) return;
      tlsLog.push(JSON.parse(line) as TlsBroker['tlsLog'][number]);
    },
  };
  const broker = await runBroker(settingsFromConfig(config), pino({ level: 'debug' }, sink));
  const port = (name: string): number => {
    const a = broker.boundAddresses.find((x) => x.name === name);
    if (a === undefined) throw new Error(`no ${name} listener bound`);
    return a.port;
  };
  return {
    broker,
    plainPort: port('PLAINTEXT'),
    sslPort: port('SSL'),
    saslSslPort: port('SASL_SSL'),
    tlsLog,
    async stop() {
      await broker.stop('test done');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
