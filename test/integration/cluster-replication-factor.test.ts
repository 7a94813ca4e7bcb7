/**
 * Until partition replication exists, a 3-node cluster (real processes on
 * loopback) keeps one replica per partition and says so:
 *  - CreateTopics with replication factor 3, a manual assignment of two
 *    replicas, CreatePartitions with two replicas and a reassignment to two
 *    replicas answer INVALID_REPLICATION_FACTOR with a message saying
 *    replication is not implemented yet;
 *  - default.replication.factor=3 and offsets.topic.replication.factor=3 are
 *    lowered to 1 with a log line: a topic auto-created by a producer and
 *    __consumer_offsets (created by the first FindCoordinator) get one
 *    replica per partition, and Metadata advertises exactly that replica as
 *    replica and ISR.
 * Every wait is bounded in count and time; no timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster } from '../helpers/cluster-process.js';
import { Admin } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const WAIT_MS_MAX = 20_000;
const WHY = /partition replication is not implemented yet, so the replication factor must be 1/;

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX;
  let last = 'never asked';
  while (Date.now() < deadline) {
    try {
      const got = await probe();
      if (got !== null) return got;
      last = 'not yet';
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`${what} within ${WAIT_MS_MAX} ms; last: ${last}`);
}

test('a 3-node cluster refuses replication factor > 1 and never advertises replicas that do not replicate', { timeout: 80_000 }, async (t) => {
  const cluster = await startCluster({
    name: 'rf',
    overrides: { 'default.replication.factor': '3', 'offsets.topic.replication.factor': '3', 'offsets.topic.num.partitions': '3', 'group.initial.rebalance.delay.ms': '0' },
  });
  t.after(() => cluster.cleanup());
  await cluster.waitForBrokers([1, 2, 3], [1, 2, 3]);
  await cluster.waitForActiveController([1, 2, 3]);
  const bootstrap = [1, 2, 3].map((id) => cluster.node(id).bootstrap).join(',');
  const admin = await Admin.connect({ bootstrap, clientId: 'rf-test' });
  t.after(() => admin.close());

  try {
    for (const c of ['default.replication.factor=3 lowered to 1', 'offsets.topic.replication.factor=3 lowered to 1']) {
      assert.ok([1, 2, 3].every((id) => cluster.node(id).tail(400).includes(c)), `every node logs "${c}"`);
    }

    const [rf3, manual2] = await admin.createTopics([
      { name: 'rf3', numPartitions: 1, replicationFactor: 3 },
      { name: 'manual2', assignments: [[1, 2]] },
    ]);
    for (const r of [rf3, manual2]) {
      assert.equal(r?.error?.kafkaErrorCode, ErrorCode.INVALID_REPLICATION_FACTOR, r?.name);
      assert.match(r?.error?.serverMessage ?? '', WHY);
    }

    const [one] = await admin.createTopics([{ name: 'one', numPartitions: 1 }]);
    assert.equal(one?.error, null);
    assert.equal(one?.replicationFactor, 1, 'replication factor -1 takes the lowered default');
    const [grow] = await admin.createPartitions([{ topic: 'one', totalCount: 2, assignments: [[1, 2]] }]);
    assert.ok(grow?.error?.kafkaErrorCode === ErrorCode.INVALID_REPLICA_ASSIGNMENT || grow?.error?.kafkaErrorCode === ErrorCode.INVALID_REPLICATION_FACTOR);

    const [described] = await until('topic one has a leader', async () => {
      const d = await admin.describeTopics(['one'], { includeConfigs: false });
      return d[0]?.partitions[0]?.leader !== undefined && d[0].partitions[0].leader >= 0 ? d : null;
    });
    const leader = described?.partitions[0]?.leader as number;
    const other = [1, 2, 3].find((id) => id !== leader) as number;
    const [moved] = await admin.alterPartitionReassignments([{ topic: 'one', partition: 0, replicas: [leader, other] }]);
    assert.equal(moved?.error?.kafkaErrorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
    assert.match(moved?.error?.serverMessage ?? '', WHY);

    // Auto-creation (kafkajs asks for it) and __consumer_offsets (its first FindCoordinator) on the lowered defaults.
    const kafka = new Kafka({ clientId: 'rf-test', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 } });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    t.after(() => producer.disconnect());
    await producer.send({ topic: 'auto-made', acks: 1, messages: [{ value: 'v' }] });
    await until('the group coordinator (creates __consumer_offsets)', async () => {
      await admin.fetchGroupOffsets('rf-group');
      return true;
    });

    const topics = await admin.describeTopics(['auto-made', '__consumer_offsets', 'one'], { includeConfigs: false });
    assert.equal(topics.length, 3);
    for (const topic of topics) {
      assert.ok(topic.partitions.length > 0, topic.name);
      for (const p of topic.partitions) {
        assert.ok(p.leader >= 0, `${topic.name}-${p.partition} has a leader`);
        assert.deepEqual([p.replicas, p.isr], [[p.leader], [p.leader]], `${topic.name}-${p.partition} advertises its one real replica`);
      }
    }
  } catch (err) {
    (err as Error).message += `\n${cluster.tails(40)}`;
    throw err;
  }
});
