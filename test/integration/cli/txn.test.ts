/**
 * `tributary txn list|describe|abort` and `tributary producer describe`
 * against a broker process: a transactional producer (ours) leaves a
 * transaction open; `txn list` and `txn describe` show it Ongoing with its
 * partition, `producer describe` shows the producer with the open
 * transaction's first offset, `txn abort` writes an ABORT marker on the
 * partition (the first offset is gone from DescribeProducers), and after the
 * producer commits a later transaction `txn describe` says CompleteCommit.
 * `txn list --hanging` does not list a transaction its coordinator knows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brokerMain, startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { run } from '../../helpers/run.js';
import { Admin } from '../../../src/client/admin.js';
import { Producer, Serializers } from '../../../src/client/producer.js';

const TOPIC = 'txn-cli';
const TX_ID = 'cli-tx';

describe('tributary txn / producer', { timeout: 120_000 }, () => {
  let broker: BrokerProcess;
  let bootstrap: string;

  before(async () => {
    broker = await startBroker({ name: 'txn-cli' });
    bootstrap = `127.0.0.1:${broker.port}`;
    const admin = await Admin.connect({ bootstrap });
    await admin.createTopic({ name: TOPIC, numPartitions: 1, replicationFactor: 1 });
    await admin.close();
  });
  after(async () => {
    await broker?.cleanup();
  });

  async function cli<T>(...args: string[]): Promise<T> {
    const r = await run(process.execPath, [brokerMain, ...args, '--bootstrap', bootstrap, '--json'], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, `tributary ${args.join(' ')} failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  test('an open transaction is listed, described, aborted by hand', async () => {
    const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, transactionalId: TX_ID, keySerializer: Serializers.string, valueSerializer: Serializers.string });
    producer.beginTransaction();
    await producer.send({ topic: TOPIC, partition: 0, value: 'open' });
    const listed = await cli<{ transactionalId: string; state: string; producerId: number }[]>('txn', 'list', '--state', 'Ongoing');
    assert.deepEqual(listed.map((t) => [t.transactionalId, t.state]), [[TX_ID, 'Ongoing']]);
    const described = await cli<{ state: string; partitions: { topic: string; partition: number }[]; producerId: number; producerEpoch: number }>('txn', 'describe', TX_ID);
    assert.equal(described.state, 'Ongoing');
    assert.deepEqual(described.partitions, [{ topic: TOPIC, partition: 0 }]);
    const producers = await cli<{ partition: number; producerId: number; currentTxnStartOffset: number }[]>('producer', 'describe', TOPIC);
    const mine = producers.find((p) => p.producerId === described.producerId);
    assert.equal(mine?.currentTxnStartOffset, 0, 'the open transaction starts at offset 0');
    // Open (past a 0 ms maximum), but its coordinator has it Ongoing with this partition: not hanging.
    assert.deepEqual(await cli<unknown[]>('txn', 'list', '--hanging', '--topic', TOPIC, '--max-transaction-timeout-ms', '0'), []);
    await cli('txn', 'abort', '--topic', TOPIC, '--partition', '0', '--producer-id', String(described.producerId));
    const after = await cli<{ producerId: number; currentTxnStartOffset: number }[]>('producer', 'describe', TOPIC);
    assert.equal(after.find((p) => p.producerId === described.producerId)?.currentTxnStartOffset, -1, 'the marker closed it on the partition');
    await producer.abortTransaction();
    await producer.transaction(async (tx) => void (await tx.send({ topic: TOPIC, partition: 0, value: 'done' })));
    await producer.close();
    const done = await cli<{ state: string }>('txn', 'describe', TX_ID);
    assert.equal(done.state, 'CompleteCommit');
  });
});
