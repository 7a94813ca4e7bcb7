/**
 * The metrics HTTP listener on its own: /health follows the broker state
 * (503 starting, 200 serving, 503 stopping), /metrics serves the registry as
 * Prometheus text, other paths 404, other methods 405; a failed bind leaves
 * nothing open; close() drops keep-alive connections.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { MetricsHttpServer } from '../../../../src/broker/metrics/http-server.js';
import { parsePrometheusText, value } from '../../../helpers/prometheus-text.js';

const silent = pino({ level: 'silent' });

async function startServer(): Promise<{ server: MetricsHttpServer; url: string; registry: Registry }> {
  const registry = new Registry();
  new Counter({ name: 'unit_things_total', help: 'things', registers: [registry] }).inc(7);
  const server = await MetricsHttpServer.start([{ host: '127.0.0.1', port: 0 }], registry, silent);
  const url = server.addresses[0]?.url;
  assert.ok(url !== undefined && /^http:\/\/127\.0\.0\.1:\d+$/.test(url));
  assert.notEqual(server.addresses[0]?.port, 0, 'the bound port is reported');
  return { server, url, registry };
}

test('/health: 503 while starting, 200 while serving, 503 while stopping', async () => {
  const { server, url } = await startServer();
  try {
    let res = await fetch(`${url}/health`);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: 'starting' });
    server.setHealthDetails(() => ({ nodeId: 3 }));
    server.setState('serving');
    res = await fetch(`${url}/health`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { status: 'ok', nodeId: 3 });
    server.setState('stopping');
    res = await fetch(`${url}/health`);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: 'stopping', nodeId: 3 });
  } finally {
    await server.close();
  }
});

test('/metrics serves the registry; unknown paths 404; other methods 405; HEAD has no body', async () => {
  const { server, url } = await startServer();
  try {
    const res = await fetch(`${url}/metrics?x=1`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(value(parsePrometheusText(await res.text()), 'unit_things_total'), 7);
    const missing = await fetch(`${url}/`);
    assert.equal(missing.status, 404);
    await missing.text();
    const post = await fetch(`${url}/metrics`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await post.text();
    const head = await fetch(`${url}/health`, { method: 'HEAD' });
    assert.equal(head.status, 503);
    assert.equal(await head.text(), '');
  } finally {
    await server.close();
  }
});

test('a collector that throws answers 500 and the listener keeps serving', async () => {
  const { server, url, registry } = await startServer();
  try {
    new Counter({
      name: 'unit_broken_total',
      help: 'throws at scrape',
      registers: [registry],
      collect() {
        throw new Error('boom');
      },
    });
    const res = await fetch(`${url}/metrics`);
    assert.equal(res.status, 500);
    await res.text();
    registry.removeSingleMetric('unit_broken_total');
    assert.equal((await fetch(`${url}/metrics`)).status, 200);
  } finally {
    await server.close();
  }
});

test('close() stops listening even with a keep-alive connection open', async () => {
  const { server, url } = await startServer();
  const res = await fetch(`${url}/metrics`, { headers: { connection: 'keep-alive' } });
  await res.text();
  await server.close();
  await assert.rejects(fetch(`${url}/metrics`));
});

test('a port in use fails start() and leaves the other endpoints closed', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const address = blocker.address();
  assert.ok(typeof address === 'object' && address !== null);
  try {
    const registry = new Registry();
    await assert.rejects(
      MetricsHttpServer.start([{ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port: address.port }], registry, silent),
      /EADDRINUSE/,
    );
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
});
