// Our Consumer across leader moves, against a scripted 3-broker cluster
// (fake-cluster.ts): metadata refresh and fetching from the new leader,
// CurrentLeaderEpoch fencing, KIP-320 position validation with
// OffsetForLeaderEpoch and truncation detection (reset with a warning, or
// LogTruncationError under autoOffsetReset 'none'), rackId and the preferred
// read replica (KIP-392).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../../src/client/consumer.js';
import type { ConsumerOptions } from '../../../src/client/consumer-types.js';
import { LogTruncationError } from '../../../src/net/errors.js';
import { deserializers } from '../../../src/client/serde.js';
import { FakeCluster } from './fake-cluster.js';

type Record = { offset: bigint; value: string; leaderEpoch: number };

async function setup(t: { after: (fn: () => Promise<void>) => void }, options: Partial<ConsumerOptions<Buffer | null, string | null>> = {}) {
  const fake = await FakeCluster.start({ brokers: 3 });
  const warnings: string[] = [];
  const consumer = new Consumer<Buffer | null, string | null>({
    bootstrap: fake.bootstrap,
    valueDeserializer: deserializers.string,
    autoOffsetReset: 'earliest',
    fetchMaxWaitMs: 50,
    clusterOptions: { retryBackoffMs: 20 },
    logger: { warn: (m) => warnings.push(m) },
    ...options,
  });
  let it = consumer.batches();
  t.after(async () => {
    await consumer.close();
    await fake.stop();
  });
  /** The next `count` records (fails after 10 s). */
  const take = async (count: number): Promise<Record[]> => {
    const out: Record[] = [];
    const deadline = Date.now() + 10_000;
    while (out.length < count) {
      // An error ends a batches() loop: the next take() starts a new one, as an application would.
      const next = it.next().catch((err: unknown) => {
        it = consumer.batches();
        throw err;
      });
      let timer: NodeJS.Timeout | undefined;
      const step = await Promise.race([next, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), deadline - Date.now())))]).finally(() => clearTimeout(timer));
      if (step === 'timeout') throw new Error(`only ${out.length} of ${count} records within 10 s: ${JSON.stringify(out.map((r) => r.value))}`);
      if (step.done === true) throw new Error('the consumer ended');
      for (const r of step.value.records) out.push({ offset: r.offset, value: r.value as string, leaderEpoch: r.leaderEpoch });
    }
    return out;
  };
  return { fake, consumer, take, warnings };
}

