// TLS on a real in-process broker (docs/security.md, "TLS"): our client over
// SSL and SASL_SSL, client certificates with ssl.client.auth=required and
// requested, the certificate's distinguished name mapped to the principal by
// ssl.principal.mapping.rules (observed in the broker's debug line for each
// TLS connection), untrusted certificates refused on both sides, and a
// --command-config file with Kafka's PEM keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin } from '../../../src/client/admin.js';
import { Producer } from '../../../src/client/producer.js';
import { Consumer } from '../../../src/client/consumer.js';
import { isKafkaError } from '../../../src/net/errors.js';
import { loadCommandConfig } from '../../../src/cli/commands/command-config.js';
import { createTestPki, KEY_PASSWORD, startTlsBroker, type TestPki, type TlsBroker } from '../../helpers/tls.js';
import { uniqueName } from '../../helpers/records.js';

const PLAIN_ADMIN = { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } as const;

async function consumeOne(bootstrap: string, topic: string, options: Partial<ConstructorParameters<typeof Consumer>[0]>): Promise<string> {
  const consumer = new Consumer({ bootstrap, autoOffsetReset: 'earliest', ...options });
  try {
    consumer.assign([{ topic, partition: 0 }]);
    for await (const r of consumer) return String(r.value);
    throw new Error('no record');
  } finally {
    await consumer.close();
  }
}

