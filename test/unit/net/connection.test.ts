import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { Connection } from '../../../src/net/connection.js';
import { ClientErrorCode, TributaryClientError } from '../../../src/net/errors.js';
import { Apis } from '../../../src/client/apis.js';
import { MetadataRequest, MetadataResponse, ProduceRequest } from '../../../src/protocol/messages/index.js';
import { FakeBroker, FAKE_API_VERSIONS, apiVersionsReply, encodeResponse, withApiVersions, type FakeReply, type FakeRequest } from '../client/fake-broker.js';

const Metadata = { request: MetadataRequest, response: MetadataResponse };

/** Metadata answer echoing the requested topic names, so each response identifies its request. */
function echoMetadata(req: FakeRequest): { body: Record<string, unknown> } {
  const topics = (req.body.topics as { name: string }[] | null) ?? [];
  return {
    body: {
      throttleTimeMs: 0,
      brokers: [],
      clusterId: 'c',
      controllerId: 1,
      topics: topics.map((t) => ({ errorCode: 0, name: t.name, isInternal: false, partitions: [] })),
    },
  };
}

function metadataOf(...names: string[]): { topics: { name: string }[]; allowAutoTopicCreation: boolean } {
  return { topics: names.map((name) => ({ name })), allowAutoTopicCreation: false };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<TributaryClientError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof TributaryClientError, `expected a TributaryClientError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

test('negotiates ApiVersions v3 and picks the highest common version', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(echoMetadata));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  assert.equal(conn.apiVersionsVersion, 3);
  const first = broker.requests[0];
  assert.equal(first?.apiKey, 18);
  assert.equal(first?.apiVersion, 3);
  assert.equal(first?.body.clientSoftwareName, 'tributary');
  assert.equal(conn.pickVersion(3, 1, 12), 9);
  assert.equal(conn.pickVersion(0, 0, 5), 5);
  assert.throws(() => conn.pickVersion(0, 8, 9), (err: TributaryClientError) => err.code === ClientErrorCode.UNSUPPORTED_VERSION);
  assert.throws(() => conn.pickVersion(11, 0, 5), /does not support JoinGroup/);
});

test('falls back when the broker answers UNSUPPORTED_VERSION with a v0 body (KIP-511)', async (t) => {
  const seen: number[] = [];
  const broker = await FakeBroker.start((req) => {
    if (req.apiKey !== 18) return { none: true };
    seen.push(req.apiVersion);
    if (req.apiVersion > 2) {
      return { body: { errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }] }, version: 0 };
    }
    return apiVersionsReply();
  });
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  assert.deepEqual(seen, [3, 2]);
  assert.equal(conn.apiVersionsVersion, 2);
  assert.equal(conn.apiVersions.get(3)?.maxVersion, 9);
});

test('retries ApiVersions with v0 when the error lists no ApiVersions range', async (t) => {
  const seen: number[] = [];
  const broker = await FakeBroker.start((req) => {
    seen.push(req.apiVersion);
    if (req.apiVersion > 0) return { body: { errorCode: 35, apiKeys: [] }, version: 0 };
    return apiVersionsReply();
  });
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  assert.deepEqual(seen, [3, 0]);
  assert.equal(conn.apiVersionsVersion, 0);
});

test('pipelines many requests and matches responses in order', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(echoMetadata));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const names = Array.from({ length: 200 }, (_, i) => `topic-${i}`);
  const responses = await Promise.all(names.map((n) => conn.send(Metadata, 9, metadataOf(n))));
  assert.deepEqual(
    responses.map((r) => r.topics[0]?.name),
    names,
  );
  // Correlation ids are unique and increasing.
  const ids = broker.requests.map((r) => r.correlationId);
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  assert.equal(new Set(ids).size, ids.length);
});

test('respects maxInFlightRequests and queues the rest', async (t) => {
  const broker = await FakeBroker.start(withApiVersions((req) => ({ ...echoMetadata(req), delayMs: 5 })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port, maxInFlightRequests: 3 });
  t.after(() => conn.close());
  broker.maxUnanswered = 0;
  const all = Array.from({ length: 20 }, (_, i) => conn.send(Metadata, 9, metadataOf(`t${i}`)));
  assert.ok(conn.inFlightCount <= 3);
  const responses = await Promise.all(all);
  assert.equal(responses.length, 20);
  assert.ok(broker.maxUnanswered <= 3, `broker saw ${broker.maxUnanswered} unanswered requests`);
});

test('reassembles frames split at every byte and frames coalesced in one chunk', async (t) => {
  // A raw server: answer ApiVersions, then hold two Metadata answers and send them byte by byte.
  const pending: Buffer[] = [];
  const broker = await FakeBroker.start((req) => {
    if (req.apiKey === 18) return apiVersionsReply();
    const frame = encodeResponse(req, echoMetadata(req).body, req.apiVersion);
    pending.push(frame);
    if (pending.length < 3) return { none: true };
    const all = Buffer.concat(pending);
    // First two frames one byte at a time, the third glued to the end of the second.
    void (async () => {
      for (let i = 0; i < all.length - frame.length; i++) {
        req.socket.write(all.subarray(i, i + 1));
        await new Promise((r) => setImmediate(r));
      }
      req.socket.write(frame);
    })();
    return { none: true };
  });
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const responses = await Promise.all(['a', 'b', 'c'].map((n) => conn.send(Metadata, 9, metadataOf(n))));
  assert.deepEqual(
    responses.map((r) => r.topics[0]?.name),
    ['a', 'b', 'c'],
  );
});

test('a response above maxResponseBytes fails with ERR_TRIB_RESPONSE_TOO_LARGE and closes', async (t) => {
  const broker = await FakeBroker.start(
    withApiVersions(() => {
      const raw = Buffer.alloc(8);
      raw.writeInt32BE(10_000, 0);
      return { raw };
    }),
  );
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port, maxResponseBytes: 4096 });
  const first = conn.send(Metadata, 9, metadataOf('x'));
  const second = conn.send(Metadata, 9, metadataOf('y'));
  await expectCode(first, ClientErrorCode.RESPONSE_TOO_LARGE);
  await expectCode(second, ClientErrorCode.CONNECTION_CLOSED);
  assert.equal(conn.isClosed, true);
});

test('a request timeout fails that request, then closes the connection for the others', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(() => ({ none: true })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 5_000 });
  const slow = conn.send(Metadata, 9, metadataOf('a'), { timeoutMs: 50 });
  const other = conn.send(Metadata, 9, metadataOf('b'));
  const started = performance.now();
  const err = await expectCode(slow, ClientErrorCode.REQUEST_TIMEOUT);
  assert.match(err.message, /Metadata v9 .* 50 ms/);
  const closed = await expectCode(other, ClientErrorCode.CONNECTION_CLOSED);
  assert.ok(closed.cause instanceof TributaryClientError);
  assert.ok(performance.now() - started < 2_000);
  assert.equal(conn.isClosed, true);
  await expectCode(conn.send(Metadata, 9, metadataOf('c')), ClientErrorCode.CONNECTION_CLOSED);
});

test('the broker closing the connection fails pending requests with ERR_TRIB_CONNECTION_CLOSED', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(() => ({ close: true })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  const err = await expectCode(conn.send(Metadata, 9, metadataOf('a')), ClientErrorCode.CONNECTION_CLOSED);
  assert.match(err.message, /closed by the broker/);
  assert.equal(conn.isClosed, true);
});

test('close() fails pending requests and later sends', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(() => ({ none: true })));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  const pending = expectCode(conn.send(Metadata, 9, metadataOf('a')), ClientErrorCode.CONNECTION_CLOSED);
  await conn.close();
  const err = await pending;
  assert.match(err.message, /closed by the client/);
  await expectCode(conn.send(Metadata, 9, metadataOf('b')), ClientErrorCode.CONNECTION_CLOSED);
  await conn.close(); // idempotent
});

test('a mismatched correlation id is a protocol error', async (t) => {
  const broker = await FakeBroker.start(
    withApiVersions((req) => ({ raw: encodeResponse({ apiKey: 3, correlationId: req.correlationId + 1000 }, echoMetadata(req).body, 9) })),
  );
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  const err = await expectCode(conn.send(Metadata, 9, metadataOf('a')), ClientErrorCode.PROTOCOL);
  assert.match(err.message, /correlation id/);
  assert.equal(conn.isClosed, true);
});

test('an undecodable body fails only its request', async (t) => {
  let n = 0;
  const broker = await FakeBroker.start(
    withApiVersions((req) => {
      n++;
      if (n === 1) {
        const raw = Buffer.alloc(4 + 4 + 3);
        raw.writeInt32BE(7, 0);
        raw.writeInt32BE(req.correlationId, 4);
        return { raw };
      }
      return echoMetadata(req);
    }),
  );
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const bad = conn.send(Metadata, 9, metadataOf('a'));
  const good = conn.send(Metadata, 9, metadataOf('b'));
  await expectCode(bad, ClientErrorCode.PROTOCOL);
  assert.equal((await good).topics[0]?.name, 'b');
  assert.equal(conn.isClosed, false);
});

test('one-way requests (acks=0 produce) expect no response and keep the order', async (t) => {
  const broker = await FakeBroker.start(withApiVersions((req) => (req.apiKey === 0 ? { none: true } : echoMetadata(req))));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const produce = { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records: null }] }] };
  const before = conn.send(Metadata, 9, metadataOf('before'));
  await conn.sendOneWay(ProduceRequest, 7, produce);
  const after = conn.send(Metadata, 9, metadataOf('after'));
  assert.equal((await before).topics[0]?.name, 'before');
  assert.equal((await after).topics[0]?.name, 'after');
  assert.deepEqual(
    broker.requests.map((r) => r.apiKey),
    [18, 3, 0, 3],
  );
  assert.equal(conn.inFlightCount, 0);
});

test('connection refused is ERR_TRIB_CONNECTION', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const err = await expectCode(Connection.connect({ host: '127.0.0.1', port }), ClientErrorCode.CONNECTION);
  assert.match(err.message, /refused/);
});

test('a broker that never answers ApiVersions fails connect with a timeout', async (t) => {
  const broker = await FakeBroker.start(() => ({ none: true }));
  t.after(() => broker.stop());
  await expectCode(Connection.connect({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 50 }), ClientErrorCode.REQUEST_TIMEOUT);
});

test('requests above maxRequestBytes are refused before sending', async (t) => {
  const broker = await FakeBroker.start(withApiVersions(echoMetadata));
  t.after(() => broker.stop());
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port, maxRequestBytes: 100 });
  t.after(() => conn.close());
  const names = Array.from({ length: 50 }, (_, i) => `a-long-topic-name-${i}`);
  await expectCode(conn.send(Metadata, 9, metadataOf(...names)), ClientErrorCode.REQUEST_TOO_LARGE);
  assert.equal((await conn.send(Metadata, 9, metadataOf('ok'))).topics[0]?.name, 'ok');
});

test('the client API table stays within the fake broker ranges', () => {
  for (const api of Object.values(Apis)) {
    assert.ok(api.minVersion <= api.maxVersion, api.request.name);
    assert.ok(api.maxVersion <= api.request.maxVersion, api.request.name);
  }
  assert.ok(FAKE_API_VERSIONS.length > 0);
});
