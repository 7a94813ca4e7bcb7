#!/usr/bin/env node
// Broker CPU per request at linger 0, in closed loop (issue 17, bench/README.md "Per-request cost").
//
// The e2e phase of run.sh measures the same path, but its µs per record depends on how the broker
// is scheduled: a broker that falls behind reads several Produce requests per socket read and
// answers a Fetch with several batches, so on a loaded machine it spends *less* per record. Here
// one Produce (one batch of one record) is in flight at a time, and a consumer connection keeps one
// long-poll Fetch (Fetch v11, sessionless, minBytes 1, maxWaitMs 500) waiting at the log end, so
// every record costs exactly one Produce and one Fetch, whatever the load. Raw protocol over two
// sockets (no client library: its batching and its CPU stay out of the way).
//
//   node bench/request-cost.mjs [--dist DIST] [--count 20000] [--warmup 2000] [--size 100] [--profile DIR]
//
// Prints one JSON line: broker CPU µs per record (user + system from /proc/<pid>/stat), the
// produce round trip and the produce-to-fetch latency percentiles (ms), and the load average.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const { values: opts } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    count: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '2000' },
    size: { type: 'string', default: '100' },
    // Writes the broker's CPU profile (node --cpu-prof) into this directory.
    profile: { type: 'string' },
    // More node arguments for the broker, e.g. --node-args=--trace-gc (its stdout is then shown).
    'node-args': { type: 'string' },
  },
});
const DIST = resolve(opts.dist);
const COUNT = Number(opts.count);
const WARMUP = Number(opts.warmup);
const SIZE = Number(opts.size);
// The client side (codec, batch builder) always comes from this checkout's dist: only the broker differs.
const here = (p) => pathToFileURL(resolve(new URL('..', import.meta.url).pathname, 'dist', p)).href;
const { compile } = await import(here('src/protocol/codec.js'));
const { Writer } = await import(here('src/protocol/primitives/writer.js'));
const { Reader } = await import(here('src/protocol/primitives/reader.js'));
const { writeRequestHeader, readResponseHeader } = await import(here('src/protocol/headers.js'));
const { buildRecordBatchSync } = await import(here('src/protocol/record-batch/builder.js'));
const { ProduceRequest, ProduceResponse } = await import(here('src/protocol/messages/00-produce.js'));
const { FetchRequest, FetchResponse } = await import(here('src/protocol/messages/01-fetch.js'));
const { CreateTopicsRequest, CreateTopicsResponse } = await import(here('src/protocol/messages/19-create-topics.js'));

const TOPIC = 'request-cost';
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
};
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** One connection: request/response with correlation ids, one response at a time per request. */
function connect(port) {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  const waiting = new Map();
  let correlationId = 0;
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
      const size = buffered.readInt32BE(0);
      const frame = buffered.subarray(4, 4 + size);
      buffered = buffered.subarray(4 + size);
      const r = new Reader(frame);
      const w = waiting.get(r.buffer.readInt32BE(0));
      waiting.delete(r.buffer.readInt32BE(0));
      readResponseHeader(r, w.headerVersion);
      w.resolve(compile(w.schema, w.version).read(r));
    }
  });
  const ready = new Promise((res, rej) => { socket.once('connect', res); socket.once('error', rej); });
  return {
    ready,
    socket,
    send(apiKey, version, request, response, body, flexible = false) {
      const w = new Writer(256);
      const size = w.reserveInt32();
      const id = ++correlationId;
      writeRequestHeader(w, { apiKey, apiVersion: version, correlationId: id, clientId: 'request-cost' }, flexible ? 2 : 1);
      compile(request, version).write(w, body);
      size.chunkOwner.writeInt32BE(w.length - 4, size.position);
      const p = new Promise((res) => waiting.set(id, { resolve: res, schema: response, version, headerVersion: flexible ? 1 : 0 }));
      socket.write(w.toBuffer());
      return p;
    },
  };
}

