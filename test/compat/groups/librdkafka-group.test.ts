// librdkafka 2.0.2 consumer groups (kcat -G and confluent-kafka-python 1.7)
// against one real broker process, with partition.assignment.strategy =
// range, roundrobin and cooperative-sticky (KIP-429 incremental rebalancing).
// librdkafka only enables groups when FindCoordinator 0, OffsetCommit 1-2,
// OffsetFetch 1, JoinGroup/SyncGroup/Heartbeat/LeaveGroup 0 are advertised
// (docs/compatibility.md), then sends JoinGroup v5, SyncGroup v3, Heartbeat v3,
// LeaveGroup v1, OffsetCommit v7, OffsetFetch v7, FindCoordinator v2.
//
// For each strategy, one group of two members, one kcat and one Python:
// the first consumes a first batch alone, the second joins (a rebalance that
// moves partitions; the Python member commits on revoke, kcat through
// librdkafka's auto-commit), a second batch is consumed by both, both stop
// gracefully (commit, LeaveGroup). With no failure every record is consumed
// exactly once. Then a third batch, and a single member resumes from the
// committed offsets: exactly the third batch, nothing re-delivered.
// For cooperative-sticky the first member must keep part of its partitions
// (its revoke is incremental, never "everything").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  FAST_GROUP_OVERRIDES,
  assertExactlyOnce,
  assertGroupsAdvertised,
  assertIncreasingOffsets,
  assertWhereProduced,
  createTopic,
  describeTally,
  numberedValues,
  produceOnce,
  stopAll,
  tally,
  waitUntil,
  type ClientProcess,
} from '../../helpers/groups.js';
import { KcatMember, PythonMember, confluentMember, type GroupMember } from '../../helpers/groups-members.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 6;
const BATCH = 60;
const STRATEGIES = ['range', 'roundrobin', 'cooperative-sticky'] as const;

