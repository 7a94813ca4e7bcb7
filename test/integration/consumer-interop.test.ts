/**
 * Mixed groups: our Consumer with kafkajs (eager; kafkajs names its
 * round-robin protocol 'RoundRobinAssigner', so our member offers our
 * roundrobin assignor under that name), and with librdkafka
 * (confluent-kafka-python, cooperative-sticky, incremental on both sides),
 * each side leading once. Records are produced after the members have
 * settled, so every one is processed exactly once, and no partition is held
 * by both sides at once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer as KafkajsConsumer } from 'kafkajs';
import { Consumer, RoundRobinAssignor, deserializers, type Assignor, type TopicPartition } from '../../src/client/index.js';
import { clientFixture } from '../helpers/client-fixture.js';
import { HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS, assertExactlyOnce, numberedValues, waitUntil, type Processed } from '../helpers/groups.js';
import { runKafkajsMember } from '../helpers/groups-kafkajs.js';
import { confluentMember, type PythonMember } from '../helpers/groups-members.js';

const WAIT_MS = 45_000;

describe('Consumer in mixed groups', { timeout: 240_000 }, () => {
  const env = clientFixture('consumer-interop');

  function ours(name: string, topic: string, groupId: string, processed: Processed[], assignors: ('cooperative-sticky' | Assignor)[]): { consumer: Consumer<null, string | null>; owned: Set<number>; events: string[]; loop: Promise<void> } {
    const owned = new Set<number>();
    const events: string[] = [];
    const drop = (kind: string) => (tps: TopicPartition[]) => {
      events.push(`${kind} ${tps.map((t) => t.partition).join(',')}`);
      for (const t of tps) owned.delete(t.partition);
    };
    const consumer = new Consumer<null, string | null>({
      bootstrap: env.broker.bootstrap,
      groupId,
      clientId: name,
      valueDeserializer: deserializers.string,
      assignors,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      rebalanceTimeoutMs: 20_000,
      fetchMaxWaitMs: 100,
      listeners: {
        onPartitionsAssigned: (tps) => {
          events.push(`assigned ${tps.map((t) => t.partition).join(',')}`);
          for (const t of tps) owned.add(t.partition);
        },
        onPartitionsRevoked: drop('revoked'),
        onPartitionsLost: drop('lost'),
      },
    });
    const loop = (async () => {
      await consumer.subscribe([topic]);
      for await (const r of consumer) processed.push({ member: name, partition: r.partition, offset: Number(r.offset), value: r.value ?? '' });
    })();
    return { consumer, owned, events, loop };
  }

  async function produce(topic: string, values: readonly string[], partitions: number): Promise<void> {
    await env.producer.sendBatch(values.map((value, i) => ({ topic, partition: i % partitions, value })));
  }

  test('with kafkajs (round robin, eager): the partitions are split, every record processed once', async () => {
    const topic = 'interop-kafkajs';
    await env.admin.createTopic({ name: topic, numPartitions: 4, replicationFactor: 1 });
    const processed: Processed[] = [];
    const kafkajsNamed: Assignor = { ...RoundRobinAssignor, name: 'RoundRobinAssigner' };
    const mine = ours('ours', topic, 'g-kafkajs', processed, [kafkajsNamed]);
    await waitUntil('ours owns four', () => mine.owned.size === 4, WAIT_MS);
    let kafkajsOwned: number[] = [];
    let kjs: KafkajsConsumer | null = null;
    try {
      kjs = await runKafkajsMember({
        bootstrap: env.broker.bootstrap,
        topic,
        groupId: 'g-kafkajs',
        member: 'kafkajs',
        hooks: { onGroupJoin: (p) => (kafkajsOwned = p.memberAssignment[topic] ?? []) },
        onMessage: (p) => processed.push(p),
      });
      const state = (): string => JSON.stringify({ ours: [...mine.owned], events: mine.events, kafkajsOwned });
      await waitUntil('two partitions each', () => mine.owned.size === 2 && kafkajsOwned.length === 2, WAIT_MS, state);
      assert.deepEqual([...mine.owned, ...kafkajsOwned].sort(), [0, 1, 2, 3], state());
      const values = numberedValues('kjs', 0, 400);
      await produce(topic, values, 4);
      await waitUntil('all 400 processed', () => new Set(processed.map((p) => p.value)).size >= 400, WAIT_MS, state);
      assertExactlyOnce('ours + kafkajs', values, processed);
      for (const p of processed) {
        const byOurs = p.member === 'ours';
        assert.equal(byOurs ? mine.owned.has(p.partition) : kafkajsOwned.includes(p.partition), true, `${p.member} processed partition ${p.partition} it does not own`);
      }
    } finally {
      await kjs?.disconnect().catch(() => undefined);
      await mine.consumer.close();
      await mine.loop;
    }
  });

  test('with librdkafka (cooperative-sticky, incremental on both sides), each side leading once', async () => {
    const topic = 'interop-librdkafka';
    const groupId = 'g-librdkafka';
    await env.admin.createTopic({ name: topic, numPartitions: 4, replicationFactor: 1 });
    const processed: Processed[] = [];
    const first = ours('ours-1', topic, groupId, processed, ['cooperative-sticky']);
    await waitUntil('ours owns four', () => first.owned.size === 4, WAIT_MS);
    // librdkafka joins; ours leads and hands over two partitions incrementally.
    const py: PythonMember = confluentMember('librdkafka', { bootstrap: env.broker.bootstrap, topic, group: groupId, strategy: 'cooperative-sticky' });
    try {
      const state = (): string => JSON.stringify({ ours: [...first.owned], events: first.events, py: py.owned(), pyEvents: py.rebalances, pyErrors: py.errors() }) + '\n' + py.proc.tail(20);
      await waitUntil('two partitions each', () => first.owned.size === 2 && py.owned().length === 2, WAIT_MS, state);
      assert.deepEqual([...first.owned, ...py.owned()].sort(), [0, 1, 2, 3], state());
      assert.deepEqual(first.events.filter((e) => e.startsWith('assigned')).length, 1, `ours kept two partitions without being reassigned: ${state()}`);
      const batch1 = numberedValues('rd1', 0, 200);
      await produce(topic, batch1, 4);
      await waitUntil('batch 1 processed', () => batch1.every((v) => processed.some((p) => p.value === v) || py.processed.some((p) => p.value === v)), WAIT_MS, state);

      // Ours leaves; librdkafka, alone, leads; then a new member of ours joins under librdkafka's lead.
      await first.consumer.close();
      await first.loop;
      await waitUntil('librdkafka owns four', () => py.owned().length === 4, WAIT_MS, state);
      const second = ours('ours-2', topic, groupId, processed, ['cooperative-sticky']);
      try {
        const state2 = (): string => JSON.stringify({ ours: [...second.owned], events: second.events, py: py.owned(), pyEvents: py.rebalances }) + '\n' + py.proc.tail(20);
        await waitUntil('two each under librdkafka lead', () => second.owned.size === 2 && py.owned().length === 2, WAIT_MS, state2);
        assert.deepEqual([...second.owned, ...py.owned()].sort(), [0, 1, 2, 3], state2());
        const batch2 = numberedValues('rd2', 0, 200);
        await produce(topic, batch2, 4);
        const all = (): Processed[] => [...processed, ...py.processed];
        await waitUntil('batch 2 processed', () => batch2.every((v) => all().some((p) => p.value === v)), WAIT_MS, state2);
        assertExactlyOnce('ours + librdkafka', [...batch1, ...batch2], all());
      } finally {
        await second.consumer.close();
        await second.loop;
      }
      assert.deepEqual(py.errors().filter((e) => e['fatal'] === true), []);
    } finally {
      await py.stop();
    }
  });
});
