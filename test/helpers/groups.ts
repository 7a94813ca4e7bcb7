/**
 * Helpers for the consumer-group compat tests (test/compat/groups/): a broker
 * started with fast group settings, topic creation, a kafkajs producer of
 * numbered values, long-running client processes whose JSON-lines output is
 * watched while they run (kcat -G, the Python group members, a kafkajs member
 * that a test SIGKILLs), and the bookkeeping for "every record processed,
 * which ones twice, which partitions each member owned in each generation".
 *
 * Every child is SIGKILLed when the test process exits, and `stop()`
 * escalates to SIGKILL after a bound, so no client outlives its test.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { repoRoot, startBroker, withTimeout, type BrokerOptions, type BrokerProcess } from './broker-process.js';
import { createTopicsRaw, probeApiVersions } from './raw-kafka.js';

/** Group API keys the group tests need advertised (docs/compatibility.md). */
export const GROUP_API_KEYS: Readonly<Record<number, string>> = {
  8: 'OffsetCommit',
  9: 'OffsetFetch',
  10: 'FindCoordinator',
  11: 'JoinGroup',
  12: 'Heartbeat',
  13: 'LeaveGroup',
  14: 'SyncGroup',
};

/** Broker settings that make group tests fast: no initial rebalance delay. */
export const FAST_GROUP_OVERRIDES: Readonly<Record<string, string>> = {
  'group.initial.rebalance.delay.ms': '0',
};

/** Session timeout the clients ask for: the broker's default group.min.session.timeout.ms. */
export const SESSION_TIMEOUT_MS = 6000;
export const HEARTBEAT_INTERVAL_MS = 500;
export const REBALANCE_TIMEOUT_MS = 10_000;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Throws (with the state `describe()` gives) unless `predicate` holds within `timeoutMs`. */
export async function waitUntil(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs: number, describe?: () => string, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describe ? `\n${describe()}` : ''}`);
    await sleep(intervalMs);
  }
}

/** The api keys the broker advertises, as "key:min-max" text. */
export async function advertised(port: number): Promise<Map<number, { minVersion: number; maxVersion: number }>> {
  return (await probeApiVersions(port)).apiKeys;
}

/** Fails with a clear message when the broker does not advertise the group APIs (the feature is not there yet). */
export async function assertGroupsAdvertised(broker: BrokerProcess): Promise<void> {
  const keys = await advertised(broker.port);
  const missing = Object.entries(GROUP_API_KEYS).filter(([k]) => !keys.has(Number(k)));
  if (missing.length > 0) {
    const have = [...keys].map(([k, r]) => `${k}:${r.minVersion}-${r.maxVersion}`).join(' ');
    throw new Error(`broker does not advertise the group APIs ${missing.map(([k, n]) => `${n}(${k})`).join(', ')}; ApiVersions lists ${have}`);
  }
}

/** A broker with FAST_GROUP_OVERRIDES (plus `overrides`) that advertises the group APIs. */
export async function startGroupBroker(name: string, options: BrokerOptions = {}): Promise<BrokerProcess> {
  const broker = await startBroker({ ...options, name, overrides: { ...FAST_GROUP_OVERRIDES, ...(options.overrides ?? {}) } });
  try {
    await assertGroupsAdvertised(broker);
  } catch (err) {
    await broker.cleanup();
    throw err;
  }
  return broker;
}

export async function createTopic(broker: BrokerProcess, name: string, partitions: number): Promise<void> {
  await createTopicsRaw(broker.port, [{ name, partitions }]);
}

/** `count` unique values `${tag}-${from + i}`. */
export function numberedValues(tag: string, from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${tag}-${from + i}`);
}

/** A kafkajs producer (acks -1, no auto-create) on its own client; disconnect it when done. */
export async function valueProducer(bootstrap: string, clientId = 'tributary-groups-producer'): Promise<Producer> {
  const kafka = new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 }, connectionTimeout: 5000, requestTimeout: 15_000 });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}

/**
 * Sends `values` round-robin over the partitions (value i to partition
 * (offset + i) % partitions, key = value), acks -1, in sends of up to 100.
 */
export async function produceValues(producer: Producer, topic: string, values: readonly string[], partitions: number, offset = 0): Promise<void> {
  for (let i = 0; i < values.length; i += 100) {
    const chunk = values.slice(i, i + 100);
    const result = await producer.send({
      topic,
      acks: -1,
      messages: chunk.map((value, j) => ({ key: value, value, partition: (offset + i + j) % partitions })),
    });
    for (const r of result) assert.equal(r.errorCode, 0, `produce to ${topic}: ${JSON.stringify(r)}`);
  }
}

