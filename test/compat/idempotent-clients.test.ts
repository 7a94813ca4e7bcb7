// Idempotent producers of other clients against a real broker process, with
// some Produce responses dropped on the way back (test/helpers/fault-proxy.ts):
// the broker has appended those batches, the client never hears so and
// retries them with the same sequence numbers. The broker must answer each
// retry with the original offset and append nothing, so the partition holds
// every record exactly once, in send order. Clients: kafkajs 2.2.4
// (`idempotent: true`), confluent-kafka-python and kcat on librdkafka 2.0.2
// (`enable.idempotence=true`). The stored batches are checked to carry a
// producer id, so the clients really ran idempotent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { assertKcatProduceClean, kcatConsumeAll, kcatProduce } from '../helpers/kcat.js';
import { createTopicsRaw, waitForLeaders } from '../helpers/raw-kafka.js';
import { uniqueName, type ConsumedRecord } from '../helpers/records.js';
import { runPythonJson } from '../helpers/run.js';

/** Producer ids of the batches stored in partition 0 of `topic`. */
function storedProducerIds(dataDir: string, topic: string): bigint[] {
  const dir = join(dataDir, `${topic}-0`);
  const ids: bigint[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const bytes = readFileSync(join(dir, name));
    for (let p = 0; p + 61 <= bytes.length; p += 12 + bytes.readInt32BE(p + 8)) ids.push(bytes.readBigInt64BE(p + 43));
  }
  return ids;
}

/** Batches were stored (an empty list would pass any `every`), each with a producer id. */
function assertIdempotentBatches(dataDir: string, topic: string): void {
  const ids = storedProducerIds(dataDir, topic);
  assert.ok(ids.length > 0, `${topic}-0 holds batches`);
  assert.ok(ids.every((id) => id >= 0n), `every batch carries a producer id: ${ids.join(',')}`);
}

/** Every value `<prefix>-0 .. <prefix>-(count-1)` exactly once, in order, at consecutive offsets. */
function assertExactlyOnceInOrder(records: readonly ConsumedRecord[], prefix: string, count: number): void {
  const values = records.map((r) => r.value);
  const expected = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  assert.equal(new Set(values).size, values.length, 'no record stored twice');
  assert.deepEqual(values, expected);
  records.forEach((r, i) => assert.equal(r.offset, records[0]!.offset + BigInt(i), 'consecutive offsets'));
}

async function readBack(bootstrap: string, topic: string, count: number): Promise<ConsumedRecord[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const records = await kcatConsumeAll(bootstrap, topic, { partition: 0 });
    if (records.length >= count || Date.now() > deadline) return records;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The Produce responses the proxy drops: n counts Produce requests from 0. */
const DROP_SELECTED = (n: number): boolean => n % 7 === 2;

describe('idempotent producers with dropped Produce responses', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  let proxy: FaultProxy;
  let bootstrap: string;

  before(async () => {
    proxy = await FaultProxy.start();
    broker = await startBroker({ name: 'idem-clients', overrides: { 'advertised.listeners': `PLAINTEXT://${proxy.bootstrap}` } });
    proxy.targetPort = broker.port;
    // Every 7th Produce response, from the third on, never reaches the client.
    proxy.cutProduceResponses(DROP_SELECTED);
    bootstrap = proxy.bootstrap;
  });
  after(async () => {
    await proxy?.close();
    await broker?.cleanup();
  });

  async function topicOf(prefix: string): Promise<string> {
    const topic = uniqueName(prefix);
    await createTopicsRaw(broker.port, [{ name: topic, partitions: 1, replicationFactor: 1 }]);
    await waitForLeaders(broker.port, [topic]);
    return topic;
  }

  it('kafkajs 2.2.4, idempotent: true', async () => {
    const topic = await topicOf('idem-kafkajs');
    const kafka = new Kafka({ clientId: 'idem-test', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    const droppedBefore = proxy.stats.responsesCut;
    try {
      for (let send = 0; send < 30; send++) {
        const messages = Array.from({ length: 5 }, (_, i) => ({ value: `kj-${send * 5 + i}`, partition: 0 }));
        await producer.send({ topic, messages });
      }
    } finally {
      await producer.disconnect();
    }
    assert.ok(proxy.stats.responsesCut > droppedBefore, 'some responses were dropped, so kafkajs retried');
    assertExactlyOnceInOrder(await readBack(broker.bootstrap, topic, 150), 'kj', 150);
    const ids = storedProducerIds(broker.dataDir, topic);
    assert.ok(ids.length > 0 && ids.every((id) => id >= 0n && id === ids[0]), 'every batch carries the one producer id');
  });

  it('confluent-kafka-python (librdkafka 2.0.2), enable.idempotence=true', async () => {
    const topic = await topicOf('idem-confluent');
    const droppedBefore = proxy.stats.responsesCut;
    const r = await runPythonJson<{ delivered: number; failed: string[]; left: number; fatal: string | null }>(
      'idempotent_confluent.py', 'produce', { bootstrap, topic, count: 400, prefix: 'ck' }, { timeoutMs: 120_000 },
    );
    assert.deepEqual({ delivered: r.delivered, failed: r.failed, left: r.left, fatal: r.fatal }, { delivered: 400, failed: [], left: 0, fatal: null });
    assert.ok(proxy.stats.responsesCut > droppedBefore, 'some responses were dropped, so librdkafka retried');
    assertExactlyOnceInOrder(await readBack(broker.bootstrap, topic, 400), 'ck', 400);
    assertIdempotentBatches(broker.dataDir, topic);
  });

  // kcat exits when its only broker connection drops ("All broker connections
  // are down: terminating"), so it runs without drops: it checks that
  // librdkafka's idempotent batches from the kcat tool are accepted in order.
  it('kcat (librdkafka 2.0.2), -X enable.idempotence=true', async () => {
    const topic = await topicOf('idem-kcat');
    const lines = Array.from({ length: 300 }, (_, i) => `kc-${i}`);
    proxy.heal();
    let result;
    try {
      result = await kcatProduce(bootstrap, topic, lines.map((v) => `:${v}`), {
        partition: 0,
        config: { 'enable.idempotence': 'true', 'linger.ms': '5', 'batch.num.messages': '20', 'retry.backoff.ms': '50' },
        timeoutMs: 120_000,
      });
    } finally {
      proxy.cutProduceResponses(DROP_SELECTED);
    }
    assertKcatProduceClean(result);
    assertExactlyOnceInOrder(await readBack(broker.bootstrap, topic, 300), 'kc', 300);
    assertIdempotentBatches(broker.dataDir, topic);
  });
});
