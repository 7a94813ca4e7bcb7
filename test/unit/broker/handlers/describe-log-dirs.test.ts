/**
 * DescribeLogDirs (35) on an in-process broker, every version: the data
 * directory by absolute path, partition sizes equal to the logs' bytes,
 * topic filters, v4 disk totals from statfs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { startInProcessBroker, type InProcessBroker } from '../../../helpers/in-process-broker.js';
import { AdminCaller, createTopic, produce } from './admin-helpers.js';

type Partition = { partitionIndex: number; partitionSize: bigint; offsetLag: bigint; isFutureKey: boolean };
type Result = { errorCode: number; logDir: string; topics: { name: string; partitions: Partition[] }[]; totalBytes?: bigint; usableBytes?: bigint };
type Response = { errorCode?: number; results: Result[] };

let node: InProcessBroker;
let c: AdminCaller;

before(async () => {
  node = await startInProcessBroker();
  c = await AdminCaller.connect(node);
  await createTopic(node, 'dirs-a', 2);
  await createTopic(node, 'dirs-b', 1);
  await produce(c, 'dirs-a', 1, 3);
});

after(async () => {
  c?.close();
  await node?.stop();
});

function sizeOf(topic: string, partition: number): bigint {
  const p = node.broker.services.replicaManager.get(topic, partition);
  assert.ok(p);
  return BigInt(p.log.sizeBytes);
}

for (const version of [0, 1, 2, 3, 4]) {
  test(`v${version}: every partition of the data directory, with its size`, async () => {
    const r = await c.call<Response>(35, version, { topics: null });
    assert.equal(r.results.length, 1);
    const dir = r.results[0] as Result;
    assert.equal(dir.errorCode, 0);
    assert.equal(dir.logDir, resolve(node.dataDir));
    const a = dir.topics.find((t) => t.name === 'dirs-a');
    assert.deepEqual(a?.partitions, [
      { partitionIndex: 0, partitionSize: 0n, offsetLag: 0n, isFutureKey: false },
      { partitionIndex: 1, partitionSize: sizeOf('dirs-a', 1), offsetLag: 0n, isFutureKey: false },
    ]);
    assert.ok((a?.partitions[1]?.partitionSize ?? 0n) > 0n);
    assert.ok(dir.topics.some((t) => t.name === 'dirs-b'));
    if (version >= 4) {
      assert.ok((dir.totalBytes ?? -1n) > 0n && (dir.usableBytes ?? -1n) >= 0n && (dir.usableBytes ?? 0n) <= (dir.totalBytes ?? 0n));
    }
    if (version >= 3) assert.equal(r.errorCode, 0);
  });
}

test('a topic filter lists only the requested partitions that are here', async () => {
  const r = await c.call<Response>(35, 4, { topics: [{ topic: 'dirs-a', partitions: [1, 7] }, { topic: 'nope', partitions: [0] }] });
  assert.deepEqual(r.results[0]?.topics, [{ name: 'dirs-a', partitions: [{ partitionIndex: 1, partitionSize: sizeOf('dirs-a', 1), offsetLag: 0n, isFutureKey: false }] }]);
  const none = await c.call<Response>(35, 2, { topics: [] });
  assert.deepEqual(none.results[0]?.topics, []);
});
