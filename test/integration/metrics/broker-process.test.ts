/**
 * `tributary start` with metrics on, as an operator runs it: the startup
 * line names the metrics URL, /health is 200 once clients can connect,
 * records produced with kcat (librdkafka) are counted, a debug request log
 * line is written when log.level=debug, and SIGTERM closes the listener.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startBroker } from '../../helpers/broker-process.js';
import { assertKcatProduceClean, kcatProduce } from '../../helpers/kcat.js';
import { scrape, value } from '../../helpers/prometheus-text.js';

test('a broker process serves /metrics and /health on metrics.listeners', async (t) => {
  const metricsPort = await freePort();
  const broker = await startBroker({ name: 'metrics', overrides: { 'metrics.listeners': `http://127.0.0.1:${metricsPort}`, 'log.level': 'debug' } });
  t.after(() => broker.cleanup());
  const url = `http://127.0.0.1:${metricsPort}`;
  await broker.explain(async () => {
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'ok');

    const lines = Array.from({ length: 25 }, (_, i) => `k${i}:value-${i}`);
    assertKcatProduceClean(await kcatProduce(broker.bootstrap, 'metered', lines));
    const m = await scrape(`${url}/metrics`);
    assert.equal(value(m, 'tributary_topic_records_in_total', { topic: 'metered' }), 25);
    assert.equal(value(m, 'tributary_log_end_offset', { topic: 'metered', partition: 0 }), 25);
    assert.ok((value(m, 'tributary_requests_total', { api: 'Produce', version: '7' }) ?? 0) >= 1, 'librdkafka produces with v7');
    assert.ok((value(m, 'tributary_requests_total', { api: 'ApiVersions', version: '3' }) ?? 0) >= 1);

    const output = broker.tail(400);
    assert.match(output, new RegExp(`listening on PLAINTEXT://127\\.0\\.0\\.1:\\d+; data in .*; metrics on http://127\\.0\\.0\\.1:${metricsPort}/metrics`));
    const requestLine = output.split('\n').find((l) => l.includes('"msg":"request"') && l.includes('"api":"Produce"'));
    assert.ok(requestLine, 'a debug request line for Produce');
    const entry = JSON.parse(requestLine) as Record<string, unknown>;
    assert.equal(entry['clientId'], 'rdkafka');
    assert.equal(typeof entry['correlationId'], 'number');
    assert.equal(typeof entry['latencyMs'], 'number');
  });
  const stopped = await broker.stop();
  assert.equal(stopped.code, 0);
  await assert.rejects(fetch(`${url}/health`));
});