const port = Number(execFileSync('/usr/bin/python3', ['-c', "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"]).toString());
const dataDir = mkdtempSync(join(tmpdir(), 'request-cost-'));
const profileArgs = opts.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(opts.profile)}`];
const nodeArgs = opts['node-args'] === undefined ? [] : opts['node-args'].split(' ').filter((a) => a !== '');
const broker = spawn(process.execPath, [...profileArgs, ...nodeArgs, join(DIST, 'src/cli/main.js'), 'start', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dataDir}`, '--override', 'log.level=warn'], {
  stdio: ['ignore', nodeArgs.length > 0 ? 'inherit' : 'ignore', 'inherit'],
});
const stopBroker = () => { try { broker.kill('SIGTERM'); } catch { /* gone */ } };
process.on('exit', () => {
  stopBroker();
  try { rmSync(dataDir, { recursive: true, force: true }); } catch { /* the broker was still writing: left in tmp */ }
});

let admin;
for (let i = 0; ; i++) {
  try {
    admin = connect(port);
    await admin.ready;
    break;
  } catch {
    if (i > 300) throw new Error('broker did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}
await admin.send(19, 4, CreateTopicsRequest, CreateTopicsResponse, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
await new Promise((r) => setTimeout(r, 500)); // leadership settles

const producer = connect(port);
const consumer = connect(port);
await Promise.all([producer.ready, consumer.ready]);
const value = Buffer.alloc(SIZE, 0x61);
// The Fetch answer may come back before the Produce answer that names the offset: both sides are kept by offset.
const sentAt = new Map();
const seenAt = new Map();
const produceRtt = [];
const e2e = [];
let fetchOffset = 0n;
let consumed = 0;
let fetches = 0;
let emptyFetches = 0;
let stop = false;

async function consume() {
  while (!stop) {
    const res = await consumer.send(1, 11, FetchRequest, FetchResponse, {
      replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const now = performance.now();
    fetches++;
    const records = res.responses[0]?.partitions[0]?.records;
    if (!records || records.length === 0) {
      emptyFetches++;
      continue;
    }
    // Batches of one record each: walk the batch headers (baseOffset int64, batchLength int32).
    for (let p = 0; p + 12 <= records.length;) {
      const base = records.readBigInt64BE(p);
      const len = records.readInt32BE(p + 8);
      seenAt.set(base, now);
      fetchOffset = base + 1n;
      consumed++;
      p += 12 + len;
    }
  }
}

async function produce(n, record) {
  for (let i = 0; i < n; i++) {
    const batch = buildRecordBatchSync({ records: [{ value }] });
    const t0 = performance.now();
    const res = await producer.send(0, 7, ProduceRequest, ProduceResponse, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }] });
    const t1 = performance.now();
    const pr = res.responses[0].partitionResponses[0];
    if (pr.errorCode !== 0) throw new Error(`produce error ${pr.errorCode}`);
    if (record) { produceRtt.push(t1 - t0); sentAt.set(pr.baseOffset, t0); }
  }
}

const consuming = consume();
await produce(WARMUP, false);
const cpu0 = cpuMs(broker.pid);
const t0 = performance.now();
await produce(COUNT, true);
// Wait for the consumer to have every record.
while (consumed < WARMUP + COUNT && performance.now() - t0 < 600_000) await new Promise((r) => setTimeout(r, 5));
const elapsedMs = performance.now() - t0;
const cpu1 = cpuMs(broker.pid);
stop = true;
for (const [offset, t] of sentAt) {
  const seen = seenAt.get(offset);
  if (seen !== undefined) e2e.push(seen - t);
}
produceRtt.sort((a, b) => a - b);
e2e.sort((a, b) => a - b);
const round = (x) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  bench: 'request-cost', dist: DIST, records: COUNT, size: SIZE, received: e2e.length, fetches, empty_fetches: emptyFetches,
  broker_us_per_rec: round(((cpu1 - cpu0) * 1000) / COUNT),
  records_per_s: Math.round(COUNT / (elapsedMs / 1000)),
  produce_rtt_ms: { p50: round(pct(produceRtt, 50)), p99: round(pct(produceRtt, 99)), p999: round(pct(produceRtt, 99.9)) },
  e2e_ms: { p50: round(pct(e2e, 50)), p99: round(pct(e2e, 99)), p999: round(pct(e2e, 99.9)), max: round(e2e[e2e.length - 1] ?? 0) },
  loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
}));
const exited = new Promise((r) => broker.once('exit', r));
stopBroker();
await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
process.exit(0);
