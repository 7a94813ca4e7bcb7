// Our idempotent Producer across leader moves and replication errors, against
// a scripted 3-broker cluster (fake-cluster.ts) that keeps each partition's
// log and Kafka's producer state: every acknowledged record must be in the
// log exactly once, in send order, whatever the cluster does in between.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/client/cluster.js';
import { Producer, Serializers, type ProducerOptions } from '../../../src/client/producer.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FakeCluster, type ProduceHook } from './fake-cluster.js';

async function setup(t: { after: (fn: () => Promise<void>) => void }, options: { partitions?: number; produceHook?: ProduceHook } = {}) {
  const fake = await FakeCluster.start({ brokers: 3, ...options });
  const cluster = await Cluster.connect({ bootstrap: fake.bootstrap, retryBackoffMs: 20 });
  t.after(async () => {
    await cluster.close();
    await fake.stop();
  });
  return { fake, cluster };
}

function producer(cluster: Cluster, options: Omit<ProducerOptions<string | null, string>, 'cluster'> = {}) {
  return Producer.connect<string | null, string>({
    cluster,
    valueSerializer: Serializers.string,
    lingerMs: 1,
    batchSize: 200,
    retryBackoffMs: 20,
    ...options,
  });
}

const values = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `v${from + i}`);

/** Sends `count` records to partition 0 in chunks, calling `between(i)` before chunk i; resolves with every acknowledgement. */
async function sendAll(p: Producer<string | null, string>, count: number, between: (chunk: number) => Promise<void> | void) {
  const acks: Promise<unknown>[] = [];
  for (let chunk = 0; chunk * 20 < count; chunk++) {
    await between(chunk);
    for (const value of values(chunk * 20, Math.min(20, count - chunk * 20))) acks.push(p.send({ topic: 't', partition: 0, value }));
    await new Promise((r) => setTimeout(r, 5));
  }
  return Promise.all(acks);
}

test('a leader move (NOT_LEADER_OR_FOLLOWER): batches go to the new leader, every record once, in order', async (t) => {
  const { fake, cluster } = await setup(t);
  const p = await producer(cluster);
  await sendAll(p, 200, (chunk) => {
    if (chunk === 4) fake.moveLeader(0, 2);
  });
  await p.close();
  assert.deepEqual(fake.values(0), values(0, 200));
  const produces = fake.requestsOf(0);
  assert.ok(produces.some((r) => r.node === 1) && produces.some((r) => r.node === 2), 'both leaders got produce requests');
  const lastAtOld = produces.findLastIndex((r) => r.node === 1);
  const firstAtNew = produces.findIndex((r) => r.node === 2);
  assert.ok(firstAtNew > 0 && lastAtOld < produces.length - 1, 'after the move, requests went to node 2');
  assert.deepEqual(p.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 0 }, 'no epoch bump: the new leader has the producer state');
});

test('the leader dies (connection loss) and is replaced after a while: retried within deliveryTimeoutMs, exactly once, in order, metadata refreshed with backoff', async (t) => {
  const { fake, cluster } = await setup(t);
  const p = await producer(cluster, { deliveryTimeoutMs: 20_000 });
  let outageStart = 0;
  let outageEnd = 0;
  await sendAll(p, 200, async (chunk) => {
    if (chunk !== 3) return;
    outageStart = fake.requestsOf(3).length;
    await fake.kill(1);
    // No leader for 1.5 s (the election): the producer must wait, not spin, and not give up.
    setTimeout(() => {
      fake.moveLeader(0, 2);
      outageEnd = fake.requestsOf(3).length;
    }, 1_500);
  });
  await p.close();
  assert.deepEqual(fake.values(0), values(0, 200));
  const refreshes = outageEnd - outageStart;
  assert.ok(refreshes >= 2, `the producer refreshed metadata during the outage (${refreshes})`);
  // Backoff 20 ms doubling to 1 s over 1.5 s: about 7 refreshes; a tight loop would make thousands.
  assert.ok(refreshes <= 15, `metadata refreshes during the outage are backed off (${refreshes})`);
});

test('a new leader without the producer state: no new batch overtakes one in flight to the old leader', async (t) => {
  let moved = false;
  const hook: ProduceHook = ({ node, baseSequence, attempt }) => {
    // The first batch reaches the old leader just as leadership moves; its NOT_LEADER answer is slow.
    if (node === 1 && baseSequence === 1 && attempt === 0) {
      fake.moveLeader(0, 2, { loseProducerState: true });
      moved = true;
      return { error: ErrorCode.NOT_LEADER_OR_FOLLOWER, delayMs: 300 };
    }
    return undefined;
  };
  const { fake, cluster } = await setup(t, { produceHook: hook });
  // Metadata goes over the first node connection: node 3's, not the one the slow answer holds up.
  await cluster.connectionTo(3);
  const p = await producer(cluster, { batchSize: 100_000, lingerMs: 0 });
  await p.send({ topic: 't', partition: 0, value: 'warm-up' });
  const first = p.sendBatch(values(0, 5).map((value) => ({ topic: 't', partition: 0, value })));
  while (!moved) await new Promise((r) => setTimeout(r, 2));
  // Another user of the cluster client learns the new leader while the first batch is in flight.
  await cluster.refreshMetadata(['t']);
  const rest = p.sendBatch(values(5, 5).map((value) => ({ topic: 't', partition: 0, value })));
  await Promise.all([first, rest]);
  await p.close();
  // Node 2 has no state for the producer and would take any sequence: only the client keeps the order.
  assert.deepEqual(fake.values(0), ['warm-up', ...values(0, 10)]);
});

