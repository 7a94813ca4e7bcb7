/**
 * `tributary group ...` and `tributary consume --group` end to end against a
 * real broker process on loopback:
 *
 * two `consume --group` processes share a 4-partition topic (every record is
 * printed by exactly one of them), `group describe` shows both members and
 * their lag, reset-offsets refuses to run on an active group, the consumers
 * stop (commit, leave), a dry run changes nothing, `--execute` does, a new
 * member re-reads from the reset offsets, then `group list` and
 * `group delete`. Plus exit codes and messages for misuse.
 *
 * Every child process is bounded (run.ts timeouts, SIGKILL on exit) and the
 * broker is removed in `after`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { brokerMain, startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { run as runTool, type RunResult } from '../../helpers/run.js';

const TOPIC = 'events';
const GROUP = 'billing';
const RECORDS = 200;
const WAIT_MS = 60_000;

interface DescribeJson {
  group: { groupId: string; state: string; protocol: string; members: { memberId: string; clientId: string; clientHost: string; assignment: { topic: string; partitions: number[] }[] | null }[] };
  partitions: { topic: string; partition: number; currentOffset: number | null; logEndOffset: number | null; lag: number | null; memberId: string | null }[];
}

/** A long-running `tributary consume --group` child. */
class GroupConsumer {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [brokerMain, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr?.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  lines(): string[] {
    return this.stdout.split('\n').filter((l) => l.length > 0);
  }

  /** SIGINT (Ctrl-C), then SIGKILL if it does not exit within 20 s. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last === null ? '' : `: ${String(last)}`}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('tributary group and consume --group against a real broker', () => {
  let broker: BrokerProcess | null = null;
  let bootstrap: string[] = [];
  const consumers: GroupConsumer[] = [];

  const cli = (args: readonly string[], input?: string): Promise<RunResult> =>
    runTool(process.execPath, [brokerMain, ...args, ...bootstrap], { allowFailure: true, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });

  const describeGroup = async (): Promise<DescribeJson> => {
    const r = await cli(['group', 'describe', GROUP, '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as DescribeJson;
  };

  before(async () => {
    broker = await startBroker({ name: 'cli-group' });
    bootstrap = ['--bootstrap', broker.bootstrap];
    const created = await cli(['topic', 'create', TOPIC, '--partitions', '4']);
    assert.equal(created.code, 0, created.stderr);
  });

  after(async () => {
    for (const c of consumers) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await broker?.cleanup();
  });

  test('two consume --group processes split the partitions; each record is printed exactly once', async () => {
    for (let i = 0; i < 2; i++) {
      consumers.push(new GroupConsumer(['consume', TOPIC, '--group', GROUP, '--offset', 'earliest', ...bootstrap]));
    }
    // Both members in one Stable generation, two partitions each (range over 4 partitions).
    const stable = await until('a stable two-member group', async () => {
      const d = await describeGroup();
      const sizes = d.group.members.map((m) => (m.assignment ?? []).flatMap((a) => a.partitions).length);
      return d.group.state === 'Stable' && sizes.length === 2 && sizes.every((n) => n === 2) ? d : null;
    });
    assert.equal(stable.group.protocol, 'range');

    const values = Array.from({ length: RECORDS }, (_, i) => `value-${i}`);
    const produced = await cli(['produce', TOPIC], `${values.join('\n')}\n`);
    assert.equal(produced.code, 0, produced.stderr);

    await until('every record printed', async () => (consumers.reduce((n, c) => n + c.lines().length, 0) >= RECORDS ? true : null));
    await new Promise((r) => setTimeout(r, 1000)); // any duplicate would show up now
    const printed = consumers.flatMap((c) => c.lines());
    assert.equal(printed.length, RECORDS, 'no record printed twice');
    assert.deepEqual([...printed].sort(), [...values].sort());
    for (const c of consumers) assert.ok(c.lines().length > 0, `each member printed some records; stderr: ${c.stderr}`);
    for (const c of consumers) assert.match(c.stderr, /Joined group billing \(generation \d+\) with partitions: /);
  });

  test('group describe shows both members, their partitions, committed offsets and lag', async () => {
    // Auto commit runs every 5 s.
    const d = await until('committed offsets at the log end', async () => {
      const x = await describeGroup();
      return x.partitions.length === 4 && x.partitions.every((p) => p.lag === 0 && p.currentOffset !== null) ? x : null;
    });
    assert.equal(d.group.members.length, 2);
    assert.equal(d.partitions.reduce((n, p) => n + (p.logEndOffset ?? 0), 0), RECORDS);
    const owners = new Set(d.partitions.map((p) => p.memberId));
    assert.equal(owners.size, 2);
    for (const m of d.group.members) assert.ok(owners.has(m.memberId));

    const text = await cli(['group', 'describe', GROUP]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Group: billing\tState: Stable\tProtocol: range\tProtocolType: consumer\tMembers: 2$/m);
    assert.match(text.stdout, /MEMBER-ID\s+CLIENT-ID\s+HOST\s+ASSIGNMENT/);
    assert.match(text.stdout, /TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+MEMBER-ID/);
    for (const m of d.group.members) assert.ok(text.stdout.includes(m.memberId));
    assert.match(text.stdout, /^events\s+0\s+\d+\s+\d+\s+0\s+tributary-cli-/m);
  });

  test('reset-offsets --execute refuses while the group has members', async () => {
    const r = await cli(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest', '--execute']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /stop the consumers first/);
  });

  test('stopping the consumers commits and leaves: the group becomes Empty', async () => {
    const codes = await Promise.all(consumers.map((c) => c.stop()));
    assert.deepEqual(codes, [0, 0], consumers.map((c) => c.stderr).join('\n---\n'));
    const total = consumers.reduce((n, c) => n + Number(/Processed a total of (\d+) records\./.exec(c.stderr)?.[1] ?? NaN), 0);
    assert.equal(total, RECORDS);
    const d = await describeGroup();
    assert.equal(d.group.state, 'Empty');
    assert.equal(d.group.members.length, 0);
    assert.ok(d.partitions.every((p) => p.lag === 0));
  });

  test('reset-offsets --to-earliest: the dry run prints the plan and changes nothing', async () => {
    const before = await describeGroup();
    const r = await cli(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+NEW-OFFSET$/m);
    for (const p of before.partitions) assert.match(r.stdout, new RegExp(`^events\\s+${p.partition}\\s+${p.currentOffset}\\s+0$`, 'm'));
    assert.match(r.stderr, /Dry run: nothing was changed/);
    const after = await describeGroup();
    assert.deepEqual(after.partitions, before.partitions);
  });

  test('reset-offsets --execute commits the plan; a new member reads everything again', async () => {
    const r = await cli(['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:0,1,2,3`, '--to-earliest', '--execute']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Committed new offsets for 4 partitions of group billing\./);
    const d = await describeGroup();
    assert.ok(d.partitions.every((p) => p.currentOffset === 0 && p.lag === p.logEndOffset));

    const shifted = await cli(['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:1`, '--shift-by', '3', '--execute']);
    assert.equal(shifted.code, 0, shifted.stderr);
    assert.match(shifted.stdout, /^events\s+1\s+0\s+3$/m);
    await cli(['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:1`, '--to-offset', '0', '--execute']);

    const again = await cli(['consume', TOPIC, '--group', GROUP, '--timeout-ms', '5000']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.split('\n').filter((l) => l.length > 0).length, RECORDS);
  });

  test('group list shows the group with its state, and filters by state', async () => {
    const r = await cli(['group', 'list']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^GROUP\s+PROTOCOL-TYPE\s+STATE$/m);
    assert.match(r.stdout, /^billing\s+consumer\s+Empty$/m);
    const json = await cli(['group', 'list', '--json']);
    assert.ok((JSON.parse(json.stdout) as { groupId: string }[]).some((g) => g.groupId === GROUP));
    const stable = await cli(['group', 'list', '--state', 'Stable', '--json']);
    assert.equal(stable.code, 0, stable.stderr);
    assert.ok(!(JSON.parse(stable.stdout) as { groupId: string }[]).some((g) => g.groupId === GROUP));
  });

  test('group delete removes the group; describing it then fails', async () => {
    const r = await cli(['group', 'delete', GROUP]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Deleted group billing\./);
    const list = await cli(['group', 'list']);
    assert.doesNotMatch(list.stdout, /^billing\s/m);
    const d = await cli(['group', 'describe', GROUP]);
    assert.equal(d.code, 1);
    assert.match(d.stderr, /group 'billing' does not exist/);
    const again = await cli(['group', 'delete', GROUP]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: .*DeleteGroups/m);
  });

  test('misuse: usage errors exit 2, runtime errors exit 1, with a message', async () => {
    const usage: [string[], RegExp][] = [
      [['group', 'reset-offsets', 'g', '--topic', TOPIC], /exactly one of --to-earliest/],
      [['group', 'reset-offsets', 'g', '--topic', TOPIC, '--to-earliest', '--to-latest'], /exactly one of/],
      [['group', 'reset-offsets', 'g', '--to-earliest'], /--topic/],
      [['group', 'reset-offsets', 'g', '--topic', `${TOPIC}:x`, '--to-earliest'], /partitions must be integers/],
      [['group', 'reset-offsets', 'g', '--topic', TOPIC, '--to-offset', '-1'], /--to-offset must be an integer >= 0/],
      [['group', 'reset-offsets', 'g', '--topic', TOPIC, '--to-datetime', 'yesterday'], /ISO 8601/],
      [['group', 'describe'], /missing required argument/],
      [['group', 'frobnicate'], /unknown command/],
      [['consume', TOPIC, '--group', 'g', '--partition', '0'], /--partition cannot be used with --group/],
      [['consume', TOPIC, '--group', 'g', '--offset', '5'], /earliest or latest/],
    ];
    for (const [args, message] of usage) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
    const missingTopic = await cli(['group', 'reset-offsets', 'g', '--topic', 'nope', '--to-earliest']);
    assert.equal(missingTopic.code, 1);
    assert.match(missingTopic.stderr, /topic 'nope' does not exist/);
    const noShift = await cli(['group', 'reset-offsets', 'fresh', '--topic', TOPIC, '--shift-by', '-1']);
    assert.equal(noShift.code, 1);
    assert.match(noShift.stderr, /no committed offset/);
    const unreachable = await runTool(process.execPath, [brokerMain, 'group', 'list', '--bootstrap', '127.0.0.1:1'], { allowFailure: true, timeoutMs: 30_000 });
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /hint: is a broker running/);
  });
});
