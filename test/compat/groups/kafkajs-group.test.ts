// kafkajs 2.2.4 consumer groups against one real broker process (JoinGroup v5,
// SyncGroup v3, Heartbeat v3, LeaveGroup v3, OffsetCommit v5, OffsetFetch v4,
// FindCoordinator v2 when advertised that high; kafkajs ignores the broker's
// minimum). Three members (A, B in this process; K in a child process) share a
// 6-partition topic while records are produced continuously; D joins late, A
// leaves (disconnect: LeaveGroup), K is SIGKILLed (no LeaveGroup: its session
// must expire). Every produced record must be processed by some member
// (at-least-once: duplicates across rebalances are allowed and reported), and
// no partition may be owned by two members in one generation. Then the group
// commits, everyone leaves, a new member resumes from the committed offsets
// with no re-delivery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Consumer, Producer } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  ClientProcess,
  FAST_GROUP_OVERRIDES,
  assertExactlyOnce,
  assertGroupsAdvertised,
  createTopic,
  describeTally,
  doubleOwnership,
  generationWith,
  numberedValues,
  produceValues,
  sleep,
  stopAll,
  tally,
  valueProducer,
  waitUntil,
  type Processed,
} from '../../helpers/groups.js';
import { memberKafka, runKafkajsMember, type KafkajsAssignment } from '../../helpers/groups-kafkajs.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 6;
const MEMBER_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'kafkajs-member.js');
const MAX_RECORDS = 3000;

