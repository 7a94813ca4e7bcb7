/**
 * `tributary consume ... | head -3` with a real shell pipe: once head has
 * its lines and exits, consume exits 0 too, even with no further record to
 * write (the pipe's reader is watched, src/cli/commands/stdout-reader.ts),
 * and a group consumer leaves its group on the way out. Bounded by a timeout
 * on the whole pipeline; no timing is asserted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { Admin } from '../../../src/client/admin.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { startInProcessBroker, type InProcessBroker } from '../../helpers/in-process-broker.js';

const main = resolve(fileURLToPath(import.meta.url), '../../../../src/cli/main.js');
const PIPELINE_TIMEOUT_S = 25;

let broker: InProcessBroker;
let bootstrap: string;

before(async () => {
  broker = await startInProcessBroker({ 'group.initial.rebalance.delay.ms': '0' });
  bootstrap = `127.0.0.1:${broker.port}`;
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, valueSerializer: Serializers.string });
  await producer.sendBatch(Array.from({ length: 10 }, (_, i) => ({ topic: 'piped', value: `line-${i}` })));
  await producer.close();
});

after(() => broker?.stop());

/** Runs `consume <args> | head -3` in bash; resolves with head's output and consume's exit status (124 = killed by the timeout). */
function consumeIntoHead(args: readonly string[]): Promise<{ out: string; consumeStatus: number; stderr: string }> {
  const consume = [process.execPath, main, 'consume', ...args, '--bootstrap', bootstrap].map((a) => `'${a}'`).join(' ');
  const script = `timeout ${PIPELINE_TIMEOUT_S} ${consume} | head -3; echo "consume-status=\${PIPESTATUS[0]}"`;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => {
      const status = /consume-status=(\d+)/.exec(out);
      resolvePromise({ out: out.replace(/consume-status=\d+\n/, ''), consumeStatus: Number(status?.[1] ?? -1), stderr });
    });
  });
}

test('consume | head -3 exits 0 when head exits, though no record is left to write', { timeout: 40_000 }, async () => {
  const r = await consumeIntoHead(['piped', '--from-beginning']);
  assert.equal(r.out, 'line-0\nline-1\nline-2\n');
  assert.equal(r.consumeStatus, 0, `consume exit status (124: still running at the timeout)\n${r.stderr}`);
});

test('consume --group | head -3 exits 0 when head exits and leaves the group', { timeout: 40_000 }, async (t) => {
  const r = await consumeIntoHead(['piped', '--group', 'piped-group', '--from-beginning']);
  assert.equal(r.out, 'line-0\nline-1\nline-2\n');
  assert.equal(r.consumeStatus, 0, `consume exit status (124: still running at the timeout)\n${r.stderr}`);
  const admin = await Admin.connect({ bootstrap });
  t.after(() => admin.close());
  const [group] = await admin.describeGroups(['piped-group']);
  assert.equal(group?.state, 'Empty', 'the member left the group');
  assert.deepEqual(group?.members, []);
});
