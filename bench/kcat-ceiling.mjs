// kcat's own ceiling on this machine (issue 17, the two kcat rows): kcat producing and consuming
// through a Kafka server that does no work per record. It speaks just enough of the protocol for
// kcat and the watermark queries of librdkafka_bench.py (ApiVersions, Metadata, ListOffsets,
// Produce, Fetch, one partition per topic, node 0), with our protocol codec from the build:
//  - Produce: answered at once with the next offsets (the record count read from each batch
//    header); nothing is stored or checked.
//  - Fetch: one record batch of RECORDS_PER_BATCH records of the fetched size, built at start,
//    copied as many times as fit in the partition's byte limit with each copy's base offset set
//    (the CRC does not cover the base offset), the high watermark always ahead.
// So kcat's rate against it is the most kcat reaches here whatever the broker does; the broker's
// own rows in bench/run.sh's kcat phases are measured against this. `PHASES="kcat kcat-ceiling"
// bash bench/run.sh` runs both in one run.
//   node bench/kcat-ceiling.mjs [--dist dist] [--count 1000000] [--sizes 100,1024] [--rounds 1]
//   node bench/kcat-ceiling.mjs --serve [--dist dist]    (the server alone; prints its port)
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const opt = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const DIST = resolve(opt('dist', process.env.DIST ?? join(HERE, '..', 'dist')));
const RECORDS_PER_BATCH = 1000;

if (process.argv.includes('--serve')) await serve();
else await runKcat();

