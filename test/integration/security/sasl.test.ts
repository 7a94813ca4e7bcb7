// SASL on a real in-process broker (docs/security.md): our client with PLAIN
// and SCRAM (users made with AlterUserScramCredentials), raw frames for the
// rules before authentication, SaslHandshake v0 bare tokens, KIP-368 session
// expiry, and a seeded fuzzer against the SASL listener: before
// authentication nothing but ApiVersions and SaslHandshake is ever answered.
// FUZZ_SEED=n replays a fuzz run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Producer } from '../../../src/client/producer.js';
import { Consumer } from '../../../src/client/consumer.js';
import { isKafkaError } from '../../../src/net/errors.js';
import { decode } from '../../../src/protocol/codec.js';
import { SaslHandshakeResponse } from '../../../src/protocol/messages/17-sasl-handshake.js';
import { SaslAuthenticateResponse } from '../../../src/protocol/messages/36-sasl-authenticate.js';
import { apiVersionsRequest, metadataV1Request, parseMetadataV1Response, probeApiVersions, RawConnection } from '../../helpers/raw-kafka.js';
import { plainToken, saslAuthenticateFrame, saslHandshakeFrame, startSaslBroker, type SaslBroker } from '../../helpers/sasl.js';
import { uniqueName } from '../../helpers/records.js';
import { SeededRandom } from '../../../src/util/random.js';

/** Decodes a response frame (correlation id first, header v0) of a non-flexible response. */
function body<T>(frame: Buffer, decodeBody: (b: Buffer) => T): { correlationId: number; value: T } {
  return { correlationId: frame.readInt32BE(0), value: decodeBody(frame.subarray(4)) };
}

const PLAIN_ADMIN = { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } as const;

