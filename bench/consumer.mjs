#!/usr/bin/env node
// Consumer throughput: N records of S bytes are produced once (our Producer's
// sendBatch, acks=1, one partition), then each client consumes all of them
// from offset 0 against the same broker process. Build first:
//   npx tsc -p tsconfig.build.json
//   node bench/consumer.mjs [--count 1000000] [--size 100] [--partitions 1]
//                           [--only batches,records,kafkajs,platformatic] [--runs 1]
//                           [--partition-bytes 1048576]   (max.partition.fetch.bytes for every client)
//
// Time = start of consumption (assign / subscribe) -> the N-th record, so it
// includes the first fetch (and, for the group clients, the join). MB/s is
// payload: count x size / time, in 10^6 bytes. Each client checks that it
// saw N records and N x S payload bytes.
//   tributary batches(): assign() + `for await (const batch of consumer.batches())`
//   tributary records:   assign() + `for await (const record of consumer)`
//   kafkajs:             consumer group (its only mode), eachBatch, fromBeginning
//   platformatic:        @platformatic/kafka consume() (a group, mode 'earliest'), `for await` over its stream
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Consumer as PlatformaticConsumer } from '@platformatic/kafka';
import { Admin, Consumer, Producer } from '../dist/src/client/index.js';
import { startBroker } from '../dist/test/helpers/broker-process.js';

const { values: opts } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    size: { type: 'string', default: '100' },
    partitions: { type: 'string', default: '1' },
    only: { type: 'string', default: 'batches,records,kafkajs,platformatic' },
    runs: { type: 'string', default: '1' },
    'timeout-s': { type: 'string', default: '120' },
    'partition-bytes': { type: 'string', default: String(1024 * 1024) },
  },
});
const COUNT = Number(opts.count);
const SIZE = Number(opts.size);
const PARTITIONS = Number(opts.partitions);
const TIMEOUT_MS = Number(opts['timeout-s']) * 1000;
const FETCH = { maxWaitMs: 100, partitionBytes: Number(opts['partition-bytes']), maxBytes: 64 * 1024 * 1024 };

/** CPU seconds (user + system) of a process and its children, from /proc (0 when unreadable). */
function procCpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    return '?';
  }
}

// CPU per record next to the rates: other processes share these 2 cores, so records/s moves with the
// machine's load while CPU per record (client: this process; broker: its process) much less.
function report(name, ms, count, bytes, cpu) {
  const rps = count / (ms / 1000);
  const ok = count === COUNT && bytes === COUNT * SIZE ? '' : `  MISMATCH: ${count} records, ${bytes} bytes`;
  const clientUs = (cpu.client * 1e6) / count;
  const brokerUs = (cpu.broker * 1e6) / count;
  console.log(
    `${name.padEnd(30)} ${String(Math.round(rps)).padStart(8)} rec/s ${((rps * SIZE) / 1e6).toFixed(1).padStart(6)} MB/s ${(ms / 1000).toFixed(2).padStart(6)} s` +
      `   client ${clientUs.toFixed(2)} us/rec, broker ${brokerUs.toFixed(2)} us/rec, load ${cpu.load}${ok}`,
  );
  return { name, recordsPerSec: Math.round(rps), mbPerSec: Number(((rps * SIZE) / 1e6).toFixed(1)), seconds: Number((ms / 1000).toFixed(3)), clientUsPerRecord: Number(clientUs.toFixed(3)), brokerUsPerRecord: Number(brokerUs.toFixed(3)), load: cpu.load };
}

function deadline(what) {
  let timer;
  const p = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return { p, clear: () => clearTimeout(timer) };
}

function ourConsumer(bootstrap) {
  return new Consumer({
    bootstrap,
    fetchMaxWaitMs: FETCH.maxWaitMs,
    maxPartitionFetchBytes: FETCH.partitionBytes,
    fetchMaxBytes: FETCH.maxBytes,
    autoOffsetReset: 'earliest',
  });
}

async function tributaryBatches(bootstrap, topic) {
  const consumer = ourConsumer(bootstrap);
  let count = 0;
  let bytes = 0;
  const start = performance.now();
  consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })));
  for await (const batch of consumer.batches()) {
    const records = batch.records;
    for (let i = 0; i < records.length; i++) bytes += records[i].value.length;
    count += records.length;
    if (count >= COUNT) break;
  }
  const ms = performance.now() - start;
  await consumer.close();
  return { ms, count, bytes };
}

