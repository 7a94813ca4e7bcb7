/**
 * `tributary group list|describe|delete|reset-offsets`: consumer group
 * administration over the Kafka protocol (ListGroups, DescribeGroups,
 * OffsetFetch, ListOffsets, DeleteGroups, OffsetCommit), as
 * kafka-consumer-groups.sh does, so it works against any Kafka-compatible
 * broker.
 *
 * reset-offsets is a dry run unless --execute is given; it commits with a
 * standalone commit (generation -1, no member id), which the broker accepts
 * only while the group has no members, so it checks the group is empty first.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { Admin, GroupDescription } from '../../client/admin.js';
import type { Cluster } from '../../client/cluster.js';
import { compareStrings, flatten } from '../../client/consumer-protocol.js';
import { KafkaProtocolError, invalidArgument } from '../../net/errors.js';
import type { CommittedOffset } from '../../client/group-offsets.js';
import { listOffsetsMany, type OffsetSpec } from '../../client/records.js';
import {
  EXIT_RUNTIME,
  Progress,
  checkBootstrap,
  collect,
  formatTable,
  reportError,
  toJson,
  usageError,
  withAdmin,
  withClientOptions,
  withExamples,
  writeOut,
  type CommonOptions,
} from './common.js';

/** Above this many partitions, reset-offsets works in chunks and shows progress on stderr. */
export const RESET_PROGRESS_PARTITIONS_MIN = 100;
const RESET_CHUNK_PARTITIONS = 100;
/** States in which a group has no members (offsets may be reset). */
const INACTIVE_STATES: ReadonlySet<string> = new Set(['Empty', 'Dead']);

interface ListOptions extends CommonOptions {
  state?: string[];
  json?: boolean;
}

interface DescribeOptions extends CommonOptions {
  json?: boolean;
}

interface ResetOptions extends CommonOptions {
  topic: string[];
  toEarliest?: boolean;
  toLatest?: boolean;
  toDatetime?: number;
  shiftBy?: bigint;
  toOffset?: bigint;
  execute?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** One `--topic T[:P,...]`. */
export interface TopicSelection {
  topic: string;
  /** null: every partition. */
  partitions: number[] | null;
}

export type ResetScenario =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'datetime'; timestampMs: number }
  | { kind: 'shift'; by: bigint }
  | { kind: 'offset'; offset: bigint };

export interface PlannedOffset {
  topic: string;
  partition: number;
  /** The committed offset, or null when there is none. */
  current: bigint | null;
  next: bigint;
}

export function registerGroupCommands(program: Command): void {
  const group = program.command('group').description('list, describe, delete consumer groups and reset their offsets');
  withExamples(group, ['tributary group list', 'tributary group describe audit', 'tributary group reset-offsets audit --topic orders --to-earliest --execute']);
  registerListCommand(group);
  registerDescribeCommand(group);
  registerDeleteCommand(group);
  registerResetOffsetsCommand(group);
}

/** `group list`: every group of every broker (ListGroups), optionally filtered by state. */
function registerListCommand(group: Command): void {
  withExamples(withClientOptions(group.command('list').description('list consumer groups')), [
    'tributary group list',
    'tributary group list --state Stable --json',
  ])
    .option('--state <state>', 'only groups in this state (Empty, Stable, PreparingRebalance, CompletingRebalance, Dead); repeatable', collect)
    .option('--json', 'print JSON')
    .action(async (options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const groups = await admin.listGroups(options.state ?? []);
        if (options.json === true) {
          await writeOut(`${toJson(groups, 2)}\n`);
          return;
        }
        const rows = groups.map((g) => [g.groupId, g.protocolType === '' ? '-' : g.protocolType, g.state ?? '-']);
        await writeOut(`${formatTable(['GROUP', 'PROTOCOL-TYPE', 'STATE'], rows)}\n`);
      });
    });
}