async function serve() {
  const load = (p) => import(pathToFileURL(join(DIST, 'src', 'protocol', p)).href);
  const { compile, isFlexible } = await load('codec.js');
  const { Reader } = await load('primitives/reader.js');
  const { Writer } = await load('primitives/writer.js');
  const headers = await load('headers.js');
  const { buildRecordBatchSync } = await load('record-batch/builder.js');
  const { ProduceRequest, ProduceResponse } = await load('messages/00-produce.js');
  const { FetchRequest, FetchResponse } = await load('messages/01-fetch.js');
  const { ListOffsetsRequest, ListOffsetsResponse } = await load('messages/02-list-offsets.js');
  const { MetadataRequest, MetadataResponse } = await load('messages/03-metadata.js');
  const { FindCoordinatorRequest, FindCoordinatorResponse } = await load('messages/10-find-coordinator.js');
  const { ApiVersionsRequest, ApiVersionsResponse } = await load('messages/18-api-versions.js');

  /** The versions librdkafka 2.0.2 needs to turn on its features (docs/compatibility.md), and no others. */
  const apis = new Map([
    [0, { req: ProduceRequest, res: ProduceResponse, min: 0, max: 7, handle: produce }],
    [1, { req: FetchRequest, res: FetchResponse, min: 4, max: 11, handle: fetch }],
    [2, { req: ListOffsetsRequest, res: ListOffsetsResponse, min: 0, max: 2, handle: listOffsets }],
    [3, { req: MetadataRequest, res: MetadataResponse, min: 0, max: 4, handle: metadata }],
    [10, { req: FindCoordinatorRequest, res: FindCoordinatorResponse, min: 0, max: 2, handle: () => ({ errorCode: 15, nodeId: -1, host: '', port: -1 }) }],
    [18, { req: ApiVersionsRequest, res: ApiVersionsResponse, min: 0, max: 3, handle: apiVersions }],
  ]);
  /** Log end per topic (partition 0): what Produce has acknowledged. */
  const produced = new Map();
  /** One prebuilt batch per record size, base offset 0. */
  const batches = new Map();
  let port = 0;

  function apiVersions() {
    return { errorCode: 0, apiKeys: [...apis].map(([apiKey, a]) => ({ apiKey, minVersion: a.min, maxVersion: a.max })), throttleTimeMs: 0 };
  }
  function metadata(req) {
    const names = req.topics === null ? [...produced.keys()] : req.topics.map((t) => t.name);
    for (const name of names) if (!produced.has(name)) produced.set(name, 0n);
    return {
      brokers: [{ nodeId: 0, host: '127.0.0.1', port, rack: null }],
      clusterId: 'kcat-ceiling',
      controllerId: 0,
      topics: names.map((name) => ({
        errorCode: 0, name, isInternal: false,
        partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }],
      })),
    };
  }
  function listOffsets(req) {
    return {
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          const end = produced.get(t.name) ?? 0n;
          const offset = p.timestamp === -2n ? 0n : end;
          return { partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [offset], timestamp: -1n, offset };
        }),
      })),
    };
  }
  function produce(req) {
    return {
      responses: req.topicData.map((t) => ({
        name: t.name,
        partitionResponses: t.partitionData.map((p) => {
          const base = produced.get(t.name) ?? 0n;
          let count = 0;
          // records: one or more batches; the record count is the int32 at byte 57 of each.
          for (let at = 0; p.records !== null && at + 61 <= p.records.length; at += 12 + p.records.readInt32BE(at + 8)) count += p.records.readInt32BE(at + 57);
          produced.set(t.name, base + BigInt(count));
          return { index: p.index, errorCode: 0, baseOffset: base, logAppendTimeMs: -1n, logStartOffset: 0n };
        }),
      })),
    };
  }
  function batchOf(size) {
    let b = batches.get(size);
    if (b === undefined) {
      const value = Buffer.alloc(size, 0x6b);
      b = buildRecordBatchSync({ records: Array.from({ length: RECORDS_PER_BATCH }, () => ({ value })), baseOffset: 0n });
      batches.set(size, b);
    }
    return b;
  }
  function fetch(req) {
    return {
      responses: req.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          // The record size is the topic's name suffix after the last '-' when numeric (bench topics
          // are named for it by runKcat), else 100 bytes.
          const size = Number(t.topic.split('-').pop()) || 100;
          const one = batchOf(size);
          const copies = Math.max(1, Math.floor(Math.min(p.partitionMaxBytes, req.maxBytes) / one.length));
          const records = Buffer.allocUnsafe(one.length * copies);
          for (let i = 0; i < copies; i++) {
            one.copy(records, i * one.length);
            records.writeBigInt64BE(p.fetchOffset + BigInt(i * RECORDS_PER_BATCH), i * one.length);
          }
          const hw = p.fetchOffset + BigInt(copies * RECORDS_PER_BATCH) + 1_000_000_000n;
          return { partitionIndex: p.partition, errorCode: 0, highWatermark: hw, lastStableOffset: hw, logStartOffset: 0n, abortedTransactions: [], records };
        }),
      })),
    };
  }

  const server = createServer((socket) => {
    socket.setNoDelay(true);
    // Chunks are joined once a whole frame is in (a 1 MB Produce arrives in many reads).
    const chunks = [];
    let buffered = 0;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      buffered += chunk.length;
      if (pending.length + buffered < 4) return;
      if (pending.length < 4 && chunks.length > 0) {
        pending = Buffer.concat([pending, ...chunks.splice(0)]);
        buffered = 0;
      }
      if (pending.length + buffered < 4 + pending.readInt32BE(0)) return;
      if (chunks.length > 0) {
        pending = Buffer.concat([pending, ...chunks.splice(0)]);
        buffered = 0;
      }
      socket.cork();
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0);
        answer(socket, pending.subarray(4, 4 + size));
        pending = pending.subarray(4 + size);
      }
      socket.uncork();
    });
    socket.on('error', () => {});
  });

  function answer(socket, frame) {
    const r = new Reader(frame, 0, frame.length);
    const header = headers.readRequestHeaderPrefix(r);
    const api = apis.get(header.apiKey);
    const version = api === undefined ? -1 : Math.min(header.apiVersion, api.max);
    if (api === undefined || header.apiVersion < api.min) return void socket.destroy(new Error(`api ${header.apiKey} v${header.apiVersion} not served`));
    const flexible = isFlexible(api.req, header.apiVersion);
    headers.readRequestHeaderRest(r, header, headers.requestHeaderVersion(header.apiKey, flexible));
    const body = compile(api.req, header.apiVersion).read(r);
    const w = new Writer();
    headers.writeResponseHeader(w, header.correlationId, headers.responseHeaderVersion(header.apiKey, isFlexible(api.res, version)));
    compile(api.res, version).write(w, api.handle(body));
    const out = w.toBuffer();
    const length = Buffer.allocUnsafe(4);
    length.writeInt32BE(out.length);
    socket.write(length);
    socket.write(out);
  }

  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  port = server.address().port;
  process.stdout.write(`${port}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

async function runKcat() {
  const count = Number(opt('count', '1000000'));
  const sizes = opt('sizes', '100,1024').split(',').map(Number);
  const rounds = Number(opt('rounds', '1'));
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', '--dist', DIST], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise((ok, fail) => {
      server.stdout.once('data', (d) => ok(Number(String(d).trim())));
      server.once('exit', (code) => fail(new Error(`server exited (${code})`)));
    });
    for (let round = 1; round <= rounds; round++) {
      for (const size of sizes) {
        for (const mode of ['kcat-produce', 'kcat-consume']) {
          const args = [join(HERE, 'librdkafka_bench.py'), mode, '-t', `kcat-ceiling-${round}-${size}`, '-n', String(count), '-s', String(size),
            '--bootstrap', `127.0.0.1:${port}`, '--broker-pid', String(server.pid), '--timeout', '300'];
          const code = await new Promise((ok) => {
            const child = spawn('/usr/bin/python3', args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_LABEL: 'kcat-ceiling' } });
            child.stdout.on('data', (d) => {
              process.stdout.write(d);
            });
            child.once('exit', ok);
          });
          if (code !== 0) throw new Error(`${mode} ${size} B exited with ${code}`);
        }
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
}
