/**
 * `tributary consume TOPIC --group G`: consume as a member of a consumer
 * group (classic protocol, range assignor), as kafka-console-consumer.sh
 * --group does.
 *
 * - Each assigned partition starts at the group's committed offset, else at
 *   --offset earliest|latest (Kafka's auto.offset.reset; default latest).
 * - Positions advance only past records that were printed. They are
 *   committed every AUTO_COMMIT_INTERVAL_MS, when partitions are revoked
 *   (before a rebalance, so the next owner continues where this member
 *   stopped) and on exit. A commit refused because the group is rebalancing
 *   is not an error: the records are committed by whoever owns them next or
 *   read again (at least once).
 * - Ctrl-C or SIGTERM ends the loop; the member then commits and leaves the
 *   group, so the others take over its partitions at once.
 */
import type { Cluster } from '../../client/cluster.js';
import { RangeAssignor } from '../../client/assignors.js';
import { flatten } from '../../client/consumer-protocol.js';
import { ConnectionClosedError, KafkaProtocolError, isKafkaError } from '../../net/errors.js';
import { GroupMember, describePartitions } from '../../client/group.js';
import { fetchMany, listOffsetsMany, type FetchPosition, type FetchResult } from '../../client/records.js';
import { formatError, writeOut } from './common.js';
import { formatRecord } from './record-format.js';
import { sleep } from '../../util/sleep.js';
import { watchStdoutReader } from './stdout-reader.js';

export const AUTO_COMMIT_INTERVAL_MS = 5_000;
/** Longest single fetch wait, so --timeout-ms, rebalances and Ctrl-C are noticed promptly. */
const FETCH_WAIT_MS_MAX = 500;
/** Sleep while the member has no partitions (bounded; the loop re-checks the group each time). */
const IDLE_SLEEP_MS = 200;

export interface GroupConsumeOptions {
  requestTimeoutMs: number;
  max?: number;
  timeoutMs?: number;
  printKey?: boolean;
  printOffset?: boolean;
  json?: boolean;
  isolationLevel: string;
}

/** Shared by the member's callbacks and the fetch loop: where each assigned partition is read from, and what was last committed. */
interface GroupPositions {
  positions: Map<string, FetchPosition>;
  committed: Map<string, bigint>;
}

/** Set by Ctrl-C/SIGTERM and by a closed stdout (EPIPE); the loop checks it on each round. */
interface StopState {
  stopped: boolean;
  pipeClosed: boolean;
  /** A write to stdout is under way (the reader watch waits for it). */
  writing: boolean;
}

export async function consumeGroup(cluster: Cluster, topic: string, groupId: string, reset: 'earliest' | 'latest', options: GroupConsumeOptions): Promise<void> {
  await cluster.topic(topic); // UNKNOWN_TOPIC_OR_PARTITION before joining, not an empty assignment.
  const state: GroupPositions = { positions: new Map<string, FetchPosition>(), committed: new Map<string, bigint>() };
  const member = newGroupMember(cluster, topic, groupId, reset, options, state);

  const stop: StopState = { stopped: false, pipeClosed: false, writing: false };
  const onSignal = (): void => {
    stop.stopped = true;
    // A JoinGroup may be parked for the whole rebalance: closing ends it.
    if (member.isJoining) void member.close().catch(warn);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') stop.pipeClosed = stop.stopped = true;
  };
  process.stdout.on('error', onStdoutError);
  // With nothing new to print there is no write to fail: notice the reader leaving (stdout-reader.ts).
  const stopWatch = watchStdoutReader(() => {
    stop.pipeClosed = true;
    onSignal();
  }, () => !stop.writing);

  let count: number;
  try {
    count = await consumeUntilStopped(cluster, member, state, stop, reset, options);
  } finally {
    stopWatch();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Revoking commits the positions; then the member leaves the group.
    await member.close().catch(warn);
  }
  process.stderr.write(`Processed a total of ${count} records.\n`);
}

/** The group member: commits on revocation, and starts each assigned partition at its committed offset (else at `reset`). */
function newGroupMember(cluster: Cluster, topic: string, groupId: string, reset: 'earliest' | 'latest', options: GroupConsumeOptions, state: GroupPositions): GroupMember {
  const { positions, committed } = state;
  const member: GroupMember = new GroupMember(cluster, {
    groupId,
    topics: [topic],
    assignors: [RangeAssignor],
    connection: { clientId: 'tributary-cli', requestTimeoutMs: options.requestTimeoutMs },
    onRevoked: async () => {
      await commitPositionsQuietly(member, state);
      positions.clear();
      committed.clear();
    },
    onAssigned: async (assigned, generation) => {
      const pairs = flatten(assigned);
      const offsets = await member.fetchCommitted(assigned);
      const found = new Map(offsets.filter((o) => o.offset >= 0n).map((o) => [key(o), o.offset]));
      const missing = pairs.filter((p) => !found.has(key(p)));
      const resolved = missing.length === 0 ? [] : await listOffsetsMany(cluster, missing.map((p) => ({ ...p, spec: reset })));
      for (const r of resolved) found.set(key(r), r.offset);
      for (const p of pairs) {
        const offset = found.get(key(p)) ?? 0n;
        positions.set(key(p), { topic: p.topic, partition: p.partition, offset });
        const c = offsets.find((o) => o.topic === p.topic && o.partition === p.partition);
        if (c !== undefined && c.offset >= 0n) committed.set(key(p), c.offset);
      }
      process.stderr.write(`Joined group ${groupId} (generation ${generation.generationId}) with partitions: ${describePartitions(assigned)}\n`);
    },
    onError: warn,
  });
  return member;
}