for (const [name, code] of [
  ['NOT_ENOUGH_REPLICAS', ErrorCode.NOT_ENOUGH_REPLICAS],
  ['REQUEST_TIMED_OUT', ErrorCode.REQUEST_TIMED_OUT],
  ['LEADER_NOT_AVAILABLE', ErrorCode.LEADER_NOT_AVAILABLE],
  ['FENCED_LEADER_EPOCH', ErrorCode.FENCED_LEADER_EPOCH],
  ['UNKNOWN_LEADER_EPOCH', ErrorCode.UNKNOWN_LEADER_EPOCH],
  ['KAFKA_STORAGE_ERROR', ErrorCode.KAFKA_STORAGE_ERROR],
] as const) {
  test(`${name} on every other attempt: retried, every record once and in order`, async (t) => {
    const { fake, cluster } = await setup(t, { produceHook: ({ attempt, baseSequence }) => (attempt === 0 && baseSequence % 2 === 0 ? { error: code } : undefined) });
    const p = await producer(cluster);
    await sendAll(p, 100, () => undefined);
    await p.close();
    assert.deepEqual(fake.values(0), values(0, 100));
    assert.ok(fake.requestsOf(0).length > 5, 'several produce requests');
  });
}

test('NOT_ENOUGH_REPLICAS_AFTER_APPEND (written, then refused): the retry is a duplicate, nothing is written twice', async (t) => {
  const { fake, cluster } = await setup(t, {
    produceHook: ({ attempt }) => (attempt === 0 ? { error: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, afterAppend: true } : undefined),
  });
  const p = await producer(cluster);
  const acks = (await sendAll(p, 60, () => undefined)) as { offset: bigint }[];
  await p.close();
  assert.deepEqual(fake.values(0), values(0, 60));
  assert.deepEqual(
    acks.map((a) => a.offset),
    values(0, 60).map((_, i) => BigInt(i)),
    'each record acknowledged at its offset (the duplicate answer carries the original)',
  );
});

test('KAFKA_STORAGE_ERROR makes the producer refresh metadata before the retry', async (t) => {
  const { fake, cluster } = await setup(t, {
    produceHook: ({ attempt, node }) => {
      if (node === 1 && attempt === 0) {
        fake.moveLeader(0, 3);
        return { error: ErrorCode.KAFKA_STORAGE_ERROR };
      }
      return undefined;
    },
  });
  const p = await producer(cluster);
  await p.send({ topic: 't', partition: 0, value: 'x' });
  await p.close();
  assert.deepEqual(fake.values(0), ['x']);
  assert.deepEqual(
    fake.requestsOf(0).map((r) => r.node),
    [1, 3],
  );
});

test('OUT_OF_ORDER_SEQUENCE_NUMBER from a new leader that lost the last acknowledged batch: the epoch is bumped (KIP-360) and the rest goes through', async (t) => {
  const { fake, cluster } = await setup(t);
  const p = await producer(cluster, { lingerMs: 0 });
  await p.send({ topic: 't', partition: 0, value: 'a' });
  const before = structuredClone([...fake.partition(0).producers]);
  await p.send({ topic: 't', partition: 0, value: 'b' });
  // An unclean election: the new leader has 'a' (and its producer state) but not 'b'.
  fake.moveLeader(0, 2);
  fake.truncate(0, 1n);
  fake.partition(0).producers = new Map(before);
  await p.send({ topic: 't', partition: 0, value: 'c' });
  await p.send({ topic: 't', partition: 0, value: 'd' });
  await p.close();
  assert.deepEqual(fake.values(0), ['a', 'c', 'd']);
  assert.deepEqual(p.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 1 });
});

test('records fail with ERR_TRIB_DELIVERY_TIMEOUT when no leader comes back within deliveryTimeoutMs', async (t) => {
  const { fake, cluster } = await setup(t);
  const p = await producer(cluster, { deliveryTimeoutMs: 600, requestTimeoutMs: 300 });
  await p.send({ topic: 't', partition: 0, value: 'a' });
  await fake.kill(1);
  const started = Date.now();
  await assert.rejects(p.send({ topic: 't', partition: 0, value: 'b' }), { code: 'ERR_TRIB_DELIVERY_TIMEOUT' });
  assert.ok(Date.now() - started < 5_000, 'failed soon after the delivery timeout');
  await p.close();
});
