// @platformatic/kafka 1.35 consumer groups against one real broker process.
// Its consume() always joins a group (FindCoordinator v4+ with batched
// coordinator_keys, JoinGroup v6+, SyncGroup v4+, Heartbeat v4, LeaveGroup
// v4+, OffsetCommit v8+, OffsetFetch v8+ multi-group form: all flexible), and
// it assigns client-side with its "roundrobin" protocol.
//
// Two consumers in one group share a topic (each partition owned by one
// member per generation, from the consumer:group:join events), commit every
// message they process, every record is processed (at-least-once; duplicates
// are reported), the committed offsets read back equal the log end, and after
// both close (LeaveGroup) a new consumer resumes from the committed offsets
// ("committed" mode) with no re-delivery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer, stringDeserializers, type MessagesStream } from '@platformatic/kafka';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  FAST_GROUP_OVERRIDES,
  HEARTBEAT_INTERVAL_MS,
  REBALANCE_TIMEOUT_MS,
  SESSION_TIMEOUT_MS,
  assertDuplicatesOnlyOn,
  assertExactlyOnce,
  assertGroupsAdvertised,
  assertIncreasingOffsets,
  assertWhereProduced,
  createTopic,
  describeTally,
  doubleOwnership,
  movedPartitions,
  numberedValues,
  produceOnce,
  sleep,
  tally,
  waitUntil,
  type OwnedPartitions,
  type Processed,
} from '../../helpers/groups.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 4;

type StringConsumer = Consumer<string, string, string, string>;

interface Member {
  name: string;
  consumer: StringConsumer;
  stream: MessagesStream<string, string, string, string>;
  loop: Promise<void>;
  errors: unknown[];
}

