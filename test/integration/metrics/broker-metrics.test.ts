/**
 * The metrics listener of an in-process broker, scraped with fetch() and
 * parsed with the test helper's Prometheus parser, during and after real
 * traffic over the wire (our codec via RawClient): bytes and records in per
 * topic equal what was produced, bytes out what was fetched, request counts
 * and latency histograms per API and version, the connection gauge,
 * per-partition log gauges, consumer-group lag from committed offsets,
 * refused requests, /health, and the listener closing on shutdown. Also the
 * debug request log line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startBroker, type RunningBroker } from '../../../src/broker/broker.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';
import { RawClient, startInProcessBroker } from '../../helpers/in-process-broker.js';
import { recordBatch, requestFrame } from '../../helpers/raw-kafka.js';
import { histogram, scrape, sum, value, type Metrics } from '../../helpers/prometheus-text.js';

interface MetricsBroker {
  broker: RunningBroker;
  port: number;
  url: string;
  logLines: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** A broker with `metrics.listeners=http://127.0.0.1:0` (through startBroker, as `tributary start` does), logging at debug into an array. */
async function startMetricsBroker(overrides: Record<string, string> = {}): Promise<MetricsBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trib-metrics-'));
  const config = parseBrokerConfig({
    listeners: 'PLAINTEXT://127.0.0.1:0',
    'log.dirs': dataDir,
    'metrics.listeners': 'http://127.0.0.1:0',
    'offsets.topic.num.partitions': '2',
    ...overrides,
  });
  const logLines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const broker = await startBroker(config, { logger });
  const url = broker.metricsAddresses[0]?.url;
  assert.ok(url !== undefined, 'the bound metrics address is exposed');
  return {
    broker,
    port: (broker.boundAddresses[0] as { port: number }).port,
    url,
    logLines,
    async stop() {
      await broker.stop('test done');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let nextCorrelationId = 1000;

/** Sends one request and returns its decoded response. */
async function call(c: RawClient, apiKey: number, version: number, body: unknown): Promise<Record<string, unknown>> {
  const correlationId = nextCorrelationId++;
  c.send(apiKey, version, correlationId, body);
  for (;;) {
    const arrival = c.arrivals.find((a) => a.correlationId === correlationId);
    if (arrival) return c.decode(apiKey, version, arrival.body);
    await c.waitFor(c.arrivals.length + 1);
  }
}

function produceBody(topic: string, partitions: { index: number; records: Buffer }[]): unknown {
  return { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: partitions }] };
}

function fetchBody(topic: string, partitions: number[]): unknown {
  return {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    topics: [{ topic, partitions: partitions.map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })) }],
  };
}

function batchOf(n: number, tag: string): Buffer {
  return recordBatch(Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`${tag}-${i}-${'x'.repeat(i)}`) })));
}

