/**
 * The client commands end to end against a real broker process on loopback:
 * topic create/list/describe/delete, produce (stdin, keyed) and consume.
 * The broker is started on port 0 and the bound port is read from its
 * "broker started" log line; should that line not carry it, a free port is
 * picked by binding a temporary server first.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { partitionForKey } from '../../../src/client/partitioner.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const BROKER_START_TIMEOUT_MS = 20_000;
const COMMAND_TIMEOUT_MS = 30_000;

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tributary ${args.join(' ')} did not finish in ${COMMAND_TIMEOUT_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface RunningBroker {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts `tributary start` and resolves with the port from its startup log line. */
function startBroker(dataDir: string, port: number): Promise<RunningBroker> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [MAIN, 'start', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dataDir}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let settled = false;
    const finish = (err: Error | null, boundPort?: number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== null) {
        child.kill('SIGKILL');
        reject(err);
      } else {
        resolve({ child, port: boundPort as number, output: () => output });
      }
    };
    const timer = setTimeout(() => finish(new Error(`broker did not start within ${BROKER_START_TIMEOUT_MS} ms:\n${output}`)), BROKER_START_TIMEOUT_MS);
    const onData = (d: string): void => {
      output += d;
      for (const line of output.split('\n')) {
        const bound = parseBoundPort(line);
        if (bound !== null) finish(null, bound);
        else if (port !== 0 && /broker started|listening on/.test(line)) finish(null, port);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => finish(new Error(`broker exited with ${code} before it started:\n${output}`)));
  });
}

function parseBoundPort(line: string): number | null {
  if (!line.startsWith('{')) return null;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; listeners?: { port?: unknown }[] };
    const port = entry.listeners?.[0]?.port;
    return typeof port === 'number' && port > 0 ? port : null;
  } catch {
    return null;
  }
}

