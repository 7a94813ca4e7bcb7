/**
 * `tributary cluster up` starts a 3-node cluster (child processes), prints
 * the bootstrap string once every broker is live; `tributary cluster status`
 * shows the quorum (one leader, every voter's log end and lag) and three
 * unfenced brokers, in text and JSON; SIGINT to `cluster up` (Ctrl-C) stops
 * every node gracefully. A second `cluster up` in the same directory
 * restarts the same cluster (same cluster id).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerMain, repoRoot, withTimeout } from '../helpers/broker-process.js';
import { run } from '../helpers/run.js';

const UP_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 30_000;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port with the 6 ports after it free (bounded attempts). */
async function freeBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000) * 2;
    let ok = true;
    for (let p = base; p < base + 6 && ok; p++) ok = await portFree(p);
    if (ok) return base;
  }
  throw new Error('no 6 consecutive free ports');
}

interface Up {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function clusterUp(dir: string, base: number): Promise<Up> {
  const child = spawn(process.execPath, [brokerMain, 'cluster', 'up', '--nodes', '3', '--dir', dir, '--base-port', String(base)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + UP_TIMEOUT_MS;
  while (!out.includes('Press Ctrl-C') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  assert.match(out, /Press Ctrl-C/, `cluster up did not report a ready cluster:\n${out}`);
  return { child, output: () => out, exited };
}

/** The node pids `cluster up` printed, SIGKILLed if still alive (the nodes run in their own process group). */
function killLeftovers(output: string): void {
  for (const m of output.matchAll(/pid (\d+)/g)) {
    try {
      process.kill(Number(m[1]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function stopUp(up: Up): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  up.child.kill('SIGINT');
  const result = await withTimeout(up.exited, STOP_TIMEOUT_MS);
  assert.ok(result !== null, `cluster up did not exit within ${STOP_TIMEOUT_MS} ms of SIGINT`);
  return result;
}

test('cluster up, cluster status, Ctrl-C, and up again', { timeout: 150_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-cluster-cli-'));
  const base = await freeBase();
  const outputs: string[] = [];
  t.after(() => {
    for (const o of outputs) killLeftovers(o);
    rmSync(dir, { recursive: true, force: true });
  });

  const up = await clusterUp(dir, base);
  outputs.push(up.output());
  const bootstrap = `127.0.0.1:${base},127.0.0.1:${base + 2},127.0.0.1:${base + 4}`;
  assert.match(up.output(), new RegExp(`Bootstrap: ${bootstrap.replaceAll('.', '\\.')}`));
  const clusterId = readFileSync(join(dir, 'cluster.id'), 'utf8').trim();

  const text = await run(process.execPath, [brokerMain, 'cluster', 'status', '--bootstrap', `127.0.0.1:${base + 2}`]);
  assert.match(text.stdout, new RegExp(`ClusterId: ${clusterId}`));
  assert.match(text.stdout, /Quorum: leader [123]\tepoch \d+/);
  assert.equal((text.stdout.match(/unfenced/g) ?? []).length, 3, text.stdout);

  const json = JSON.parse((await run(process.execPath, [brokerMain, 'cluster', 'status', '--bootstrap', `127.0.0.1:${base}`, '--controller', `127.0.0.1:${base + 1},127.0.0.1:${base + 3},127.0.0.1:${base + 5}`, '--json'])).stdout) as {
    quorum: { leaderId: number; replicas: { nodeId: number; role: string; lag: string | number }[] };
    brokers: { nodeId: number; state: string }[];
  };
  assert.deepEqual(json.quorum.replicas.map((r) => r.nodeId), [1, 2, 3]);
  assert.equal(json.quorum.replicas.filter((r) => r.role === 'leader').length, 1);
  assert.equal(json.quorum.replicas.find((r) => r.role === 'leader')?.nodeId, json.quorum.leaderId);
  assert.deepEqual(json.brokers.map((b) => [b.nodeId, b.state]), [[1, 'unfenced'], [2, 'unfenced'], [3, 'unfenced']]);

  const stopped = await stopUp(up);
  assert.equal(stopped.code, 0, up.output());
  for (const i of [1, 2, 3]) {
    const log = readFileSync(join(dir, `node-${i}.log`), 'utf8');
    assert.match(log, /shut down cleanly/, `node ${i} shut down gracefully`);
    assert.doesNotMatch(log, /SIGTERM again/, `node ${i} got exactly one signal`);
  }

  // Same directory again: same cluster id, the same metadata.
  const again = await clusterUp(dir, base);
  outputs.push(again.output());
  assert.match(again.output(), new RegExp(`Cluster ${clusterId}:`));
  assert.equal((await stopUp(again)).code, 0, again.output());
});
