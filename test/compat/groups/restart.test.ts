// Committed offsets and group metadata survive a broker restart: both a
// graceful one (SIGTERM) and kill -9 (the process dies, the page cache
// survives). Groups live in the compacted __consumer_offsets topic (default
// 50 partitions here, as in production) and are reloaded at start-up
// (COORDINATOR_LOAD_IN_PROGRESS meanwhile, which the clients retry).
//
// A kafkajs group and a kcat -G group commit; after each restart kafkajs'
// admin describeGroups (DescribeGroups) shows both groups (Empty, protocol
// type "consumer"), listGroups lists them, fetchOffsets (OffsetFetch) shows
// the committed offsets unchanged, and a kafkajs consumer resumes from them
// with no re-delivery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Admin, Consumer } from 'kafkajs';
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
  type Processed,
} from '../../helpers/groups.js';
import { memberKafka, runKafkajsMember } from '../../helpers/groups-kafkajs.js';
import { KcatMember } from '../../helpers/groups-members.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 4;

describe('groups and committed offsets survive broker restarts', { timeout: 150_000 }, () => {
  let broker: BrokerProcess;
  const consumers: Consumer[] = [];
  const kcats: KcatMember[] = [];

  before(async () => {
    broker = await startBroker({ name: 'group-restart', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
    await stopAll(kcats.map((k) => k.proc));
    await broker?.cleanup();
  });

  it('SIGTERM restart, then kill -9 restart: describeGroups, listGroups and fetchOffsets unchanged; a consumer resumes from the commits', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('rst');
      const kjsGroup = uniqueName('rst-kjs');
      const kcatGroup = uniqueName('rst-kcat');
      await createTopic(broker, topic, PARTITIONS);
      const logs: string[] = [];

      /** One kafkajs member consumes until `values` are processed, then leaves (committing). */
      const consumeWithKafkajs = async (values: string[]): Promise<Processed[]> => {
        const processed: Processed[] = [];
        const c = await runKafkajsMember({ bootstrap: broker.bootstrap, topic, groupId: kjsGroup, member: 'kjs', hooks: { onLog: (l) => logs.push(l) }, onMessage: (p) => processed.push(p) });
        consumers.push(c);
        try {
          await waitUntil(`kafkajs consumes ${values.length} records`, () => tally(values, processed).missing.length === 0, 30_000, () => `${describeTally(tally(values, processed))}\n${logs.slice(-15).join('\n')}`);
          await sleep(500); // anything re-delivered would show up here
        } finally {
          await c.disconnect();
        }
        return processed;
      };

      /** kcat -G with -e: consumes from the group's committed offsets to the end, commits and leaves. */
      const consumeWithKcat = async (values: string[]): Promise<Processed[]> => {
        const k = new KcatMember('kcat', { bootstrap: broker.bootstrap, topic, group: kcatGroup, strategy: 'range' });
        kcats.push(k);
        try {
          await waitUntil(`kcat consumes ${values.length} records`, () => tally(values, k.processed).missing.length === 0, 30_000, () => k.proc.tail(30));
          await sleep(500);
        } finally {
          const s = await k.stop();
          assert.equal(s.forced, false, `kcat did not stop on SIGTERM: ${k.proc.tail(20)}`);
        }
        return k.processed;
      };

      const connectAdmin = async (): Promise<Admin> => {
        const a = memberKafka(broker.bootstrap, 'admin', topic, { onLog: (l) => logs.push(l) }).admin();
        await a.connect();
        return a;
      };
      const snapshot = async (): Promise<{ groups: unknown; listed: string[]; offsets: Record<string, [number, string][]> }> => {
        const a = await connectAdmin();
        try {
          const described = await a.describeGroups([kjsGroup, kcatGroup]);
          const groups = described.groups
            .map((g) => ({ groupId: g.groupId, errorCode: (g as { errorCode?: number }).errorCode, state: g.state, protocolType: g.protocolType, members: g.members.length }))
            .sort((x, y) => x.groupId.localeCompare(y.groupId));
          const listed = (await a.listGroups()).groups.map((g) => g.groupId).filter((g) => g === kjsGroup || g === kcatGroup).sort();
          const offsets: Record<string, [number, string][]> = {};
          for (const groupId of [kjsGroup, kcatGroup]) {
            const fetched = await a.fetchOffsets({ groupId, topics: [topic] });
            offsets[groupId] = (fetched[0]?.partitions ?? []).map((p): [number, string] => [p.partition, p.offset]).sort((x, y) => x[0] - y[0]);
          }
          return { groups, listed, offsets };
        } finally {
          await a.disconnect();
        }
      };
      const expectOffsets = (perPartition: number): [number, string][] => Array.from({ length: PARTITIONS }, (_, p): [number, string] => [p, String(perPartition)]);

      // Both groups commit the first 40 records (10 per partition).
      const batch1 = numberedValues('rst-a', 0, 40);
      await produceOnce(broker.bootstrap, topic, batch1, PARTITIONS);
      assertExactlyOnce('kafkajs, batch 1', batch1, await consumeWithKafkajs(batch1));
      assertExactlyOnce('kcat, batch 1', batch1, await consumeWithKcat(batch1));

      const before1 = await snapshot();
      assert.deepEqual(before1.offsets[kjsGroup], expectOffsets(10), 'kafkajs group offsets before restart');
      assert.deepEqual(before1.offsets[kcatGroup], expectOffsets(10), 'kcat group offsets before restart');
      assert.deepEqual(before1.listed, [kjsGroup, kcatGroup].sort(), 'listGroups before restart');
      for (const g of before1.groups as { errorCode: number; state: string; protocolType: string; members: number }[]) {
        assert.equal(g.errorCode, 0);
        assert.equal(g.state, 'Empty');
        assert.equal(g.protocolType, 'consumer');
        assert.equal(g.members, 0);
      }

      // 1. Graceful restart.
      let t0 = Date.now();
      await broker.restart();
      const gracefulMs = Date.now() - t0;
      const after1 = await snapshot();
      assert.deepEqual(after1, before1, 'groups and offsets after a SIGTERM restart');

      // The kafkajs group resumes from its commits: exactly the new records.
      const batch2 = numberedValues('rst-b', 0, 40);
      await produceOnce(broker.bootstrap, topic, batch2, PARTITIONS);
      assertExactlyOnce('kafkajs after the SIGTERM restart', batch2, await consumeWithKafkajs(batch2));

      // 2. kill -9 right after that commit.
      t0 = Date.now();
      await broker.restart({ hard: true });
      const hardMs = Date.now() - t0;
      const after2 = await snapshot();
      assert.deepEqual(after2.offsets[kjsGroup], expectOffsets(20), 'kafkajs group offsets after kill -9 (its last commit survived)');
      assert.deepEqual(after2.offsets[kcatGroup], expectOffsets(10), 'kcat group offsets after kill -9');
      assert.deepEqual(after2.groups, before1.groups, 'describeGroups after kill -9');
      assert.deepEqual(after2.listed, before1.listed, 'listGroups after kill -9');

      // Both groups resume from their commits.
      const batch3 = numberedValues('rst-c', 0, 20);
      await produceOnce(broker.bootstrap, topic, batch3, PARTITIONS);
      assertExactlyOnce('kafkajs after kill -9', batch3, await consumeWithKafkajs(batch3));
      assertExactlyOnce('kcat after kill -9 (batches 2 and 3)', [...batch2, ...batch3], await consumeWithKcat([...batch2, ...batch3]));
      const final = await snapshot();
      assert.deepEqual(final.offsets[kjsGroup], expectOffsets(25));
      assert.deepEqual(final.offsets[kcatGroup], expectOffsets(25));
      assert.deepEqual(broker.crashes, [], 'no unexpected broker exits');
      t.diagnostic(`restart took ${gracefulMs} ms (SIGTERM) and ${hardMs} ms (kill -9); describeGroups ${JSON.stringify(after2.groups)}`);
    });
  });
});
