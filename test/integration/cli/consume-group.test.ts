/**
 * `tributary consume --group` end to end against a real broker process:
 * what it commits on exit is exactly what it printed (a batch cut short by
 * --max included), a second run resumes from there, --timeout-ms ends an idle
 * run with exit 0, and a reader of stdout that goes away (`| head`) ends the
 * command with exit 0 after it left the group. (Two members sharing a topic,
 * SIGINT and the group commands are in group.test.ts.)
 *
 * Every child process is bounded (run.ts timeouts, SIGKILL on exit) and the
 * broker is removed in `after`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { brokerMain, startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { run as runTool, type RunResult } from '../../helpers/run.js';

const TOPIC = 'lines';
const RECORDS = 300;
const EXIT_WAIT_MS = 60_000;

interface DescribeJson {
  group: { state: string; members: unknown[] };
  partitions: { partition: number; currentOffset: number | null }[];
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

describe('tributary consume --group: commits, resume, timeout, closed stdout', () => {
  let broker: BrokerProcess | null = null;
  let bootstrap: string[] = [];
  const children: ChildProcess[] = [];

  const cli = (args: readonly string[], input?: string): Promise<RunResult> =>
    runTool(process.execPath, [brokerMain, ...args, ...bootstrap], { allowFailure: true, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });

  const describeGroup = async (group: string): Promise<DescribeJson> => {
    const r = await cli(['group', 'describe', group, '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as DescribeJson;
  };

  const produce = async (values: readonly string[]): Promise<void> => {
    const r = await cli(['produce', TOPIC], `${values.join('\n')}\n`);
    assert.equal(r.code, 0, r.stderr);
  };

  before(async () => {
    broker = await startBroker({ name: 'cli-consume-group' });
    bootstrap = ['--bootstrap', broker.bootstrap];
    const created = await cli(['topic', 'create', TOPIC, '--partitions', '2']);
    assert.equal(created.code, 0, created.stderr);
    await produce(Array.from({ length: RECORDS }, (_, i) => `v-${i}`));
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await broker?.cleanup();
  });

  test('--max commits exactly the printed records on exit; the next run resumes after them', async () => {
    const first = await cli(['consume', TOPIC, '--group', 'resume', '--offset', 'earliest', '--max', '7', '--print-offset']);
    assert.equal(first.code, 0, first.stderr);
    const firstLines = lines(first.stdout);
    assert.equal(firstLines.length, 7);
    assert.match(first.stderr, /Joined group resume \(generation \d+\) with partitions: lines-\d, lines-\d\n/);
    assert.match(first.stderr, /Processed a total of 7 records\./);

    // The committed offsets are the next offsets after the printed records, per partition.
    const printed = new Map<number, number>();
    for (const l of firstLines) {
      const [partition, offset] = (l.split('\t')[0] as string).split(':').map(Number) as [number, number];
      printed.set(partition, Math.max(printed.get(partition) ?? -1, offset));
    }
    const d = await describeGroup('resume');
    assert.equal(d.group.state, 'Empty', 'the member left the group');
    for (const p of d.partitions) {
      const last = printed.get(p.partition);
      assert.equal(p.currentOffset ?? 0, last === undefined ? 0 : last + 1, `partition ${p.partition}`);
    }

    const second = await cli(['consume', TOPIC, '--group', 'resume', '--timeout-ms', '3000', '--print-offset']);
    assert.equal(second.code, 0, second.stderr);
    const all = [...firstLines, ...lines(second.stdout)];
    assert.equal(all.length, RECORDS, 'nothing printed twice, nothing skipped');
    assert.equal(new Set(all).size, RECORDS);
    assert.match(second.stderr, new RegExp(`Processed a total of ${RECORDS - 7} records\\.`));

    const third = await cli(['consume', TOPIC, '--group', 'resume', '--timeout-ms', '1500']);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.stdout, '', 'everything was committed');
    assert.match(third.stderr, /Processed a total of 0 records\./);
  });

  test('--json output and --offset latest for a group without commits', async () => {
    const latest = await cli(['consume', TOPIC, '--group', 'fresh', '--timeout-ms', '1500']);
    assert.equal(latest.code, 0, latest.stderr);
    assert.equal(latest.stdout, '', 'latest: nothing old is printed');
    const json = await cli(['consume', TOPIC, '--group', 'as-json', '--from-beginning', '--max', '3', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const records = lines(json.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(records.length, 3);
    for (const r of records) {
      assert.deepEqual(Object.keys(r), ['topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'headers']);
      assert.equal(r['topic'], TOPIC);
      assert.equal(typeof r['timestamp'], 'number');
      assert.match(String(r['value']), /^v-\d+$/);
    }
  });

  test('a member that joins with no partition says so; Ctrl-C ends a member with exit 0', async () => {
    const single = await cli(['topic', 'create', 'single', '--partitions', '1']);
    assert.equal(single.code, 0, single.stderr);
    const first = spawn(process.execPath, [brokerMain, 'consume', 'single', '--group', 'crowd', ...bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(first);
    let firstErr = '';
    first.stderr?.setEncoding('utf8').on('data', (d: string) => (firstErr += d));
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + EXIT_WAIT_MS;
    while (!firstErr.includes('Joined group crowd') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(firstErr, /Joined group crowd \(generation \d+\) with partitions: single-0\n/);

    // The second member joins (a rebalance for both); one of them gets the only partition.
    const second = await cli(['consume', 'single', '--group', 'crowd', '--timeout-ms', '2000']);
    assert.equal(second.code, 0, second.stderr);
    first.kill('SIGINT');
    const timer = setTimeout(() => first.kill('SIGKILL'), EXIT_WAIT_MS);
    const code = await exited.finally(() => clearTimeout(timer));
    assert.equal(code, 0, firstErr);
    // Range over member ids (random) decides who keeps single-0; the other says it has nothing, when it joins.
    assert.match(second.stderr, /Joined group crowd \(generation \d+\) with partitions: (single-0|\(none\))\n/);
    assert.match(firstErr, /Processed a total of 0 records\./);
    assert.equal((await describeGroup('crowd')).group.state, 'Empty');
  });

  test('an unknown topic fails with exit 1 before joining', async () => {
    const r = await cli(['consume', 'no-such-topic', '--group', 'g', '--max', '1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no-such-topic/);
  });

  test('a closed stdout (| head) ends the command with exit 0 after leaving the group', async () => {
    const child = spawn(process.execPath, [brokerMain, 'consume', TOPIC, '--group', 'piped', '--offset', 'earliest', ...bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // As `head -n 5`: read a few lines, then go away.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`no output; stderr: ${stderr}`)), EXIT_WAIT_MS);
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        seen += d;
        if (lines(seen).length >= 5) {
          clearTimeout(timer);
          child.stdout?.destroy();
          resolve();
        }
      });
    });
    // The next write fails with EPIPE (new records, in case everything fitted in the pipe already).
    const more = setInterval(() => void produce(['late']).catch(() => undefined), 1000);
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WAIT_MS);
    let code: number | null;
    try {
      code = await exited;
    } finally {
      clearInterval(more);
      clearTimeout(timer);
    }
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Processed a total of \d+ records\./);
    assert.doesNotMatch(stderr, /error/i);
    const d = await describeGroup('piped');
    assert.equal(d.group.state, 'Empty');
    assert.equal(d.group.members.length, 0);
    assert.ok(d.partitions.some((p) => (p.currentOffset ?? 0) > 0), 'the printed positions were committed');
  });
});
