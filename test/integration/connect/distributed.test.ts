/**
 * Two distributed workers in one group over a real broker: a file source
 * and a file sink created over REST (on the follower: forwarded to the
 * leader) are spread over the workers, copy a file through a topic into
 * another file, and the configs, task configs, offsets and statuses are in
 * the internal topics with Kafka's keys. A third worker that joins moves
 * nothing (two connectors and two tasks are balanced on two workers
 * already), and a stop, offsets reset and resume of the source through the
 * new worker copies the file again from the start.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startDistributed, type DistributedWorkerHandle } from '../../../src/connect/index.js';
import { Admin, Consumer } from '../../../src/client/index.js';
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

/** Every key of an internal topic, read to its end. */
async function internalKeys(topic: string): Promise<string[]> {
  const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  const [description] = await admin.describeTopics([topic]);
  const partitions = (description?.partitions ?? []).map((p) => p.partition);
  const ends = await admin.listOffsets(partitions.map((partition) => ({ topic, partition, spec: 'latest' as const })));
  await admin.close();
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap, autoOffsetReset: 'earliest' });
  const keys: string[] = [];
  const remaining = new Map(ends.filter((e) => e.offset > 0n).map((e) => [e.partition, e.offset]));
  try {
    consumer.assign(partitions.map((partition) => ({ topic, partition })));
    const deadline = Date.now() + 10_000;
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) {
        keys.push(r.key?.toString('utf8') ?? '');
        if (r.offset + 1n >= (remaining.get(r.partition) ?? 0n)) remaining.delete(r.partition);
      }
      if (remaining.size === 0 || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return keys;
}

interface Status {
  connector: { state: string; worker_id: string };
  tasks: { id: number; state: string; worker_id: string }[];
}

async function placement(url: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ['src', 'snk']) {
    const s = (await rest(url, 'GET', `/connectors/${name}/status`)).body as Status;
    out[name] = `${s.connector.state}@${s.connector.worker_id}`;
    for (const t of s.tasks) out[`${name}-${t.id}`] = `${t.state}@${t.worker_id}`;
  }
  return out;
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
  const statusKeys = await internalKeys('dist-e2e-status');
  for (const k of ['status-connector-src', 'status-task-src-0', 'status-connector-snk', 'status-task-snk-0', 'status-topic-dist-lines:connector-src']) assert.ok(statusKeys.includes(k), `${k} in ${statusKeys.join(',')}`);
  assert.ok((await internalKeys('dist-e2e-offsets')).includes(JSON.stringify(['src', { filename: input }])), 'the offset key is Kafka\'s ["<connector>", {partition}]');

  // A third worker joins: with two connectors and two tasks on two workers, balance needs no move.
  const before = await placement(a.url);
  assert.ok(Object.values(before).every((v) => v.startsWith('RUNNING@')), JSON.stringify(before));
  workers.push(await startDistributed(props, quiet));
  const c = workers[2] as DistributedWorkerHandle;
  await waitFor('the third worker joined', () => c.herder.leaderUrl !== null);
  await waitFor('the group settled', async () => (await rest(c.url, 'POST', '/connectors', { name: 'x', config: { 'connector.class': 'FileStreamSource' } })).status === 400);
  assert.deepEqual(await placement(c.url), before, 'nothing moved when the third worker joined');
  assert.deepEqual(c.herder.local.owned(), { connectors: [], tasks: [] });

  // Stop the source, reset its offsets, resume: it copies the file again from the start.
  assert.equal((await restSettled(c.url, 'PUT', '/connectors/src/stop')).status, 204);
  await waitFor('src stopped', async () => ((await rest(a.url, 'GET', '/connectors/src/status')).body as Status).connector.state === 'STOPPED');
  assert.equal((await restSettled(c.url, 'DELETE', '/connectors/src/offsets')).status, 200);
  assert.deepEqual((await rest(b.url, 'GET', '/connectors/src/offsets')).body, { offsets: [] });
  assert.equal((await rest(c.url, 'PUT', '/connectors/src/resume')).status, 202);
  await waitFor('the file copied a second time', () => lines(output).length >= 2 * expected.length);
  assert.deepEqual(lines(output), [...expected, ...expected]);
});