/** Produces all of `values` to a fresh producer and disconnects it. */
export async function produceOnce(bootstrap: string, topic: string, values: readonly string[], partitions: number): Promise<void> {
  const producer = await valueProducer(bootstrap);
  try {
    await produceValues(producer, topic, values, partitions);
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- what the members processed

export interface Processed {
  member: string;
  partition: number;
  offset: number;
  value: string;
}

export interface Tally {
  /** Produced values nobody processed. */
  missing: string[];
  /** Values processed more than once, with who processed them where. */
  duplicates: { value: string; by: string[] }[];
  /** Processed values that were never produced (in this phase). */
  unexpected: string[];
  perMember: Record<string, number>;
}

export function tally(expected: readonly string[], processed: readonly Processed[]): Tally {
  const want = new Set(expected);
  const seen = new Map<string, string[]>();
  const unexpected: string[] = [];
  const perMember: Record<string, number> = {};
  for (const p of processed) {
    perMember[p.member] = (perMember[p.member] ?? 0) + 1;
    if (!want.has(p.value)) {
      unexpected.push(p.value);
      continue;
    }
    const by = seen.get(p.value) ?? [];
    by.push(`${p.member}@${p.partition}:${p.offset}`);
    seen.set(p.value, by);
  }
  return {
    missing: expected.filter((v) => !seen.has(v)),
    duplicates: [...seen].filter(([, by]) => by.length > 1).map(([value, by]) => ({ value, by })),
    unexpected,
    perMember,
  };
}

export function describeTally(t: Tally, limit = 10): string {
  return JSON.stringify({
    missing: t.missing.length,
    missingSample: t.missing.slice(0, limit),
    duplicates: t.duplicates.length,
    duplicateSample: t.duplicates.slice(0, limit),
    unexpected: t.unexpected.length,
    unexpectedSample: t.unexpected.slice(0, limit),
    perMember: t.perMember,
  });
}

/** Every produced value processed exactly once, nothing else. */
export function assertExactlyOnce(what: string, expected: readonly string[], processed: readonly Processed[]): void {
  const t = tally(expected, processed);
  assert.ok(t.missing.length === 0 && t.duplicates.length === 0 && t.unexpected.length === 0, `${what}: not exactly once: ${describeTally(t)}`);
}

/**
 * Every processed record of `values` came from where it was produced:
 * produceValues sends value i to partition i % partitions, in order, so it
 * sits at offset base[p] + floor(i / partitions) (base: the partition's log
 * end before this batch, 0 by default).
 */
export function assertWhereProduced(what: string, values: readonly string[], processed: readonly Processed[], partitions: number, bases: readonly number[] = []): void {
  const index = new Map(values.map((v, i) => [v, i]));
  for (const p of processed) {
    const i = index.get(p.value);
    if (i === undefined) continue;
    const partition = i % partitions;
    assert.equal(p.partition, partition, `${what}: ${p.value} processed by ${p.member} from partition ${p.partition}, produced to ${partition}`);
    assert.equal(p.offset, (bases[partition] ?? 0) + Math.floor(i / partitions), `${what}: ${p.value} processed by ${p.member} at offset ${p.offset}`);
  }
}

/**
 * Each member saw the offsets of each partition strictly increase, except on
 * `moved` partitions (a member that lost a partition and got it back starts
 * again from the committed offset).
 */
export function assertIncreasingOffsets(what: string, processed: readonly Processed[], moved: ReadonlySet<number> = new Set()): void {
  const last = new Map<string, number>();
  for (const p of processed) {
    if (moved.has(p.partition)) continue;
    const k = `${p.member}/${p.partition}`;
    const prev = last.get(k);
    assert.ok(prev === undefined || p.offset > prev, `${what}: ${p.member} saw offset ${p.offset} of partition ${p.partition} after ${prev}`);
    last.set(k, p.offset);
  }
}

/** Partitions that more than one member owned over the generations in `joins`. */
export function movedPartitions(joins: readonly OwnedPartitions[]): Set<number> {
  const owners = new Map<number, Set<string>>();
  for (const j of joins) {
    for (const p of j.partitions) {
      const s = owners.get(p) ?? new Set<string>();
      s.add(j.member);
      owners.set(p, s);
    }
  }
  return new Set([...owners].filter(([, s]) => s.size > 1).map(([p]) => p));
}

/** Duplicates (at-least-once) are allowed only on partitions that moved in a rebalance. */
export function assertDuplicatesOnlyOn(what: string, t: Tally, moved: ReadonlySet<number>): void {
  for (const d of t.duplicates) {
    const partitions = d.by.map((b) => Number(/@(\d+):/.exec(b)?.[1]));
    const unmoved = partitions.filter((p) => !moved.has(p));
    assert.deepEqual(unmoved, [], `${what}: ${d.value} processed ${d.by.length} times (${d.by.join(', ')}) on a partition that never moved (moved: ${[...moved].join(',')})`);
  }
}

// ---------------------------------------------------------------- assignments per generation

export interface OwnedPartitions {
  member: string;
  generationId: number;
  partitions: number[];
}

/** Pairs of members that both own a partition in one generation (should be empty). */
export function doubleOwnership(assignments: readonly OwnedPartitions[]): string[] {
  const problems: string[] = [];
  const byGeneration = new Map<number, Map<number, string>>();
  for (const a of assignments) {
    const owners = byGeneration.get(a.generationId) ?? new Map<number, string>();
    byGeneration.set(a.generationId, owners);
    for (const p of a.partitions) {
      const other = owners.get(p);
      if (other !== undefined && other !== a.member) problems.push(`generation ${a.generationId}: partition ${p} owned by ${other} and ${a.member}`);
      else owners.set(p, a.member);
    }
  }
  return problems;
}

/** The latest generation in which exactly `members` (and no one else) reported an assignment. */
export function generationWith(assignments: readonly OwnedPartitions[], members: readonly string[]): number | undefined {
  const byGeneration = new Map<number, Set<string>>();
  for (const a of assignments) {
    const s = byGeneration.get(a.generationId) ?? new Set<string>();
    s.add(a.member);
    byGeneration.set(a.generationId, s);
  }
  const want = [...members].sort().join(',');
  const hits = [...byGeneration].filter(([, s]) => [...s].sort().join(',') === want).map(([g]) => g);
  return hits.length === 0 ? undefined : Math.max(...hits);
}

// ---------------------------------------------------------------- long-running child processes

const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
});

