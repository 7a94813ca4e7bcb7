/**
 * At-least-once across a crash: a standalone worker (a real child process)
 * copying a file through a topic into another file is killed with SIGKILL
 * in the middle of the copy and started again with the same offset file;
 * every input line reaches the output (lines after the last committed
 * offsets may appear twice, none may be missing).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const LINES = 20_000;
let cluster: EmbeddedCluster;
const dir = mkdtempSync(join(tmpdir(), 'connect-kill-'));
const children: ChildProcess[] = [];

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(): ChildProcess {
  const proc = spawn(process.execPath, [MAIN, 'connect', 'standalone', join(dir, 'worker.properties'), join(dir, 'source.properties'), join(dir, 'sink.properties')], { stdio: 'ignore' });
  children.push(proc);
  return proc;
}

const outputLines = (): string[] => {
  const path = join(dir, 'out.txt');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : [];
};

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${outputLines().length} lines out)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('kill -9 of a standalone worker loses no line', async () => {
  const input = Array.from({ length: LINES }, (_, i) => `record-${i}`);
  writeFileSync(join(dir, 'in.txt'), input.join('\n') + '\n');
  writeFileSync(join(dir, 'worker.properties'), [`bootstrap.servers=${cluster.bootstrap}`, 'listeners=http://127.0.0.1:0', `offset.storage.file.filename=${join(dir, 'offsets')}`, 'offset.flush.interval.ms=100', 'key.converter=StringConverter', 'value.converter=StringConverter'].join('\n'));
  writeFileSync(join(dir, 'source.properties'), ['name=src', 'connector.class=FileStreamSource', `file=${join(dir, 'in.txt')}`, 'topic=kill-lines', 'batch.size=200'].join('\n'));
  writeFileSync(join(dir, 'sink.properties'), ['name=snk', 'connector.class=FileStreamSink', `file=${join(dir, 'out.txt')}`, 'topics=kill-lines'].join('\n'));
  const first = startWorker();
  await waitFor('some lines copied', () => outputLines().length >= 500);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const atKill = outputLines().length;
  startWorker();
  await waitFor('every line copied', () => new Set(outputLines()).size >= LINES);
  const out = outputLines();
  const seen = new Set(out);
  const missing = input.filter((l) => !seen.has(l));
  assert.deepEqual(missing, [], 'no input line is missing');
  assert.ok(out.every((l) => l.startsWith('record-')), 'no torn line');
  assert.ok(atKill < LINES, `the kill happened mid-copy (${atKill} lines out)`);
});
