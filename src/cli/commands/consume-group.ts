/**
 * `tributary consume TOPIC --group G`: consume as a member of a consumer
 * group (classic protocol, range assignor), as kafka-console-consumer.sh
 * --group does, on the library's `Consumer` (src/client/consumer.ts).
 *
 * - Each assigned partition starts at the group's committed offset, else at
 *   --offset earliest|latest (Kafka's auto.offset.reset; default latest).
 * - Positions advance only past records that were printed (a batch cut
 *   short by --max is rewound with seek). The Consumer's auto-commit commits
 *   them every AUTO_COMMIT_INTERVAL_MS, when partitions are revoked (before
 *   a rebalance, so the next owner continues where this member stopped) and
 *   on close. A commit refused because the group is rebalancing is retried
 *   by the next of these (at least once).
 * - Ctrl-C, SIGTERM or a closed stdout (`consume --group | head`) closes the
 *   Consumer: it commits and leaves the group, so the others take over its
 *   partitions at once; the command then exits 0.
 */
import { Consumer } from '../../client/consumer.js';
import type { ConsumerBatch, TopicPartition } from '../../client/consumer-types.js';
import { clientSecurity, connectCluster, formatError, writeOut, type CommonOptions } from './common.js';
import { formatRecord } from './record-format.js';
import { watchStdoutReader } from './stdout-reader.js';

export const AUTO_COMMIT_INTERVAL_MS = 5_000;

export interface GroupConsumeOptions extends CommonOptions {
  max?: number;
  timeoutMs?: number;
  printKey?: boolean;
  printOffset?: boolean;
  json?: boolean;
  isolationLevel: string;
}

type Batches = AsyncIterator<ConsumerBatch<Buffer | null, Buffer | null>>;

export async function consumeGroup(topic: string, groupId: string, reset: 'earliest' | 'latest', options: GroupConsumeOptions): Promise<void> {
  await checkTopic(topic, options);
  // The idle clock of --timeout-ms restarts with each record and each new assignment.
  let lastActiveMs = performance.now();
  let joinAnnounced = false;
  const announceJoin = (partitions: readonly TopicPartition[]): void => {
    joinAnnounced = true;
    const list = partitions.length === 0 ? '(none)' : partitions.map((p) => `${p.topic}-${p.partition}`).join(', ');
    process.stderr.write(`Joined group ${groupId} (generation ${consumer.groupMetadata().generationId}) with partitions: ${list}\n`);
  };
  const consumer: Consumer = new Consumer({
    bootstrap: options.bootstrap,
    clientId: 'tributary-cli',
    clusterOptions: { requestTimeoutMs: options.requestTimeoutMs, ...clientSecurity(options) },
    groupId,
    assignors: ['range'],
    autoOffsetReset: reset,
    autoCommitIntervalMs: AUTO_COMMIT_INTERVAL_MS,
    isolationLevel: options.isolationLevel === 'read_committed' ? 'read_committed' : 'read_uncommitted',
    listeners: {
      onPartitionsAssigned: (partitions) => {
        lastActiveMs = performance.now();
        announceJoin(partitions);
      },
    },
  });

  // Ctrl-C, SIGTERM and a closed stdout end the loop by closing the consumer (which also ends a parked JoinGroup).
  let stopping = false;
  const stop = (): void => {
    stopping = true;
    void consumer.close().catch(() => undefined); // reported by the close below
  };
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Stays after the command: a late EPIPE must not crash the exiting process.
  process.stdout.on('error', onStdoutError);
  // With nothing new to print there is no write to fail: notice the reader leaving (stdout-reader.ts).
  const writing = { now: false };
  const stopWatch = watchStdoutReader(stop, () => !writing.now);

  let count = 0;
  try {
    await consumer.subscribe([topic]);
    // The listener hears of partitions only: a member left without any (more members than partitions) says so too.
    if (!joinAnnounced && !stopping) announceJoin([]);
    lastActiveMs = performance.now();
    count = await printBatches(consumer, consumer.batches(), options, writing, () => lastActiveMs, () => (lastActiveMs = performance.now()));
  } finally {
    stopWatch();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // Commits the printed positions (revoke), then leaves the group; a failure there is a warning.
    await consumer.close().catch(warn);
  }
  process.stderr.write(`Processed a total of ${count} records.\n`);
}

function warn(err: unknown): void {
  process.stderr.write(`warning: ${formatError(err).replace(/^error: /, '')}\n`);
}

/** UNKNOWN_TOPIC_OR_PARTITION before joining, not an empty assignment. */
async function checkTopic(topic: string, options: CommonOptions): Promise<void> {
  const cluster = await connectCluster(options);
  try {
    await cluster.topic(topic);
  } finally {
    await cluster.close();
  }
}

/**
 * Prints batches until --max records, --timeout-ms without a record, the
 * consumer's close (signal, closed stdout) or a closed stdout seen on write.
 * Returns the number of records printed.
 */
async function printBatches(
  consumer: Consumer,
  batches: Batches,
  options: GroupConsumeOptions,
  writing: { now: boolean },
  lastActiveMs: () => number,
  active: () => void,
): Promise<number> {
  const max = options.max ?? Infinity;
  let count = 0;
  while (count < max) {
    const next = await nextBefore(batches, options.timeoutMs === undefined ? null : () => lastActiveMs() + (options.timeoutMs as number));
    if (next === 'timeout' || next.done === true) break;
    const batch = next.value;
    const records = batch.records.slice(0, max - count);
    const last = records[records.length - 1];
    if (last === undefined) continue;
    // Only what is printed is committed: a batch cut short by --max continues after its last printed record.
    if (records.length < batch.records.length) consumer.seek(batch, last.offset + 1n);
    count += records.length;
    active();
    writing.now = true;
    try {
      await writeOut(`${records.map((r) => formatRecord(r, options)).join('\n')}\n`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
      break;
    } finally {
      writing.now = false;
    }
  }
  return count;
}

/** The next batch, or 'timeout' once `deadlineMs()` passes first (null: no deadline). The deadline may move while waiting. */
async function nextBefore(batches: Batches, deadlineMs: (() => number) | null): Promise<IteratorResult<ConsumerBatch<Buffer | null, Buffer | null>> | 'timeout'> {
  const pending = batches.next();
  if (deadlineMs === null) return pending;
  for (;;) {
    const leftMs = deadlineMs() - performance.now();
    if (leftMs <= 0) {
      // The pending pull ends when the consumer closes; its batch (if any) is not printed, nor committed past.
      void pending.catch(() => undefined);
      return 'timeout';
    }
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<'tick'>((resolve) => (timer = setTimeout(() => resolve('tick'), leftMs)));
    try {
      const r = await Promise.race([pending, tick]);
      if (r !== 'tick') return r;
    } finally {
      clearTimeout(timer);
    }
  }
}
