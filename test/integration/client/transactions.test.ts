// Our Producer's transactions against an in-process broker: producer.transaction()
// commits on return and aborts on throw; begin/commit/abortTransaction;
// sendOffsets makes the group's offset visible only with the commit; a
// second producer with the same transactional id fences the first
// (ProducerFencedError, nothing of it after the fence); commit and abort
// right after sends that were not awaited, back to back (the flush adds
// their partitions; the broker waits for the previous transaction's markers
// instead of answering CONCURRENT_TRANSACTIONS). Read back with a
// read_committed kafkajs consumer and a read_uncommitted one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../../src/client/admin.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { ProducerFencedError } from '../../../src/net/errors.js';
import { startInProcessBroker, type InProcessBroker } from '../../helpers/in-process-broker.js';
import { uniqueName } from '../../helpers/records.js';

async function readValues(kafka: Kafka, topic: string, readUncommitted: boolean, expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), readUncommitted, maxWaitTimeInMs: 100 });
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? '') });
  const deadline = Date.now() + 20_000;
  while (values.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  await consumer.disconnect();
  return values.sort();
}

describe('Producer transactions', { timeout: 120_000 }, () => {
  let broker: InProcessBroker;
  let bootstrap: string;
  let kafka: Kafka;

  before(async () => {
    broker = await startInProcessBroker({ 'group.initial.rebalance.delay.ms': '0' });
    bootstrap = `127.0.0.1:${broker.port}`;
    kafka = new Kafka({ clientId: 'txn-reader', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  });
  after(async () => {
    await broker?.stop();
  });

  async function topic(prefix: string): Promise<string> {
    const name = uniqueName(prefix);
    const admin = await Admin.connect({ bootstrap });
    await admin.createTopic({ name, numPartitions: 2, replicationFactor: 1 });
    await admin.close();
    return name;
  }

  function producer(transactionalId: string): Promise<Producer<string, string>> {
    return Producer.connect<string, string>({ clusterOptions: { bootstrap }, transactionalId, keySerializer: Serializers.string, valueSerializer: Serializers.string });
  }

  it('transaction() commits on return and aborts on throw', async () => {
    const t = await topic('tx-ours');
    const p = await producer(uniqueName('ours'));
    await p.transaction(async (tx) => {
      await tx.send({ topic: t, key: 'a', value: 'c1' });
      await tx.sendBatch([{ topic: t, key: 'b', value: 'c2' }]);
    });
    await assert.rejects(
      p.transaction(async (tx) => {
        await tx.send({ topic: t, key: 'a', value: 'x1' });
        throw new Error('boom');
      }),
      /boom/,
    );
    p.beginTransaction();
    await p.send({ topic: t, key: 'c', value: 'c3' });
    await p.commitTransaction();
    p.beginTransaction();
    await p.send({ topic: t, key: 'c', value: 'x2' });
    await p.abortTransaction();
    await p.close();
    assert.deepEqual(await readValues(kafka, t, false, 3), ['c1', 'c2', 'c3']);
    assert.deepEqual(await readValues(kafka, t, true, 5), ['c1', 'c2', 'c3', 'x1', 'x2']);
  });

  it('commit and abort right after sends not awaited, transactions back to back', async () => {
    const t = await topic('tx-unawaited');
    const p = await producer(uniqueName('unawaited'));
    const acks: Promise<unknown>[] = [];
    // The partitions are not in the transaction yet when commit/abort starts: the flush must still add them.
    for (let i = 0; i < 20; i++) {
      p.beginTransaction();
      acks.push(p.sendBatch([{ topic: t, partition: 0, key: 'k', value: `c${i}` }, { topic: t, partition: 1, key: 'k', value: `d${i}` }]));
      await p.commitTransaction();
    }
    p.beginTransaction();
    acks.push(p.send({ topic: t, partition: 0, key: 'k', value: 'aborted' }));
    await p.abortTransaction();
    await Promise.all(acks);
    await p.close();
    const committed = Array.from({ length: 20 }, (_, i) => [`c${i}`, `d${i}`]).flat().sort();
    assert.deepEqual(await readValues(kafka, t, false, 40), committed);
    assert.deepEqual(await readValues(kafka, t, true, 41), [...committed, 'aborted'].sort());
  });

  it('sendOffsets commits the group offsets with the transaction only', async () => {
    const t = await topic('tx-offsets');
    const groupId = uniqueName('tx-group');
    const p = await producer(uniqueName('ours-off'));
    await assert.rejects(p.transaction(async (tx) => {
      await tx.sendOffsets({ groupId, offsets: [{ topic: t, partition: 0, offset: 4n }] });
      throw new Error('abort it');
    }));
    const admin = kafka.admin();
    await admin.connect();
    assert.equal((await admin.fetchOffsets({ groupId, topics: [t] }))[0]?.partitions.find((x) => x.partition === 0)?.offset, '-1');
    await p.transaction(async (tx) => {
      await tx.send({ topic: t, value: 'v' });
      await tx.sendOffsets({ groupId, offsets: [{ topic: t, partition: 0, offset: 6n }] });
    });
    let offset = '';
    for (let i = 0; i < 50 && offset !== '6'; i++) {
      offset = (await admin.fetchOffsets({ groupId, topics: [t] }))[0]?.partitions.find((x) => x.partition === 0)?.offset ?? '';
      if (offset !== '6') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(offset, '6');
    await admin.disconnect();
    await p.close();
  });

  it('a second producer with the same transactional id fences the first', async () => {
    const t = await topic('tx-fence');
    const id = uniqueName('fence');
    const old = await producer(id);
    old.beginTransaction();
    await old.send({ topic: t, partition: 0, value: 'old-1' });
    const fresh = await producer(id);
    await assert.rejects(
      (async () => {
        await old.send({ topic: t, partition: 0, value: 'old-2' });
        await old.commitTransaction();
      })(),
      (err: Error) => err instanceof ProducerFencedError || /FENCED|PRODUCER_EPOCH/.test(String((err as { cause?: unknown }).cause ?? err.message)),
    );
    await fresh.transaction(async (tx) => void (await tx.send({ topic: t, partition: 0, value: 'fresh-1' })));
    await fresh.close();
    await old.close().catch(() => undefined);
    assert.deepEqual(await readValues(kafka, t, false, 1), ['fresh-1']);
  });
});
