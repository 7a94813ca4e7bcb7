// Real clients log in over SASL_PLAINTEXT (docs/security.md): kafkajs,
// @platformatic/kafka, kcat and confluent-kafka-python (librdkafka 2.0.2) and
// kafka-python 2.0.2, each with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (SCRAM
// users made with AlterUserScramCredentials), and each refused with a wrong
// password. Clients that use SaslAuthenticate (KIP-152) see
// SASL_AUTHENTICATION_FAILED with the broker's message; kafka-python 2.0.2
// speaks SaslHandshake v0 with bare tokens, where the broker can only close
// the connection (as Kafka does), so it reports no broker available.
// librdkafka 2.0 repeats the client nonce in its SCRAM client-final message;
// the broker accepts it as Kafka does (the nonce must end with the server's).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { Admin as PlatformaticAdmin } from '@platformatic/kafka';
import { Admin } from '../../src/client/admin.js';
import { KCAT, run, runPythonJson } from '../helpers/run.js';
import { startSaslBroker, type SaslBroker } from '../helpers/sasl.js';
import { uniqueName } from '../helpers/records.js';

type Mechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
const USERS: readonly { mechanism: Mechanism; username: string; password: string }[] = [
  { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' },
  { mechanism: 'SCRAM-SHA-256', username: 'sam', password: 'sam-secret' },
  { mechanism: 'SCRAM-SHA-512', username: 'sue', password: 'sue-secret' },
];

/** Every message along an error's cause chain (and AggregateError members), with Kafka error codes from responses. */
function chainText(err: unknown, depth = 0): string {
  if (depth > 8 || err === null || typeof err !== 'object') return '';
  const e = err as { name?: string; message?: string; cause?: unknown; errors?: unknown; response?: { errorCode?: number; errorMessage?: string | null } };
  const own = `${e.name ?? ''}: ${e.message ?? ''}${e.response?.errorCode !== undefined ? ` [code ${e.response.errorCode}: ${e.response.errorMessage ?? ''}]` : ''}`;
  const members = Array.isArray(e.errors) ? e.errors : typeof e.errors === 'object' && e.errors !== null ? Object.values(e.errors) : [];
  return [own, chainText(e.cause, depth + 1), ...members.map((m) => chainText(m, depth + 1))].join(' | ');
}

interface PyResult {
  value?: string;
  error?: { name: string; str: string };
}

describe('real clients over SASL_PLAINTEXT', { timeout: 300_000 }, () => {
  let broker: SaslBroker;
  let topic: string;
  const bootstrap = (): string => `127.0.0.1:${broker.saslPort}`;

  before(async () => {
    broker = await startSaslBroker();
    const admin = await Admin.connect({ bootstrap: bootstrap(), sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    try {
      const results = await admin.alterUserScramCredentials([
        { user: 'sam', mechanism: 'SCRAM-SHA-256', password: 'sam-secret' },
        { user: 'sue', mechanism: 'SCRAM-SHA-512', password: 'sue-secret', iterations: 8192 },
      ]);
      assert.deepEqual(results.map((r) => r.error), [null, null]);
      topic = uniqueName('sasl-compat');
      const created = await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
      assert.equal(created[0]?.error, null);
    } finally {
      await admin.close();
    }
  });
  after(async () => {
    await broker?.stop();
  });

  for (const user of USERS) {
    it(`kafkajs ${user.mechanism}: produce and read back; a wrong password is SASL_AUTHENTICATION_FAILED`, async () => {
      const kafka = (password: string): Kafka =>
        new Kafka({ brokers: [bootstrap()], sasl: { mechanism: user.mechanism.toLowerCase() as 'plain', username: user.username, password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      const producer = kafka(user.password).producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: `kafkajs-${user.mechanism}` }] });
      await producer.disconnect();
      const admin = kafka(user.password).admin();
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets(topic);
      assert.ok(Number(offsets[0]?.high) >= 1);
      await admin.disconnect();
      const bad = kafka('wrong').admin();
      await assert.rejects(bad.connect(), (err: unknown) => {
        const text = chainText(err);
        assert.match(text, /KafkaJSSASLAuthenticationError/);
        assert.match(text, user.mechanism === 'PLAIN' ? /Invalid username or password/ : /invalid credentials with SASL mechanism SCRAM/);
        return true;
      });
      await bad.disconnect();
    });
  }

  for (const user of USERS) {
    it(`@platformatic/kafka ${user.mechanism}: metadata; a wrong password fails`, async () => {
      const admin = (password: string): PlatformaticAdmin =>
        new PlatformaticAdmin({ clientId: 'sasl-test', bootstrapBrokers: [bootstrap()], retries: 0, timeout: 10_000, sasl: { mechanism: user.mechanism, username: user.username, password } });
      const ok = admin(user.password);
      try {
        assert.ok((await ok.listTopics()).includes(topic));
      } finally {
        await ok.close();
      }
      const bad = admin('wrong');
      await assert.rejects(bad.listTopics(), (err: unknown) => {
        // SaslAuthenticate's response with code 58 is in the cause chain.
        assert.match(chainText(err), /\[code 58: Authentication failed/);
        return true;
      });
      await bad.close();
    });
  }

  for (const user of USERS) {
    it(`kcat ${user.mechanism}: produce and consume; a wrong password is the broker's SASL error`, async () => {
      const sasl = (password: string): string[] => ['-X', 'security.protocol=SASL_PLAINTEXT', '-X', `sasl.mechanism=${user.mechanism}`, '-X', `sasl.username=${user.username}`, '-X', `sasl.password=${password}`];
      const value = `kcat-${user.mechanism}`;
      await run(KCAT, ['-b', bootstrap(), ...sasl(user.password), '-P', '-t', topic, '-p', '0'], { input: `${value}\n`, timeoutMs: 30_000 });
      const out = await run(KCAT, ['-b', bootstrap(), ...sasl(user.password), '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q'], { timeoutMs: 30_000 });
      assert.ok(out.stdout.split('\n').includes(value), out.stdout);
      const bad = await run(KCAT, ['-b', bootstrap(), ...sasl('wrong'), '-L', '-m', '5'], { timeoutMs: 30_000, allowFailure: true });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /SASL authentication error: Authentication failed/);
    });
  }

  /** The client's own SASL_PLAINTEXT settings: librdkafka property names, kafka-python keyword arguments. */
  const saslConfig = (client: 'confluent' | 'kafka_python', mechanism: string, username: string, password: string): Record<string, string> =>
    client === 'confluent'
      ? { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': mechanism, 'sasl.username': username, 'sasl.password': password }
      : { security_protocol: 'SASL_PLAINTEXT', sasl_mechanism: mechanism, sasl_plain_username: username, sasl_plain_password: password };

  for (const client of ['confluent', 'kafka_python'] as const) {
    for (const user of USERS) {
      it(`${client === 'confluent' ? 'confluent-kafka-python' : 'kafka-python'} ${user.mechanism}: produce and read back; a wrong password fails`, async () => {
        const py = (password: string, value: string): Promise<PyResult> =>
          runPythonJson<PyResult>('secure_clients.py', client, { bootstrap: bootstrap(), config: saslConfig(client, user.mechanism, user.username, password), topic, value }, { timeoutMs: 90_000 });
        const value = `${client}-${user.mechanism}`;
        const ok = await py(user.password, value);
        assert.equal(ok.error, undefined, JSON.stringify(ok));
        const bad = await py('wrong', value);
        if (client === 'confluent') {
          assert.equal(bad.error?.name, '_AUTHENTICATION', JSON.stringify(bad));
          assert.match(bad.error?.str ?? '', user.mechanism === 'PLAIN' ? /Invalid username or password/ : /invalid credentials with SASL mechanism SCRAM/);
        } else {
          assert.equal(bad.error?.name, 'NoBrokersAvailable', JSON.stringify(bad));
        }
      });
    }
  }
});