const OUTPUT_MAX = 512 * 1024;

/**
 * A client process that runs until the test stops it. Its stdout is split into
 * lines (and lines that parse as JSON objects into `events`); stderr is kept
 * (bounded) for diagnostics. stop() sends SIGTERM and SIGKILLs after a bound.
 */
export class ClientProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly events: Record<string, unknown>[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitStatus: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private partial = '';
  private readonly listeners: ((line: string) => void)[] = [];
  private readonly stderrListeners: ((line: string) => void)[] = [];
  private stderrPartial = '';

  constructor(
    readonly name: string,
    readonly cmd: string,
    readonly args: readonly string[],
    options: { env?: Record<string, string>; cwd?: string } = {},
  ) {
    this.child = spawn(cmd, args, { cwd: options.cwd ?? repoRoot, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    liveChildren.add(this.child);
    this.child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk.toString('utf8')));
    this.child.stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk.toString('utf8')));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.stderr += `\n[spawn error] ${err.message}\n`;
      });
      this.child.once('close', (code, signal) => {
        liveChildren.delete(this.child);
        if (this.partial !== '') this.onLine(this.partial);
        this.partial = '';
        this.exitStatus = { code, signal };
        resolve({ code, signal });
      });
    });
  }

  get alive(): boolean {
    return this.exitStatus === null;
  }

  /** Called with every complete stdout line from now on. */
  onStdoutLine(listener: (line: string) => void): void {
    this.listeners.push(listener);
  }

  /** Called with every complete stderr line from now on. */
  onStderrLine(listener: (line: string) => void): void {
    this.stderrListeners.push(listener);
  }

  private onStdout(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.onLine(line);
  }

  private onLine(line: string): void {
    if (this.lines.length < 200_000) this.lines.push(line);
    if (line.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) this.events.push(parsed as Record<string, unknown>);
      } catch {
        // not JSON: kept in lines only
      }
    }
    for (const l of this.listeners) l(line);
  }

  private onStderr(text: string): void {
    this.stderr += text;
    if (this.stderr.length > OUTPUT_MAX) this.stderr = this.stderr.slice(-OUTPUT_MAX);
    const parts = (this.stderrPartial + text).split('\n');
    this.stderrPartial = parts.pop() ?? '';
    for (const line of parts) for (const l of this.stderrListeners) l(line);
  }

  eventsOf(type: string, field = 'ev'): Record<string, unknown>[] {
    return this.events.filter((e) => e[field] === type);
  }

  /** SIGTERM (or `signal`), wait up to `timeoutMs`, then SIGKILL. Resolves with how it ended. */
  async stop(timeoutMs = 15_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }> {
    if (!this.alive) return { ...(this.exitStatus ?? { code: null, signal: null }), forced: false };
    this.child.kill(signal);
    const result = await withTimeout(this.exited, timeoutMs);
    if (result !== null) return { ...result, forced: false };
    this.child.kill('SIGKILL');
    const killed = await withTimeout(this.exited, 10_000);
    return { ...(killed ?? { code: null, signal: null }), forced: true };
  }

  async kill9(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGKILL');
    await withTimeout(this.exited, 10_000);
  }

  /** The last lines of stdout and stderr, for failure messages. */
  tail(lines = 40): string {
    return `--- ${this.name} (${this.cmd} ${this.args.join(' ')}) ${this.alive ? 'running' : `exited ${JSON.stringify(this.exitStatus)}`}\n--- stdout tail:\n${this.lines.slice(-lines).join('\n')}\n--- stderr tail:\n${this.stderr.split('\n').slice(-lines).join('\n')}`;
  }
}

/** Stops every process in `procs` (SIGTERM, then SIGKILL); never throws. */
export async function stopAll(procs: Iterable<ClientProcess>, timeoutMs = 10_000): Promise<void> {
  await Promise.all([...procs].map((p) => p.stop(timeoutMs).catch(() => undefined)));
}

/** The directory of the Python group drivers. */
export const GROUPS_PY_DIR = join(repoRoot, 'test', 'compat', 'py');
