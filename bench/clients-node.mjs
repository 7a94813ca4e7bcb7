#!/usr/bin/env node
// The other Node clients for bench/clients.sh: kafkajs and @platformatic/kafka, producing or consuming
// the same workload as `tributary bench produce|consume`, printing one JSON line with the same fields.
//
//   node bench/clients-node.mjs --client kafkajs|platformatic --mode produce|consume \
//        --bootstrap 127.0.0.1:9092 --topic T [--records 1000000] [--record-size 100] [--acks 1|-1]
//        [--chunk 1000] [--buffer-memory 33554432] [--timeout-s 300] [--partition-fetch-bytes 1048576]
//
// produce: one send() of --chunk messages at a time (neither client lingers: one send() is one Produce
//   request), as many in flight as fit in --buffer-memory (the same bound `tributary bench produce`
//   uses), idempotence off. Time = first send -> last acknowledgement. Latency = each send()'s
//   send -> acknowledgement, counted once per message, in an HDR histogram (hdr-histogram-js).
// consume: a consumer group from the earliest offset (kafkajs has no assign(); platformatic's consume()
//   joins a group too); the broker should run with group.initial.rebalance.delay.ms=0. Time = subscribe
//   -> the N-th message. Each run checks that it saw N messages and N x size payload bytes.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import hdr from 'hdr-histogram-js';
import { Kafka, logLevel, CompressionTypes } from 'kafkajs';
import { Producer as PfProducer, Consumer as PfConsumer } from '@platformatic/kafka';

const { values: o } = parseArgs({
  options: {
    client: { type: 'string' },
    mode: { type: 'string' },
    bootstrap: { type: 'string', default: '127.0.0.1:9092' },
    topic: { type: 'string' },
    records: { type: 'string', default: '1000000' },
    'record-size': { type: 'string', default: '100' },
    acks: { type: 'string', default: '1' },
    chunk: { type: 'string', default: '1000' },
    'buffer-memory': { type: 'string', default: String(32 * 1024 * 1024) },
    'timeout-s': { type: 'string', default: '300' },
    'partition-fetch-bytes': { type: 'string', default: String(1024 * 1024) },
  },
});
const CLIENTS = ['kafkajs', 'platformatic'];
const MODES = ['produce', 'consume'];
function usage(msg) {
  process.stderr.write(`clients-node: ${msg}\n`);
  process.exit(2);
}
if (!CLIENTS.includes(o.client)) usage(`--client must be one of ${CLIENTS.join(', ')}`);
if (!MODES.includes(o.mode)) usage(`--mode must be one of ${MODES.join(', ')}`);
if (!o.topic) usage('--topic is required');
const N = Number(o.records);
const SIZE = Number(o['record-size']);
const ACKS = o.acks === 'all' ? -1 : Number(o.acks);
const CHUNK = Number(o.chunk);
const WINDOW = Math.max(2 * CHUNK, Math.floor(Number(o['buffer-memory']) / (SIZE + 70)));
const TIMEOUT_MS = Number(o['timeout-s']) * 1000;
for (const [k, v] of [['records', N], ['record-size', SIZE], ['chunk', CHUNK]]) if (!Number.isSafeInteger(v) || v < 1) usage(`--${k} must be a positive integer`);
if (![0, 1, -1].includes(ACKS)) usage('--acks must be 0, 1, -1 or all');

function histogram() {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
}
function latencyMs(h) {
  if (h.totalCount === 0) return null;
  const max = h.maxValue;
  const at = (p) => Math.round(Math.min(max, h.getValueAtPercentile(p))) / 1000;
  return { count: h.totalCount, p50: at(50), p95: at(95), p99: at(99), p999: at(99.9), max: Math.round(max) / 1000 };
}

/** Bounds the run: rejects after TIMEOUT_MS (one timer). */
function deadline() {
  let timer;
  const p = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return { p, clear: () => clearTimeout(timer) };
}

/** The send loop shared by both producers: `send(n)` sends n messages and resolves on acknowledgement. */
async function produceLoop(send) {
  const h = histogram();
  const inFlight = [];
  let inFlightRecords = 0;
  let acked = 0;
  let firstError = null;
  const start = performance.now();
  for (let sent = 0; sent < N && firstError === null; ) {
    const n = Math.min(CHUNK, N - sent);
    while (inFlightRecords + n > WINDOW && inFlight.length > 0) await inFlight.shift();
    const t0 = performance.now();
    inFlightRecords += n;
    inFlight.push(
      send(n).then(
        () => {
          h.recordValueWithCount(Math.max(1, Math.round((performance.now() - t0) * 1000)), n);
          acked += n;
          inFlightRecords -= n;
        },
        (err) => {
          firstError ??= err;
          inFlightRecords -= n;
        },
      ),
    );
    sent += n;
  }
  await Promise.all(inFlight);
  const ms = performance.now() - start;
  return { ms, records: acked, bytes: acked * SIZE, latency: latencyMs(h), error: firstError };
}

