/**
 * Consumer groups of our Consumer against a real broker process:
 * - three members over six partitions, one joining late and one leaving,
 *   with cooperative-sticky and with range: every record processed exactly
 *   once (commits on revoke, so nothing is processed twice) and no
 *   partition held by two members at once (checked in the listeners);
 * - cooperative-sticky incremental rebalance: the first member keeps the
 *   partitions it does not give up, and revokes only those;
 * - static membership: a restart with the same groupInstanceId keeps the
 *   assignment and the broker keeps the member (no LeaveGroup on close).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer, deserializers, type TopicPartition } from '../../src/client/index.js';
import { clientFixture } from '../helpers/client-fixture.js';
import { HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS, assertExactlyOnce, numberedValues, waitUntil, type Processed } from '../helpers/groups.js';

const WAIT_MS = 40_000;

interface Member {
  name: string;
  consumer: Consumer<string | null, string | null>;
  loop: Promise<void>;
  events: { kind: 'assigned' | 'revoked' | 'lost'; partitions: number[] }[];
  owned: Set<number>;
}

describe('Consumer groups', { timeout: 240_000 }, () => {
  const env = clientFixture('consumer-group');
  let seq = 0;

  async function newTopic(partitions: number): Promise<string> {
    const topic = `group-${++seq}`;
    await env.admin.createTopic({ name: topic, numPartitions: partitions, replicationFactor: 1 });
    return topic;
  }

  async function produce(topic: string, values: readonly string[], partitions: number): Promise<void> {
    await env.producer.sendBatch(values.map((value, i) => ({ topic, partition: i % partitions, value })));
  }

  /** A member that records what it processed and its rebalances; `owners` (shared) catches double ownership. */
  function start(
    name: string,
    topic: string,
    groupId: string,
    processed: Processed[],
    owners: Map<number, string>,
    violations: string[],
    extra: { assignors?: ('cooperative-sticky' | 'range')[]; groupInstanceId?: string } = {},
  ): Member {
    const events: Member['events'] = [];
    const owned = new Set<number>();
    const release = (kind: 'revoked' | 'lost') => (tps: TopicPartition[]) => {
      events.push({ kind, partitions: tps.map((t) => t.partition) });
      for (const t of tps) {
        owned.delete(t.partition);
        if (owners.get(t.partition) === name) owners.delete(t.partition);
      }
    };
    const consumer = new Consumer<string | null, string | null>({
      bootstrap: env.broker.bootstrap,
      groupId,
      clientId: name,
      valueDeserializer: deserializers.string,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      rebalanceTimeoutMs: 20_000,
      fetchMaxWaitMs: 100,
      maxPollRecords: 50,
      ...(extra.assignors !== undefined ? { assignors: extra.assignors } : {}),
      ...(extra.groupInstanceId !== undefined ? { groupInstanceId: extra.groupInstanceId } : {}),
      listeners: {
        onPartitionsAssigned: (tps) => {
          events.push({ kind: 'assigned', partitions: tps.map((t) => t.partition) });
          for (const t of tps) {
            const other = owners.get(t.partition);
            if (other !== undefined && other !== name) violations.push(`${name} got ${t.partition} while ${other} owns it`);
            owners.set(t.partition, name);
            owned.add(t.partition);
          }
        },
        onPartitionsRevoked: release('revoked'),
        onPartitionsLost: release('lost'),
      },
    });
    const loop = (async () => {
      await consumer.subscribe([topic]);
      for await (const r of consumer) {
        if (!owned.has(r.partition)) violations.push(`${name} received a record of ${r.partition}, which it does not own`);
        processed.push({ member: name, partition: r.partition, offset: Number(r.offset), value: r.value ?? '' });
      }
    })();
    return { name, consumer, loop, events, owned };
  }

  const covered = (processed: readonly Processed[], values: readonly string[]): boolean => {
    const seen = new Set(processed.map((p) => p.value));
    return values.every((v) => seen.has(v));
  };

  for (const assignor of ['cooperative-sticky', 'range'] as const) {
    test(`${assignor}: three members over six partitions, one joins late and one leaves: exactly once, never two owners`, async () => {
      const topic = await newTopic(6);
      const groupId = `g-three-${assignor}`;
      const processed: Processed[] = [];
      const owners = new Map<number, string>();
      const violations: string[] = [];
      const opts = { assignors: [assignor] };
      const phase1 = numberedValues('a', 0, 600);
      const m1 = start('m1', topic, groupId, processed, owners, violations, opts);
      const m2 = start('m2', topic, groupId, processed, owners, violations, opts);
      const describe = (): string => JSON.stringify({ violations, m1: m1.events, m2: m2.events, processed: processed.length });
      // Both members own partitions before phase 1 is written, so each has records to process
      // (with the records already there, m1 could consume them all before m2 joined).
      await waitUntil('m1 and m2 share the partitions', () => m1.owned.size > 0 && m2.owned.size > 0 && m1.owned.size + m2.owned.size === 6, WAIT_MS, describe);
      await produce(topic, phase1, 6);
      await waitUntil('phase 1 consumed', () => covered(processed, phase1), WAIT_MS, describe);
      const phase2 = numberedValues('b', 0, 600);
      await produce(topic, phase2, 6);
      const m3 = start('m3', topic, groupId, processed, owners, violations, opts);
      await waitUntil('m3 owns partitions', () => m3.owned.size > 0, WAIT_MS, describe);
      await waitUntil('phase 2 consumed', () => covered(processed, phase2), WAIT_MS, describe);
      await m2.consumer.close();
      await m2.loop;
      const phase3 = numberedValues('c', 0, 600);
      await produce(topic, phase3, 6);
      await waitUntil('m1 and m3 own all six', () => m1.owned.size + m3.owned.size === 6, WAIT_MS, describe);
      await waitUntil('phase 3 consumed', () => covered(processed, phase3), WAIT_MS, describe);
      await Promise.all([m1.consumer.close(), m3.consumer.close()]);
      await Promise.all([m1.loop, m3.loop]);
      assert.deepEqual(violations, []);
      assertExactlyOnce(assignor, [...phase1, ...phase2, ...phase3], processed);
      for (const m of [m1, m2, m3]) assert.ok(processed.some((p) => p.member === m.name), `${m.name} processed records`);
      const committed = await env.admin.fetchGroupOffsets(groupId);
      assert.equal(committed.reduce((sum, o) => sum + Number(o.offset), 0), 1800, 'everything committed on close');
    });
  }

  test('cooperative-sticky: a joining member takes three partitions; the first one keeps the other three and revokes only what moved', async () => {
    const topic = await newTopic(6);
    const processed: Processed[] = [];
    const owners = new Map<number, string>();
    const violations: string[] = [];
    const m1 = start('m1', topic, 'g-incremental', processed, owners, violations);
    await waitUntil('m1 owns six', () => m1.owned.size === 6, WAIT_MS);
    const m2 = start('m2', topic, 'g-incremental', processed, owners, violations);
    await waitUntil('m2 owns three', () => m2.owned.size === 3 && m1.owned.size === 3, WAIT_MS, () => JSON.stringify({ m1: m1.events, m2: m2.events }));
    const revoked = m1.events.filter((e) => e.kind === 'revoked').flatMap((e) => e.partitions).sort();
    assert.deepEqual(revoked, [...m2.owned].sort(), 'm1 revoked exactly what m2 got');
    assert.deepEqual(m1.events.filter((e) => e.kind === 'lost'), []);
    assert.equal(m1.events.filter((e) => e.kind === 'assigned' && e.partitions.length > 0).length, 1, 'm1 was assigned once: it kept its other partitions');
    await Promise.all([m1.consumer.close(), m2.consumer.close()]);
    await Promise.all([m1.loop, m2.loop]);
    assert.deepEqual(violations, []);
  });

  test('static membership: a restart with the same groupInstanceId keeps the assignment; close sends no LeaveGroup', async () => {
    const topic = await newTopic(6);
    const processed: Processed[] = [];
    const owners = new Map<number, string>();
    const violations: string[] = [];
    const opts = { assignors: ['range' as const] };
    const s1 = start('s1', topic, 'g-static', processed, owners, violations, { ...opts, groupInstanceId: 'instance-1' });
    const s2 = start('s2', topic, 'g-static', processed, owners, violations, { ...opts, groupInstanceId: 'instance-2' });
    await waitUntil('both own three', () => s1.owned.size === 3 && s2.owned.size === 3, WAIT_MS, () => JSON.stringify({ s1: s1.events, s2: s2.events }));
    const before = [...s1.owned].sort();
    await s1.consumer.close();
    await s1.loop;
    const [group] = await env.admin.describeGroups(['g-static']);
    assert.equal(group?.members.length, 2, 'the static member stays in the group after close');
    owners.clear();
    for (const p of s2.owned) owners.set(p, 's2');
    const again = start('s1-again', topic, 'g-static', processed, owners, violations, { ...opts, groupInstanceId: 'instance-1' });
    await waitUntil('the restarted member owns three', () => again.owned.size === 3, WAIT_MS, () => JSON.stringify({ again: again.events, s2: s2.events }));
    assert.deepEqual([...again.owned].sort(), before);
    await Promise.all([again.consumer.close(), s2.consumer.close()]);
    await Promise.all([again.loop, s2.loop]);
    assert.deepEqual(violations, []);
  });
});
