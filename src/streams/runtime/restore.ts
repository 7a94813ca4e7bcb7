/**
 * Restoration (Kafka's StoreChangelogReader): before a task processes
 * anything, each of its logged stores replays its changelog partition from
 * the beginning to the end offset seen at start, through a group-less
 * Consumer. One log line per restoration gives the count and the rate.
 *
 * Under exactly_once_v2 the changelogs are read `read_committed` up to their
 * last stable offset, so aborted changes never reach a store. Such a
 * consumer never hands out markers or aborted batches, so a partition is
 * done when its position (which moves past them) reaches the end, not when a
 * record just below the end arrives.
 */
import { Consumer, type Admin } from '../../client/index.js';
import type { StreamsLogger } from './config.js';
import type { StreamTask } from './stream-task.js';

/** A store of a task to restore from `topic`-`partition`. */
export interface RestoreTarget {
  task: StreamTask;
  store: string;
  topic: string;
  partition: number;
  /** Where to start (a checkpoint, or a promoted standby's position), or null for the beginning. */
  from: bigint | null;
  /** The start is a promoted standby's position (for the log line). */
  fromStandby?: boolean;
}

export interface RestoreOptions {
  bootstrap: string;
  admin: Admin;
  log: StreamsLogger;
  /** exactly_once_v2: read committed changes only, up to the last stable offset. */
  readCommitted: boolean;
}

/** How often positions are checked while no record arrives (a tail of markers or aborted batches hands out nothing). */
const POSITION_CHECK_MS = 50;

const key = (topic: string, partition: number): string => `${topic}:${partition}`;

interface Pending {
  target: RestoreTarget;
  end: bigint;
  restored: number;
}

/** Restores the targets; returns the end offset restored to per `topic:partition`. */
export async function restoreStores(options: RestoreOptions, targets: readonly RestoreTarget[]): Promise<Map<string, bigint>> {
  const { bootstrap, admin, log, readCommitted } = options;
  const reached = new Map<string, bigint>();
  if (targets.length === 0) return reached;
  const started = performance.now();
  const isolationLevel = readCommitted ? ('read_committed' as const) : ('read_uncommitted' as const);
  const ends = await admin.listOffsets(
    targets.map((t) => ({ topic: t.topic, partition: t.partition, spec: 'latest' as const })),
    { isolationLevel },
  );
  const pending = new Map<string, Pending>();
  for (const t of targets) {
    const end = ends.find((e) => e.topic === t.topic && e.partition === t.partition)?.offset ?? 0n;
    reached.set(key(t.topic, t.partition), end);
    if (end > (t.from ?? 0n)) pending.set(key(t.topic, t.partition), { target: t, end, restored: 0 });
  }
  if (pending.size === 0) return reached;
  const consumer = new Consumer({ bootstrap, clientId: 'streams-restore', autoOffsetReset: 'earliest', isolationLevel });
  try {
    consumer.assign([...pending.values()].map((p) => ({ topic: p.target.topic, partition: p.target.partition })));
    for (const p of pending.values()) if (p.target.from !== null) consumer.seek({ topic: p.target.topic, partition: p.target.partition }, p.target.from);
    await replay(consumer, pending);
  } finally {
    await consumer.close();
  }
  let total = 0;
  for (const p of pending.values()) total += p.restored;
  const ms = Math.max(1, performance.now() - started);
  for (const p of pending.values()) p.target.task.flush();
  log('info', `restored ${total} changelog records into ${pending.size} store partition(s) in ${Math.round(ms)} ms (${Math.round((total * 1000) / ms)} records/s): ${[...pending.values()].map((p) => `${p.target.store}@${p.target.task.id}=${p.restored}${p.target.from === null ? '' : ` (from ${p.target.fromStandby === true ? 'standby' : 'checkpoint'} ${p.target.from})`}`).join(', ')}`);
  return reached;
}

/** Applies changelog records until every partition's position reached its end. */
async function replay(consumer: Consumer<Buffer | null, Buffer | null>, pending: Map<string, Pending>): Promise<void> {
  const done = new Set<string>();
  const check = (): boolean => {
    for (const [k, p] of pending) {
      const position = consumer.position({ topic: p.target.topic, partition: p.target.partition });
      if (position !== null && position >= p.end) done.add(k);
    }
    return done.size === pending.size;
  };
  const batches = consumer.batches()[Symbol.asyncIterator]();
  let next = batches.next();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<'tick'>((resolve) => (timer = setTimeout(() => resolve('tick'), POSITION_CHECK_MS)));
    const got = await Promise.race([next, tick]);
    clearTimeout(timer);
    if (got === 'tick') {
      if (check()) return;
      continue;
    }
    if (got.done === true) return;
    const batch = got.value;
    const k = key(batch.topic, batch.partition);
    const entry = pending.get(k);
    // The next batch is asked for only after this one is applied: fetch buffers are reused.
    if (entry === undefined) {
      next = batches.next();
      continue;
    }
    for (const r of batch.records) {
      if (r.offset >= entry.end) break;
      // The fetch buffers are reused: the store keeps copies.
      entry.target.task.restore(entry.target.store, Buffer.from(r.key ?? Buffer.alloc(0)), r.value === null ? null : Buffer.from(r.value));
      entry.restored++;
    }
    const last = batch.records.at(-1);
    if (last !== undefined && last.offset + 1n >= entry.end) done.add(k);
    if (done.size === pending.size || check()) return;
    next = batches.next();
  }
}