/** `group describe GROUP`: state, members, committed offsets and lag (describeWithLag). */
function registerDescribeCommand(group: Command): void {
  withExamples(withClientOptions(group.command('describe').description('describe a group: state, members, committed offsets and lag')), [
    'tributary group describe audit',
    'tributary group describe audit --json',
  ])
    .argument('<group>', 'group id')
    .option('--json', 'print JSON')
    .action(async (groupId: string, options: DescribeOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const report = await describeWithLag(admin, groupId);
        if (options.json === true) await writeOut(`${toJson(report, 2)}\n`);
        else await writeOut(formatGroupReport(report));
      });
    });
}

/** `group delete GROUP...`: DeleteGroups; every named group is handled, exit 1 if any failed. */
function registerDeleteCommand(group: Command): void {
  withExamples(withClientOptions(group.command('delete').description('delete groups (they must have no active members)')), [
    'tributary group delete audit',
    'tributary group delete audit billing',
  ])
    .argument('<groups...>', 'group ids')
    .action(async (groupIds: string[], options: CommonOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        for (const r of await admin.deleteGroups(groupIds)) {
          if (r.error === null) {
            await writeOut(`Deleted group ${r.groupId}.\n`);
          } else {
            reportError(r.error);
            process.exitCode = EXIT_RUNTIME;
          }
        }
      });
    });
}

/** `group reset-offsets GROUP`: options are checked here (usage errors); the work is resetOffsets. */
function registerResetOffsetsCommand(group: Command): void {
  withExamples(withClientOptions(group.command('reset-offsets').description("reset a group's committed offsets (a dry run unless --execute)")), [
    'tributary group reset-offsets audit --topic orders --to-earliest            print the plan only',
    'tributary group reset-offsets audit --topic orders --to-earliest --execute',
    'tributary group reset-offsets audit --topic orders:0,1 --shift-by -100 --execute',
    'tributary group reset-offsets audit --topic orders --to-datetime 2024-05-01T12:00:00Z --json',
  ])
    .argument('<group>', 'group id')
    .requiredOption('-t, --topic <topic[:p,p...]>', 'topic, optionally with partitions (orders or orders:0,2); repeatable', collect)
    .option('--to-earliest', 'reset to the earliest offset of each partition')
    .option('--to-latest', 'reset to the log end offset of each partition')
    .option('--to-datetime <iso>', 'reset to the first offset at or after this time (ISO 8601, e.g. 2024-05-01T12:00:00Z)', parseDatetime)
    .option('--shift-by <n>', 'move the committed offset by n (negative: back), within the log', parseBigInt('--shift-by', true))
    .option('--to-offset <n>', 'reset to this offset, within the log', parseBigInt('--to-offset', false))
    .option('--dry-run', 'only print the plan (the default)')
    .option('--execute', 'commit the new offsets (the group must have no active members)')
    .option('--json', 'print the plan as JSON')
    .action(async (groupId: string, options: ResetOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      let scenario: ResetScenario;
      let selections: TopicSelection[];
      try {
        scenario = resetScenario(options);
        selections = options.topic.map(parseTopicSelection);
        if (options.execute === true && options.dryRun === true) throw new Error('--dry-run and --execute exclude each other');
      } catch (err) {
        usageError(cmd, (err as Error).message);
      }
      await withAdmin(options, (admin) => resetOffsets(admin, groupId, selections, scenario, options));
    });
}

function parseDatetime(value: string): number {
  // Date.parse accepts many forms; insist on an ISO 8601 date, optionally with a time.
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim()) ? Date.parse(value.trim()) : NaN;
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError(`--to-datetime must be an ISO 8601 time such as 2024-05-01T12:00:00Z, got '${value}'.`);
  return ms;
}

function parseBigInt(flag: string, signed: boolean): (value: string) => bigint {
  return (value) => {
    if (!(signed ? /^[+-]?\d+$/ : /^\d+$/).test(value.trim())) {
      throw new InvalidArgumentError(`${flag} must be ${signed ? 'an integer' : 'an integer >= 0'}, got '${value}'.`);
    }
    return BigInt(value.trim());
  };
}