describe('kafkajs 2.2.4 consumer group', { timeout: 150_000 }, () => {
  let broker: BrokerProcess;
  const consumers = new Map<string, Consumer>();
  const children: ClientProcess[] = [];
  const producers: Producer[] = [];
  const logs: string[] = [];

  before(async () => {
    broker = await startBroker({ name: 'kjs-group', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    await Promise.all([...consumers.values()].map((c) => c.disconnect().catch(() => undefined)));
    await stopAll(children);
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await broker?.cleanup();
  });

  it('3 members, a late joiner, a leave and a SIGKILLed member: every record processed, no partition owned twice in a generation; then resume from commits', async (t) => {
    const topic = uniqueName('kjs-grp');
    const groupId = uniqueName('kjs-g');
    const processed: Processed[] = [];
    const assignments: KafkajsAssignment[] = [];
    const joins: { member: string; memberAssignment: Record<string, number[]> }[] = [];
    const produced: string[] = [];
    let producing = true;
    let producerError: unknown = null;

    const state = (): string =>
      [
        `produced ${produced.length}, processed ${processed.length}: ${describeTally(tally(produced, processed), 5)}`,
        `assignments: ${JSON.stringify(assignments.map((a) => [a.member, a.generationId, a.partitions]))}`,
        `kafkajs warnings/errors (last 20):\n${logs.slice(-20).join('\n')}`,
        ...children.map((c) => c.tail(15)),
      ].join('\n');

    try {
      await broker.explain(async () => {
        await createTopic(broker, topic, PARTITIONS);

        const inProcess = async (member: string): Promise<Consumer> => {
          const consumer = await runKafkajsMember({
            bootstrap: broker.bootstrap,
            topic,
            groupId,
            member,
            hooks: {
              onAssignment: (a) => assignments.push(a),
              onGroupJoin: (p) => joins.push({ member, memberAssignment: p.memberAssignment }),
              onLog: (line) => logs.push(line),
            },
            onMessage: (p) => processed.push(p),
          });
          consumers.set(member, consumer);
          return consumer;
        };
        const inChild = (member: string): ClientProcess => {
          const child = new ClientProcess(member, process.execPath, [MEMBER_SCRIPT, JSON.stringify({ bootstrap: broker.bootstrap, topic, groupId, member })]);
          children.push(child);
          child.onStdoutLine((line) => {
            if (!line.startsWith('{')) return;
            const e = JSON.parse(line) as Record<string, unknown>;
            if (e['ev'] === 'rec') processed.push({ member, partition: Number(e['partition']), offset: Number(e['offset']), value: String(e['value']) });
            else if (e['ev'] === 'assign') assignments.push({ member, memberId: String(e['memberId']), generationId: Number(e['generationId']), partitions: e['partitions'] as number[] });
            else if (e['ev'] === 'join') joins.push({ member, memberAssignment: e['memberAssignment'] as Record<string, number[]> });
            else if (e['ev'] === 'log') logs.push(String(e['line']));
          });
          return child;
        };
        const waitForGeneration = async (members: string[], timeoutMs: number): Promise<number> => {
          await waitUntil(`a generation with exactly members ${members.join(',')}`, () => generationWith(assignments, members) !== undefined, timeoutMs, state);
          return generationWith(assignments, members) ?? -1;
        };

        // Produce continuously (bounded): one record per partition every 40 ms.
        const producer = await valueProducer(broker.bootstrap);
        producers.push(producer);
        const producing$ = (async () => {
          try {
            let n = 0;
            while (producing && n < MAX_RECORDS) {
              const values = numberedValues('kjs', n, PARTITIONS);
              await produceValues(producer, topic, values, PARTITIONS, n);
              produced.push(...values);
              n += values.length;
              await sleep(40);
            }
          } catch (err) {
            producerError = err;
          }
        })();

        const startedAt = Date.now();
        const k = inChild('K');
        await Promise.all([inProcess('A'), inProcess('B')]);
        const g3 = await waitForGeneration(['A', 'B', 'K'], 30_000);
        const d = await inProcess('D');
        const g4 = await waitForGeneration(['A', 'B', 'D', 'K'], 30_000);
        assert.ok(g4 > g3, `generation grows when D joins (${g3} -> ${g4})`);
        await sleep(500);

        await consumers.get('A')?.disconnect();
        consumers.delete('A');
        const gLeave = await waitForGeneration(['B', 'D', 'K'], 30_000);
        await sleep(500);

        const killedAt = Date.now();
        await k.kill9();
        const gKill = await waitForGeneration(['B', 'D'], 40_000);
        const expiry = Date.now() - killedAt;
        await sleep(500);

        producing = false;
        await producing$;
        assert.equal(producerError, null, `producer failed: ${String(producerError)}`);
        await waitUntil('every produced record processed', () => tally(produced, processed).missing.length === 0, 30_000, state);

        const counts = tally(produced, processed);
        assert.deepEqual(counts.unexpected, [], 'values nobody produced');
        assert.deepEqual(doubleOwnership(assignments), [], 'a partition owned by two members in one generation');
        // Each generation the survivors report covers the topic.
        const generations: [number, string[]][] = [
          [g3, ['A', 'B', 'K']],
          [g4, ['A', 'B', 'D', 'K']],
          [gLeave, ['B', 'D', 'K']],
          [gKill, ['B', 'D']],
        ];
        for (const [g, members] of generations) {
          const owned = assignments.filter((a) => a.generationId === g && members.includes(a.member)).flatMap((a) => a.partitions);
          assert.deepEqual([...owned].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5], `generation ${g} (${members.join(',')}): all partitions assigned once`);
        }
        assert.ok(joins.length >= 4, `GROUP_JOIN events: ${joins.length}`);
        // Every GROUP_JOIN event's memberAssignment is one the member received in some generation.
        for (const j of joins) {
          const partitions = JSON.stringify([...(j.memberAssignment[topic] ?? [])].sort((a, b) => a - b));
          assert.ok(
            assignments.some((a) => a.member === j.member && JSON.stringify(a.partitions) === partitions),
            `GROUP_JOIN of ${j.member} with ${partitions} matches no received assignment: ${state()}`,
          );
        }
        const killedAfter = processed.filter((p) => p.member === 'K').length;
        t.diagnostic(
          `kafkajs group: ${produced.length} records, ${processed.length} processed, ${counts.duplicates.length} duplicates ` +
            `(${JSON.stringify(counts.duplicates.slice(0, 5))}); generations ${g3}->${g4}->${gLeave}->${gKill}; ` +
            `K processed ${killedAfter}; K's session expired and the group rebalanced ${expiry} ms after SIGKILL; phase took ${Date.now() - startedAt} ms`,
        );

        // Commit: the survivors leave gracefully (kafkajs autoCommit commits after every batch).
        await consumers.get('B')?.disconnect();
        consumers.delete('B');
        await d.disconnect();
        consumers.delete('D');

        const admin = memberKafka(broker.bootstrap, 'admin', topic, {}).admin();
        await admin.connect();
        try {
          const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
          const ends = await admin.fetchTopicOffsets(topic);
          const got = (committed[0]?.partitions ?? []).map((p) => [p.partition, p.offset]).sort((a, b) => Number(a[0]) - Number(b[0]));
          const want = ends.map((p) => [p.partition, p.offset]).sort((a, b) => Number(a[0]) - Number(b[0]));
          assert.deepEqual(got, want, 'committed offsets = log end offsets after everything was processed');
        } finally {
          await admin.disconnect();
        }

        // Resume: new records only, no re-delivery of committed ones.
        const fresh = numberedValues('kjs-after', 0, 60);
        await produceValues(producer, topic, fresh, PARTITIONS);
        const resumed: Processed[] = [];
        const e = await runKafkajsMember({
          bootstrap: broker.bootstrap,
          topic,
          groupId,
          member: 'E',
          hooks: { onLog: (line) => logs.push(line) },
          onMessage: (p) => resumed.push(p),
        });
        consumers.set('E', e);
        await waitUntil('E processes the 60 new records', () => tally(fresh, resumed).missing.length === 0, 20_000, () => `${describeTally(tally(fresh, resumed))}\n${state()}`);
        await sleep(1000);
        assertExactlyOnce('resumed member E', fresh, resumed);
        await e.disconnect();
        consumers.delete('E');
      });
    } finally {
      producing = false; // a failed assertion must not leave the producer loop running
    }
  });
});
