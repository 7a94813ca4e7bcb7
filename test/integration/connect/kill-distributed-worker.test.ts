/**
 * kill -9 of a worker in a distributed group of two (real processes,
 * `tributary connect distributed`): a file source copies a file into a
 * topic and a file sink copies the topic into another file; the worker
 * running the source task is killed in the middle of the copy. After its
 * session expires and scheduled.rebalance.max.delay.ms passes, the task
 * moves to the survivor, which resumes from the offsets in the offset
 * topic: every input line reaches the topic and the output file, and a
 * line is duplicated only if it was read after the last flushed offset
 * (at-least-once).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { Admin } from '../../../src/client/admin.js';
import { distributedProps, rest, restSettled, waitFor } from '../../helpers/connect-distributed.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const LINES = 20_000;
let cluster: EmbeddedCluster;
const dir = mkdtempSync(join(tmpdir(), 'connect-kill-dist-'));
const children: ChildProcess[] = [];

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Spawns a worker and resolves with its REST URL once it prints it. */
function startWorker(propsFile: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [MAIN, 'connect', 'distributed', propsFile], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /REST API on (\S+)/.exec(out);
      if (m?.[1] !== undefined) resolve({ proc, url: m[1] });
    });
    proc.once('exit', (code) => reject(new Error(`worker exited with ${code} before it served`)));
  });
}

const outputLines = (): string[] => {
  const path = join(dir, 'out.txt');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : [];
};

interface Status {
  connector: { state: string; worker_id: string };
  tasks: { id: number; state: string; worker_id: string }[];
}

async function taskWorker(url: string, connector: string): Promise<string | null> {
  const s = await rest(url, 'GET', `/connectors/${connector}/status`);
  const task = s.status === 200 ? (s.body as Status).tasks[0] : undefined;
  return task?.state === 'RUNNING' ? task.worker_id : null;
}

test('kill -9 of a distributed worker: its source task moves and no line is lost', async () => {
  const input = Array.from({ length: LINES }, (_, i) => `record-${i}`);
  writeFileSync(join(dir, 'in.txt'), input.join('\n') + '\n');
  const props = distributedProps(cluster.bootstrap, 'kill-group');
  writeFileSync(join(dir, 'worker.properties'), Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n'));
  const workers = await Promise.all([startWorker(join(dir, 'worker.properties')), startWorker(join(dir, 'worker.properties'))]);
  const [first] = workers;
  const src = await restSettled(first.url, 'POST', '/connectors', { name: 'src', config: { 'connector.class': 'FileStreamSource', file: join(dir, 'in.txt'), topic: 'kill-dist-lines', 'batch.size': '100' } });
  assert.equal(src.status, 201, JSON.stringify(src.body));
  const snk = await restSettled(first.url, 'POST', '/connectors', { name: 'snk', config: { 'connector.class': 'FileStreamSink', file: join(dir, 'out.txt'), topics: 'kill-dist-lines' } });
  assert.equal(snk.status, 201, JSON.stringify(snk.body));
  // Two workers joining, the internal topics and the first rebalance can take a while on a loaded machine.
  await waitFor('some lines copied', () => outputLines().length >= 1_000, 120_000).catch(async (err: unknown) => {
    const statuses = await Promise.all(['src', 'snk'].map(async (c) => JSON.stringify((await rest(first.url, 'GET', `/connectors/${c}/status`)).body)));
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap, clientId: 'kill-dist-diagnose' });
    const end = await admin.listOffsets('kill-dist-lines', 0, 'latest').then((o) => String(o.offset), (e: Error) => e.message).finally(() => admin.close());
    (err as Error).message += `; ${outputLines().length} lines copied; topic end offset ${end}; statuses ${statuses.join(' ')}`;
    throw err;
  });
  let owner: string | null = null;
  await waitFor('the source task status', async () => (owner = await taskWorker(first.url, 'src')) !== null);
  const victim = workers.find((w) => new URL(w.url).host === owner);
  const survivor = workers.find((w) => w !== victim);
  assert.ok(victim !== undefined && survivor !== undefined, `the source task runs on one of the workers (${owner})`);
  victim.proc.kill('SIGKILL');
  await new Promise((r) => victim.proc.once('exit', r));
  const atKill = outputLines().length;
  assert.ok(atKill < LINES, `the kill happened mid-copy (${atKill} lines out)`);
  const survivorId = new URL(survivor.url).host;
  await waitFor('the source task running on the survivor', async () => (await taskWorker(survivor.url, 'src')) === survivorId, 90_000);
  await waitFor('every line copied', () => new Set(outputLines()).size >= LINES, 90_000);
  const out = outputLines();
  const seen = new Set(out);
  assert.deepEqual(input.filter((l) => !seen.has(l)), [], 'no input line is missing');
  assert.ok(out.every((l) => l.startsWith('record-')), 'no torn line');
  const duplicates = out.length - seen.size;
  assert.ok(duplicates < LINES / 2, `duplicates only from after the last flushed offset (${duplicates})`);
  // The source offset is committed every offset.flush.interval.ms: the last lines can be copied before it is.
  const expected = { offsets: [{ partition: { filename: join(dir, 'in.txt') }, offset: { position: Buffer.byteLength(input.join('\n') + '\n') } }] };
  let offsets = await rest(survivor.url, 'GET', '/connectors/src/offsets');
  await waitFor('the final source offset committed', async () => {
    offsets = await rest(survivor.url, 'GET', '/connectors/src/offsets');
    return JSON.stringify(offsets.body) === JSON.stringify(expected);
  });
  assert.deepEqual(offsets.body, expected);
});