export function resetScenario(options: Pick<ResetOptions, 'toEarliest' | 'toLatest' | 'toDatetime' | 'shiftBy' | 'toOffset'>): ResetScenario {
  const chosen: ResetScenario[] = [];
  if (options.toEarliest === true) chosen.push({ kind: 'earliest' });
  if (options.toLatest === true) chosen.push({ kind: 'latest' });
  if (options.toDatetime !== undefined) chosen.push({ kind: 'datetime', timestampMs: options.toDatetime });
  if (options.shiftBy !== undefined) chosen.push({ kind: 'shift', by: options.shiftBy });
  if (options.toOffset !== undefined) chosen.push({ kind: 'offset', offset: options.toOffset });
  const [first] = chosen;
  if (first === undefined || chosen.length > 1) {
    throw new Error('give exactly one of --to-earliest, --to-latest, --to-datetime, --shift-by, --to-offset');
  }
  return first;
}

/** Parses `orders` or `orders:0,2,5`. */
export function parseTopicSelection(text: string): TopicSelection {
  const colon = text.lastIndexOf(':');
  const topic = colon < 0 ? text : text.slice(0, colon);
  if (topic.length === 0) throw new Error(`--topic needs a topic name, got '${text}'`);
  if (colon < 0) return { topic, partitions: null };
  const parts = text.slice(colon + 1).split(',');
  if (parts.some((p) => !/^\d+$/.test(p.trim()))) throw new Error(`--topic ${text}: partitions must be integers >= 0 separated by commas (e.g. ${topic}:0,1)`);
  return { topic, partitions: [...new Set(parts.map((p) => Number(p.trim())))].sort((a, b) => a - b) };
}

// ---------------------------------------------------------------- describe

export interface PartitionLag {
  topic: string;
  partition: number;
  /** null when the group has no committed offset. */
  currentOffset: bigint | null;
  /** null when the partition's log end offset could not be read (e.g. the topic is gone). */
  logEndOffset: bigint | null;
  /** logEndOffset - currentOffset, or null when either is unknown. */
  lag: bigint | null;
  memberId: string | null;
  clientId: string | null;
  host: string | null;
}

export interface GroupReport {
  group: GroupDescription;
  partitions: PartitionLag[];
}

async function describeWithLag(admin: Admin, groupId: string): Promise<GroupReport> {
  const [group] = await admin.describeGroups([groupId]);
  if (group === undefined) throw invalidArgument(`no answer for group ${groupId}`);
  if (group.error !== null && group.error.errorName !== 'GROUP_ID_NOT_FOUND') throw group.error;
  const offsets = await admin.fetchGroupOffsets(groupId);
  if ((group.error !== null || group.state === 'Dead') && group.members.length === 0 && offsets.length === 0) {
    throw invalidArgument(`group '${groupId}' does not exist (see \`tributary group list\`)`);
  }
  const owners = new Map<string, (typeof group.members)[number]>();
  for (const m of group.members) for (const p of flatten(m.assignment ?? [])) owners.set(key(p.topic, p.partition), m);
  const committed = new Map(offsets.map((o) => [key(o.topic, o.partition), o]));
  const all = new Map<string, { topic: string; partition: number }>();
  for (const o of offsets) all.set(key(o.topic, o.partition), { topic: o.topic, partition: o.partition });
  for (const m of group.members) for (const p of flatten(m.assignment ?? [])) all.set(key(p.topic, p.partition), p);
  const sorted = [...all.values()].sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
  const ends = await logEndOffsets(admin.cluster, sorted);
  const partitions = sorted.map((p): PartitionLag => {
    const c = committed.get(key(p.topic, p.partition));
    const current = c !== undefined && c.offset >= 0n ? c.offset : null;
    const end = ends.get(key(p.topic, p.partition)) ?? null;
    const owner = owners.get(key(p.topic, p.partition));
    return {
      topic: p.topic,
      partition: p.partition,
      currentOffset: current,
      logEndOffset: end,
      lag: current !== null && end !== null ? (end > current ? end - current : 0n) : null,
      memberId: owner?.memberId ?? null,
      clientId: owner?.clientId ?? null,
      host: owner?.clientHost ?? null,
    };
  });
  return { group, partitions };
}