async function kafkajsProduce() {
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: [o.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
  await producer.connect();
  const payload = randomBytes(SIZE);
  const chunks = new Map();
  const messagesOf = (n) => {
    let m = chunks.get(n);
    if (m === undefined) chunks.set(n, (m = Array.from({ length: n }, () => ({ value: payload }))));
    return m;
  };
  try {
    return await produceLoop((n) => producer.send({ topic: o.topic, acks: ACKS, compression: CompressionTypes.None, messages: messagesOf(n) }));
  } finally {
    await producer.disconnect();
  }
}

async function platformaticProduce() {
  const producer = new PfProducer({ clientId: 'bench-platformatic', bootstrapBrokers: [o.bootstrap], acks: ACKS, idempotent: false, autocreateTopics: false });
  const payload = randomBytes(SIZE);
  const chunks = new Map();
  const messagesOf = (n) => {
    let m = chunks.get(n);
    if (m === undefined) chunks.set(n, (m = Array.from({ length: n }, () => ({ topic: o.topic, value: payload }))));
    return m;
  };
  try {
    return await produceLoop((n) => producer.send({ messages: messagesOf(n) }));
  } finally {
    await producer.close();
  }
}

// max.partition.fetch.bytes: clients.sh passes the same value to `tributary bench consume`.
const FETCH = { maxWaitMs: 500, maxBytes: 50 * 1024 * 1024, partitionBytes: Number(o['partition-fetch-bytes']) };

async function kafkajsConsume() {
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: [o.bootstrap], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({
    groupId: `bench-kafkajs-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: FETCH.maxWaitMs,
    maxBytes: FETCH.maxBytes,
    maxBytesPerPartition: FETCH.partitionBytes,
    sessionTimeout: 30_000,
  });
  await consumer.connect();
  let records = 0;
  let bytes = 0;
  let firstAt = null;
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  const start = performance.now();
  await consumer.subscribe({ topic: o.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      if (records >= N) return;
      firstAt ??= performance.now();
      for (const m of batch.messages) {
        bytes += m.value.length;
        if (++records >= N) break;
      }
      if (records >= N) resolveDone(performance.now());
    },
  });
  const limit = deadline();
  try {
    const end = await Promise.race([done, limit.p]);
    return { ms: end - start, records, bytes, firstRecordAfterMs: firstAt - start };
  } finally {
    limit.clear();
    await consumer.disconnect();
  }
}

async function platformaticConsume() {
  const consumer = new PfConsumer({ groupId: `bench-platformatic-${process.pid}-${Date.now()}`, clientId: 'bench-platformatic', bootstrapBrokers: [o.bootstrap] });
  let records = 0;
  let bytes = 0;
  let firstAt = null;
  const start = performance.now();
  const stream = await consumer.consume({
    topics: [o.topic],
    mode: 'earliest',
    autocommit: false,
    maxWaitTime: FETCH.maxWaitMs,
    maxBytes: FETCH.maxBytes,
    maxBytesPerPartition: FETCH.partitionBytes,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
  });
  const limit = deadline();
  let end = 0;
  try {
    await Promise.race([
      (async () => {
        for await (const message of stream) {
          firstAt ??= performance.now();
          bytes += message.value.length;
          if (++records >= N) break;
        }
        end = performance.now();
      })(),
      limit.p,
    ]);
    return { ms: end - start, records, bytes, firstRecordAfterMs: firstAt - start };
  } finally {
    limit.clear();
    await stream.close().catch(() => undefined);
    await consumer.close(true).catch(() => undefined);
  }
}

const runs = {
  kafkajs: { produce: kafkajsProduce, consume: kafkajsConsume },
  platformatic: { produce: platformaticProduce, consume: platformaticConsume },
};

const limit = deadline();
let result;
try {
  result = await Promise.race([runs[o.client][o.mode](), limit.p]);
} catch (err) {
  process.stderr.write(`clients-node ${o.client} ${o.mode}: ${err?.stack ?? err}\n`);
  process.exit(1);
} finally {
  limit.clear();
}
const seconds = result.ms / 1000;
const out = {
  bench: o.mode,
  client: o.client,
  topic: o.topic,
  records: result.records,
  bytes: result.bytes,
  elapsedMs: Math.round(result.ms * 1000) / 1000,
  recordsPerSec: Math.round(result.records / seconds),
  mbPerSec: Math.round((result.bytes / 1e6 / seconds) * 100) / 100,
  ...(result.latency === undefined ? {} : { latencyMs: result.latency }),
  ...(result.firstRecordAfterMs === undefined ? {} : { firstRecordAfterMs: Math.round(result.firstRecordAfterMs * 10) / 10 }),
  settings: { acks: ACKS, recordSize: SIZE, chunk: CHUNK, windowRecords: WINDOW, idempotent: false },
};
process.stdout.write(`${JSON.stringify(out)}\n`);
const ok = result.records === N && result.bytes === N * SIZE && !result.error;
if (!ok) {
  process.stderr.write(`clients-node ${o.client} ${o.mode}: ${result.records} of ${N} records, ${result.bytes} bytes${result.error ? `; first error: ${result.error.message}` : ''}\n`);
  process.exit(1);
}
// Clients may leave sockets or timers behind after close; the result is out.
process.exit(0);
