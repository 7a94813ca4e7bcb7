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
import { ConnectionClosedError, KafkaProtocolError, isKafkaError } from '../../client/errors.js';
import { GroupMember, describePartitions } from '../../client/group.js';
import { fetchMany, listOffsetsMany, type FetchPosition } from '../../client/records.js';
import { formatError, writeOut } from './common.js';
import { formatRecord } from './consume.js';

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

export async function consumeGroup(cluster: Cluster, topic: string, groupId: string, reset: 'earliest' | 'latest', options: GroupConsumeOptions): Promise<void> {
  await cluster.topic(topic); // UNKNOWN_TOPIC_OR_PARTITION before joining, not an empty assignment.
  const positions = new Map<string, FetchPosition>();
  const committed = new Map<string, bigint>();
  const warn = (err: unknown): void => {
    process.stderr.write(`warning: ${formatError(err).replace(/^error: /, '')}\n`);
  };

  const commitPositions = async (member: GroupMember): Promise<void> => {
    const offsets = [...positions.values()]
      .filter((p) => committed.get(key(p)) !== p.offset)
      .map((p) => ({ topic: p.topic, partition: p.partition, offset: p.offset }));
    if (offsets.length === 0) return;
    await member.commit(offsets);
    for (const o of offsets) committed.set(key(o), o.offset);
  };

  const member: GroupMember = new GroupMember(cluster, {
    groupId,
    topics: [topic],
    assignors: [RangeAssignor],
    connection: { clientId: 'tributary-cli', requestTimeoutMs: options.requestTimeoutMs },
    onRevoked: async () => {
      await commitPositions(member).catch((err: unknown) => {
        if (!isRebalanceError(err)) warn(err);
      });
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

  let stopped = false;
  const onSignal = (): void => {
    stopped = true;
    // A JoinGroup may be parked for the whole rebalance: closing ends it.
    if (member.isJoining) void member.close().catch(warn);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let pipeClosed = false;
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') pipeClosed = stopped = true;
  };
  process.stdout.on('error', onStdoutError);

  const max = options.max ?? Infinity;
  let count = 0;
  let lastRecordMs = performance.now();
  let lastCommitMs = performance.now();
  try {
    while (!stopped && count < max) {
      try {
        if (await member.ensureActive()) lastRecordMs = performance.now();
      } catch (err) {
        if (stopped && err instanceof ConnectionClosedError) break;
        throw err;
      }
      const idleMs = performance.now() - lastRecordMs;
      if (options.timeoutMs !== undefined && idleMs >= options.timeoutMs) break;
      const waitMs = Math.max(1, Math.min(FETCH_WAIT_MS_MAX, options.timeoutMs === undefined ? FETCH_WAIT_MS_MAX : options.timeoutMs - idleMs));
      const list = [...positions.values()];
      if (list.length === 0) {
        await sleep(Math.min(IDLE_SLEEP_MS, waitMs));
        continue;
      }
      let results;
      try {
        results = await fetchMany(cluster, list, { maxWaitMs: Math.round(waitMs), isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0 });
      } catch (err) {
        if (isKafkaError(err, 'OFFSET_OUT_OF_RANGE') && err.topic !== undefined && err.partition !== undefined) {
          await resetPosition(cluster, positions, err, reset);
          continue;
        }
        throw err;
      }
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
      if (out.length > 0) {
        lastRecordMs = performance.now();
        try {
          await writeOut(`${out.join('\n')}\n`);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
          pipeClosed = true;
        }
        if (pipeClosed) break;
      }
      if (performance.now() - lastCommitMs >= AUTO_COMMIT_INTERVAL_MS) {
        lastCommitMs = performance.now();
        await commitPositions(member).catch((err: unknown) => {
          if (!isRebalanceError(err)) warn(err);
        });
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Revoking commits the positions; then the member leaves the group.
    await member.close().catch(warn);
  }
  process.stderr.write(`Processed a total of ${count} records.\n`);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
