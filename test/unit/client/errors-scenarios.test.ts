/**
 * Typed errors: every documented ERR_TRIB_* code exists (and the other way
 * round), every error class the client exports is a TributaryError, and in
 * a set of failure scenarios (against a fake broker on loopback) the error
 * thrown has the right class, code and Kafka fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import * as client from '../../../src/client/index.js';
import {
  Admin,
  Apis,
  ClientErrorCode,
  Cluster,
  Connection,
  ConnectionClosedError,
  ConnectionError,
  DecodeError,
  KafkaProtocolError,
  ProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  TributaryError,
  UnsupportedVersionError,
  decodeAssignment,
  isTributaryError,
  partitionForKey,
} from '../../../src/client/index.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeHandler } from './fake-broker.js';

const root = new URL('../../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

test('every ClientErrorCode is documented in the client README and docs/client.md, and every documented code exists', () => {
  const codes = new Set<string>(Object.values(ClientErrorCode));
  for (const doc of ['src/client/README.md', 'docs/client.md']) {
    const text = read(doc);
    for (const code of codes) assert.ok(text.includes(`\`${code}\``), `${code} is not documented in ${doc}`);
    for (const [mentioned] of text.matchAll(/ERR_TRIB_[A-Z_]+/g)) assert.ok(codes.has(mentioned), `${doc} mentions ${mentioned}, which is not a ClientErrorCode`);
  }
});

test('every error class the client exports is a TributaryError', () => {
  const classes: [string, { prototype: unknown }][] = [];
  for (const [name, value] of Object.entries(client) as [string, unknown][]) {
    if (typeof value === 'function' && value.prototype instanceof Error) classes.push([name, value]);
  }
  assert.ok(classes.length >= 8, `found ${classes.map(([n]) => n).join(', ')}`);
  for (const [name, cls] of classes) assert.ok(cls === TributaryError || cls.prototype instanceof TributaryError, `${name} is not a TributaryError`);
});

test('KafkaProtocolError carries kafkaErrorCode, kafkaErrorName and retriable', () => {
  const err = new KafkaProtocolError(6, { api: 'Produce', topic: 'orders', partition: 1 });
  assert.ok(err instanceof TributaryError);
  assert.equal(err.code, 'ERR_TRIB_KAFKA');
  assert.equal(err.kafkaErrorCode, 6);
  assert.equal(err.kafkaErrorName, 'NOT_LEADER_OR_FOLLOWER');
  assert.equal(err.retriable, true);
  assert.equal(err.errorName, err.kafkaErrorName);
  const fatal = new KafkaProtocolError(37);
  assert.deepEqual([fatal.kafkaErrorName, fatal.retriable], ['INVALID_PARTITIONS', false]);
  assert.ok(isTributaryError(err, 'ERR_TRIB_KAFKA'));
  assert.ok(!isTributaryError(new Error('x')));
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('connection refused: ConnectionError (ERR_TRIB_CONNECTION); Cluster: ERR_TRIB_NO_BROKERS; bad bootstrap: ERR_TRIB_INVALID_ARGUMENT', async () => {
  const port = await freePort();
  await assert.rejects(Connection.connect({ host: '127.0.0.1', port }), (e: unknown) => e instanceof ConnectionError && e.code === 'ERR_TRIB_CONNECTION');
  await assert.rejects(Cluster.connect({ bootstrap: `127.0.0.1:${port}`, retries: 0 }), (e: unknown) => e instanceof TributaryClientError && e.code === 'ERR_TRIB_NO_BROKERS');
  await assert.rejects(Cluster.connect({ bootstrap: '127.0.0.1:notaport' }), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
});

test('a request without an answer: RequestTimeoutError, and the other pending one ConnectionClosedError', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(() => ({ none: true })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const body = { topics: [], allowAutoTopicCreation: false };
  const first = conn.send(Apis.Metadata, 9, body, { timeoutMs: 50 });
  const second = conn.send(Apis.Metadata, 9, body);
  await assert.rejects(first, (e: unknown) => e instanceof RequestTimeoutError && e.code === 'ERR_TRIB_REQUEST_TIMEOUT');
  await assert.rejects(second, (e: unknown) => e instanceof ConnectionClosedError && e.code === 'ERR_TRIB_CONNECTION_CLOSED');
});

test('bytes that do not parse: ProtocolError (ERR_TRIB_PROTOCOL); an API the broker lacks: UnsupportedVersionError', async (t) => {
  // A frame with a correlation id nobody asked for.
  const garbage = Buffer.from([0, 0, 0, 4, 0x7f, 0x7f, 0x7f, 0x7f]);
  const broker = await FakeBroker.start(withApiVersions(() => ({ raw: garbage })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  assert.throws(() => conn.pickVersion(57, 0, 1), (e: unknown) => e instanceof UnsupportedVersionError && e.code === 'ERR_TRIB_UNSUPPORTED_VERSION' && e.apiKey === 57);
  await assert.rejects(conn.send(Apis.Metadata, 9, { topics: [], allowAutoTopicCreation: false }), (e: unknown) => e instanceof ProtocolError && e.code === 'ERR_TRIB_PROTOCOL');
});

test('bad embedded bytes: DecodeError (ERR_TRIB_DECODE), a TributaryError', () => {
  assert.throws(
    () => decodeAssignment(Buffer.from([0, 0, 0])),
    (e: unknown) => e instanceof DecodeError && e instanceof TributaryError && e.code === ClientErrorCode.DECODE,
  );
});

test('invalid arguments are refused before anything is sent (ERR_TRIB_INVALID_ARGUMENT)', () => {
  assert.throws(() => partitionForKey('k', 0), (e: unknown) => e instanceof TributaryClientError && e.code === 'ERR_TRIB_INVALID_ARGUMENT');
});

test('Admin: a per-topic Kafka error is a result in batch calls and a thrown KafkaProtocolError in single calls', async (t) => {
  const handler: FakeHandler = (req, broker) => {
    if (req.apiKey === 3) {
      return { body: { brokers: [{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null }], clusterId: 'c', controllerId: 1, topics: [] } };
    }
    if (req.apiKey === 37) {
      const topics = req.body.topics as { name: string }[];
      return { body: { throttleTimeMs: 0, results: topics.map((x) => ({ name: x.name, errorCode: 37, errorMessage: 'fewer than now' })) } };
    }
    return { close: true };
  };
  const broker = await FakeBroker.start(withApiVersions(handler, [...FAKE_API_VERSIONS, { apiKey: 37, minVersion: 0, maxVersion: 3 }]));
  t.after(() => broker.stop());
  const admin = await Admin.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  t.after(() => admin.close());
  const [result] = await admin.createPartitions([{ topic: 'orders', totalCount: 1 }]);
  assert.ok(result!.error instanceof KafkaProtocolError);
  assert.deepEqual([result!.error.kafkaErrorCode, result!.error.kafkaErrorName, result!.error.retriable, result!.error.serverMessage], [37, 'INVALID_PARTITIONS', false, 'fewer than now']);
  await assert.rejects(admin.createPartitions('orders', 1), (e: unknown) => e instanceof KafkaProtocolError && e.code === 'ERR_TRIB_KAFKA' && e.topic === 'orders');
  await assert.rejects(admin.createTopics([{ name: 'bad name!' }]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
});
