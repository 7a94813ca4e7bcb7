/**
 * Fetch from follower (KIP-392) with a real client: three brokers in racks
 * r1, r2, r3 and replica.selector.class=RackAwareReplicaSelector. librdkafka
 * (kcat) consuming with client.rack set to a follower's rack is sent to that
 * follower by the leader (PreferredReadReplica) and reads every committed
 * record from it, in order, at its offset. librdkafka's fetch debug log
 * says it moved the partition to the follower ("preferred replica updated").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from '../../helpers/cluster-process.js';
import { createTopicsRaw } from '../../helpers/raw-kafka.js';
import { assertKcatProduceClean, kcatConsumeAll, kcatMetadata, kcatProduce } from '../../helpers/kcat.js';
import { KCAT, run } from '../../helpers/run.js';

const TOPIC = 'rack-aware';
const RECORDS = 200;
const WAIT_MS_MAX = 30_000;

test('KIP-392: a librdkafka consumer in a follower\'s rack reads every committed record from that follower', { timeout: 150_000 }, async (t) => {
  const cluster = await startCluster({
    name: 'follower-fetch',
    overrides: { 'replica.selector.class': 'org.apache.kafka.common.replica.RackAwareReplicaSelector', 'min.insync.replicas': '2' },
    nodeOverrides: (id) => ({ 'broker.rack': `r${id}` }),
  });
  t.after(() => cluster.cleanup());
  const active = await cluster.waitForActiveController([1, 2, 3]);
  await cluster.waitForBrokers([active], [1, 2, 3]);
  const bootstrap = [1, 2, 3].map((id) => cluster.node(id).bootstrap).join(',');
  try {
    await createTopicsRaw(cluster.node(active).port, [{ name: TOPIC, partitions: 1, replicationFactor: 3 }]);
    const deadline = Date.now() + WAIT_MS_MAX;
    let leader = -1;
    let isr: number[] = [];
    while (Date.now() < deadline) {
      const md = (await kcatMetadata(bootstrap, TOPIC)).topics[0]?.partitions[0];
      leader = md?.leader ?? -1;
      isr = md?.isrs.map((r) => r.id) ?? [];
      if (leader > 0 && isr.length === 3) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(isr.length, 3, 'three in-sync replicas');
    const lines = Array.from({ length: RECORDS }, (_, i) => `k${i}:v${i}`);
    assertKcatProduceClean(await kcatProduce(bootstrap, TOPIC, lines));
    const follower = [1, 2, 3].find((id) => id !== leader) as number;

    // Followers catch up to the high watermark within a fetch round or two; the selector only picks one that has the offset.
    const records = await kcatConsumeAll(bootstrap, TOPIC, { config: { 'client.rack': `r${follower}` } });
    assert.deepEqual(records.map((r) => r.offset), Array.from({ length: RECORDS }, (_, i) => BigInt(i)));
    assert.deepEqual(records.map((r) => r.value), lines.map((l) => l.slice(l.indexOf(':') + 1)));

    // The same read with fetch debugging on: librdkafka says it was delegated to the follower.
    const debug = await run(KCAT, ['-b', bootstrap, '-C', '-t', TOPIC, '-o', 'beginning', '-e', '-X', `client.rack=r${follower}`, '-X', 'debug=fetch,topic', '-f', '%o\\n'], { timeoutMs: 60_000 });
    assert.equal(debug.stdout.trim().split('\n').length, RECORDS);
    assert.match(debug.stderr, new RegExp(`migrating from broker \\d+ to ${follower} \\(leader is ${leader}\\): preferred replica updated`), `librdkafka followed the leader to broker ${follower}:\n${debug.stderr.slice(-3000)}`);
  } catch (err) {
    (err as Error).message += `\n${cluster.tails(30)}`;
    throw err;
  }
});
