/**
 * A broker that accepts TCP but stops answering (SIGSTOP, a hung process)
 * must not hold up requests any other broker could answer: found when a
 * SIGSTOPped partition leader that was also the producer's bootstrap broker
 * kept the producer's metadata refresh, and so its failover, waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/client/cluster.js';
import { FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

/** Brokers-only Metadata naming both fakes. */
function brokersReply(ports: readonly number[]): FakeReply {
  return { body: { throttleTimeMs: 0, brokers: ports.map((port, i) => ({ nodeId: i + 1, host: '127.0.0.1', port, rack: null })), clusterId: 'fake', controllerId: 1, topics: [] } };
}

/** Two fakes answering ApiVersions and Metadata; `silent.on` makes the first one answer nothing from then on. */
async function twoBrokers(): Promise<{ first: FakeBroker; second: FakeBroker; silent: { on: boolean; since: number }; stop(): Promise<void> }> {
  const silent = { on: false, since: 0 };
  const ports: number[] = [];
  const answer = (req: FakeRequest): FakeReply => (req.apiKey === 3 ? brokersReply(ports) : { none: true });
  const first = await FakeBroker.start((req, b) => (silent.on ? { none: true } : withApiVersions(answer)(req, b)));
  const second = await FakeBroker.start(withApiVersions(answer));
  ports.push(first.port, second.port);
  return { first, second, silent, stop: async () => void (await Promise.all([first.stop(), second.stop()])) };
}

test('after a request to a broker times out, requests any broker answers go to another one', async (t) => {
  const fakes = await twoBrokers();
  t.after(() => fakes.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${fakes.first.port},127.0.0.1:${fakes.second.port}`, requestTimeoutMs: 300, connectTimeoutMs: 300, retries: 0 });
  t.after(() => cluster.close());
  // The bootstrap connection went to the first broker; it now stops answering.
  fakes.silent.on = true;
  const askedFirstBefore = fakes.first.requests.length;
  await assert.rejects(cluster.refreshMetadata([]), /timed out|no response/);
  const secondBefore = fakes.second.requests.filter((r) => r.apiKey === 3).length;
  await cluster.refreshMetadata([]);
  await cluster.refreshMetadata([]);
  assert.equal(fakes.first.requests.length - askedFirstBefore, 1, 'only the request that timed out went to the silent broker (no new connection, no handshake)');
  assert.equal(fakes.second.requests.filter((r) => r.apiKey === 3).length - secondBefore, 2, 'both refreshes went to the other broker');
});

test('a broker that accepts the connection but never answers the handshake fails within the connect timeout', async (t) => {
  const fakes = await twoBrokers();
  t.after(() => fakes.stop());
  fakes.silent.on = true;
  const started = performance.now();
  // The request timeout is long: only the connect timeout can bound the handshake.
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${fakes.first.port},127.0.0.1:${fakes.second.port}`, requestTimeoutMs: 60_000, connectTimeoutMs: 300, retries: 0 });
  t.after(() => cluster.close());
  const tookMs = performance.now() - started;
  assert.ok(tookMs < 20_000, `connected through the second broker after ${Math.round(tookMs)} ms, not after the 60 s request timeout`);
  assert.equal(fakes.first.requests.filter((r) => r.apiKey === 18).length, 1, 'the silent broker got the handshake');
  assert.ok(fakes.second.requests.some((r) => r.apiKey === 3), 'the metadata came from the second broker');
});