/**
 * Fetches and prints until --max records, --timeout-ms without a record, a
 * signal or a closed stdout; commits every AUTO_COMMIT_INTERVAL_MS. Returns
 * the number of records printed.
 */
async function consumeUntilStopped(
  cluster: Cluster,
  member: GroupMember,
  state: GroupPositions,
  stop: StopState,
  reset: 'earliest' | 'latest',
  options: GroupConsumeOptions,
): Promise<number> {
  const max = options.max ?? Infinity;
  let count = 0;
  let lastRecordMs = performance.now();
  let lastCommitMs = performance.now();
  while (!stop.stopped && count < max) {
    try {
      if (await member.ensureActive()) lastRecordMs = performance.now();
    } catch (err) {
      if (stop.stopped && err instanceof ConnectionClosedError) break;
      throw err;
    }
    const idleMs = performance.now() - lastRecordMs;
    if (options.timeoutMs !== undefined && idleMs >= options.timeoutMs) break;
    const waitMs = Math.max(1, Math.min(FETCH_WAIT_MS_MAX, options.timeoutMs === undefined ? FETCH_WAIT_MS_MAX : options.timeoutMs - idleMs));
    const list = [...state.positions.values()];
    if (list.length === 0) {
      await sleep(Math.min(IDLE_SLEEP_MS, waitMs));
      continue;
    }
    const results = await fetchOrReset(cluster, list, state.positions, waitMs, reset, options);
    if (results === null) continue;
    const taken = takeRecords(results, state.positions, options, count, max);
    count = taken.count;
    if (taken.lines.length > 0) {
      lastRecordMs = performance.now();
      stop.writing = true;
      try {
        await writeOut(`${taken.lines.join('\n')}\n`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
        stop.pipeClosed = true;
      } finally {
        stop.writing = false;
      }
      if (stop.pipeClosed) break;
    }
    if (performance.now() - lastCommitMs >= AUTO_COMMIT_INTERVAL_MS) {
      lastCommitMs = performance.now();
      await commitPositionsQuietly(member, state);
    }
  }
  return count;
}

/** One Fetch of every position; null when OFFSET_OUT_OF_RANGE reset a position instead (the caller fetches again). */
async function fetchOrReset(
  cluster: Cluster,
  list: readonly FetchPosition[],
  positions: Map<string, FetchPosition>,
  waitMs: number,
  reset: 'earliest' | 'latest',
  options: GroupConsumeOptions,
): Promise<FetchResult[] | null> {
  try {
    return await fetchMany(cluster, list, { maxWaitMs: Math.round(waitMs), isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0 });
  } catch (err) {
    if (isKafkaError(err, 'OFFSET_OUT_OF_RANGE') && err.topic !== undefined && err.partition !== undefined) {
      await resetPosition(cluster, positions, err, reset);
      return null;
    }
    throw err;
  }
}

/** Formats the fetched records (up to `max` in all) and advances the positions past them. */
function takeRecords(
  results: readonly FetchResult[],
  positions: Map<string, FetchPosition>,
  options: GroupConsumeOptions,
  countBefore: number,
  max: number,
): { lines: string[]; count: number } {
  let count = countBefore;
  const out: string[] = [];
  for (const r of results) {
    const position = positions.get(key(r));
    if (position === undefined) continue; // revoked meanwhile (cannot happen today: one loop)
    for (const record of r.records) {
      if (count >= max) break;
      out.push(formatRecord(record, options));
      position.offset = record.offset + 1n;
      count++;
    }
    if (count < max && r.nextOffset > position.offset) position.offset = r.nextOffset;
  }
  return { lines: out, count };
}

/** Commits the positions that moved since the last commit. */
async function commitPositions(member: GroupMember, state: GroupPositions): Promise<void> {
  const { positions, committed } = state;
  const offsets = [...positions.values()]
    .filter((p) => committed.get(key(p)) !== p.offset)
    .map((p) => ({ topic: p.topic, partition: p.partition, offset: p.offset }));
  if (offsets.length === 0) return;
  await member.commit(offsets);
  for (const o of offsets) committed.set(key(o), o.offset);
}

/** commitPositions, where a refusal because the group is rebalancing is expected and other failures are warnings. */
async function commitPositionsQuietly(member: GroupMember, state: GroupPositions): Promise<void> {
  await commitPositions(member, state).catch((err: unknown) => {
    if (!isRebalanceError(err)) warn(err);
  });
}

function warn(err: unknown): void {
  process.stderr.write(`warning: ${formatError(err).replace(/^error: /, '')}\n`);
}

function isRebalanceError(err: unknown): boolean {
  return isKafkaError(err, 'REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID');
}

async function resetPosition(cluster: Cluster, positions: Map<string, FetchPosition>, err: KafkaProtocolError, reset: 'earliest' | 'latest'): Promise<void> {
  const tp = { topic: err.topic as string, partition: err.partition as number };
  const [listed] = await listOffsetsMany(cluster, [{ ...tp, spec: reset }]);
  const position = positions.get(key(tp));
  if (listed !== undefined && position !== undefined) {
    process.stderr.write(`warning: offset ${position.offset} is out of range for ${tp.topic}-${tp.partition}; resetting to ${reset} (${listed.offset})\n`);
    position.offset = listed.offset;
  }
}

function key(p: { topic: string; partition: number }): string {
  return `${p.topic}\u0000${p.partition}`;
}
