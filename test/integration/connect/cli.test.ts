/**
 * `tributary connect` as a user runs it: `connect standalone` in a real
 * child process with worker.properties and a connector .properties file,
 * then the REST client commands (list, status, plugins, create, pause,
 * resume, restart, delete) against it, with --json and tables; SIGTERM
 * stops the worker cleanly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const exec = promisify(execFile);

let cluster: EmbeddedCluster;
let dir: string;
let child: ChildProcess | null = null;

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  dir = mkdtempSync(join(tmpdir(), 'connect-cli-'));
});
after(async () => {
  if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await exec(process.execPath, [MAIN, ...args], { timeout: 30_000 });
  return stdout;
}

test('connect standalone and the connector commands', async () => {
  writeFileSync(join(dir, 'in.txt'), 'a\nb\n');
  writeFileSync(join(dir, 'worker.properties'), [`bootstrap.servers=${cluster.bootstrap}`, 'listeners=http://127.0.0.1:0', `offset.storage.file.filename=${join(dir, 'offsets')}`, 'key.converter=org.apache.kafka.connect.storage.StringConverter', 'value.converter=org.apache.kafka.connect.storage.StringConverter'].join('\n'));
  writeFileSync(join(dir, 'source.properties'), ['name=local-file-source', 'connector.class=FileStreamSource', 'tasks.max=1', `file=${join(dir, 'in.txt')}`, 'topic=cli-lines'].join('\n'));
  writeFileSync(join(dir, 'sink.properties'), ['name=local-file-sink', 'connector.class=FileStreamSink', `file=${join(dir, 'out.txt')}`, 'topics=cli-lines'].join('\n'));
  const proc = spawn(process.execPath, [MAIN, 'connect', 'standalone', join(dir, 'worker.properties'), join(dir, 'source.properties')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /REST API on (http:\/\/\S+)/.exec(out);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`worker exited with ${String(code)}`)));
  });
  const list = JSON.parse(await cli('connect', 'list', '--url', url, '--json')) as Record<string, { status: { connector: { state: string } } }>;
  assert.deepEqual(Object.keys(list), ['local-file-source']);
  assert.match(await cli('connect', 'status', 'local-file-source', '--url', url), /^NAME\s+TYPE\s+UNIT\s+STATE\s+WORKER\nlocal-file-source\s+source\s+connector\s+RUNNING/);
  assert.match(await cli('connect', 'plugins', '--url', url), /org\.apache\.kafka\.connect\.file\.FileStreamSinkConnector\s+sink/);
  assert.match(await cli('connect', 'create', join(dir, 'sink.properties'), '--url', url), /connector local-file-sink configured/);
  assert.match(await cli('connect', 'pause', 'local-file-sink', '--url', url), /paused/);
  assert.match(await cli('connect', 'resume', 'local-file-sink', '--url', url), /resumed/);
  assert.match(await cli('connect', 'restart', 'local-file-sink', '--include-tasks', '--url', url), /restarted/);
  assert.match(await cli('connect', 'delete', 'local-file-sink', '--url', url), /deleted/);
  await assert.rejects(cli('connect', 'status', 'nope', '--url', url), /404 Connector nope not found/);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.kill('SIGTERM');
  assert.equal(await exited, 0);
});
