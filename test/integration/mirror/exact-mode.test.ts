/**
 * Exact (offset-preserving) mode A -> B, two real clusters on this machine
 * (docs/mirror.md "Exact mode"):
 * - after replication each partition of B's mirror topic holds the same
 *   batches as A's (every byte but the partition leader epoch, which is each
 *   cluster's own), with the same log start, log end and high watermark,
 *   compared partition by partition; idempotent, transactional (committed
 *   and aborted, with their markers) and kafkajs batches, and a partition
 *   whose log no longer starts at 0; again after the mirror is stopped,
 *   A moves on, and the mirror restarts;
 * - the mirror topic refuses Produce (POLICY_VIOLATION);
 * - a kafkajs consumer that read part of A and committed there, switched to
 *   B with the offsets the mirror copied (no translation), reads exactly the
 *   records it had not read: every record once over both clusters;
 * - `mirror promote` makes the topic writable, new records continuing at the
 *   mirrored end;
 * - bad input: a target topic written by someone else stops replication of
 *   that partition with an error (task FAILED, reason in `mirror status`)
 *   and nothing more is written to it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, CompressionTypes } from 'kafkajs';
import { Admin, Cluster, Producer, fetchRawBatches, produce, KafkaProtocolError } from '../../../src/client/index.js';
import type { EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { Offsets } from '../../../src/protocol/record-batch/header.js';
import { MM2_ONE_BROKER, startTwoClusters } from '../../helpers/mirror-clusters.js';
import { until } from '../../helpers/until.js';
import { mirrorMetrics, mirrorStatus, promoteMirrorTopic, startMirror, type MirrorHandle } from '../../../src/mirror/index.js';

const PARTITIONS = 3;
const IDENTITY = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy';
let a: EmbeddedCluster;
let b: EmbeddedCluster;
const mirrors: MirrorHandle[] = [];

function mm2(source: string, target: string, topics: string): Record<string, string> {
  return {
    clusters: `${source}, ${target}`,
    [`${source}.bootstrap.servers`]: a.bootstrap,
    [`${target}.bootstrap.servers`]: b.bootstrap,
    [`${source}->${target}.enabled`]: 'true',
    [`${source}->${target}.mode`]: 'exact',
    [`${source}->${target}.topics`]: topics,
    'replication.policy.class': IDENTITY,
    groups: 'failover.*',
    ...MM2_ONE_BROKER,
    'refresh.groups.interval.seconds': '1',
    'emit.checkpoints.interval.seconds': '1',
    'sync.group.offsets.enabled': 'true',
    'sync.group.offsets.interval.seconds': '1',
    'offset.flush.interval.ms': '500',
  };
}

const quiet = (m: string): void => {
  if (process.env.MIRROR_DEBUG !== undefined) process.stderr.write(m + '\n');
};

before(async () => {
  ({ a, b } = await startTwoClusters());
});
after(async () => {
  const t0 = Date.now();
  for (const m of mirrors) await m.close();
  process.stderr.write(`[exact-mode after] mirrors closed ${Date.now() - t0} ms\n`);
  await Promise.all([a.stop().then(() => process.stderr.write(`[exact-mode after] A stopped ${Date.now() - t0} ms\n`)), b.stop().then(() => process.stderr.write(`[exact-mode after] B stopped ${Date.now() - t0} ms\n`))]);
  process.stderr.write(`[exact-mode after] done ${Date.now() - t0} ms; still active: ${process.getActiveResourcesInfo().join(',')}\n`);
  // Twice in CI this file's process stayed alive for minutes after both tests passed and everything
  // above had stopped (something leaked keeps the event loop busy; not reproduced locally). Name what
  // is still active after 10 s, then end the process with the exit code the tests set, so a leak
  // cannot hold the whole suite until CI's time limit.
  setTimeout(() => {
    process.stderr.write(`[exact-mode after] still alive 10 s after cleanup; active: ${process.getActiveResourcesInfo().join(',')}; exiting\n`);
    process.exit();
  }, 10_000).unref();
});

/** Every stored batch of a partition, from its log start to its high watermark, with the bounds the fetches answered. */
async function wholeLog(cluster: Cluster, topic: string, partition: number, start: bigint): Promise<{ batches: Buffer[]; highWatermark: bigint; logStartOffset: bigint }> {
  const batches: Buffer[] = [];
  let next = start;
  for (let i = 0; i < 10_000; i++) {
    const f = await fetchRawBatches(cluster, topic, partition, next, { maxWaitMs: 0 });
    assert.equal(f.errorCode, 0, `${topic}-${partition} fetch at ${next}`);
    if (f.batches.length === 0) return { batches, highWatermark: f.highWatermark, logStartOffset: f.logStartOffset };
    for (const batch of f.batches) {
      batches.push(batch);
      next = batch.readBigInt64BE(Offsets.baseOffset) + BigInt(batch.readInt32BE(Offsets.lastOffsetDelta)) + 1n;
    }
  }
  return assert.fail('log too long to read');
}

