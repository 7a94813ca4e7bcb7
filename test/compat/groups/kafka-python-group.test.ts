// kafka-python 2.0.2 consumer groups against one real broker process.
// kafka-python guesses the broker version from ApiVersions v0 and then pins
// FindCoordinator v0, JoinGroup v2, SyncGroup v1, Heartbeat v1, LeaveGroup v1,
// OffsetCommit v2 and OffsetFetch v1 (docs/compatibility.md). Its default
// assignors are range then roundrobin.
//
// KafkaConsumer(group_id=...) subscribe/poll/commit: a first member consumes a
// batch alone, a second joins and the two share the partitions (kafka-python
// commits synchronously before it rejoins), both stop gracefully (commit,
// LeaveGroup): every record exactly once. Then a restarted member resumes
// from the committed offsets with no re-delivery, and the committed offsets
// agree with what kafkajs' admin fetchOffsets (OffsetFetch) reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  FAST_GROUP_OVERRIDES,
  assertExactlyOnce,
  assertGroupsAdvertised,
  createTopic,
  describeTally,
  numberedValues,
  produceOnce,
  sleep,
  stopAll,
  tally,
  waitUntil,
} from '../../helpers/groups.js';
import { kafkaPythonMember, type PythonMember } from '../../helpers/groups-members.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 4;
const BATCH = 40;

describe('kafka-python 2.0.2 consumer group', { timeout: 120_000 }, () => {
  let broker: BrokerProcess;
  const all: PythonMember[] = [];

  before(async () => {
    broker = await startBroker({ name: 'kpy-group', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    await stopAll(all.map((m) => m.proc));
    await broker?.cleanup();
  });

  it('two members share the partitions (exactly once), commit, and a restarted member resumes from the committed offsets', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('kpy-grp');
      const group = uniqueName('kpy-g');
      await createTopic(broker, topic, PARTITIONS);
      const base = { bootstrap: broker.bootstrap, topic, group };
      const members: PythonMember[] = [];
      const make = (name: string): PythonMember => {
        const m = kafkaPythonMember(name, base);
        all.push(m);
        members.push(m);
        return m;
      };
      const state = (): string => members.map((m) => `${m.name}: owned ${JSON.stringify(m.owned())}, processed ${m.processed.length}, rebalances ${JSON.stringify(m.rebalances)}\n${m.proc.tail(20)}`).join('\n');
      const processed = () => members.flatMap((m) => m.processed);

      const m1 = make('kpy-1');
      await waitUntil('kpy-1 owns every partition', () => m1.owned().length === PARTITIONS, 30_000, state);
      const start = m1.proc.eventsOf('start')[0];
      t.diagnostic(`kafka-python guessed broker version ${JSON.stringify(start?.['api_version'])}`);
      const batch1 = numberedValues('kpy-a', 0, BATCH);
      await produceOnce(broker.bootstrap, topic, batch1, PARTITIONS);
      await waitUntil('kpy-1 consumes batch 1', () => tally(batch1, m1.processed).missing.length === 0, 20_000, state);

      const m2 = make('kpy-2');
      await waitUntil(
        'both members own partitions, together all of them, none twice',
        () => {
          const a = m1.owned();
          const b = m2.owned();
          return a.length > 0 && b.length > 0 && a.length + b.length === PARTITIONS && new Set([...a, ...b]).size === PARTITIONS;
        },
        30_000,
        state,
      );
      const batch2 = numberedValues('kpy-b', 0, BATCH);
      await produceOnce(broker.bootstrap, topic, batch2, PARTITIONS);
      const both = [...batch1, ...batch2];
      await waitUntil('batches 1 and 2 consumed', () => tally(both, processed()).missing.length === 0, 20_000, () => `${describeTally(tally(both, processed()))}\n${state()}`);
      const batch2Set = new Set(batch2);
      for (const m of [m1, m2]) assert.ok(m.processed.some((p) => batch2Set.has(p.value)), `${m.name} consumed part of batch 2: ${state()}`);

      for (const m of [m1, m2]) assert.equal((await m.stop()).forced, false, `${m.name} did not stop on SIGTERM: ${state()}`);
      assertExactlyOnce('batches 1+2 (no failures)', both, processed());
      const failedCommits = members.flatMap((m) => m.proc.eventsOf('commit').filter((e) => e['error'] !== null));
      const errors = members.flatMap((m) => m.errors());
      assert.deepEqual(errors, [], `errors reported by kafka-python: ${state()}`);
      t.diagnostic(`commits that failed (allowed during a rebalance): ${JSON.stringify(failedCommits)}`);

      // The committed offsets, read with another client (OffsetFetch via kafkajs admin): the log end of every partition.
      const kafka = new Kafka({ clientId: 'kpy-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        const got = (committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]).sort((a, b) => Number(a[0]) - Number(b[0]));
        assert.deepEqual(got, Array.from({ length: PARTITIONS }, (_, p) => [p, (2 * BATCH) / PARTITIONS]), 'committed offsets after batches 1+2');
      } finally {
        await admin.disconnect();
      }

      const batch3 = numberedValues('kpy-c', 0, 20);
      await produceOnce(broker.bootstrap, topic, batch3, PARTITIONS);
      const m3 = make('kpy-resume');
      await waitUntil('the restarted member consumes batch 3', () => tally(batch3, m3.processed).missing.length === 0, 25_000, state);
      await sleep(700);
      assert.equal((await m3.stop()).forced, false, 'kpy-resume did not stop on SIGTERM');
      assertExactlyOnce('resumed member', batch3, m3.processed);
      const closed = m3.closed();
      assert.deepEqual(closed?.['committed'], Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [String(p), (2 * BATCH + 20) / PARTITIONS])), 'committed() after the resume');
    });
  });
});