/** Log end offsets of the partitions that exist; the others are missing from the map. */
async function logEndOffsets(cluster: Cluster, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (partitions.length === 0) return out;
  const metadata = await cluster.refreshMetadata([...new Set(partitions.map((p) => p.topic))]);
  const existing = partitions.filter((p) => {
    const t = metadata.topics.get(p.topic);
    return t !== undefined && t.errorCode === 0 && t.partitions.some((x) => x.partition === p.partition);
  });
  if (existing.length === 0) return out;
  const listed = await listOffsetsMany(cluster, existing.map((p) => ({ ...p, spec: 'latest' as const })));
  for (const l of listed) out.set(key(l.topic, l.partition), l.offset);
  return out;
}

export function formatGroupReport(report: GroupReport): string {
  const g = report.group;
  const summary = [
    `Group: ${g.groupId}`,
    `State: ${g.state}`,
    `Protocol: ${g.protocol === '' ? '-' : g.protocol}`,
    `ProtocolType: ${g.protocolType === '' ? '-' : g.protocolType}`,
    `Members: ${g.members.length}`,
  ].join('\t');
  const members = g.members.map((m) => [
    m.memberId,
    m.clientId,
    m.clientHost,
    m.assignment === null ? '?' : flatten(m.assignment).map((p) => `${p.topic}-${p.partition}`).join(',') || '-',
  ]);
  const text = (v: bigint | string | null): string => (v === null ? '-' : String(v));
  const partitions = report.partitions.map((p) => [
    p.topic,
    String(p.partition),
    text(p.currentOffset),
    text(p.logEndOffset),
    text(p.lag),
    text(p.memberId),
  ]);
  const parts = [summary];
  if (members.length > 0) parts.push(formatTable(['MEMBER-ID', 'CLIENT-ID', 'HOST', 'ASSIGNMENT'], members));
  parts.push(
    partitions.length > 0
      ? formatTable(['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'MEMBER-ID'], partitions)
      : '(no committed offsets and no assigned partitions)',
  );
  return `${parts.join('\n\n')}\n`;
}

// ------------------------------------------------------------------- reset

async function resetOffsets(admin: Admin, groupId: string, selections: readonly TopicSelection[], scenario: ResetScenario, options: ResetOptions): Promise<void> {
  const partitions = await resolvePartitions(admin.cluster, selections);
  if (options.execute === true) await assertInactive(admin, groupId);
  const current = new Map<string, CommittedOffset>();
  for (const o of await admin.fetchGroupOffsets(groupId, [...new Set(partitions.map((p) => p.topic))])) current.set(key(o.topic, o.partition), o);
  const progress = new Progress(partitions.length >= RESET_PROGRESS_PARTITIONS_MIN);
  const plan: PlannedOffset[] = [];
  for (let i = 0; i < partitions.length; i += RESET_CHUNK_PARTITIONS) {
    const chunk = partitions.slice(i, i + RESET_CHUNK_PARTITIONS);
    plan.push(...(await planChunk(admin.cluster, chunk, current, scenario)));
    progress.show(`Resolving offsets: ${plan.length}/${partitions.length} partitions`);
  }
  progress.done();
  if (options.json === true) await writeOut(`${toJson(plan, 2)}\n`);
  else await writeOut(`${formatPlan(plan)}\n`);
  if (options.execute !== true) {
    process.stderr.write('Dry run: nothing was changed. Run again with --execute to commit these offsets.\n');
    return;
  }
  const commitProgress = new Progress(plan.length >= RESET_PROGRESS_PARTITIONS_MIN);
  let committed = 0;
  let failed = 0;
  for (let i = 0; i < plan.length; i += RESET_CHUNK_PARTITIONS) {
    const chunk = plan.slice(i, i + RESET_CHUNK_PARTITIONS);
    const results = await admin.commitGroupOffsets(groupId, chunk.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.next })));
    for (const r of results) {
      if (r.error === null) committed++;
      else if (failed++ === 0) reportError(r.error);
    }
    commitProgress.show(`Committing offsets: ${committed + failed}/${plan.length} partitions`);
  }
  commitProgress.done();
  if (failed > 0) {
    process.stderr.write(`error: ${failed} of ${plan.length} partitions were not committed; if consumers joined the group meanwhile, stop the consumers first.\n`);
    process.exitCode = EXIT_RUNTIME;
    return;
  }
  process.stderr.write(`Committed new offsets for ${committed} partitions of group ${groupId}.\n`);
}

