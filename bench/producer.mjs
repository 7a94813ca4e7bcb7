#!/usr/bin/env node
// Producer throughput: N records of S bytes, acks=1, one partition, against a
// broker process, with our Producer (send() per record, and sendBatch()) and
// kafkajs in the same run. Build first: npx tsc -p tsconfig.build.json
//
//   node bench/producer.mjs [--count 1000000] [--size 100] [--acks 1]
//                           [--batch-size 262144] [--linger-ms 5] [--compression none]
//
// Time = first send -> last acknowledgement. MB/s is payload: count x size / time, 10^6 bytes.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, CompressionTypes } from 'kafkajs';
import { Admin, Producer } from '../dist/src/client/index.js';
import { startBroker } from '../dist/test/helpers/broker-process.js';

const { values: opts } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    size: { type: 'string', default: '100' },
    acks: { type: 'string', default: '1' },
    'batch-size': { type: 'string', default: String(256 * 1024) },
    'linger-ms': { type: 'string', default: '5' },
    compression: { type: 'string', default: 'none' },
    only: { type: 'string', default: 'send,sendBatch,kafkajs' },
  },
});
const COUNT = Number(opts.count);
const SIZE = Number(opts.size);
const ACKS = Number(opts.acks);
const payload = randomBytes(SIZE);
const WINDOW = 10_000;

function report(name, ms) {
  const rps = COUNT / (ms / 1000);
  console.log(`${name.padEnd(34)} ${String(Math.round(rps)).padStart(10)} rec/s ${((rps * SIZE) / 1e6).toFixed(1).padStart(8)} MB/s   ${(ms / 1000).toFixed(2)} s`);
  return { name, recordsPerSec: Math.round(rps), mbPerSec: Number(((rps * SIZE) / 1e6).toFixed(1)) };
}

function ourOptions(bootstrap) {
  return {
    clusterOptions: { bootstrap },
    acks: ACKS,
    batchSize: Number(opts['batch-size']),
    lingerMs: Number(opts['linger-ms']),
    compression: opts.compression,
  };
}

async function oursSend(bootstrap, topic) {
  const producer = await Producer.connect(ourOptions(bootstrap));
  const start = performance.now();
  // One promise per record (the API); wait on a window's last record to bound what is queued.
  const windows = [];
  let last;
  for (let i = 0; i < COUNT; i++) {
    last = producer.send({ topic, value: payload });
    if ((i + 1) % WINDOW === 0) {
      windows.push(last);
      if (windows.length > 20) await windows.shift();
    }
  }
  await last;
  await Promise.all(windows);
  const ms = performance.now() - start;
  await producer.close();
  return ms;
}

async function oursSendBatch(bootstrap, topic) {
  const producer = await Producer.connect(ourOptions(bootstrap));
  const records = Array.from({ length: WINDOW }, () => ({ topic, value: payload }));
  const start = performance.now();
  const inFlight = [];
  for (let i = 0; i < COUNT; i += WINDOW) {
    inFlight.push(producer.sendBatch(records));
    if (inFlight.length > 20) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const ms = performance.now() - start;
  await producer.close();
  return ms;
}

async function kafkajs(bootstrap, topic) {
  const kafka = new Kafka({ clientId: 'bench', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  // 5k messages per send(): 10k x 100 B would exceed the broker's 1 MB message.max.bytes as one batch.
  const KJS = 5_000;
  const messages = Array.from({ length: KJS }, () => ({ value: payload }));
  const compression = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP }[opts.compression] ?? CompressionTypes.None;
  const start = performance.now();
  // kafkajs: one send() per 5k messages, 5 in flight (its default maxInFlightRequests is unbounded).
  const inFlight = [];
  for (let i = 0; i < COUNT; i += KJS) {
    inFlight.push(producer.send({ topic, acks: ACKS, compression, messages }));
    if (inFlight.length >= 5) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const ms = performance.now() - start;
  await producer.disconnect();
  return ms;
}

const broker = await startBroker({ name: 'bench-producer' });
const results = [];
try {
  const admin = await Admin.connect({ bootstrap: broker.bootstrap });
  const runs = { send: oursSend, sendBatch: oursSendBatch, kafkajs };
  console.log(`producer bench: ${COUNT} x ${SIZE} B, acks=${ACKS}, 1 partition, compression=${opts.compression}, ours: batchSize=${opts['batch-size']} lingerMs=${opts['linger-ms']}`);
  for (const name of opts.only.split(',')) {
    const topic = `bench-${name}-${Date.now()}`;
    await admin.createTopic({ name: topic, numPartitions: 1, replicationFactor: 1 });
    const ms = await runs[name](broker.bootstrap, topic);
    const end = await admin.listOffsets(topic, 0, 'latest');
    const label = name === 'kafkajs' ? 'kafkajs producer.send (5k msgs x5)' : `tributary ${name}()`;
    results.push(report(label, ms));
    if (end.offset !== BigInt(COUNT)) console.log(`  WARNING: end offset ${end.offset}, expected ${COUNT}`);
  }
  await admin.close();
} finally {
  await broker.cleanup();
}
console.log(JSON.stringify({ count: COUNT, size: SIZE, acks: ACKS, results }));