async function untilMetric(url: string, check: (m: Metrics) => boolean, timeoutMs = 5000): Promise<Metrics> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const m = await scrape(`${url}/metrics`);
    if (check(m)) return m;
    if (performance.now() > deadline) throw new Error('metric condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createTopic(b: MetricsBroker, name: string, partitions: number): Promise<void> {
  const [r] = await b.broker.services.metadata.createTopics([{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], false);
  assert.equal(r?.errorCode, 0);
}

test('produce/fetch traffic shows up in the metrics with exact values', async () => {
  const b = await startMetricsBroker();
  const c = await RawClient.connect(b.port);
  try {
    await createTopic(b, 'orders', 2);
    const batches = [batchOf(5, 'a'), batchOf(3, 'b')];
    const produced = await call(c, 0, 7, produceBody('orders', batches.map((records, index) => ({ index, records }))));
    assert.deepEqual(
      (produced['responses'] as { partitionResponses: { errorCode: number }[] }[])[0]?.partitionResponses.map((p) => p.errorCode),
      [0, 0],
    );
    await call(c, 1, 11, fetchBody('orders', [0, 1]));
    const bytesProduced = batches.reduce((a, x) => a + x.length, 0);

    const m = await scrape(`${b.url}/metrics`);
    assert.equal(value(m, 'tributary_topic_bytes_in_total', { topic: 'orders' }), bytesProduced);
    assert.equal(value(m, 'tributary_topic_records_in_total', { topic: 'orders' }), 8);
    assert.equal(value(m, 'tributary_topic_bytes_out_total', { topic: 'orders' }), bytesProduced);
    assert.equal(m.get('tributary_topic_bytes_in_total')?.type, 'counter');
    assert.equal(value(m, 'tributary_requests_total', { api: 'Produce', version: '7' }), 1);
    assert.equal(value(m, 'tributary_requests_total', { api: 'Fetch', version: '11' }), 1);
    assert.equal(value(m, 'tributary_request_errors_total', { api: 'Produce', version: '7' }), 0);
    const latency = histogram(m, 'tributary_request_latency_seconds', { api: 'Produce', version: '7' });
    assert.equal(latency?.count, 1);
    assert.ok((latency?.sum ?? -1) >= 0 && (latency?.sum ?? 99) < 5);
    assert.equal(value(m, 'tributary_connections', { listener: 'PLAINTEXT' }), 1);
    assert.ok((value(m, 'tributary_connections_accepted_total', { listener: 'PLAINTEXT' }) ?? 0) >= 1);

    for (const [partition, batch, count] of [[0, batches[0], 5], [1, batches[1], 3]] as const) {
      const labels = { topic: 'orders', partition };
      assert.equal(value(m, 'tributary_log_end_offset', labels), count);
      assert.equal(value(m, 'tributary_high_watermark', labels), count);
      assert.equal(value(m, 'tributary_log_start_offset', labels), 0);
      assert.equal(value(m, 'tributary_log_segments', labels), 1);
      assert.equal(value(m, 'tributary_log_size_bytes', labels), batch?.length);
    }
    assert.equal(value(m, 'tributary_partitions'), 2);
    assert.equal(value(m, 'tributary_leader_partitions'), 2);
    assert.equal(value(m, 'tributary_under_replicated_partitions'), 0);
    assert.equal(value(m, 'tributary_under_min_isr_partitions'), 0);
    assert.equal(value(m, 'tributary_at_min_isr_partitions'), 0, 'one replica: never "at" min ISR');
    assert.equal(value(m, 'tributary_isr_shrinks_total'), 0);
    assert.equal(value(m, 'tributary_isr_expands_total'), 0);
    assert.equal(value(m, 'tributary_replica_fetcher_max_lag'), 0, 'a single node follows nothing');
    assert.ok((value(m, 'process_resident_memory_bytes') ?? 0) > 0, 'default process metrics');
    assert.ok(m.has('nodejs_eventloop_lag_seconds'), 'event-loop lag');
    assert.equal(value(m, 'tributary_broker_info', { node_id: '1', cluster_id: b.broker.clusterId }), 1);

    // Partition-level errors are counted by API and error name, not as request errors.
    await call(c, 0, 7, produceBody('no-such-topic', [{ index: 0, records: batchOf(1, 'c') }]));
    const after = await scrape(`${b.url}/metrics`);
    assert.equal(value(after, 'tributary_partition_errors_total', { api: 'Produce', error: 'UNKNOWN_TOPIC_OR_PARTITION' }), 1);
    assert.equal(value(after, 'tributary_requests_total', { api: 'Produce', version: '7' }), 2);
    assert.equal(value(after, 'tributary_topic_bytes_in_total', { topic: 'orders' }), bytesProduced, 'refused batches are not counted in');

    // The debug request log line carries the request's identity and latency.
    const requestLog = b.logLines.find((l) => l['msg'] === 'request' && l['api'] === 'Fetch');
    assert.ok(requestLog, 'a debug "request" line for the fetch');
    assert.equal(requestLog['apiVersion'], 11);
    assert.equal(requestLog['clientId'], 'pipelining-test');
    assert.equal(typeof requestLog['correlationId'], 'number');
    assert.equal(typeof requestLog['latencyMs'], 'number');
    assert.equal(requestLog['level'], 20);
  } finally {
    c.close();
    await b.stop();
  }
});

test('scrapes during a burst of pipelined produces see counters only grow, and the final values add up', async () => {
  const b = await startMetricsBroker();
  const c = await RawClient.connect(b.port);
  try {
    await createTopic(b, 'burst', 1);
    const batch = batchOf(4, 'burst');
    const requests = 300;
    const seen: number[] = [];
    let done = false;
    const scraper = (async () => {
      while (!done) {
        const m = await scrape(`${b.url}/metrics`);
        seen.push(value(m, 'tributary_topic_records_in_total', { topic: 'burst' }) ?? 0);
      }
    })();
    const first = nextCorrelationId;
    for (let i = 0; i < requests; i++) c.send(0, 7, nextCorrelationId++, produceBody('burst', [{ index: 0, records: batch }]));
    await c.waitFor(requests, 30_000);
    assert.ok(c.arrivals.every((a) => a.correlationId >= first));
    done = true;
    await scraper;
    for (let i = 1; i < seen.length; i++) assert.ok((seen[i] as number) >= (seen[i - 1] as number), `scrape ${i} went back`);
    const m = await scrape(`${b.url}/metrics`);
    assert.equal(value(m, 'tributary_topic_records_in_total', { topic: 'burst' }), requests * 4);
    assert.equal(value(m, 'tributary_topic_bytes_in_total', { topic: 'burst' }), requests * batch.length);
    assert.equal(value(m, 'tributary_log_end_offset', { topic: 'burst', partition: 0 }), requests * 4);
    assert.equal(value(m, 'tributary_requests_total', { api: 'Produce', version: '7' }), requests);
    assert.equal(histogram(m, 'tributary_request_latency_seconds', { api: 'Produce', version: '7' })?.count, requests);
    assert.equal(value(m, 'tributary_requests_in_flight'), 0);
  } finally {
    c.close();
    await b.stop();
  }
});

test('consumer group lag from committed offsets; connections gauge; refused requests; health; close on stop', async () => {
  const b = await startMetricsBroker();
  const c = await RawClient.connect(b.port);
  try {
    const health = await fetch(`${b.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok', nodeId: 1, clusterId: b.broker.clusterId });

    await createTopic(b, 'events', 2);
    await call(c, 0, 7, produceBody('events', [{ index: 0, records: batchOf(10, 'e0') }, { index: 1, records: batchOf(4, 'e1') }]));
    // FindCoordinator creates __consumer_offsets; commit (standalone, generation -1) once its partition has loaded.
    await call(c, 10, 3, { key: 'lagging', keyType: 0 });
    const commitBody = {
      groupId: 'lagging',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: 'events', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }, { partitionIndex: 1, committedOffset: 4n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    };
    const deadline = performance.now() + 10_000;
    for (;;) {
      const r = (await call(c, 8, 8, commitBody)) as { topics: { partitions: { errorCode: number }[] }[] };
      const codes = r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode));
      if (codes.every((x) => x === 0)) break;
      assert.ok(codes.every((x) => x === 14 || x === 15 || x === 16), `commit errors ${codes.join(',')}`);
      assert.ok(performance.now() < deadline, 'the offsets partition never loaded');
      await new Promise((r2) => setTimeout(r2, 50));
    }
    let m = await scrape(`${b.url}/metrics`);
    assert.equal(value(m, 'tributary_consumer_group_committed_offset', { group: 'lagging', topic: 'events', partition: 0 }), 3);
    assert.equal(value(m, 'tributary_consumer_group_lag', { group: 'lagging', topic: 'events', partition: 0 }), 7);
    assert.equal(value(m, 'tributary_consumer_group_lag', { group: 'lagging', topic: 'events', partition: 1 }), 0);
    assert.equal(value(m, 'tributary_consumer_groups', { state: 'Empty' }), 1);
    // More data raises the lag on the next scrape (computed then, not kept on the hot path).
    await call(c, 0, 7, produceBody('events', [{ index: 1, records: batchOf(6, 'e1b') }]));
    m = await scrape(`${b.url}/metrics`);
    assert.equal(value(m, 'tributary_consumer_group_lag', { group: 'lagging', topic: 'events', partition: 1 }), 6);
    // __consumer_offsets partitions are hosted here too.
    assert.equal(value(m, 'tributary_partitions'), 4);

    // A second connection sends an unknown API key: refused, counted, closed.
    const rogue = await RawClient.connect(b.port);
    m = await untilMetric(b.url, (x) => value(x, 'tributary_connections', { listener: 'PLAINTEXT' }) === 2);
    rogue.socket.write(requestFrame(999, 0, 1, Buffer.alloc(0)));
    await rogue.waitFor(1, 5000);
    assert.ok(rogue.closed);
    m = await untilMetric(b.url, (x) => value(x, 'tributary_connections', { listener: 'PLAINTEXT' }) === 1);
    assert.equal(value(m, 'tributary_requests_rejected_total', { reason: 'unknown_api_key' }), 1);
    assert.equal(sum(m, 'tributary_requests_total', { api: 'Unknown(999)' }), 0);

    c.close();
    await untilMetric(b.url, (x) => value(x, 'tributary_connections', { listener: 'PLAINTEXT' }) === 0);
  } finally {
    c.close();
    await b.stop();
  }
  await assert.rejects(fetch(`${b.url}/health`), 'the metrics listener is closed after stop()');
});

test('a deleted topic drops its traffic series', async () => {
  const b = await startMetricsBroker();
  const c = await RawClient.connect(b.port);
  try {
    await createTopic(b, 'doomed', 1);
    await call(c, 0, 7, produceBody('doomed', [{ index: 0, records: batchOf(2, 'd') }]));
    let m = await scrape(`${b.url}/metrics`);
    assert.equal(value(m, 'tributary_topic_records_in_total', { topic: 'doomed' }), 2);
    const [r] = await b.broker.services.metadata.deleteTopics([{ name: 'doomed', topicId: null }]);
    assert.equal(r?.errorCode, 0);
    m = await untilMetric(b.url, (x) => value(x, 'tributary_log_end_offset', { topic: 'doomed', partition: 0 }) === undefined);
    assert.equal(value(m, 'tributary_topic_records_in_total', { topic: 'doomed' }), undefined);
  } finally {
    c.close();
    await b.stop();
  }
});

test('metrics are off by default: no listener, no addresses', async () => {
  const node = await startInProcessBroker();
  try {
    assert.deepEqual(node.broker.metricsAddresses, []);
  } finally {
    await node.stop();
  }
});