/** The partitions named by the selections, checked against the metadata, in order. */
async function resolvePartitions(cluster: Cluster, selections: readonly TopicSelection[]): Promise<{ topic: string; partition: number }[]> {
  const out = new Map<string, { topic: string; partition: number }>();
  for (const s of selections) {
    const t = await cluster.topic(s.topic, true).catch((err: unknown) => {
      if (err instanceof KafkaProtocolError && err.errorName === 'UNKNOWN_TOPIC_OR_PARTITION') throw invalidArgument(`topic '${s.topic}' does not exist`);
      throw err;
    });
    const existing = t.partitions.map((p) => p.partition);
    for (const partition of s.partitions ?? existing) {
      if (!existing.includes(partition)) throw invalidArgument(`partition ${partition} does not exist: ${s.topic} has partitions 0-${existing.length - 1}`);
      out.set(key(s.topic, partition), { topic: s.topic, partition });
    }
  }
  return [...out.values()].sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
}

async function assertInactive(admin: Admin, groupId: string): Promise<void> {
  const [g] = await admin.describeGroups([groupId]);
  if (g === undefined || g.error !== null) return; // Unknown group: the standalone commit creates it.
  if (!INACTIVE_STATES.has(g.state) || g.members.length > 0) {
    throw invalidArgument(
      `group ${groupId} is ${g.state} with ${g.members.length} active member(s): stop the consumers first (offsets can only be reset while the group is empty)`,
    );
  }
}

/** New offsets for one chunk of partitions: within [earliest, latest], as Kafka's tool clamps. */
export async function planChunk(
  cluster: Cluster,
  partitions: readonly { topic: string; partition: number }[],
  current: ReadonlyMap<string, CommittedOffset>,
  scenario: ResetScenario,
): Promise<PlannedOffset[]> {
  const list = (spec: OffsetSpec): Promise<bigint[]> => listOffsetsMany(cluster, partitions.map((p) => ({ ...p, spec }))).then((r) => r.map((x) => x.offset));
  const [earliest, latest] = await Promise.all([list('earliest'), list('latest')]);
  const byTime = scenario.kind === 'datetime' ? await list(scenario.timestampMs) : null;
  return partitions.map((p, i) => {
    const lo = earliest[i] as bigint;
    const hi = latest[i] as bigint;
    const c = current.get(key(p.topic, p.partition));
    const committed = c !== undefined && c.offset >= 0n ? c.offset : null;
    let next: bigint;
    switch (scenario.kind) {
      case 'earliest':
        next = lo;
        break;
      case 'latest':
        next = hi;
        break;
      case 'datetime': {
        // -1: no record at or after the time; Kafka's tool then uses the log end.
        const at = (byTime as bigint[])[i] as bigint;
        next = at < 0n ? hi : at;
        break;
      }
      case 'shift':
        if (committed === null) throw invalidArgument(`cannot shift ${p.topic}-${p.partition}: the group has no committed offset for it`);
        next = clamp(committed + scenario.by, lo, hi);
        break;
      case 'offset':
        next = clamp(scenario.offset, lo, hi);
        break;
    }
    return { topic: p.topic, partition: p.partition, current: committed, next };
  });
}

function clamp(v: bigint, lo: bigint, hi: bigint): bigint {
  return v < lo ? lo : v > hi ? hi : v;
}

export function formatPlan(plan: readonly PlannedOffset[]): string {
  const rows = plan.map((p) => [p.topic, String(p.partition), p.current === null ? '-' : String(p.current), String(p.next)]);
  return formatTable(['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'], rows);
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
