// A read_committed Consumer starts from stable committed offsets only
// (KIP-447): while a transaction holds a pending offset commit for its
// partition (OffsetFetch with requireStable answers UNSTABLE_OFFSET_COMMIT),
// it waits instead of applying its reset policy, and starts at the offset the
// transaction committed once it commits. A read_uncommitted consumer is not
// held back (it sees the last stable offset: none, so its reset policy).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Consumer } from '../../../src/client/consumer.js';
import { Producer } from '../../../src/client/producer.js';
import { startInProcessBroker, type InProcessBroker } from '../../helpers/in-process-broker.js';
import { uniqueName } from '../../helpers/records.js';

let broker: InProcessBroker;
let bootstrap: string;

before(async () => {
  broker = await startInProcessBroker({ 'group.initial.rebalance.delay.ms': '0' });
  bootstrap = `127.0.0.1:${broker.port}`;
});
after(async () => {
  await broker?.stop();
});

/** The first offset a new group member consumes, or null when nothing came within `ms`. */
async function firstOffset(consumer: Consumer<Buffer | null, Buffer | null>, topic: string, ms: number): Promise<{ offset: bigint | null; stop: () => Promise<void>; next: Promise<bigint> }> {
  await consumer.subscribe([topic]);
  let first: bigint | null = null;
  const next = (async () => {
    for await (const batch of consumer.batches()) {
      const r = batch.records[0];
      if (r !== undefined) return (first = r.offset);
    }
    return -1n;
  })();
  await Promise.race([next, new Promise((r) => setTimeout(r, ms))]);
  return { offset: first, next, stop: () => consumer.close() };
}

test('a read_committed consumer waits for a pending transactional offset commit, then starts at its offset', { timeout: 60_000 }, async () => {
  const topic = uniqueName('rc-offsets');
  const groupId = uniqueName('rc-group');
  const admin = await Admin.connect({ bootstrap });
  await admin.createTopic({ name: topic, numPartitions: 1, replicationFactor: 1 });
  await admin.close();
  const plain = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap } });
  await plain.sendBatch(Array.from({ length: 10 }, (_, i) => ({ topic, key: null, value: `v${i}` })));
  await plain.close();

  const txn = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap }, transactionalId: uniqueName('rc-txn') });
  txn.beginTransaction();
  await txn.sendOffsetsToTransaction([{ topic, partition: 0, offset: 6n }], { groupId });

  const committed = await firstOffset(new Consumer({ bootstrap, groupId, autoOffsetReset: 'earliest', isolationLevel: 'read_committed' }), topic, 2_000);
  assert.equal(committed.offset, null, 'nothing consumed while the offset commit is pending');
  const uncommitted = await firstOffset(new Consumer({ bootstrap, groupId: uniqueName('other'), autoOffsetReset: 'earliest' }), topic, 10_000);
  assert.equal(uncommitted.offset, 0n, 'another group starts from its reset policy');
  await uncommitted.stop();

  await txn.commitTransaction();
  assert.equal(await committed.next, 6n, 'started at the offset the transaction committed, not at the reset policy');
  await committed.stop();
  await txn.close();
});
