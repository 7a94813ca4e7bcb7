/**
 * Eligible Leader Replicas (KIP-966) as users see them: DescribeTopicPartitions
 * (75) through our Admin and `tributary topic describe`. A partition of
 * replication factor 2 with min.insync.replicas 2 on two broker-only nodes:
 * killing the follower shrinks the ISR below min ISR, so the follower goes to
 * the ELR (still electable, it had every committed record); killing the
 * leader too leaves the partition offline with ISR [leader] and ELR
 * [follower]. The three controllers are other nodes, so the quorum stays up.
 * Paging: a request with a partition limit answers a cursor, and following it
 * returns every partition exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../helpers/until.js';
import { startCluster } from '../../helpers/cluster-process.js';
import { Admin } from '../../../src/client/admin.js';
import { formatDescription } from '../../../src/cli/commands/topic.js';
import { Connection } from '../../../src/net/connection.js';
import { AdminApis } from '../../../src/client/admin-apis.js';
import { request } from '../../../src/client/apis.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { DescribeTopicPartitionsResponse } from '../../../src/protocol/messages/index.js';

const TOPIC = 'elr';

test('ELR: a follower removed while the ISR is below min ISR stays electable, and describe shows it; DescribeTopicPartitions pages', { timeout: 120_000 }, async (t) => {
  const cluster = await startCluster({ name: 'elr', brokers: 2, overrides: { 'min.insync.replicas': '2', 'replica.lag.time.max.ms': '2000' } });
  t.after(() => cluster.cleanup());
  const active = await cluster.waitForActiveController([1, 2, 3]);
  await cluster.waitForBrokers([active], [1, 2, 3, 4, 5]);
  const bootstrap = [1, 2, 3].map((id) => cluster.node(id).bootstrap).join(',');
  const admin = await Admin.connect({ bootstrap, clientId: 'elr-test' });
  t.after(() => admin.close());
  try {
    const [created] = await admin.createTopics([{ name: TOPIC, assignments: [[4, 5]] }, { name: `${TOPIC}-paged`, numPartitions: 5, replicationFactor: 1 }]);
    assert.equal(created?.error, null);
    const describe = async () => (await admin.describeTopics([TOPIC], { includeConfigs: false }))[0]?.partitions[0];
    await until('partition led by 4 with ISR 4,5', async () => {
      const p = await describe();
      return p?.leader === 4 && p.isr.length === 2 ? p : null;
    });

    await cluster.node(5).kill9();
    const shrunk = await until('follower 5 out of the ISR and in the ELR', async () => {
      const p = await describe();
      return p !== undefined && p.isr.length === 1 && p.elr?.includes(5) === true ? p : null;
    });
    assert.deepEqual(shrunk.isr, [4]);
    assert.deepEqual(shrunk.offlineReplicas, [5], 'a fenced broker\'s replica is offline');

    await cluster.node(4).kill9();
    const offline = await until('partition offline, ISR [4], ELR [5]', async () => {
      const p = await describe();
      return p !== undefined && p.leader === -1 ? p : null;
    });
    assert.deepEqual(offline.isr, [4], 'the last ISR member stays in the ISR (KRaft keeps it)');
    assert.deepEqual(offline.elr, [5]);
    const [described] = await admin.describeTopics([TOPIC], { includeConfigs: false });
    assert.ok(described);
    const text = formatDescription(described);
    assert.match(text, /LAST_KNOWN_ELR/);
    assert.match(text.split('\n')[2] ?? '', /^0\s+none\s+4,5\s+4\s+5\s/, `the row shows leader none, ISR 4, ELR 5:\n${text}`);

    // Paging: 5 partitions, 2 per answer: three answers, every partition once.
    const conn = await Connection.connect({ host: '127.0.0.1', port: cluster.node(active).port, clientId: 'elr-pages' });
    t.after(() => conn.close());
    const seen: number[] = [];
    type Cursor = { topicName: string; partitionIndex: number };
    let cursor: Cursor | null = null;
    for (let page = 0; page < 10; page++) {
      const from: Cursor | null = cursor;
      const { response }: { response: DescribeTopicPartitionsResponse } = await request(conn, AdminApis.DescribeTopicPartitions, () => ({ topics: [{ name: `${TOPIC}-paged` }], responsePartitionLimit: 2, cursor: from }));
      for (const tp of response.topics) for (const p of tp.partitions) seen.push(p.partitionIndex);
      cursor = response.nextCursor;
      if (cursor === null) break;
    }
    assert.deepEqual(seen, [0, 1, 2, 3, 4]);
    const { response: unknown } = await request(conn, AdminApis.DescribeTopicPartitions, () => ({ topics: [{ name: 'no-such-topic' }], responsePartitionLimit: 10, cursor: null }));
    assert.equal(unknown.topics[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const { response: badCursor } = await request(conn, AdminApis.DescribeTopicPartitions, () => ({ topics: [{ name: TOPIC }], responsePartitionLimit: 10, cursor: { topicName: 'another', partitionIndex: 0 } }));
    assert.equal(badCursor.topics[0]?.errorCode, ErrorCode.INVALID_REQUEST, 'a cursor must name one of the listed topics');
  } catch (err) {
    (err as Error).message += `\n${cluster.tails(30)}`;
    throw err;
  }
});
