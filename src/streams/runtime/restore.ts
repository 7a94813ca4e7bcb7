/**
 * Restoration (Kafka's StoreChangelogReader): before a task processes
 * anything, each of its logged stores replays its changelog partition from
 * the beginning to the end offset seen at start, through a group-less
 * Consumer. One log line per restoration gives the count and the rate.
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

const key = (topic: string, partition: number): string => `${topic}:${partition}`;

/** Restores the targets; returns the end offset restored to per `topic:partition`. */
export async function restoreStores(bootstrap: string, admin: Admin, targets: readonly RestoreTarget[], log: StreamsLogger): Promise<Map<string, bigint>> {
  const reached = new Map<string, bigint>();
  if (targets.length === 0) return reached;
  const started = performance.now();
  const ends = await admin.listOffsets(targets.map((t) => ({ topic: t.topic, partition: t.partition, spec: 'latest' as const })));
  const pending = new Map<string, { target: RestoreTarget; end: bigint; restored: number }>();
  for (const t of targets) {
    const end = ends.find((e) => e.topic === t.topic && e.partition === t.partition)?.offset ?? 0n;
    reached.set(key(t.topic, t.partition), end);
    if (end > (t.from ?? 0n)) pending.set(key(t.topic, t.partition), { target: t, end, restored: 0 });
  }
  if (pending.size === 0) return reached;
  const consumer = new Consumer({ bootstrap, clientId: 'streams-restore', autoOffsetReset: 'earliest' });
  let total = 0;
  try {
    consumer.assign([...pending.values()].map((p) => ({ topic: p.target.topic, partition: p.target.partition })));
    for (const p of pending.values()) if (p.target.from !== null) consumer.seek({ topic: p.target.topic, partition: p.target.partition }, p.target.from);
    const done = new Set<string>();
    for await (const batch of consumer.batches()) {
      const entry = pending.get(key(batch.topic, batch.partition));
      if (entry === undefined) continue;
      for (const r of batch.records) {
        if (r.offset >= entry.end) break;
        // The fetch buffers are reused: the store keeps copies.
        entry.target.task.restore(entry.target.store, Buffer.from(r.key ?? Buffer.alloc(0)), r.value === null ? null : Buffer.from(r.value));
        entry.restored++;
      }
      const last = batch.records.at(-1);
      if (last !== undefined && last.offset + 1n >= entry.end) done.add(key(batch.topic, batch.partition));
      if (done.size === pending.size) break;
    }
  } finally {
    await consumer.close();
  }
  for (const p of pending.values()) total += p.restored;
  const ms = Math.max(1, performance.now() - started);
  for (const p of pending.values()) p.target.task.flush();
  log('info', `restored ${total} changelog records into ${pending.size} store partition(s) in ${Math.round(ms)} ms (${Math.round((total * 1000) / ms)} records/s): ${[...pending.values()].map((p) => `${p.target.store}@${p.target.task.id}=${p.restored}${p.target.from === null ? '' : ` (from ${p.target.fromStandby === true ? 'standby' : 'checkpoint'} ${p.target.from})`}`).join(', ')}`);
  return reached;
}
