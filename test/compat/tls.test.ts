// Real clients over TLS (docs/security.md, "TLS"): kafkajs over SSL with a
// client certificate and over SASL_SSL (PLAIN, SCRAM-SHA-512); kcat and
// confluent-kafka-python (librdkafka) over SSL with a client certificate and
// over SASL_SSL; kafka-python over SSL. The SSL listener requires client
// certificates (ssl.client.auth=required) and the broker's debug line for
// each TLS connection shows the certificate's name as the principal.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../src/client/admin.js';
import { KCAT, run, runPythonJson } from '../helpers/run.js';
import { createTestPki, startTlsBroker, type TestPki, type TlsBroker } from '../helpers/tls.js';
import { uniqueName } from '../helpers/records.js';

interface PyResult {
  value?: string;
  error?: { name: string; str: string };
}

const ALICE = 'User:CN=alice,OU=eng,O=Tributary';

describe('real clients over SSL and SASL_SSL', { timeout: 300_000 }, () => {
  let pki: TestPki;
  let broker: TlsBroker;
  let topic: string;
  const ssl = (): string => `127.0.0.1:${broker.sslPort}`;
  const saslSsl = (): string => `127.0.0.1:${broker.saslSslPort}`;
  /** Principals of the SSL connections made since `from` (index into the broker's TLS log). */
  const sslPrincipals = (from: number): Set<string | undefined> =>
    new Set(broker.tlsLog.slice(from).filter((l) => l.listener === 'SSL' && l.msg === 'TLS connection established').map((l) => l.principal));

  before(async () => {
    pki = createTestPki();
    broker = await startTlsBroker(pki, 'required');
    const admin = await Admin.connect({ bootstrap: saslSsl(), tls: { ca: pki.ca }, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    try {
      assert.deepEqual((await admin.alterUserScramCredentials([{ user: 'sue', mechanism: 'SCRAM-SHA-512', password: 'sue-secret' }])).map((r) => r.error), [null]);
      topic = uniqueName('tls-compat');
      assert.equal((await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]))[0]?.error, null);
    } finally {
      await admin.close();
    }
  });
  after(async () => {
    await broker?.stop();
    pki?.cleanup();
  });

  async function kafkajsRoundTrip(kafka: Kafka, value: string): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value }] });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    assert.ok(Number(offsets[0]?.high) >= 1);
  }

  it('kafkajs over SSL with a client certificate: produce; the principal is the certificate name', async () => {
    const from = broker.tlsLog.length;
    await kafkajsRoundTrip(new Kafka({ brokers: [ssl()], ssl: { ca: [pki.ca], cert: pki.alice.cert, key: pki.alice.key }, logLevel: logLevel.NOTHING, retry: { retries: 0 } }), 'kafkajs-ssl');
    assert.deepEqual([...sslPrincipals(from)], [ALICE]);
  });

  for (const mechanism of ['plain', 'scram-sha-512'] as const) {
    it(`kafkajs over SASL_SSL ${mechanism}: produce; a wrong password fails`, async () => {
      const user = mechanism === 'plain' ? { username: 'admin', password: 'admin-secret' } : { username: 'sue', password: 'sue-secret' };
      const kafka = (password: string): Kafka => new Kafka({ brokers: [saslSsl()], ssl: { ca: [pki.ca] }, sasl: { mechanism, username: user.username, password } as never, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      await kafkajsRoundTrip(kafka(user.password), `kafkajs-${mechanism}`);
      const bad = kafka('wrong').admin();
      await assert.rejects(bad.connect(), /SASL|Authentication/i);
      await bad.disconnect();
    });
  }

  it('kcat over SSL with a client certificate and over SASL_SSL (SCRAM-SHA-512): produce and consume', async () => {
    const from = broker.tlsLog.length;
    const sslArgs = ['-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${pki.caFile}`, '-X', `ssl.certificate.location=${pki.alice.certFile}`, '-X', `ssl.key.location=${pki.alice.keyFile}`];
    await run(KCAT, ['-b', ssl(), ...sslArgs, '-P', '-t', topic, '-p', '0'], { input: 'kcat-ssl\n', timeoutMs: 30_000 });
    const saslArgs = ['-X', 'security.protocol=SASL_SSL', '-X', `ssl.ca.location=${pki.caFile}`, '-X', 'sasl.mechanism=SCRAM-SHA-512', '-X', 'sasl.username=sue', '-X', 'sasl.password=sue-secret'];
    await run(KCAT, ['-b', saslSsl(), ...saslArgs, '-P', '-t', topic, '-p', '0'], { input: 'kcat-sasl-ssl\n', timeoutMs: 30_000 });
    for (const [bootstrap, args] of [[ssl(), sslArgs], [saslSsl(), saslArgs]] as const) {
      const out = await run(KCAT, ['-b', bootstrap, ...args, '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q'], { timeoutMs: 30_000 });
      const lines = out.stdout.split('\n');
      assert.ok(lines.includes('kcat-ssl') && lines.includes('kcat-sasl-ssl'), out.stdout);
    }
    assert.deepEqual([...sslPrincipals(from)], [ALICE]);
    const noCert = await run(KCAT, ['-b', ssl(), '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${pki.caFile}`, '-L', '-m', '5'], { timeoutMs: 30_000, allowFailure: true });
    assert.notEqual(noCert.code, 0, 'no client certificate: refused');
  });

  const python = [
    { client: 'confluent', protocol: 'SSL', config: (): Record<string, string> => ({ 'security.protocol': 'SSL', 'ssl.ca.location': pki.caFile, 'ssl.certificate.location': pki.alice.certFile, 'ssl.key.location': pki.alice.keyFile }) },
    { client: 'confluent', protocol: 'SASL_SSL', config: (): Record<string, string> => ({ 'security.protocol': 'SASL_SSL', 'ssl.ca.location': pki.caFile, 'sasl.mechanism': 'PLAIN', 'sasl.username': 'admin', 'sasl.password': 'admin-secret' }) },
    { client: 'kafka_python', protocol: 'SSL', config: (): Record<string, string> => ({ security_protocol: 'SSL', ssl_cafile: pki.caFile, ssl_certfile: pki.alice.certFile, ssl_keyfile: pki.alice.keyFile }) },
  ] as const;
  for (const p of python) {
    it(`${p.client === 'confluent' ? 'confluent-kafka-python' : 'kafka-python'} over ${p.protocol}: produce and read back`, async () => {
      const from = broker.tlsLog.length;
      const value = `${p.client}-${p.protocol}`;
      // A topic of its own (auto-created), so the record read back from offset 0 is this one.
      const own = uniqueName(`tls-${p.client}`);
      const result = await runPythonJson<PyResult>('secure_clients.py', p.client, { bootstrap: p.protocol === 'SSL' ? ssl() : saslSsl(), config: p.config(), topic: own, value }, { timeoutMs: 90_000 });
      assert.deepEqual(result, { value }, JSON.stringify(result));
      if (p.protocol === 'SSL') assert.deepEqual([...sslPrincipals(from)], [ALICE]);
    });
  }
});