const values = (tag: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${tag}${i}`);

test('a leader move: metadata refreshed, position validated with OffsetForLeaderEpoch, then fetched from the new leader with CurrentLeaderEpoch', async (t) => {
  const { fake, consumer, take, warnings } = await setup(t);
  fake.append(0, values('a', 5));
  fake.append(0, values('b', 5));
  consumer.assign([{ topic: 't', partition: 0 }]);
  const first = await take(10);
  assert.deepEqual(first.map((r) => r.value), [...values('a', 5), ...values('b', 5)]);
  assert.ok(first.every((r) => r.leaderEpoch === 0));
  fake.moveLeader(0, 2);
  fake.append(0, values('c', 5));
  const second = await take(5);
  assert.deepEqual(second.map((r) => [r.offset, r.value, r.leaderEpoch]), values('c', 5).map((v, i) => [BigInt(10 + i), v, 1]));
  const validations = fake.requestsOf(23);
  assert.equal(validations.length, 1, 'one OffsetForLeaderEpoch');
  assert.equal(validations[0]?.node, 2, 'sent to the new leader');
  const asked = (validations[0]?.req.body.topics as { partitions: { leaderEpoch: number; currentLeaderEpoch: number }[] }[])[0]?.partitions[0];
  assert.deepEqual([asked?.leaderEpoch, asked?.currentLeaderEpoch], [0, 1], 'the epoch of the last record consumed, and the new leader epoch');
  const fetches = fake.requestsOf(1);
  const atNew = fetches.filter((f) => f.node === 2);
  assert.ok(atNew.length > 0);
  for (const f of atNew) {
    const p = (f.req.body.topics as { partitions: { currentLeaderEpoch: number }[] }[])[0]?.partitions[0];
    assert.equal(p?.currentLeaderEpoch, 1, 'Fetch carries the current leader epoch');
  }
  const firstAtNew = fetches.indexOf(atNew[0] as (typeof fetches)[number]);
  assert.ok(fake.requests.indexOf(validations[0] as (typeof fetches)[number]) < fake.requests.indexOf(fetches[firstAtNew] as (typeof fetches)[number]), 'validated before fetching from the new leader');
  assert.equal(consumer.position({ topic: 't', partition: 0 }), 15n);
  assert.deepEqual(warnings, []);
});

test('the leader dies and another is elected later: the consumer waits, then resumes from its position without gaps or duplicates', async (t) => {
  const { fake, consumer, take } = await setup(t);
  fake.append(0, values('a', 4));
  consumer.assign([{ topic: 't', partition: 0 }]);
  assert.equal((await take(4)).length, 4);
  await fake.kill(1);
  setTimeout(() => {
    fake.moveLeader(0, 3);
    fake.append(0, values('b', 4));
  }, 700);
  const after = await take(4);
  assert.deepEqual(after.map((r) => [r.offset, r.value]), values('b', 4).map((v, i) => [BigInt(4 + i), v]));
});

test('FENCED_LEADER_EPOCH: a fetch with a stale leader epoch is refused; the consumer refreshes its metadata and goes on', async (t) => {
  const { fake, consumer, take } = await setup(t);
  fake.append(0, values('a', 3));
  consumer.assign([{ topic: 't', partition: 0 }]);
  await take(3);
  // Same leader, new epoch (a re-election): the consumer's next fetch still says epoch 0.
  fake.moveLeader(0, 1);
  fake.append(0, values('b', 3));
  const after = await take(3);
  assert.deepEqual(after.map((r) => r.value), values('b', 3));
  const epochs = fake.requestsOf(1).map((f) => (f.req.body.topics as { partitions: { currentLeaderEpoch: number }[] }[])[0]?.partitions[0]?.currentLeaderEpoch);
  assert.ok(epochs.includes(0) && epochs.at(-1) === 1, `fetched under epoch 0, then 1 (${epochs.join(',')})`);
  assert.equal(fake.requestsOf(23).length, 1, 'the position was validated once');
});

/** 10 records at epoch 0 consumed, then an unclean election: the new leader's log ends at 5 for epoch 0 and has 3 new records. */
async function truncatedUnder(fake: FakeCluster, take: (n: number) => Promise<Record[]>): Promise<void> {
  fake.append(0, values('a', 5));
  fake.append(0, values('b', 5));
  assert.equal((await take(10)).length, 10);
  fake.moveLeader(0, 2);
  fake.truncate(0, 5n);
  fake.append(0, values('c', 3));
}

test('truncation detected after a leader change: with autoOffsetReset the position moves back to the divergence point and a warning names it', async (t) => {
  const { fake, consumer, take, warnings } = await setup(t);
  consumer.assign([{ topic: 't', partition: 0 }]);
  await truncatedUnder(fake, take);
  const after = await take(3);
  assert.deepEqual(after.map((r) => [r.offset, r.value]), values('c', 3).map((v, i) => [BigInt(5 + i), v]));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] as string, /t-0: the log was truncated .*position 10 \(epoch 0\) is past the leader's end offset 5 \(epoch 0\)/);
});

test("truncation detected with autoOffsetReset 'none': LogTruncationError names the partition and offsets; seek() goes on", async (t) => {
  const { fake, consumer, take, warnings } = await setup(t, { autoOffsetReset: 'none' });
  consumer.assign([{ topic: 't', partition: 0 }]);
  consumer.seek({ topic: 't', partition: 0 }, 0);
  await truncatedUnder(fake, take);
  const err = await take(1).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof LogTruncationError, `got ${String(err)}`);
  assert.equal(err.code, 'ERR_TRIB_LOG_TRUNCATION');
  assert.deepEqual([err.topic, err.partition, err.fetchOffset, err.divergentOffset, err.divergentEpoch], ['t', 0, 10n, 5n, 0]);
  assert.match(err.message, /t-0: .*position 10 is past the leader's end offset 5/);
  assert.deepEqual(warnings, []);
  consumer.seek({ topic: 't', partition: 0 }, err.divergentOffset as bigint);
  assert.deepEqual((await take(3)).map((r) => r.value), values('c', 3));
});

test('rackId goes out in Fetch; the consumer follows the PreferredReadReplica and goes back to the leader when that replica fails', async (t) => {
  const { fake, consumer, take } = await setup(t, { rackId: 'rack-3' });
  fake.partition(0).preferredReadReplica = 3;
  fake.append(0, values('a', 4));
  consumer.assign([{ topic: 't', partition: 0 }]);
  assert.deepEqual((await take(4)).map((r) => r.value), values('a', 4));
  const fetches = fake.requestsOf(1);
  assert.ok(fetches.every((f) => f.req.body.rackId === 'rack-3'), 'every Fetch names the rack');
  assert.equal(fetches[0]?.node, 1, 'the first fetch asks the leader');
  assert.ok(fetches.some((f) => f.node === 3), 'then the preferred replica');
  // The replica goes away (and the leader stops naming it): back to the leader.
  fake.partition(0).preferredReadReplica = -1;
  await fake.kill(3);
  const mark = fake.requestsOf(1).length;
  fake.append(0, values('b', 4));
  assert.deepEqual((await take(4)).map((r) => r.value), values('b', 4));
  assert.ok(fake.requestsOf(1).slice(mark).some((f) => f.node === 1), 'fetched from the leader again');
});

test('a reset after a re-election: ListOffsets carries the cached leader epoch; FENCED_LEADER_EPOCH refreshes the metadata and the retry carries the new one', async (t) => {
  const { fake, consumer, take } = await setup(t);
  fake.append(0, values('a', 3));
  const tp = { topic: 't', partition: 0 };
  consumer.assign([tp]);
  await take(3);
  consumer.pause([tp]);
  fake.moveLeader(0, 1);
  const mark = fake.requestsOf(2).length;
  consumer.seek(tp, 'earliest');
  consumer.resume([tp]);
  assert.deepEqual((await take(3)).map((r) => [r.offset, r.value]), values('a', 3).map((v, i) => [BigInt(i), v]));
  const epochs = fake
    .requestsOf(2)
    .slice(mark)
    .map((r) => (r.req.body.topics as { partitions: { currentLeaderEpoch: number }[] }[])[0]?.partitions[0]?.currentLeaderEpoch);
  assert.deepEqual(epochs, [0, 1], 'the stale epoch (fenced), then the refreshed one');
});

test('a committed offset with its leader epoch is validated before the first fetch: a log truncated while the consumer was away is found', async (t) => {
  const { fake, consumer, take, warnings } = await setup(t, { groupId: 'g', autoCommit: false });
  fake.append(0, values('a', 5));
  fake.append(0, values('b', 5));
  // The group committed offset 10 (epoch 0); then an unclean election cut the log at 5 and epoch 1 wrote 2 records.
  fake.committed.set(0, { offset: 10n, leaderEpoch: 0 });
  fake.moveLeader(0, 2);
  fake.truncate(0, 5n);
  fake.append(0, values('c', 2));
  consumer.assign([{ topic: 't', partition: 0 }]);
  assert.deepEqual((await take(2)).map((r) => [r.offset, r.value]), [
    [5n, 'c0'],
    [6n, 'c1'],
  ]);
  assert.equal(fake.requestsOf(23).length, 1);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] as string, /position 10 \(epoch 0\) is past the leader's end offset 5/);
});

test('the leader moves again while a position waits for validation: validation follows it (CurrentLeaderEpoch of the newest leader)', async (t) => {
  const { fake, consumer, take } = await setup(t);
  fake.append(0, values('a', 3));
  consumer.assign([{ topic: 't', partition: 0 }]);
  await take(3);
  // The first validation (under epoch 1) meets a second election (epoch 2) and is answered FENCED_LEADER_EPOCH:
  // it must be sent again under epoch 2, not under the stale 1 for ever.
  let elections = 0;
  fake.beforeOffsetForLeaderEpoch = () => {
    if (elections++ === 0) fake.moveLeader(0, 3);
  };
  fake.moveLeader(0, 2);
  fake.append(0, values('b', 3));
  const after = await take(3);
  assert.deepEqual(after.map((r) => r.value), values('b', 3));
  const asked = fake.requestsOf(23).map((r) => (r.req.body.topics as { partitions: { currentLeaderEpoch: number }[] }[])[0]?.partitions[0]?.currentLeaderEpoch);
  assert.deepEqual([asked[0], asked.at(-1)], [1, 2], `validated under epoch 1, then 2 (${asked.join(',')})`);
});