describe('librdkafka 2.0.2 consumer groups (kcat -G, confluent-kafka-python)', { timeout: 150_000, concurrency: 4 }, () => {
  let broker: BrokerProcess;
  const all: GroupMember[] = [];

  before(async () => {
    broker = await startBroker({ name: 'rdkafka-group', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    await stopAll(all.map((m) => m.proc as ClientProcess));
    await broker?.cleanup();
  });

  for (const strategy of STRATEGIES) {
    it(`${strategy}: two members (kcat + python) share the partitions, exactly once without failures; commit and resume`, async (t) => {
      await broker.explain(async () => {
        const tag = `rd-${strategy}`;
        const topic = uniqueName(tag);
        const group = uniqueName(`${tag}-g`);
        await createTopic(broker, topic, PARTITIONS);
        const base = { bootstrap: broker.bootstrap, topic, group, strategy };
        // cooperative-sticky: the Python member (with on_assign/on_revoke reports) is the one that must keep partitions.
        const pythonFirst = strategy !== 'range';
        const make = (which: 'kcat' | 'python', name: string): GroupMember => {
          const m = which === 'kcat' ? new KcatMember(name, base) : confluentMember(name, base);
          all.push(m);
          return m;
        };
        const first = make(pythonFirst ? 'python' : 'kcat', pythonFirst ? 'py-1' : 'kcat-1');
        const members: GroupMember[] = [first];
        const state = (): string => members.map((m) => `${m.name}: owned ${JSON.stringify(m.owned())}, processed ${m.processed.length}, rebalances ${JSON.stringify(m.rebalances)}\n${m.proc.tail(20)}`).join('\n');
        const processed = () => members.flatMap((m) => m.processed);

        await waitUntil(`${first.name} owns all ${PARTITIONS} partitions`, () => first.owned().length === PARTITIONS, 30_000, state);
        const batch1 = numberedValues(`${tag}-a`, 0, BATCH);
        await produceOnce(broker.bootstrap, topic, batch1, PARTITIONS);
        await waitUntil(`${first.name} consumes batch 1`, () => tally(batch1, first.processed).missing.length === 0, 20_000, state);

        const second = make(pythonFirst ? 'kcat' : 'python', pythonFirst ? 'kcat-2' : 'py-2');
        members.push(second);
        await waitUntil(
          'both members own partitions, together all of them, none twice',
          () => {
            const a = first.owned();
            const b = second.owned();
            return a.length > 0 && b.length > 0 && a.length + b.length === PARTITIONS && new Set([...a, ...b]).size === PARTITIONS;
          },
          30_000,
          state,
        );
        const batch2 = numberedValues(`${tag}-b`, 0, BATCH);
        await produceOnce(broker.bootstrap, topic, batch2, PARTITIONS);
        const both = [...batch1, ...batch2];
        await waitUntil('batches 1 and 2 consumed', () => tally(both, processed()).missing.length === 0, 20_000, () => `${describeTally(tally(both, processed()))}\n${state()}`);
        // Both members consumed some of batch 2.
        const batch2Set = new Set(batch2);
        for (const m of members) assert.ok(m.processed.some((p) => batch2Set.has(p.value)), `${m.name} consumed part of batch 2: ${state()}`);

        if (strategy === 'cooperative-sticky') {
          // The first member's revokes (after the second joined) take away only some partitions; it never lost all.
          const revokes = first.rebalances.filter((r) => r.kind === 'revoke' || r.kind === 'lost');
          assert.ok(revokes.length >= 1, `${first.name} had an incremental revoke: ${state()}`);
          for (const r of revokes) assert.ok(r.partitions.length < PARTITIONS, `${first.name} revoke of ${JSON.stringify(r.partitions)} is not incremental: ${state()}`);
          assert.ok(first.owned().length > 0 && first.owned().length < PARTITIONS, `${first.name} keeps part: ${JSON.stringify(first.owned())}`);
        }

        const stopped = await Promise.all(members.map((m) => m.stop()));
        for (const [i, s] of stopped.entries()) {
          assert.equal(s.forced, false, `${members[i]?.name} did not stop on SIGTERM: ${state()}`);
          assert.equal(s.code, 0, `${members[i]?.name} exit code: ${state()}`);
        }
        assertExactlyOnce(`${strategy}: batches 1+2 (no failures)`, both, processed());
        assertIncreasingOffsets(`${strategy}: batches 1+2`, processed());
        assertWhereProduced(`${strategy}: batch 1`, batch1, processed(), PARTITIONS);
        assertWhereProduced(`${strategy}: batch 2`, batch2, processed(), PARTITIONS, Array.from({ length: PARTITIONS }, () => BATCH / PARTITIONS));
        const errors = members.flatMap((m) => m.errors().map((e) => `${m.name}: ${JSON.stringify(e)}`));
        assert.deepEqual(
          errors.filter((e) => !/_NO_OFFSET|Local: No offset stored/.test(e)),
          [],
          'client-reported errors',
        );

        // Resume: one member (the other tool than the one that started) gets exactly batch 3.
        const batch3 = numberedValues(`${tag}-c`, 0, 30);
        await produceOnce(broker.bootstrap, topic, batch3, PARTITIONS);
        const resumer = pythonFirst ? new KcatMember('kcat-resume', base) : confluentMember('py-resume', base);
        all.push(resumer);
        members.push(resumer);
        await waitUntil(`${resumer.name} consumes batch 3`, () => tally(batch3, resumer.processed).missing.length === 0, 25_000, state);
        await new Promise((r) => setTimeout(r, 700));
        const s = await resumer.stop();
        assert.equal(s.forced, false, `${resumer.name} did not stop on SIGTERM`);
        assert.equal(s.code, 0, `${resumer.name} exit code`);
        assertExactlyOnce(`${strategy}: resumed ${resumer.name}`, batch3, resumer.processed);
        assertWhereProduced(`${strategy}: batch 3`, batch3, resumer.processed, PARTITIONS, Array.from({ length: PARTITIONS }, () => (2 * BATCH) / PARTITIONS));
        assert.deepEqual(
          resumer.errors().map((e) => JSON.stringify(e)).filter((e) => !/_NO_OFFSET|Local: No offset stored/.test(e)),
          [],
          `${resumer.name}: client-reported errors (commits included)`,
        );
        // The final commits are the log ends: everything consumed was committed.
        const admin = new Kafka({ clientId: 'rd-offsets', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        try {
          const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
          const byPartition = (committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]).sort((a, b) => (a[0] as number) - (b[0] as number));
          assert.deepEqual(byPartition, Array.from({ length: PARTITIONS }, (_, p) => [p, (2 * BATCH + 30) / PARTITIONS]), 'committed offsets are the log ends');
        } finally {
          await admin.disconnect();
        }
        for (const m of members) {
          t.diagnostic(`${m.name}: processed ${m.processed.length}, rebalances ${JSON.stringify(m.rebalances.map((r) => [r.kind, r.partitions]))}, final commit ${JSON.stringify(m instanceof PythonMember ? m.closed()?.['committed'] : null)}`);
        }
      });
    });
  }

  it('static membership (group.instance.id, KIP-345): a member restarted within its session timeout gets its partitions back, no rebalance', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('rd-static');
      const group = uniqueName('rd-static-g');
      await createTopic(broker, topic, PARTITIONS);
      const base = { bootstrap: broker.bootstrap, topic, group, strategy: 'range', session_timeout_ms: 10_000 };
      const members: GroupMember[] = [];
      const make = (name: string, instance: string): GroupMember => {
        const m = confluentMember(name, { ...base, instance_id: instance });
        all.push(m);
        members.push(m);
        return m;
      };
      const state = (): string => members.map((m) => `${m.name}: owned ${JSON.stringify(m.owned())}, processed ${m.processed.length}, rebalances ${JSON.stringify(m.rebalances)}\n${m.proc.tail(15)}`).join('\n');
      const processed = () => members.flatMap((m) => m.processed);

      const a1 = make('static-a', 'inst-a');
      await waitUntil('static-a owns every partition', () => a1.owned().length === PARTITIONS, 30_000, state);
      const b = make('static-b', 'inst-b');
      await waitUntil('static-a and static-b share the partitions', () => a1.owned().length > 0 && b.owned().length > 0 && a1.owned().length + b.owned().length === PARTITIONS, 30_000, state);
      const aPartitions = a1.owned();
      const batch1 = numberedValues('rd-static-a', 0, BATCH);
      await produceOnce(broker.bootstrap, topic, batch1, PARTITIONS);
      await waitUntil('batch 1 consumed', () => tally(batch1, processed()).missing.length === 0, 20_000, state);
      const bRebalances = b.rebalances.length;

      // A static member's close sends no LeaveGroup; the same instance id comes back well within 10 s.
      assert.equal((await a1.stop()).forced, false, 'static-a did not stop on SIGTERM');
      const restartedAt = Date.now();
      const a2 = make('static-a-again', 'inst-a');
      await waitUntil('the restarted static-a gets its partitions back', () => a2.owned().length > 0, 20_000, state);
      const rejoinMs = Date.now() - restartedAt;
      assert.deepEqual(a2.owned(), aPartitions, `same partitions for the same instance id: ${state()}`);
      const batch2 = numberedValues('rd-static-b', 0, BATCH);
      await produceOnce(broker.bootstrap, topic, batch2, PARTITIONS);
      const both = [...batch1, ...batch2];
      await waitUntil('batch 2 consumed', () => tally(both, processed()).missing.length === 0, 20_000, state);
      assert.equal(b.rebalances.length, bRebalances, `static-b was not rebalanced while static-a restarted: ${state()}`);
      await Promise.all([a2.stop(), b.stop()]);
      assertExactlyOnce('static membership restart', both, processed());
      t.diagnostic(`static-a rejoined in ${rejoinMs} ms with ${JSON.stringify(aPartitions)}; static-b rebalances ${JSON.stringify(b.rebalances.map((r) => [r.kind, r.partitions]))}`);
    });
  });
});
