/**
 * The hot-path accumulators: RequestMetrics (per API version counts, errors,
 * latency buckets, rejections), TrafficMetrics (per-topic bytes/records,
 * partition errors), and the small helpers around them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_LATENCY_BUCKETS_SECONDS, RequestMetrics, topLevelErrorCode } from '../../../../src/broker/request-metrics.js';
import { TrafficMetrics } from '../../../../src/broker/metrics/traffic.js';
import { formatHttpEndpoint, parseHttpEndpoint } from '../../../../src/broker/metrics/endpoints.js';
import { LOGGED_PARTITIONS_MAX, requestPartitions } from '../../../../src/broker/metrics/log-context.js';

test('RequestMetrics counts per API key and version, buckets latencies, counts errors', () => {
  const m = new RequestMetrics();
  m.requestStarted(0);
  m.requestStarted(0);
  m.requestStarted(1);
  assert.equal(m.inFlight(), 3);
  m.requestCompleted(0, 0.5, 7); // exactly the first bound (0.0005 s): le is inclusive
  m.requestCompleted(0, 2, 7, true);
  m.requestCompleted(1, 120_000, 11); // above every bound: +Inf only
  assert.equal(m.inFlight(), 0);
  const versions = [...m.versions()];
  const produce = versions.find((v) => v.apiKey === 0 && v.apiVersion === 7);
  const fetch = versions.find((v) => v.apiKey === 1 && v.apiVersion === 11);
  assert.equal(produce?.requests, 2);
  assert.equal(produce?.errors, 1);
  assert.equal(produce?.bucketCounts[0], 1);
  assert.equal(produce?.bucketCounts[REQUEST_LATENCY_BUCKETS_SECONDS.indexOf(0.0025)], 1);
  assert.ok(Math.abs((produce?.latencySecondsSum ?? 0) - 0.0025) < 1e-12);
  assert.equal(fetch?.bucketCounts[REQUEST_LATENCY_BUCKETS_SECONDS.length], 1);
  assert.equal(fetch?.bucketCounts.reduce((a, b) => a + b, 0), 1);
  // The older per-key view still adds up.
  assert.deepEqual(m.snapshot().get(0), { started: 2, completed: 2, latencyMsTotal: 2.5 });
  m.requestRejected('malformed');
  m.requestRejected('malformed');
  assert.equal(m.rejected().get('malformed'), 2);
});

test('topLevelErrorCode reads a response body defensively', () => {
  assert.equal(topLevelErrorCode({ errorCode: 15 }), 15);
  assert.equal(topLevelErrorCode({ errorCode: 0, responses: [] }), 0);
  assert.equal(topLevelErrorCode({ responses: [{ errorCode: 3 }] }), 0);
  assert.equal(topLevelErrorCode(Symbol('no response')), 0);
  assert.equal(topLevelErrorCode(null), 0);
  assert.equal(topLevelErrorCode({ errorCode: 'x' }), 0);
});

test('TrafficMetrics: bytes and records in, bytes out from Buffers and chunk lists, partition errors', () => {
  const t = new TrafficMetrics();
  t.produced('a', 100, 3);
  t.produced('a', 50, 1);
  t.produceAnswered([{ partitions: [{ errorCode: 0 }, { errorCode: 3 }] }]);
  t.fetchAnswered([
    { topic: 'a', partitions: [{ errorCode: 0, records: Buffer.alloc(70) }, { errorCode: 0, records: { chunks: [], byteLength: 30 } }] },
    { topic: 'b', partitions: [{ errorCode: 6, records: Buffer.alloc(0) }, { errorCode: -1, records: null }] },
  ]);
  assert.deepEqual(t.topicTraffic().get('a'), { bytesIn: 150, recordsIn: 4, bytesOut: 100 });
  assert.equal(t.topicTraffic().has('b'), false, 'no entry for a topic that moved no data');
  assert.deepEqual(
    [...t.partitionErrors()].sort((x, y) => x.apiKey - y.apiKey || x.errorCode - y.errorCode),
    [
      { apiKey: 0, errorCode: 3, count: 1 },
      { apiKey: 1, errorCode: -1, count: 1 },
      { apiKey: 1, errorCode: 6, count: 1 },
    ],
  );
  t.forgetTopic('a');
  assert.equal(t.topicTraffic().size, 0);
});

test('metrics.listeners entries parse to host and port', () => {
  assert.deepEqual(parseHttpEndpoint('http://127.0.0.1:9404'), { host: '127.0.0.1', port: 9404 });
  assert.deepEqual(parseHttpEndpoint('http://:0'), { host: '', port: 0 });
  assert.deepEqual(parseHttpEndpoint('http://[::1]:9404'), { host: '::1', port: 9404 });
  assert.equal(formatHttpEndpoint({ host: '::1', port: 1 }), 'http://[::1]:1');
  assert.equal(formatHttpEndpoint({ host: '', port: 2 }), 'http://0.0.0.0:2');
  for (const bad of ['https://h:1', 'http://h', 'http://h:70000', 'h:1', 'http://h:1/metrics']) {
    assert.throws(() => parseHttpEndpoint(bad), new RegExp(`"${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`));
  }
});

test('requestPartitions names the topic-partitions of a failed request, bounded', () => {
  assert.deepEqual(requestPartitions({ topicData: [{ name: 'orders', partitionData: [{ index: 0 }, { index: 3 }] }] }), ['orders-0', 'orders-3']);
  assert.deepEqual(requestPartitions({ topics: [{ topic: 'f', partitions: [{ partition: 1, fetchOffset: 0n }] }] }), ['f-1']);
  assert.deepEqual(requestPartitions({ topics: [{ name: 'c', partitions: [{ partitionIndex: 2 }] }] }), ['c-2']);
  assert.deepEqual(requestPartitions({ topics: [{ name: 'new-topic', numPartitions: 3 }] }), ['new-topic']);
  assert.deepEqual(requestPartitions({ groupId: 'g' }), []);
  assert.deepEqual(requestPartitions(null), []);
  const many = requestPartitions({ topics: [{ topic: 'x', partitions: Array.from({ length: 25 }, (_, i) => ({ partition: i })) }] });
  assert.equal(many.length, LOGGED_PARTITIONS_MAX + 1);
  assert.equal(many[many.length - 1], '(+5 more)');
});