/** The batch with its partition leader epoch (bytes 12-15, each cluster's own) zeroed. */
function withoutEpoch(batch: Buffer): Buffer {
  const copy = Buffer.from(batch);
  copy.writeInt32BE(0, Offsets.partitionLeaderEpoch);
  return copy;
}

async function ends(bootstrap: string, topic: string): Promise<bigint[]> {
  const admin = await Admin.connect({ bootstrap });
  try {
    const listed = await admin.listOffsets(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' as const })));
    return listed.map((l) => (l.error === null ? l.offset : -1n));
  } finally {
    await admin.close();
  }
}

test('exact mode: identical partitions, read-only mirror topic, kafkajs failover with the same offsets, promote', { timeout: 240_000 }, async () => {
  const adminA = await Admin.connect({ bootstrap: a.bootstrap });
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: a.bootstrap } });
  const txn = await Producer.connect<string, string>({ clusterOptions: { bootstrap: a.bootstrap }, transactionalId: 'exact-txn' });
  const kafka = (bootstrap: string, clientId: string): Kafka => new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const sourceCluster = await Cluster.connect({ bootstrap: a.bootstrap });
  const targetCluster = await Cluster.connect({ bootstrap: b.bootstrap });
  try {
    await adminA.createTopics([{ name: 'orders', numPartitions: PARTITIONS, replicationFactor: 1, configs: { 'retention.ms': '86400000' } }]);
    // Idempotent batches, one per partition and call.
    for (let round = 0; round < 4; round++) {
      await producer.sendBatch(Array.from({ length: 30 }, (_, i) => ({ topic: 'orders', partition: i % PARTITIONS, key: `k${round}-${i}`, value: `order ${round}-${i}`, headers: { round: String(round) } })));
    }
    // Transactions: a committed one and an aborted one, with their control batches.
    txn.beginTransaction();
    for (let p = 0; p < PARTITIONS; p++) await txn.send({ topic: 'orders', partition: p, key: 'tx', value: `committed ${p}` });
    await txn.commitTransaction();
    txn.beginTransaction();
    for (let p = 0; p < PARTITIONS; p++) await txn.send({ topic: 'orders', partition: p, key: 'tx', value: `aborted ${p}` });
    await txn.abortTransaction();
    // Another client's batches (kafkajs, gzip).
    const kp = kafka(a.bootstrap, 'exact-kafkajs-producer').producer();
    await kp.connect();
    await kp.send({ topic: 'orders', compression: CompressionTypes.GZIP, messages: Array.from({ length: 12 }, (_, i) => ({ partition: i % PARTITIONS, key: `kj${i}`, value: `kafkajs ${i}` })) });
    await kp.disconnect();
    // Partition 2's log no longer starts at 0: the mirror starts its copy at the source's log start.
    await adminA.deleteRecords('orders', { 2: 10n });

    mirrors.push(await startMirror(mm2('A', 'B', 'orders'), quiet));
    const sourceEnds = await ends(a.bootstrap, 'orders');
    await until('B caught up with A', async () => ((await ends(b.bootstrap, 'orders')).every((e, p) => e === sourceEnds[p]) ? true : null), 60_000);

    const samePartitions = async (): Promise<void> => {
      for (let p = 0; p < PARTITIONS; p++) {
        const start = p === 2 ? 10n : 0n;
        const src = await wholeLog(sourceCluster, 'orders', p, start);
        const dst = await wholeLog(targetCluster, 'orders', p, start);
        assert.ok(src.batches.length > 4, `partition ${p} has batches of every kind (${src.batches.length})`);
        assert.equal(dst.batches.length, src.batches.length, `partition ${p}: as many batches`);
        src.batches.forEach((batch, i) => {
          assert.ok(withoutEpoch(dst.batches[i] as Buffer).equals(withoutEpoch(batch)), `partition ${p} batch ${i}: the same bytes (offsets, producer ids, sequences, CRC)`);
        });
        assert.equal(dst.highWatermark, src.highWatermark, `partition ${p}: the same high watermark`);
        assert.equal(dst.logStartOffset, src.logStartOffset, `partition ${p}: the same log start`);
      }
    };
    await samePartitions();

    // Stopped, A moves on, restarted: the copy resumes at B's log end, nothing lost or doubled.
    await mirrors.pop()?.close();
    await producer.sendBatch(Array.from({ length: 30 }, (_, i) => ({ topic: 'orders', partition: i % PARTITIONS, key: `later${i}`, value: `later ${i}` })));
    mirrors.push(await startMirror(mm2('A', 'B', 'orders'), quiet));
    const laterEnds = await ends(a.bootstrap, 'orders');
    await until('B caught up again after a restart', async () => ((await ends(b.bootstrap, 'orders')).every((e, p) => e === laterEnds[p]) ? true : null), 60_000);
    await samePartitions();
    sourceEnds.splice(0, sourceEnds.length, ...laterEnds);
    const [status] = await mirrorStatus(mm2('A', 'B', 'orders'));
    assert.deepEqual([status?.states.MirrorSourceConnector, status?.partitions, status?.lagRecords], ['RUNNING', PARTITIONS, 0], 'status: positions are the mirror topic\'s ends');

    // The mirror topic is read-only.
    await assert.rejects(produce(targetCluster, 'orders', 0, [{ key: null, value: Buffer.from('intruder') }]), (err: unknown) => err instanceof KafkaProtocolError && err.kafkaErrorName === 'POLICY_VIOLATION');

    // A kafkajs consumer reads part of A and commits what it processed there.
    const readOnA: string[] = [];
    const consumedA = new Map<number, bigint>();
    const ca = kafka(a.bootstrap, 'exact-failover-a').consumer({ groupId: 'failover-app' });
    await ca.connect();
    await ca.subscribe({ topic: 'orders', fromBeginning: true });
    const READ_ON_A = 60;
    await new Promise<void>((resolve) => {
      void ca.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          if (readOnA.length >= READ_ON_A) return;
          readOnA.push(`${partition}:${message.offset}:${String(message.value)}`);
          consumedA.set(partition, BigInt(message.offset) + 1n);
          if (readOnA.length === READ_ON_A) resolve();
        },
      });
    });
    await ca.commitOffsets([...consumedA].map(([partition, next]) => ({ topic: 'orders', partition, offset: String(next) })));
    await ca.disconnect();

    // The mirror copies the group's offsets as they are (exact: no translation).
    const adminB = await Admin.connect({ bootstrap: b.bootstrap });
    try {
      await until('failover-app offsets on B', async () => {
        const offs = await adminB.fetchGroupOffsets('failover-app', ['orders']);
        return [...consumedA].every(([p, o]) => offs.some((c) => c.partition === p && c.offset === o)) ? true : null;
      }, 30_000);
    } finally {
      await adminB.close();
    }

    // Switched to B, the consumer reads exactly what it had not read.
    const total = Number(sourceEnds.reduce((n, e) => n + e, 0n));
    // What a read_committed reader sees: 5 rounds of 30, the committed transaction, kafkajs's 12, less the 10 deleted.
    const visible = 5 * 30 + PARTITIONS + 12 - 10;
    const readOnB: string[] = [];
    const cb = kafka(b.bootstrap, 'exact-failover-b').consumer({ groupId: 'failover-app' });
    await cb.connect();
    await cb.subscribe({ topic: 'orders', fromBeginning: true });
    // Every record kafkajs delivers from A (read_committed, its default: the aborted ones left out on both sides).
    const everything = new Set<string>();
    const all = kafka(a.bootstrap, 'exact-all').consumer({ groupId: 'exact-all-reader' });
    await all.connect();
    await all.subscribe({ topic: 'orders', fromBeginning: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      void all.run({
        eachMessage: async ({ partition, message }) => {
          everything.add(`${partition}:${message.offset}:${String(message.value)}`);
          if (everything.size >= visible) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await all.disconnect();
    assert.equal(everything.size, visible, 'every committed record of A read back');
    const expectedOnB = [...everything].filter((r) => !readOnA.includes(r));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      void cb.run({
        eachMessage: async ({ partition, message }) => {
          readOnB.push(`${partition}:${message.offset}:${String(message.value)}`);
          if (readOnB.length >= expectedOnB.length) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    // Anything beyond the expected records would arrive in the same fetches; give it a moment to show.
    await new Promise((r) => setTimeout(r, 1000));
    await cb.disconnect();
    assert.deepEqual([...readOnB].sort(), [...expectedOnB].sort(), 'B delivers exactly the records not read on A, each once');
    assert.equal(new Set([...readOnA, ...readOnB]).size, readOnA.length + readOnB.length, 'no record read on both clusters');

    const metrics = await mirrorMetrics.registry.metrics();
    // Every offset copied: all of partitions 0 and 1, partition 2 from its log start (10).
    const copied = Number(/mirror_records_replicated_total\{flow="A->B"\} (\d+)/.exec(metrics)?.[1] ?? '0');
    assert.equal(copied, total - 10, 'the records metric counts copied offsets');

    // Promote: the topic takes writes, after the mirrored end.
    const promoted = await promoteMirrorTopic(b.bootstrap, 'orders');
    assert.equal(promoted.previousState, 'active');
    const written = await until('a write to the promoted topic', async () => {
      try {
        return await produce(targetCluster, 'orders', 0, [{ key: null, value: Buffer.from('after failover') }]);
      } catch (err) {
        if (err instanceof KafkaProtocolError && err.kafkaErrorName === 'POLICY_VIOLATION') return null;
        throw err;
      }
    }, 15_000);
    assert.equal(written.baseOffset, sourceEnds[0], 'new records continue at the mirrored end');
    assert.equal(promoted.promotedOffsets, sourceEnds.map((e, p) => `${p}:${e}`).join(','), 'where each copy ended is recorded');
    // An idempotent producer of B (its id is B's, whatever ids A's producers had) writes after it.
    const onB = await Producer.connect<string, string>({ clusterOptions: { bootstrap: b.bootstrap } });
    try {
      const acks = await onB.sendBatch(Array.from({ length: 5 }, (_, i) => ({ topic: 'orders', partition: 0, key: null, value: `on B ${i}` })));
      assert.deepEqual([acks[0]?.baseOffset, acks.reduce((n, r) => n + r.recordCount, 0)], [(sourceEnds[0] ?? 0n) + 1n, 5]);
    } finally {
      await onB.close();
    }
    assert.equal((await promoteMirrorTopic(b.bootstrap, 'orders')).previousState, 'promoted', 'promoting again changes nothing');
  } finally {
    await producer.close();
    await txn.close();
    await adminA.close();
    await sourceCluster.close();
    await targetCluster.close();
  }
});

test('exact mode, bad input: a target topic written by someone else stops that partition with an error instead of diverging', { timeout: 120_000 }, async () => {
  const adminA = await Admin.connect({ bootstrap: a.bootstrap });
  const adminB = await Admin.connect({ bootstrap: b.bootstrap });
  const targetCluster = await Cluster.connect({ bootstrap: b.bootstrap });
  try {
    await adminA.createTopics([{ name: 'ledger', numPartitions: 1, replicationFactor: 1 }]);
    const sourceCluster = await Cluster.connect({ bootstrap: a.bootstrap });
    await produce(sourceCluster, 'ledger', 0, Array.from({ length: 10 }, (_, i) => ({ key: null, value: Buffer.from(`source ${i}`) })));
    await sourceCluster.close();
    // Someone else wrote B's ledger, then marked it a mirror topic.
    await adminB.createTopics([{ name: 'ledger', numPartitions: 1, replicationFactor: 1 }]);
    await produce(targetCluster, 'ledger', 0, Array.from({ length: 3 }, (_, i) => ({ key: null, value: Buffer.from(`intruder ${i}`) })));
    await adminB.incrementalAlterConfigs({ type: 'topic', name: 'ledger' }, [{ name: 'mirror.state', value: 'active', op: 'set' }]);

    const config = mm2('C', 'D', 'ledger');
    mirrors.push(await startMirror(config, quiet));
    const failed = await until('the task FAILED with the reason', async () => {
      const [flow] = await mirrorStatus(config);
      const state = Object.entries(flow?.states ?? {}).find(([k]) => k.startsWith('MirrorSourceConnector-'))?.[1] ?? '';
      return state.startsWith('FAILED') ? state : null;
    }, 60_000);
    assert.match(failed, /ledger-0 diverged from ledger-0.*written by someone else/);
    const end = await adminB.listOffsets('ledger', 0, 'latest');
    assert.equal(end.offset, 3n, 'nothing was copied into the diverged partition');
  } finally {
    await targetCluster.close();
    await adminA.close();
    await adminB.close();
  }
});