describe('TLS listeners', { timeout: 120_000 }, () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki.cleanup());

  describe('ssl.client.auth=required with principal mapping rules', () => {
    let broker: TlsBroker;
    const ssl = (): string => `127.0.0.1:${broker.sslPort}`;
    before(async () => {
      broker = await startTlsBroker(pki, 'required', { 'listener.name.ssl.ssl.principal.mapping.rules': 'RULE:^CN=(.*?),OU=ops,.*$/$1-operator/U,RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/L,DEFAULT' });
    });
    after(() => broker?.stop());

    it('a client with a trusted certificate produces and consumes; its principal is the mapped certificate name', async () => {
      const tls = { ca: pki.ca, cert: pki.alice.cert, key: pki.alice.key };
      const topic = uniqueName('tls');
      const producer = await Producer.connect({ clusterOptions: { bootstrap: ssl() }, tls });
      await producer.send({ topic, value: Buffer.from('over tls') });
      await producer.close();
      assert.equal(await consumeOne(ssl(), topic, { tls }), 'over tls');
      const admin = await Admin.connect({ bootstrap: ssl(), tls: { ca: pki.ca, cert: pki.bob.cert, key: pki.bob.key } });
      const md = await admin.describeCluster();
      await admin.close();
      assert.deepEqual(md.brokers.map((b) => b.port), [broker.sslPort], 'an SSL client is told the SSL endpoints');
      const principals = new Set(broker.tlsLog.filter((l) => l.msg === 'TLS connection established').map((l) => l.principal));
      assert.deepEqual([...principals].sort(), ['User:BOB-OPERATOR', 'User:alice@eng']);
    });

    it('a client without a certificate, or with one from another CA, cannot connect', async () => {
      for (const tls of [{ ca: pki.ca }, { ca: pki.ca, cert: pki.stranger.cert, key: pki.stranger.key }]) {
        await assert.rejects(Admin.connect({ bootstrap: ssl(), tls, retries: 0, connectTimeoutMs: 5000 }).then((a) => a.close()), (err: unknown) => {
          assert.match(String((err as Error).message), /could not connect|closed|ECONNRESET|certificate|handshake|socket/i);
          return true;
        });
      }
      assert.ok(broker.tlsLog.some((l) => l.msg === 'TLS handshake failed'), 'the broker logs the failed handshakes');
    });

    it('the client checks the broker: an untrusted CA or a name the certificate does not carry fails; localhost (a DNS SAN) is accepted', async () => {
      const tls = { cert: pki.alice.cert, key: pki.alice.key };
      await assert.rejects(Admin.connect({ bootstrap: ssl(), tls, retries: 0 }).then((a) => a.close()), /self.signed|unable to verify|certificate/i);
      await assert.rejects(Admin.connect({ bootstrap: ssl(), tls: { ...tls, ca: pki.ca, servername: 'kafka.example.com' }, retries: 0 }).then((a) => a.close()), /altnames|does not match|Hostname/i);
      const admin = await Admin.connect({ bootstrap: `localhost:${broker.sslPort}`, tls: { ...tls, ca: pki.ca } });
      await admin.close();
    });
  });

  describe('ssl.client.auth=requested and SASL_SSL', () => {
    let broker: TlsBroker;
    before(async () => {
      broker = await startTlsBroker(pki, 'requested');
    });
    after(() => broker?.stop());

    it('without a certificate the principal is User:ANONYMOUS, with one it is the full name (DEFAULT rule)', async () => {
      const anonymous = await Admin.connect({ bootstrap: `127.0.0.1:${broker.sslPort}`, tls: { ca: pki.ca } });
      await anonymous.listTopics();
      await anonymous.close();
      const alice = await Admin.connect({ bootstrap: `127.0.0.1:${broker.sslPort}`, tls: { ca: pki.ca, cert: pki.alice.cert, key: pki.alice.key } });
      await alice.listTopics();
      await alice.close();
      const principals = new Set(broker.tlsLog.filter((l) => l.listener === 'SSL' && l.msg === 'TLS connection established').map((l) => l.principal));
      assert.deepEqual([...principals].sort(), ['User:ANONYMOUS', 'User:CN=alice,OU=eng,O=Tributary']);
    });

    it('SASL_SSL: PLAIN and SCRAM-SHA-512 log in over TLS; a wrong password gets SASL_AUTHENTICATION_FAILED', async () => {
      const bootstrap = `127.0.0.1:${broker.saslSslPort}`;
      const admin = await Admin.connect({ bootstrap, tls: { ca: pki.ca }, sasl: PLAIN_ADMIN });
      try {
        assert.deepEqual((await admin.alterUserScramCredentials([{ user: 'sue', mechanism: 'SCRAM-SHA-512', password: 'sue-secret' }])).map((r) => r.error), [null]);
      } finally {
        await admin.close();
      }
      const topic = uniqueName('sasl-ssl');
      const sasl = { mechanism: 'SCRAM-SHA-512', username: 'sue', password: 'sue-secret' } as const;
      const producer = await Producer.connect({ clusterOptions: { bootstrap }, tls: { ca: pki.ca }, sasl });
      await producer.send({ topic, value: Buffer.from('over sasl_ssl') });
      await producer.close();
      assert.equal(await consumeOne(bootstrap, topic, { tls: { ca: pki.ca }, sasl }), 'over sasl_ssl');
      await assert.rejects(Admin.connect({ bootstrap, tls: { ca: pki.ca }, sasl: { ...sasl, password: 'wrong' }, retries: 0 }).then((a) => a.close()), (err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        return isKafkaError(err, 'SASL_AUTHENTICATION_FAILED') || isKafkaError(cause, 'SASL_AUTHENTICATION_FAILED') || /SASL_AUTHENTICATION_FAILED/.test(String((err as Error).message));
      });
    });

    it('--command-config with security.protocol=SSL and SASL_SSL and Kafka\'s PEM keys', async () => {
      const sslFile = join(pki.dir, 'ssl.properties');
      writeFileSync(sslFile, `security.protocol=SSL\nssl.truststore.location=${pki.caFile}\nssl.keystore.location=${pki.alice.keystoreFile}\nssl.key.password=${KEY_PASSWORD}\n`);
      const saslSslFile = join(pki.dir, 'sasl-ssl.properties');
      // Inline trusted certificates, continued over lines as properties files allow.
      const inline = pki.ca.trim().split('\n').join('\\\n');
      writeFileSync(saslSslFile, `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";\nssl.truststore.certificates=${inline}\n`);
      for (const [file, port] of [[sslFile, broker.sslPort], [saslSslFile, broker.saslSslPort]] as const) {
        const admin = await Admin.connect({ bootstrap: `127.0.0.1:${port}`, ...loadCommandConfig(file) });
        assert.ok(Array.isArray(await admin.listTopics()));
        await admin.close();
      }
      writeFileSync(sslFile, 'security.protocol=SSL\nssl.keystore.type=JKS\nssl.keystore.location=/x.jks\n');
      assert.throws(() => loadCommandConfig(sslFile), /JKS is not supported/);
    });
  });
});