async function tributaryRecords(bootstrap, topic) {
  const consumer = ourConsumer(bootstrap);
  let count = 0;
  let bytes = 0;
  const start = performance.now();
  consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })));
  for await (const record of consumer) {
    bytes += record.value.length;
    if (++count >= COUNT) break;
  }
  const ms = performance.now() - start;
  await consumer.close();
  return { ms, count, bytes };
}

async function kafkajs(bootstrap, topic) {
  const kafka = new Kafka({ clientId: 'bench', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({
    groupId: `bench-kafkajs-${Date.now()}`,
    maxWaitTimeInMs: FETCH.maxWaitMs,
    maxBytesPerPartition: FETCH.partitionBytes,
    maxBytes: FETCH.maxBytes,
    sessionTimeout: 30_000,
  });
  await consumer.connect();
  let count = 0;
  let bytes = 0;
  const start = performance.now();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const done = new Promise((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) bytes += m.value.length;
        count += batch.messages.length;
        if (count >= COUNT) resolve();
      },
    });
  });
  const limit = deadline('kafkajs');
  await Promise.race([done, limit.p]).finally(limit.clear);
  const ms = performance.now() - start;
  await consumer.disconnect();
  return { ms, count, bytes };
}

async function platformatic(bootstrap, topic) {
  const consumer = new PlatformaticConsumer({
    groupId: `bench-platformatic-${Date.now()}`,
    clientId: 'bench',
    bootstrapBrokers: [bootstrap],
  });
  let count = 0;
  let bytes = 0;
  const start = performance.now();
  const stream = await consumer.consume({
    topics: [topic],
    mode: 'earliest',
    autocommit: false,
    maxWaitTime: FETCH.maxWaitMs,
    maxBytes: FETCH.maxBytes,
    maxBytesPerPartition: FETCH.partitionBytes,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
  });
  const limit = deadline('platformatic');
  const loop = (async () => {
    for await (const message of stream) {
      bytes += message.value.length;
      if (++count >= COUNT) break;
    }
  })();
  await Promise.race([loop, limit.p]).finally(limit.clear);
  const ms = performance.now() - start;
  await stream.close().catch(() => undefined);
  await consumer.close(true).catch(() => undefined);
  return { ms, count, bytes };
}

const broker = await startBroker({ name: 'bench-consumer', overrides: { 'group.initial.rebalance.delay.ms': '0' } });
const results = [];
try {
  const admin = await Admin.connect({ bootstrap: broker.bootstrap });
  const topic = `bench-consume-${Date.now()}`;
  await admin.createTopic({ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 });
  const producer = await Producer.connect({ clusterOptions: { bootstrap: broker.bootstrap }, acks: 1, batchSize: 256 * 1024, lingerMs: 5 });
  const payload = randomBytes(SIZE);
  const WINDOW = 10_000;
  const records = Array.from({ length: WINDOW }, () => ({ topic, value: payload }));
  const inFlight = [];
  for (let i = 0; i < COUNT; i += WINDOW) {
    inFlight.push(producer.sendBatch(records.slice(0, Math.min(WINDOW, COUNT - i))));
    if (inFlight.length > 20) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await producer.close();
  console.log(`consumer bench: ${COUNT} x ${SIZE} B in ${PARTITIONS} partition(s); fetch wait ${FETCH.maxWaitMs} ms, ${FETCH.partitionBytes} B per partition`);
  const runs = { batches: tributaryBatches, records: tributaryRecords, kafkajs, platformatic };
  const labels = {
    batches: 'tributary batches()',
    records: 'tributary for await (record)',
    kafkajs: 'kafkajs eachBatch',
    platformatic: '@platformatic/kafka stream',
  };
  for (let run = 0; run < Number(opts.runs); run++) {
    for (const name of opts.only.split(',')) {
      const fn = runs[name];
      if (fn === undefined) throw new Error(`unknown client ${name}`);
      const client0 = process.cpuUsage();
      const broker0 = procCpuSeconds(broker.pid);
      const { ms, count, bytes } = await fn(broker.bootstrap, topic);
      const c = process.cpuUsage(client0);
      const cpu = { client: (c.user + c.system) / 1e6, broker: procCpuSeconds(broker.pid) - broker0, load: loadAverage() };
      results.push(report(labels[name], ms, count, bytes, cpu));
    }
  }
  await admin.close();
} finally {
  await broker.cleanup();
}
console.log(JSON.stringify({ count: COUNT, size: SIZE, partitions: PARTITIONS, results }));