describe('@platformatic/kafka 1.35 consumer group', { timeout: 120_000 }, () => {
  let broker: BrokerProcess;
  const members: Member[] = [];
  const events: string[] = [];

  before(async () => {
    broker = await startBroker({ name: 'pk-group', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    for (const m of members) {
      await m.stream.close().catch(() => undefined);
      await new Promise<void>((resolve) => m.consumer.close(true, () => resolve()));
    }
    await broker?.cleanup();
  });

  it('two consumers share a topic and commit; a new consumer resumes from the committed offsets', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('pk-grp');
      const groupId = uniqueName('pk-g');
      await createTopic(broker, topic, PARTITIONS);
      const processed: Processed[] = [];
      const joins: OwnedPartitions[] = [];
      const commitErrors: string[] = [];
      const t0 = Date.now();

      const start = async (name: string, sink: Processed[]): Promise<Member> => {
        const consumer: StringConsumer = new Consumer({
          clientId: `tributary-groups-${name}`,
          bootstrapBrokers: [broker.bootstrap],
          groupId,
          deserializers: stringDeserializers,
          retries: 5,
          timeout: 15_000,
        });
        // A Consumer emits 'error' (e.g. "rejoinGroup failed N times") and heartbeat errors; without a
        // listener an 'error' event is an uncaught exception. Record them with a timestamp instead.
        consumer.on('error', (err: unknown) => events.push(`${Date.now() - t0} ${name} error: ${err instanceof Error ? `${err.message} ${JSON.stringify((err as { errors?: unknown[] }).errors?.map(String))}` : String(err)}`));
        consumer.on('consumer:heartbeat:error', (p) => events.push(`${Date.now() - t0} ${name} heartbeat error gen ${String(p.generationId)}: ${p.error.message}`));
        consumer.on('consumer:group:rejoin', () => events.push(`${Date.now() - t0} ${name} rejoin`));
        consumer.on('consumer:group:leave', (p) => events.push(`${Date.now() - t0} ${name} leave gen ${String(p.generationId)}`));
        consumer.on('consumer:group:join', (payload) => {
          events.push(`${Date.now() - t0} ${name} join gen ${String(payload.generationId)} ${JSON.stringify(payload.assignments)}`);
          const partitions = (payload.assignments ?? []).filter((a) => a.topic === topic).flatMap((a) => a.partitions);
          joins.push({ member: name, generationId: payload.generationId ?? -1, partitions: [...partitions].sort((a, b) => a - b) });
        });
        const stream = await consumer.consume({
          topics: [topic],
          mode: 'committed',
          fallbackMode: 'earliest',
          autocommit: false,
          sessionTimeout: SESSION_TIMEOUT_MS,
          heartbeatInterval: HEARTBEAT_INTERVAL_MS,
          rebalanceTimeout: REBALANCE_TIMEOUT_MS,
          maxWaitTime: 200,
        });
        const errors: unknown[] = [];
        stream.on('error', (err) => errors.push(err));
        const loop = (async () => {
          try {
            for await (const message of stream) {
              sink.push({ member: name, partition: message.partition, offset: Number(message.offset), value: message.value });
              try {
                await message.commit();
              } catch (err) {
                commitErrors.push(`${name} ${message.partition}:${message.offset}: ${err instanceof Error ? err.message : String(err)}`);
              }
            }
          } catch (err) {
            errors.push(err);
          }
        })();
        const m: Member = { name, consumer, stream, loop, errors };
        members.push(m);
        return m;
      };
      const close = async (m: Member): Promise<void> => {
        events.push(`${Date.now() - t0} ${m.name} closing`);
        await m.stream.close();
        await m.consumer.close();
        await m.loop;
        events.push(`${Date.now() - t0} ${m.name} closed`);
      };
      const state = (): string =>
        [
          describeTally(tally([], processed)),
          `joins ${JSON.stringify(joins)}`,
          `commit errors ${JSON.stringify(commitErrors.slice(0, 10))}`,
          `client events:\n${events.join('\n')}`,
          ...members.map((m) => `${m.name}: generation ${m.consumer.generationId} member ${m.consumer.memberId} assignments ${JSON.stringify(m.consumer.assignments)} errors ${m.errors.map(String).join('; ')}`),
        ].join('\n');

      const p1 = await start('pk-1', processed);
      const p2 = await start('pk-2', processed);
      await waitUntil(
        'both consumers joined one generation, sharing the partitions',
        () => {
          const g1 = p1.consumer.generationId;
          const a = (p1.consumer.assignments ?? []).flatMap((x) => x.partitions);
          const b = (p2.consumer.assignments ?? []).flatMap((x) => x.partitions);
          return g1 === p2.consumer.generationId && a.length > 0 && b.length > 0 && new Set([...a, ...b]).size === PARTITIONS && a.length + b.length === PARTITIONS;
        },
        30_000,
        state,
      );
      // Let fetches issued under the first (single-member) assignment finish: platformatic
      // 1.35 pushes records from a fetch that was in flight when its partitions were
      // revoked, so records produced right after a rebalance can reach the old owner too
      // (seen as 40 duplicates without this pause). At-least-once still holds; it is
      // reported below, not asserted.
      await sleep(1000);
      const batch1 = numberedValues('pk-a', 0, 80);
      await produceOnce(broker.bootstrap, topic, batch1, PARTITIONS);
      await waitUntil('every record of batch 1 processed', () => tally(batch1, processed).missing.length === 0, 30_000, state);
      await sleep(300);
      const t1 = tally(batch1, processed);
      assert.deepEqual(t1.unexpected, []);
      // Duplicates come only from fetches in flight when a partition moved
      // (see above); a partition that stayed with one member is exactly once.
      const moved = movedPartitions(joins);
      assertDuplicatesOnlyOn('batch 1', t1, moved);
      assertIncreasingOffsets('batch 1', processed, moved);
      assertWhereProduced('batch 1', batch1, processed, PARTITIONS);
      assert.deepEqual(doubleOwnership(joins), [], 'a partition owned by two members in one generation');
      assert.ok((t1.perMember['pk-1'] ?? 0) > 0 && (t1.perMember['pk-2'] ?? 0) > 0, `both members processed records: ${state()}`);
      t.diagnostic(`batch 1: ${describeTally(t1, 3)}; joins ${JSON.stringify(joins)}`);
      assert.deepEqual(commitErrors, [], 'commit errors');

      // The commits, read back through OffsetFetch: the log end of every partition.
      const committed = await p1.consumer.listCommittedOffsets({ topics: [{ topic, partitions: [...Array(PARTITIONS).keys()] }] });
      assert.deepEqual(committed.get(topic), Array.from({ length: PARTITIONS }, () => BigInt(80 / PARTITIONS)), 'committed offsets');

      // Close both at once: platformatic 1.35's close() does not cancel a rejoin that is already
      // under way, so closing one member (its LeaveGroup starts a rebalance) and then the other can
      // leave the second one retrying JoinGroup after close ("rejoinGroup failed 6 times", seen
      // twice in ~25 runs under load). A client race, not a broker fault; see the check below.
      await Promise.all([close(p1), close(p2)]);
      for (const m of [p1, p2]) assert.deepEqual(m.errors.map(String), [], `${m.name} stream errors`);

      // Resume: only the new records.
      const batch2 = numberedValues('pk-b', 0, 40);
      await produceOnce(broker.bootstrap, topic, batch2, PARTITIONS);
      const resumed: Processed[] = [];
      const p3 = await start('pk-resume', resumed);
      await waitUntil('the new consumer processes batch 2', () => tally(batch2, resumed).missing.length === 0, 30_000, () => `${describeTally(tally(batch2, resumed))}\n${state()}`);
      await sleep(700);
      await close(p3);
      assertExactlyOnce('resumed consumer', batch2, resumed);
      assertIncreasingOffsets('resumed consumer', resumed);
      assertWhereProduced('resumed consumer', batch2, resumed, PARTITIONS, Array.from({ length: PARTITIONS }, () => 80 / PARTITIONS));
      assert.deepEqual(p3.errors.map(String), [], 'pk-resume stream errors');

      // A closed consumer should stay quiet: no rejoin, join, heartbeat or error after close()
      // resolved. That is the client's business, so it is reported, not asserted.
      await sleep(1000);
      const late = events.filter((e) => {
        const [at, name] = e.split(' ');
        const closedAt = events.find((x) => x.endsWith(`${name ?? ''} closed`));
        return closedAt !== undefined && Number(at) > Number(closedAt.split(' ')[0]) && !e.endsWith(' closed');
      });
      t.diagnostic(`client events:\n${events.join('\n')}`);
      if (late.length > 0) t.diagnostic(`WARNING: platformatic consumers active after close(): ${JSON.stringify(late)}`);
    });
  });
});