async function stopBroker(broker: RunningBroker): Promise<void> {
  if (broker.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => broker.child.once('exit', () => resolve()));
  broker.child.kill('SIGTERM');
  const timer = setTimeout(() => broker.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

describe('tributary client commands against a real broker', () => {
  let dataDir = '';
  let broker: RunningBroker | null = null;
  let bootstrap: string[] = [];
  /** The id `topic create` printed for orders (KIP-516). */
  let createdId = '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tributary-cli-'));
    try {
      broker = await startBroker(dataDir, 0);
    } catch {
      broker = await startBroker(dataDir, await freePort());
    }
    bootstrap = ['--bootstrap', `127.0.0.1:${broker.port}`];
  });

  after(async () => {
    if (broker !== null) await stopBroker(broker);
    await rm(dataDir, { recursive: true, force: true });
  });

  test('topic create, then create again fails with TOPIC_ALREADY_EXISTS', async () => {
    const created = await run(['topic', 'create', 'orders', '--partitions', '3', '--replication-factor', '1', ...bootstrap]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Created topic orders \(partitions: 3, replication factor: 1, id: [A-Za-z0-9_-]{22}\)/);
    createdId = /id: ([A-Za-z0-9_-]{22})/.exec(created.stdout)?.[1] ?? '';
    const again = await run(['topic', 'create', 'orders', '--partitions', '3', ...bootstrap]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /TOPIC_ALREADY_EXISTS/);
    assert.match(again.stderr, /hint:/);
    const ifNotExists = await run(['topic', 'create', 'orders', '--if-not-exists', ...bootstrap]);
    assert.equal(ifNotExists.code, 0, ifNotExists.stderr);
  });

  test('topic list shows the topic as a table and as JSON', async () => {
    const table = await run(['topic', 'list', ...bootstrap]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^TOPIC\s+PARTITIONS\s+REPLICATION-FACTOR/);
    assert.ok(lines.some((l) => /^orders\s+3\s+1\b/.test(l)), table.stdout);
    const json = await run(['topic', 'list', '--json', ...bootstrap]);
    assert.equal(json.code, 0, json.stderr);
    const topics = JSON.parse(json.stdout) as { name: string; partitionCount: number }[];
    assert.deepEqual(
      topics.filter((t) => t.name === 'orders').map((t) => t.partitionCount),
      [3],
    );
  });

  test('topic describe lists partitions with leader, replicas and ISR', async () => {
    const described = await run(['topic', 'describe', 'orders', ...bootstrap]);
    assert.equal(described.code, 0, described.stderr);
    // The id arrives through Metadata v10+ and is the one CreateTopics answered.
    assert.match(described.stdout, new RegExp(`Topic: orders\tTopicId: ${createdId}\tPartitionCount: 3\tReplicationFactor: 1`));
    const rows = described.stdout.split('\n').filter((l) => /^\d+\s/.test(l));
    assert.equal(rows.length, 3);
    for (const row of rows) {
      const [partition, leader, replicas, isr] = row.trim().split(/\s+/);
      assert.match(partition ?? '', /^[0-2]$/);
      assert.match(leader ?? '', /^\d+$/);
      assert.equal(replicas, leader);
      assert.equal(isr, leader);
    }
    const missing = await run(['topic', 'describe', 'no-such-topic', ...bootstrap]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
  });

  test('produce reads keyed lines from stdin and consume prints them back', async () => {
    const lines = ['alice\tone', 'bob\ttwo', 'carol\tthree', 'alice\tfour', 'no key here', 'bob\tsix'];
    const produced = await run(['produce', 'orders', '--key-separator', '--acks', '-1', ...bootstrap], `${lines.join('\n')}\n`);
    assert.equal(produced.code, 0, produced.stderr);
    assert.match(produced.stdout, /Produced 6 records \(\d+ B\) to orders in [\d.]+ s/);

    const consumed = await run(['consume', 'orders', '--offset', 'earliest', '--max', '6', '--print-key', '--print-offset', ...bootstrap]);
    assert.equal(consumed.code, 0, consumed.stderr);
    const out = consumed.stdout.trim().split('\n');
    assert.equal(out.length, 6, consumed.stdout);
    const parsed = out.map((l) => {
      const [position, key, value] = l.split('\t');
      const [partition, offset] = (position ?? '').split(':').map(Number);
      return { partition: partition as number, offset: offset as number, key: key as string, value: value as string };
    });
    assert.deepEqual(parsed.map((r) => `${r.key}\t${r.value}`).sort(), ['alice\tfour', 'alice\tone', 'bob\tsix', 'bob\ttwo', 'carol\tthree', 'null\tno key here']);
    // Keyed records land where the Java client's murmur2 partitioner puts them.
    for (const r of parsed) if (r.key !== 'null') assert.equal(r.partition, partitionForKey(r.key, 3), r.key);
    // Within a partition, records keep the input order.
    const alice = parsed.filter((r) => r.key === 'alice').sort((a, b) => a.offset - b.offset);
    assert.deepEqual(
      alice.map((r) => r.value),
      ['one', 'four'],
    );
    assert.match(consumed.stderr, /Processed a total of 6 records/);
  });

  test('consume one partition as JSON, stopping on --timeout-ms', async () => {
    const partition = partitionForKey('bob', 3);
    const consumed = await run(['consume', 'orders', '--partition', String(partition), '--offset', 'earliest', '--timeout-ms', '1500', '--json', ...bootstrap]);
    assert.equal(consumed.code, 0, consumed.stderr);
    const records = consumed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { partition: number; key: string | null; value: string; offset: number });
    assert.ok(records.length >= 2);
    assert.ok(records.every((r) => r.partition === partition));
    assert.deepEqual(
      records.filter((r) => r.key === 'bob').map((r) => r.value),
      ['two', 'six'],
    );
  });

  test('produce with --partition and compression, from a file-like stdin of many lines', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line-${i}`);
    const produced = await run(['produce', 'orders', '--partition', '1', '--compression', 'gzip', '--batch-size', '700', ...bootstrap], `${lines.join('\n')}\n`);
    assert.equal(produced.code, 0, produced.stderr);
    assert.match(produced.stdout, /Produced 5000 records/);
    const consumed = await run(['consume', 'orders', '--partition', '1', '--offset', 'earliest', '--max', '100000', '--timeout-ms', '1500', ...bootstrap]);
    assert.equal(consumed.code, 0, consumed.stderr);
    const values = consumed.stdout.trim().split('\n').filter((v) => v.startsWith('line-'));
    assert.deepEqual(values, lines);
  });

  test('usage errors exit 2, runtime errors exit 1', async () => {
    const badAcks = await run(['produce', 'orders', '--acks', '2', ...bootstrap]);
    assert.equal(badAcks.code, 2);
    const badOffset = await run(['consume', 'orders', '--offset', 'yesterday', ...bootstrap]);
    assert.equal(badOffset.code, 2);
    const missingName = await run(['topic', 'create', ...bootstrap]);
    assert.equal(missingName.code, 2);
    const unknownTopic = await run(['consume', 'no-such-topic', '--max', '1', ...bootstrap]);
    assert.equal(unknownTopic.code, 1);
    assert.match(unknownTopic.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
    const noBroker = await run(['topic', 'list', '--bootstrap', `127.0.0.1:${await freePort()}`]);
    assert.equal(noBroker.code, 1);
    assert.match(noBroker.stderr, /could not reach any broker/);
  });

  test('topic delete removes the topic', async () => {
    const deleted = await run(['topic', 'delete', 'orders', ...bootstrap]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /Deleted topic orders/);
    const listed = await run(['topic', 'list', '--json', ...bootstrap]);
    const topics = JSON.parse(listed.stdout) as { name: string }[];
    assert.ok(!topics.some((t) => t.name === 'orders'));
    const again = await run(['topic', 'delete', 'orders', ...bootstrap]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
  });
});
