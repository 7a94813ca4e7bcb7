// Idempotent producers against a real broker process, through a fault proxy
// that forwards Produce requests and then cuts the connection instead of
// forwarding some of their responses: the broker has appended those batches,
// the client does not know and retries. Our Producer, kafkajs (idempotent,
// maxInFlightRequests 1) and librdkafka (confluent-kafka-python,
// enable.idempotence=true) must each leave every record in the log exactly
// once, in order per partition, read back with Fetch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../src/client/admin.js';
import { Cluster } from '../../src/client/cluster.js';
import { Producer, Serializers } from '../../src/client/producer.js';
import { fetchMany, listOffsetsMany } from '../../src/client/records.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { uniqueName } from '../helpers/records.js';
import { PYTHON, run } from '../helpers/run.js';

const PARTITIONS = 2;
const READ_ROUNDS_MAX = 200;

let broker: BrokerProcess;
let proxy: FaultProxy;

before(async () => {
  proxy = await FaultProxy.start();
  broker = await startBroker({ name: 'idempotence', overrides: { 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}` } });
  proxy.targetPort = broker.port;
});

after(async () => {
  await proxy?.close();
  await broker?.cleanup();
});

async function createTopic(prefix: string): Promise<string> {
  const topic = uniqueName(prefix);
  const admin = await Admin.connect({ bootstrap: proxy.bootstrap });
  try {
    await admin.createTopic({ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 });
  } finally {
    await admin.close();
  }
  return topic;
}

/** Every record of every partition, read with Fetch from offset 0 to the end offset (bounded rounds). */
async function readAll(topic: string): Promise<string[][]> {
  proxy.heal();
  const cluster = await Cluster.connect({ bootstrap: proxy.bootstrap });
  try {
    const ends = await listOffsetsMany(cluster, Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' as const })));
    const out: string[][] = Array.from({ length: PARTITIONS }, () => []);
    const positions = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, offset: 0n }));
    for (let round = 0; round < READ_ROUNDS_MAX; round++) {
      const pending = positions.filter((p) => p.offset < (ends[p.partition]?.offset ?? 0n));
      if (pending.length === 0) return out;
      for (const r of await fetchMany(cluster, pending, { maxWaitMs: 10 })) {
        for (const rec of r.records) (out[r.partition] as string[]).push(String(rec.value));
        (positions[r.partition] as { offset: bigint }).offset = r.nextOffset;
      }
    }
    throw new Error(`${topic} not read to its end in ${READ_ROUNDS_MAX} fetch rounds`);
  } finally {
    await cluster.close();
  }
}

/** The values sent to each partition, in send order, when record i goes to partition i % PARTITIONS. */
function expectedLogs(tag: string, count: number): string[][] {
  const logs: string[][] = Array.from({ length: PARTITIONS }, () => []);
  for (let i = 0; i < count; i++) (logs[i % PARTITIONS] as string[]).push(`${tag}-${i}`);
  return logs;
}

/**
 * Cut the response of every `every`-th Produce request from now on, and with
 * `requestsToo` also drop a few requests before the broker sees them; at most
 * `max` cuts in all.
 */
function armCuts(every: number, max: number, requestsToo = false): number {
  proxy.heal();
  const from = proxy.stats.produceRequests;
  const cutsBefore = proxy.cuts;
  proxy.maxCuts = cutsBefore + max;
  proxy.cutProduceResponses((n) => n > from && (n - from) % every === 0);
  if (requestsToo) proxy.cutBeforeProduce((n) => n > from && (n - from) % (every * 3) === 2);
  return cutsBefore;
}

test('our Producer: responses cut after the append, retried, each record exactly once and in order', async () => {
  const topic = await createTopic('idem-ours');
  const producer = await Producer.connect<string, string>({
    clusterOptions: { bootstrap: proxy.bootstrap },
    keySerializer: Serializers.string,
    valueSerializer: Serializers.string,
    batchSize: 2_048,
    lingerMs: 2,
    retries: 10,
    retryBackoffMs: 20,
  });
  const COUNT = 4_000;
  const cutsBefore = armCuts(5, 10, true);
  const sends: Promise<unknown>[] = [];
  const singles: { i: number; result: Promise<{ partition: number; offset: bigint }> }[] = [];
  for (let i = 0; i < COUNT; i += 250) {
    const records = [];
    for (let j = i; j < i + 249; j++) records.push({ topic, partition: j % PARTITIONS, value: `ours-${j}` });
    sends.push(producer.sendBatch(records));
    const last = i + 249;
    singles.push({ i: last, result: producer.send({ topic, partition: last % PARTITIONS, value: `ours-${last}` }) });
    // Let some requests go out between chunks, so cuts hit requests with several batches in flight.
    if ((i / 250) % 4 === 3) await producer.flush();
  }
  await Promise.all(sends);
  const results = await Promise.all(singles.map((s) => s.result));
  assert.equal(producer.isIdempotent, true);
  assert.notEqual(producer.producerIdAndEpoch, null);
  await producer.close();
  const cuts = proxy.cuts - cutsBefore;
  assert.ok(cuts >= 3 && proxy.stats.requestsCut >= 1, `the proxy cut ${cuts} connections (${proxy.stats.requestsCut} before a request)`);
  const logs = await readAll(topic);
  assert.deepEqual(logs, expectedLogs('ours', COUNT));
  singles.forEach((s, k) => {
    const r = results[k] as { partition: number; offset: bigint };
    assert.equal(logs[r.partition]?.[Number(r.offset)], `ours-${s.i}`, 'the acknowledged offset holds the record');
  });
});

test('kafkajs (idempotent, maxInFlightRequests 1) through the same faults: no duplicates, no gaps', async () => {
  const topic = await createTopic('idem-kafkajs');
  const kafka = new Kafka({ clientId: 'idempotence-kafkajs', brokers: [proxy.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 50, maxRetryTime: 1_000 } });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const COUNT = 2_000;
  const cutsBefore = armCuts(4, 6);
  try {
    for (let i = 0; i < COUNT; i += 50) {
      const messages = Array.from({ length: 50 }, (_, k) => ({ partition: (i + k) % PARTITIONS, value: `kafkajs-${i + k}` }));
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
  const cuts = proxy.cuts - cutsBefore;
  assert.ok(cuts >= 3, `the proxy cut ${cuts} responses`);
  assert.deepEqual(await readAll(topic), expectedLogs('kafkajs', COUNT));
});

// confluent-kafka-python: produce `count` values "<tag>-i" to partition i % partitions, idempotent; print delivery counts as JSON.
const LIBRDKAFKA_PRODUCE = `
import json, sys, time
from confluent_kafka import Producer
args = json.load(sys.stdin)
errors = []
delivered = [0]
def on_delivery(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        delivered[0] += 1
p = Producer({
    "bootstrap.servers": args["bootstrap"],
    "enable.idempotence": True,
    "linger.ms": 5,
    "batch.num.messages": 40,
    "retry.backoff.ms": 50,
    "message.timeout.ms": 60000,
    "socket.timeout.ms": 10000,
})
for i in range(args["count"]):
    for _ in range(1000):
        try:
            p.produce(args["topic"], value=("%s-%d" % (args["tag"], i)).encode(), partition=i % args["partitions"], on_delivery=on_delivery)
            break
        except BufferError:
            p.poll(0.05)
    else:
        raise SystemExit("local queue stayed full")
    p.poll(0)
left = p.flush(60)
print(json.dumps({"delivered": delivered[0], "errors": errors[:5], "left": left}))
`;

test('librdkafka (confluent-kafka-python, enable.idempotence) through the same faults: no duplicates, no gaps', async () => {
  const topic = await createTopic('idem-librdkafka');
  const COUNT = 2_000;
  const cutsBefore = armCuts(4, 6);
  const result = await run(PYTHON, ['-c', LIBRDKAFKA_PRODUCE], {
    input: JSON.stringify({ bootstrap: proxy.bootstrap, topic, count: COUNT, partitions: PARTITIONS, tag: 'rdkafka' }),
    timeoutMs: 90_000,
  });
  const lines = result.stdout.trim().split('\n');
  const summary = JSON.parse(lines[lines.length - 1] ?? '{}') as { delivered: number; errors: string[]; left: number };
  assert.deepEqual(summary, { delivered: COUNT, errors: [], left: 0 }, result.stderr.slice(-2000));
  const cuts = proxy.cuts - cutsBefore;
  assert.ok(cuts >= 1, `the proxy cut ${cuts} responses`);
  assert.deepEqual(await readAll(topic), expectedLogs('rdkafka', COUNT));
});
