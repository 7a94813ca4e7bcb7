// @platformatic/kafka 1.35 transactions against a broker process:
// `producer.beginTransaction()` then `send`, `commit` and `abort`
// (FindCoordinator key type 1, InitProducerId with the transactional id,
// AddPartitionsToTxn, EndTxn, all flexible versions), a consume-transform-
// produce step with `addConsumer` + `addOffset` (AddOffsetsToTxn and
// TxnOffsetCommit with the group's generation), and reading back with its
// Consumer: isolationLevel READ_COMMITTED sees the committed records only,
// READ_UNCOMMITTED the aborted ones too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, Consumer, FetchIsolationLevels, Producer, stringDeserializers, stringSerializers, type Message } from '@platformatic/kafka';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { uniqueName } from '../../helpers/records.js';

const FAST_GROUP = { 'group.initial.rebalance.delay.ms': '0' };

type StringProducer = Producer<string, string, string, string>;
type StringConsumer = Consumer<string, string, string, string>;

describe('@platformatic/kafka 1.35 transactions', { timeout: 180_000 }, () => {
  let broker: BrokerProcess;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    broker = await startBroker({ name: 'txn-platformatic', overrides: FAST_GROUP });
  });
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await broker?.cleanup();
  });

  const base = (name: string): { clientId: string; bootstrapBrokers: string[]; retries: number; timeout: number } => ({
    clientId: `tributary-txn-${name}`,
    bootstrapBrokers: [broker.bootstrap],
    retries: 5,
    timeout: 15_000,
  });

  async function createTopic(topic: string, partitions: number): Promise<void> {
    const admin = new Admin(base('admin'));
    try {
      await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
    } finally {
      await admin.close();
    }
  }

  function producer(transactionalId: string): StringProducer {
    const p: StringProducer = new Producer({ ...base('producer'), serializers: stringSerializers, idempotent: true, transactionalId, autocreateTopics: false });
    closers.push(() => p.close());
    return p;
  }

  function consumer(groupId: string): StringConsumer {
    const c: StringConsumer = new Consumer({ ...base('consumer'), groupId, deserializers: stringDeserializers });
    c.on('error', () => undefined);
    closers.push(() => new Promise<void>((resolve) => c.close(true, () => resolve())));
    return c;
  }

  /** Every value of `topic` as a consumer with this isolation level sees it, after `expected` arrived and a little more time. */
  async function readAll(topic: string, isolationLevel: number, expected: number): Promise<string[]> {
    const c = consumer(uniqueName('reader'));
    const stream = await c.consume({ topics: [topic], mode: 'earliest', autocommit: false, isolationLevel, maxWaitTime: 200 });
    const values: string[] = [];
    stream.on('data', (m: Message<string, string, string, string>) => void values.push(m.value));
    const deadline = Date.now() + 20_000;
    while (values.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 700));
    await stream.close();
    await new Promise<void>((resolve) => c.close(true, () => resolve()));
    return values.sort();
  }

  it('commits and aborts; read_committed sees committed records only', async () => {
    const topic = uniqueName('pk-txn');
    await createTopic(topic, 2);
    const p = producer(uniqueName('pk-tx'));
    const committed = await p.beginTransaction();
    await committed.send({ messages: [{ topic, key: 'a', value: 'c1' }, { topic, key: 'b', value: 'c2' }] });
    await committed.commit();
    const aborted = await p.beginTransaction();
    await aborted.send({ messages: [{ topic, key: 'a', value: 'x1' }, { topic, key: 'b', value: 'x2' }] });
    await aborted.abort();
    const again = await p.beginTransaction();
    await again.send({ messages: [{ topic, key: 'c', value: 'c3' }] });
    await again.commit();
    assert.deepEqual(await readAll(topic, FetchIsolationLevels.READ_COMMITTED, 3), ['c1', 'c2', 'c3']);
    assert.deepEqual(await readAll(topic, FetchIsolationLevels.READ_UNCOMMITTED, 5), ['c1', 'c2', 'c3', 'x1', 'x2']);
  });

  it('consume-transform-produce: the consumed offset is committed with the transaction only', async () => {
    const input = uniqueName('pk-in');
    const output = uniqueName('pk-out');
    await createTopic(input, 1);
    await createTopic(output, 1);
    const plain: StringProducer = new Producer({ ...base('plain'), serializers: stringSerializers, autocreateTopics: false });
    closers.push(() => plain.close());
    await plain.send({ messages: [{ topic: input, value: 'm1' }, { topic: input, value: 'm2' }] });
    const groupId = uniqueName('pk-ctp');
    const c = consumer(groupId);
    const stream = await c.consume({ topics: [input], mode: 'earliest', autocommit: false, isolationLevel: FetchIsolationLevels.READ_COMMITTED, maxWaitTime: 200 });
    const p = producer(uniqueName('pk-ctp-tx'));
    let n = 0;
    for await (const message of stream) {
      n++;
      const tx = await p.beginTransaction();
      await tx.addConsumer(c);
      await tx.send({ messages: [{ topic: output, value: `${message.value}-out` }] });
      await tx.addOffset(message);
      // The first record's transaction is aborted: its output and its offset must not appear.
      if (n === 1) await tx.abort();
      else await tx.commit();
      if (n === 2) break;
    }
    await stream.close();
    const offsets = await c.listCommittedOffsets({ topics: [{ topic: input, partitions: [0] }] });
    assert.equal(offsets.get(input)?.[0], 2n, 'the committed transaction committed offset 2 (after m2)');
    assert.deepEqual(await readAll(output, FetchIsolationLevels.READ_COMMITTED, 1), ['m2-out']);
    assert.deepEqual(await readAll(output, FetchIsolationLevels.READ_UNCOMMITTED, 2), ['m1-out', 'm2-out']);
  });
});