describe('SASL on a SASL_PLAINTEXT listener', { timeout: 120_000 }, () => {
  let broker: SaslBroker;
  const bootstrap = (): string => `127.0.0.1:${broker.saslPort}`;

  before(async () => {
    broker = await startSaslBroker({ 'listener.name.sasl_plaintext.connections.max.reauth.ms': '3000' });
  });
  after(async () => {
    await broker?.stop();
  });

  it('SCRAM users made through AlterUserScramCredentials log in; Describe shows no secrets; produce and consume work', async () => {
    const admin = await Admin.connect({ bootstrap: bootstrap(), sasl: PLAIN_ADMIN });
    try {
      const set = await admin.alterUserScramCredentials([
        { user: 'sam', mechanism: 'SCRAM-SHA-256', password: 'sam-secret', iterations: 4096 },
        { user: 'sue', mechanism: 'SCRAM-SHA-512', password: 'sue-secret', iterations: 8192 },
        { user: 'low', mechanism: 'SCRAM-SHA-256', password: 'x', iterations: 1000 },
      ]);
      assert.deepEqual(set.map((r) => [r.user, r.error?.kafkaErrorName ?? null]), [['sam', null], ['sue', null], ['low', 'UNACCEPTABLE_CREDENTIAL']]);
      const described = await admin.describeUserScramCredentials();
      assert.deepEqual(described.map((d) => [d.user, d.credentials]), [['sam', [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }]], ['sue', [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }]]]);
      const missing = await admin.describeUserScramCredentials(['nobody']);
      assert.equal(missing[0]?.error?.kafkaErrorName, 'RESOURCE_NOT_FOUND');
    } finally {
      await admin.close();
    }
    const topic = uniqueName('sasl-scram');
    const producer = await Producer.connect({ clusterOptions: { bootstrap: bootstrap() }, sasl: { mechanism: 'SCRAM-SHA-512', username: 'sue', password: 'sue-secret' } });
    await producer.send({ topic, value: Buffer.from('over scram') });
    await producer.close();
    const consumer = new Consumer({ bootstrap: bootstrap(), sasl: { mechanism: 'SCRAM-SHA-256', username: 'sam', password: 'sam-secret' }, autoOffsetReset: 'earliest' });
    try {
      consumer.assign([{ topic, partition: 0 }]);
      const values: string[] = [];
      for await (const r of consumer) {
        values.push(String(r.value));
        break;
      }
      assert.deepEqual(values, ['over scram']);
    } finally {
      await consumer.close();
    }
  });

  it('wrong passwords, unknown users and a disabled mechanism fail with the Kafka error on the wire', async () => {
    const attempts = [
      { mechanism: 'PLAIN', username: 'alice', password: 'wrong' },
      { mechanism: 'PLAIN', username: 'mallory', password: 'x' },
      { mechanism: 'SCRAM-SHA-256', username: 'sam', password: 'wrong' },
      { mechanism: 'SCRAM-SHA-512', username: 'nobody', password: 'x' },
    ] as const;
    for (const sasl of attempts) {
      await assert.rejects(Admin.connect({ bootstrap: bootstrap(), sasl, retries: 0 }).then((a) => a.close()), (err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        return isKafkaError(err, 'SASL_AUTHENTICATION_FAILED') || isKafkaError(cause, 'SASL_AUTHENTICATION_FAILED') || /SASL_AUTHENTICATION_FAILED/.test(String((err as Error).message));
      }, `${sasl.mechanism} ${sasl.username}`);
    }
  });

  it('before authentication: ApiVersions is answered, any other request closes the connection unanswered', async () => {
    const versions = await probeApiVersions(broker.saslPort);
    assert.equal(versions.apiKeys.get(36)?.maxVersion, 2);
    assert.equal(versions.apiKeys.get(17)?.maxVersion, 1);
    const conn = await RawConnection.connect(broker.saslPort);
    await conn.write(metadataV1Request(7, null));
    assert.deepEqual((await conn.next(3000)).kind, 'closed');
    const afterHandshake = await RawConnection.connect(broker.saslPort);
    const hs = body(await afterHandshake.request(saslHandshakeFrame(1, 1, 'PLAIN')), (b) => decode(SaslHandshakeResponse, 1, b));
    assert.deepEqual(hs.value, { errorCode: 0, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] });
    await afterHandshake.write(metadataV1Request(2, null));
    assert.equal((await afterHandshake.next(3000)).kind, 'closed');
  });

  it('an unsupported mechanism gets UNSUPPORTED_SASL_MECHANISM and the list, then the connection closes', async () => {
    const conn = await RawConnection.connect(broker.saslPort);
    const hs = body(await conn.request(saslHandshakeFrame(1, 1, 'GSSAPI')), (b) => decode(SaslHandshakeResponse, 1, b));
    assert.deepEqual(hs.value, { errorCode: 33, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] });
    assert.equal(await conn.waitClosed(3000), true);
  });

  it('SaslAuthenticate failure is reported (KIP-152), then the connection closes', async () => {
    const conn = await RawConnection.connect(broker.saslPort);
    await conn.request(saslHandshakeFrame(1, 1, 'PLAIN'));
    const r = body(await conn.request(saslAuthenticateFrame(1, 2, plainToken('alice', 'nope'))), (b) => decode(SaslAuthenticateResponse, 1, b));
    assert.equal(r.value.errorCode, 58);
    assert.equal(r.value.errorMessage, 'Authentication failed: Invalid username or password');
    assert.equal(await conn.waitClosed(3000), true);
  });

  it('SaslHandshake v0: the PLAIN token travels bare and the answer is a bare empty frame; then requests are served', async () => {
    const conn = await RawConnection.connect(broker.saslPort);
    await conn.request(saslHandshakeFrame(0, 1, 'PLAIN'));
    const token = plainToken('alice', 'alice-secret');
    const size = Buffer.alloc(4);
    size.writeInt32BE(token.length);
    const reply = await conn.request(Buffer.concat([size, token]));
    assert.equal(reply.length, 0);
    const md = parseMetadataV1Response(await conn.request(metadataV1Request(3, [])));
    assert.ok(md.brokers.length >= 1);
    conn.close();
    const bad = await RawConnection.connect(broker.saslPort);
    await bad.request(saslHandshakeFrame(0, 1, 'PLAIN'));
    const badToken = plainToken('alice', 'wrong');
    size.writeInt32BE(badToken.length);
    await bad.write(Buffer.concat([size, badToken]));
    assert.equal((await bad.next(3000)).kind, 'closed');
  });

  it('KIP-368: SaslAuthenticate v1 tells the session lifetime; after it only a re-authentication is served', async () => {
    const conn = await RawConnection.connect(broker.saslPort);
    await conn.request(saslHandshakeFrame(1, 1, 'PLAIN'));
    const auth = body(await conn.request(saslAuthenticateFrame(1, 2, plainToken('alice', 'alice-secret'))), (b) => decode(SaslAuthenticateResponse, 1, b));
    assert.equal(auth.value.sessionLifetimeMs, 3000n);
    // Re-authenticate in time: the session is renewed.
    await new Promise((r) => setTimeout(r, 1500));
    await conn.request(saslHandshakeFrame(1, 3, 'PLAIN'));
    await conn.request(saslAuthenticateFrame(1, 4, plainToken('alice', 'alice-secret')));
    await new Promise((r) => setTimeout(r, 2000));
    parseMetadataV1Response(await conn.request(metadataV1Request(5, [])));
    await new Promise((r) => setTimeout(r, 1200));
    await conn.write(metadataV1Request(6, []));
    assert.equal((await conn.next(3000)).kind, 'closed', 'the expired session is closed');
  });

  it('a frame above sasl.server.max.receive.size before authentication closes the connection', async () => {
    const conn = await RawConnection.connect(broker.saslPort);
    const huge = Buffer.alloc(4 + 600_000);
    huge.writeInt32BE(600_000);
    await conn.write(huge);
    assert.equal(await conn.waitClosed(3000), true);
  });

  it('fuzz: random and mutated frames before authentication only ever get ApiVersions or SaslHandshake answers', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 100_000);
    const seeded = new SeededRandom(seed);
    const rnd = (): number => seeded.next();
    const valid = [apiVersionsRequest(0, 1), saslHandshakeFrame(1, 1, 'PLAIN'), saslAuthenticateFrame(1, 1, plainToken('alice', 'x')), metadataV1Request(1, null)];
    for (let i = 0; i < 150; i++) {
      const conn = await RawConnection.connect(broker.saslPort);
      const base = Buffer.from(valid[Math.floor(rnd() * valid.length)] as Buffer);
      const frame = rnd() < 0.3 ? Buffer.concat([base.subarray(0, 4), Buffer.from(Array.from({ length: base.length - 4 }, () => Math.floor(rnd() * 256)))]) : base;
      // Flip a few bytes after the size prefix (the API key, version and body are all fair game).
      for (let f = 0; f < 3; f++) if (frame.length > 4) frame[4 + Math.floor(rnd() * (frame.length - 4))] = Math.floor(rnd() * 256);
      const apiKey = frame.length >= 6 ? frame.readInt16BE(4) : -1;
      await conn.write(frame);
      const r = await conn.next(2000);
      if (r.kind === 'frame') assert.ok(apiKey === 18 || apiKey === 17, `seed ${seed} frame ${i}: API key ${apiKey} was answered before authentication`);
      conn.close();
    }
    const versions = await probeApiVersions(broker.saslPort);
    assert.equal(versions.errorCode, 0, `seed ${seed}: the listener still serves`);
    const admin = await Admin.connect({ bootstrap: bootstrap(), sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } });
    await admin.listTopics();
    await admin.close();
  });
});
