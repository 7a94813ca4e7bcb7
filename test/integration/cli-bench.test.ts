/**
 * `tributary bench produce|consume|e2e` end to end against a broker process,
 * with small record counts: the summaries carry the right fields and counts
 * and the records really are in the log. Speed is not checked (that is
 * bench/'s job).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '../../src/client/admin.js';
import { brokerMain, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const COMMAND_TIMEOUT_MS = 45_000;

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bench(args: readonly string[], bootstrap = broker.bootstrap): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [brokerMain, 'bench', ...args, '--bootstrap', bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tributary bench ${args.join(' ')} did not finish in ${COMMAND_TIMEOUT_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function json(r: RunResult): Record<string, unknown> {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

interface Latency {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

function checkLatency(l: unknown, count: number): void {
  const lat = l as Latency;
  assert.equal(lat.count, count);
  assert.ok(lat.p50 > 0, 'p50 > 0');
  assert.ok(lat.p50 <= lat.p95 && lat.p95 <= lat.p99 && lat.p99 <= lat.p999 && lat.p999 <= lat.max, JSON.stringify(lat));
}

async function endOffsets(topic: string): Promise<bigint> {
  const admin = await Admin.connect({ bootstrap: broker.bootstrap });
  try {
    const meta = await admin.describeTopics([topic]);
    let total = 0n;
    for (const p of meta[0]?.partitions ?? []) total += (await admin.listOffsets(topic, p.partition, 'latest')).offset;
    return total;
  } finally {
    await admin.close();
  }
}

let broker: BrokerProcess;
let dir: string;

before(async () => {
  broker = await startBroker({ name: 'cli-bench' });
  dir = mkdtempSync(join(tmpdir(), 'trib-cli-bench-'));
});

after(async () => {
  await broker?.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('bench produce (sendBatch) then bench consume: counts, bytes, latency fields; the records are in the log', async () => {
  const p = json(await bench(['produce', '--topic', 'b1', '--create-topic', '--partitions', '2', '--records', '5000', '--record-size', '100', '--acks', '1', '--linger-ms', '1', '--json']));
  assert.equal(p['bench'], 'produce');
  assert.equal(p['records'], 5000);
  assert.equal(p['bytes'], 500_000);
  assert.equal(p['errors'], 0);
  assert.ok((p['recordsPerSec'] as number) > 0 && (p['mbPerSec'] as number) > 0 && (p['elapsedMs'] as number) > 0);
  checkLatency(p['latencyMs'], 5000);
  const settings = p['settings'] as Record<string, unknown>;
  assert.equal(settings['acks'], 1);
  assert.equal(settings['partitions'], 2);
  assert.equal(settings['mode'], 'sendBatch(1000)');
  assert.equal(await endOffsets('b1'), 5000n);

  const c = json(await bench(['consume', '--topic', 'b1', '--records', '5000', '--json', '--timeout-ms', '10000']));
  assert.equal(c['bench'], 'consume');
  assert.equal(c['records'], 5000);
  assert.equal(c['bytes'], 500_000);
  assert.equal(c['stoppedBy'], 'records');
  assert.ok((c['polls'] as number) >= 1);
  assert.equal(c['consumer'], 'consumer');
  assert.ok((c['recordsPerSec'] as number) > 0);
  assert.equal(typeof c['firstRecordAfterMs'], 'number');
});

test('bench produce --per-record --payload-file, paced; text summary', async () => {
  const file = join(dir, 'payloads.txt');
  writeFileSync(file, 'alpha\nbeta\ngamma\n');
  const r = await bench(['produce', '--topic', 'b2', '--create-topic', '--records', '300', '--payload-file', file, '--per-record', '--throughput', '3000', '--acks', 'all']);
  assert.equal(r.code, 0, r.stderr);
  // 100 x (5 + 4 + 5) bytes
  assert.match(r.stdout, /^Produced 300 records \(0\.00 MB\) to b2 in \d+\.\d{3} s: [\d,]+ records\/s, \d+\.\d{2} MB\/s$/m);
  assert.match(r.stdout, /^Latency ms \(send → ack\): p50 [\d.]+ {2}p95 [\d.]+ {2}p99 [\d.]+ {2}p99\.9 [\d.]+ {2}max [\d.]+ {2}\(mean [\d.]+, 300 samples\)$/m);
  assert.match(r.stdout, /^Settings: .*acks=-1 .*throughput=3000 .*mode=send /m);
  assert.equal(await endOffsets('b2'), 300n);
  const c = json(await bench(['consume', '--topic', 'b2', '--json', '--timeout-ms', '1500', '--fetch-max-wait-ms', '200', '--source', 'fetch']));
  assert.equal(c['consumer'], 'fetch');
  assert.equal(c['records'], 300);
  assert.equal(c['bytes'], 1400);
  assert.equal(c['stoppedBy'], 'timeout');
});

test('bench consume --group: subscribes, reads everything from earliest', async () => {
  const c = json(await bench(['consume', '--topic', 'b1', '--group', 'bench-g', '--records', '5000', '--json', '--timeout-ms', '15000']));
  assert.equal(c['records'], 5000);
  assert.equal(c['bytes'], 500_000);
  assert.equal((c['settings'] as Record<string, unknown>)['group'], 'bench-g');
});

test('bench consume: fewer records than --records before the timeout is exit 1', async () => {
  const r = await bench(['consume', '--topic', 'b2', '--records', '1000', '--timeout-ms', '1000', '--fetch-max-wait-ms', '200', '--no-progress']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^Consumed 300 records/m);
  assert.match(r.stderr, /consumed 300 of 1000 records: no record for 1000 ms/);
});

test('bench e2e: every record received, end-to-end and ack latency for each', async () => {
  const e = json(await bench(['e2e', '--topic', 'b3', '--create-topic', '--throughput', '2000', '--records', '2000', '--acks', '1', '--linger-ms', '1', '--json']));
  assert.equal(e['bench'], 'e2e');
  assert.equal(e['records'], 2000);
  assert.equal(e['consumed'], 2000);
  assert.equal(e['errors'], 0);
  checkLatency(e['latencyMs'], 2000);
  checkLatency(e['ackLatencyMs'], 2000);
  // Paced at 2000/s, 2000 records take about a second; the rate cannot exceed the target by much.
  assert.ok((e['recordsPerSec'] as number) <= 2200, `achieved ${String(e['recordsPerSec'])}`);
  assert.equal(await endOffsets('b3'), 2000n);
});

test('bench produce to a topic that does not exist (no --create-topic): auto-created as by kafka-producer-perf-test', async () => {
  const p = json(await bench(['produce', '--topic', 'auto-bench', '--records', '10', '--acks', '1', '--no-progress', '--json']));
  assert.equal(p['records'], 10);
  assert.equal(await endOffsets('auto-bench'), 10n);
});

test('bench produce to a missing topic on a broker with auto.create.topics.enable=false is exit 1', async (t) => {
  const strict = await startBroker({ name: 'cli-bench-no-auto', overrides: { 'auto.create.topics.enable': 'false' } });
  t.after(() => strict.cleanup());
  const r = await bench(['produce', '--topic', 'missing-topic', '--records', '10', '--no-progress'], strict.bootstrap);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
});
