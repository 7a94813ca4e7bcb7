/**
 * Our idempotent Producer and our Consumer on a REAL 3-node cluster (child
 * processes on loopback) while the broker that leads the partition is
 * killed with SIGKILL and restarted. The producer keeps sending throughout
 * (retrying within deliveryTimeoutMs), the consumer keeps reading.
 * Afterwards: every send was acknowledged, the acknowledged offsets follow
 * the send order, the partition read back from offset 0 holds every record
 * exactly once, in send order, at its acknowledged offset, and the consumer
 * saw that same sequence (it resumed after the restart, without gaps or
 * duplicates).
 *
 * With REPLICATION_FACTOR 3 the partition fails over to an in-sync follower
 * (the leader is the first replica of the assignment, placed on a node that
 * is not the active controller); with 1 it is offline until its only
 * replica restarts.
 * Every loop is bounded in count and time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Consumer } from '../../../src/client/consumer.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import type { RecordMetadata } from '../../../src/client/producer-accumulator.js';
import { deserializers } from '../../../src/client/serde.js';
import { startCluster } from '../../helpers/cluster-process.js';

const REPLICATION_FACTOR = 3;
const TOPIC = 'failover-orders';
const RECORDS = 3_000;
const KILL_AFTER_ACKS = 800;
const DOWN_MS = 1_000;
const IN_FLIGHT_MAX = 200;
const DEADLINE_MS = 90_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('kill -9 and restart of the partition leader: our producer delivers everything once and in order, our consumer resumes', { timeout: 150_000 }, async (t) => {
  const cluster = await startCluster({ name: 'clientfail' });
  t.after(() => cluster.cleanup());
  const controller = await cluster.waitForActiveController([1, 2, 3]);
  const victim = [1, 2, 3].find((id) => id !== controller) as number;
  const replicas = [victim, ...[1, 2, 3].filter((id) => id !== victim)].slice(0, REPLICATION_FACTOR);
  const bootstrap = cluster.bootstrap;

  const admin = await Admin.connect({ bootstrap });
  t.after(() => admin.close());
  await admin.createTopics([{ name: TOPIC, assignments: [replicas] }]);

  const producer = await Producer.connect<string, string>({
    clusterOptions: { bootstrap, retryBackoffMs: 50, requestTimeoutMs: 10_000 },
    valueSerializer: Serializers.string,
    idempotent: true,
    lingerMs: 5,
    batchSize: 4_096,
    deliveryTimeoutMs: 60_000,
    requestTimeoutMs: 10_000,
    allowAutoTopicCreation: false,
  });
  t.after(() => producer.close());

  const consumer = new Consumer<Buffer | null, string | null>({
    bootstrap,
    valueDeserializer: deserializers.string,
    autoOffsetReset: 'earliest',
    fetchMaxWaitMs: 100,
    clusterOptions: { retryBackoffMs: 50, requestTimeoutMs: 10_000 },
  });
  t.after(() => consumer.close());
  consumer.assign([{ topic: TOPIC, partition: 0 }]);
  const consumed: { offset: bigint; value: string }[] = [];
  const reading = (async () => {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) consumed.push({ offset: r.offset, value: r.value as string });
      if (consumed.length >= RECORDS) return;
    }
  })();

  // Send in order; up to IN_FLIGHT_MAX unacknowledged at a time.
  const started = Date.now();
  const acks: (RecordMetadata | Error | undefined)[] = new Array(RECORDS);
  const pending = new Set<Promise<void>>();
  let acked = 0;
  let killed = false;
  // The victim's restart: awaited before the checks, so cleanup never races a node that is still starting.
  let restarted: Promise<void> = Promise.resolve();
  let lastAckAt = started;
  let longestGapMs = 0;
  for (let i = 0; i < RECORDS; i++) {
    while (pending.size >= IN_FLIGHT_MAX) await Promise.race(pending);
    if (!killed && acked >= KILL_AFTER_ACKS) {
      killed = true;
      await cluster.node(victim).kill9();
      restarted = new Promise<void>((resolve) => setTimeout(resolve, DOWN_MS)).then(() => cluster.node(victim).start());
    }
    const p = producer.send({ topic: TOPIC, partition: 0, value: `r${i}` }).then(
      (m) => {
        acks[i] = m;
        acked++;
        const now = Date.now();
        longestGapMs = Math.max(longestGapMs, now - lastAckAt);
        lastAckAt = now;
      },
      (err: Error) => {
        acks[i] = err;
      },
    );
    pending.add(p);
    void p.finally(() => pending.delete(p));
    assert.ok(Date.now() - started < DEADLINE_MS, 'sending took too long');
  }
  await Promise.all(pending);
  await restarted;
  // The restarted node catches up as a follower and rejoins the ISR (AlterPartition from the leader).
  const rejoinDeadline = Date.now() + 60_000;
  for (;;) {
    const [d] = await admin.describeTopics([TOPIC], { includeConfigs: false }).catch(() => []);
    if (d?.partitions[0]?.isr.includes(victim) === true) break;
    assert.ok(Date.now() < rejoinDeadline, `node ${victim} did not rejoin the ISR within 60 s`);
    await sleep(200);
  }
  assert.ok(killed, 'the leader was killed mid-stream');
  t.diagnostic(`${RECORDS} records in ${Date.now() - started} ms; longest gap between acknowledgements ${longestGapMs} ms (node ${victim} down ${DOWN_MS} ms, then restarting)`);
  // An epoch above 0 means a partition asked for a bump (KIP-360): the restarted leader lost the producer's state or a batch failed for good.
  t.diagnostic(`producer id and epoch after the run: ${JSON.stringify(producer.producerIdAndEpoch, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);

  // The producer: everything acknowledged, offsets in send order.
  const failures = acks.filter((a): a is Error => a instanceof Error);
  assert.deepEqual(failures.map((e) => e.message).slice(0, 3), [], `${failures.length} sends failed`);
  const offsets = acks.map((a) => (a as RecordMetadata).offset);
  for (let i = 1; i < offsets.length; i++) assert.ok((offsets[i] as bigint) > (offsets[i - 1] as bigint), `offset of r${i} (${offsets[i]}) follows r${i - 1}'s (${offsets[i - 1]})`);

  // The consumer: resumed after the restart and saw every record once, in order.
  await Promise.race([reading, sleep(30_000)]);
  assert.equal(consumed.length, RECORDS, `the consumer read ${consumed.length} of ${RECORDS} records`);
  assert.deepEqual(
    consumed.map((r) => r.value),
    acks.map((_, i) => `r${i}`),
  );
  assert.deepEqual(
    consumed.map((r) => r.offset),
    offsets,
    'each record at its acknowledged offset',
  );

  // The log, read back from offset 0 by a fresh consumer: exactly the acknowledged records.
  const check = new Consumer<Buffer | null, string | null>({ bootstrap, valueDeserializer: deserializers.string, autoOffsetReset: 'earliest', fetchMaxWaitMs: 100 });
  t.after(() => check.close());
  check.assign([{ topic: TOPIC, partition: 0 }]);
  const log: { offset: bigint; value: string }[] = [];
  const end = (await admin.listOffsets(TOPIC, 0, 'latest')).offset;
  const deadline = Date.now() + 30_000;
  for await (const batch of check.batches()) {
    for (const r of batch.records) log.push({ offset: r.offset, value: r.value as string });
    if (log.length > 0 && (log.at(-1)?.offset ?? -1n) + 1n >= end) break;
    assert.ok(Date.now() < deadline, 'reading the log back took too long');
  }
  assert.deepEqual(
    log.map((r) => r.value),
    acks.map((_, i) => `r${i}`),
    'the log holds every acknowledged record once, in send order',
  );
});
