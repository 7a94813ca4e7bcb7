// kafkajs 2.2.4 transactions against a broker process: `producer.transaction()`
// committed and aborted, `sendOffsets` in a consume-transform-produce step
// (the group's offsets become visible only with the commit), and zombie
// fencing (two producers with one transactional id: the older one is fenced
// and writes nothing after the newer one's InitProducerId). A read_committed
// consumer (kafkajs' default) sees committed records only; a
// read_uncommitted one sees the aborted ones too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { uniqueName } from '../../helpers/records.js';

async function readAll(kafka: Kafka, topic: string, readUncommitted: boolean, expected: number): Promise<string[]> {
  const consumer: Consumer = kafka.consumer({ groupId: uniqueName('reader'), readUncommitted, maxWaitTimeInMs: 200 });
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? '') });
  const deadline = Date.now() + 20_000;
  while (values.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // A little longer: records beyond the expected ones would show up here.
  await new Promise((r) => setTimeout(r, 500));
  await consumer.disconnect();
  return values.sort();
}

describe('kafkajs transactions', { timeout: 180_000 }, () => {
  let broker: BrokerProcess;
  let kafka: Kafka;

  before(async () => {
    broker = await startBroker({ name: 'txn-kafkajs' });
    kafka = new Kafka({ clientId: 'txn-test', brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.disconnect();
  });
  after(async () => {
    await broker?.cleanup();
  });

  it('commits and aborts; read_committed sees committed records only', async () => {
    const topic = uniqueName('txn-out');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = kafka.producer({ transactionalId: uniqueName('tx'), maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ key: 'a', value: 'c1' }, { key: 'b', value: 'c2' }] });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ key: 'a', value: 'x1' }, { key: 'b', value: 'x2' }] });
    await aborted.abort();
    const again = await producer.transaction();
    await again.send({ topic, messages: [{ key: 'c', value: 'c3' }] });
    await again.commit();
    await producer.disconnect();
    assert.deepEqual(await readAll(kafka, topic, false, 3), ['c1', 'c2', 'c3']);
    assert.deepEqual(await readAll(kafka, topic, true, 5), ['c1', 'c2', 'c3', 'x1', 'x2']);
  });

  it('sendOffsets: the group offsets appear with the commit, not with an abort', async () => {
    const topic = uniqueName('txn-offsets');
    const groupId = uniqueName('txn-group');
    const producer = kafka.producer({ transactionalId: uniqueName('tx-off'), maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const aborted = await producer.transaction();
    await aborted.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: '5' }] }] });
    await aborted.abort();
    const afterAbort = await admin.fetchOffsets({ groupId, topics: [topic] });
    assert.equal(afterAbort[0]?.partitions[0]?.offset, '-1', 'an aborted sendOffsets commits nothing');
    const tx = await producer.transaction();
    await tx.send({ topic, messages: [{ value: 'v' }] });
    await tx.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }] });
    await tx.commit();
    let offset = '';
    for (let i = 0; i < 50 && offset !== '7'; i++) {
      offset = (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions[0]?.offset ?? '';
      if (offset !== '7') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(offset, '7', 'the committed transaction made the offset visible');
    await admin.disconnect();
    await producer.disconnect();
  });

  it('fences a zombie: the older producer of a transactional id writes nothing after the newer one starts', async () => {
    const topic = uniqueName('txn-zombie');
    const transactionalId = uniqueName('tx-zombie');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const old = kafka.producer({ transactionalId, maxInFlightRequests: 1, idempotent: true, retry: { retries: 2 } });
    await old.connect();
    const oldTx = await old.transaction();
    await oldTx.send({ topic, messages: [{ value: 'zombie-1' }] });
    const fresh = kafka.producer({ transactionalId, maxInFlightRequests: 1, idempotent: true });
    await fresh.connect();
    // kafkajs sends the transactional InitProducerId when the first transaction begins:
    // the epoch goes up and the old producer's open transaction is aborted.
    const tx = await fresh.transaction();
    await assert.rejects(
      async () => {
        await oldTx.send({ topic, messages: [{ value: 'zombie-2' }] });
        await oldTx.commit();
      },
      (err: Error & { type?: string }) => /FENCED|INVALID_PRODUCER_EPOCH|ProducerFenced/i.test(`${err.name} ${err.type ?? ''} ${err.message}`),
    );
    await tx.send({ topic, messages: [{ value: 'fresh-1' }] });
    await tx.commit();
    await fresh.disconnect();
    await old.disconnect().catch(() => undefined);
    assert.deepEqual(await readAll(kafka, topic, false, 1), ['fresh-1']);
  });
});
