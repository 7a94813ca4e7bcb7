/**
 * Standby tasks (Kafka's StandbyTask and the standby half of its
 * StoreChangelogReader): copies of other instances' task stores kept warm by
 * following their changelog partitions with one group-less Consumer. They
 * process nothing. When the assignor promotes one to active, the runtime
 * takes it over with its stores as they are and restores only the changelog
 * tail the standby had not read yet.
 *
 * Positions (the next changelog offset to apply, per partition) say how far
 * each standby is; they feed the checkpoint of persistent stores and the
 * task offset sums the assignor compares to pick the most caught-up client.
 */
import { Consumer } from '../../client/index.js';
import type { StreamTask } from './stream-task.js';
import { writeCheckpoint } from './checkpoint.js';

/** A changelog partition a standby store follows. */
export interface StandbyTarget {
  store: string;
  topic: string;
  partition: number;
  /** The offset to start at (a checkpoint), or null for the beginning. */
  from: bigint | null;
  persistent: boolean;
}

interface Standby {
  task: StreamTask;
  dir: string;
  targets: StandbyTarget[];
}

const key = (topic: string, partition: number): string => `${topic}:${partition}`;

export class StandbyTasks {
  private readonly standbys = new Map<string, Standby>();
  private readonly route = new Map<string, { task: StreamTask; store: string }>();
  private readonly positions = new Map<string, bigint>();
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly bootstrap: string,
    private readonly clientId: string,
    private readonly onError: (err: unknown) => void,
    /** Under exactly_once_v2 a standby replays only committed changes. */
    private readonly readCommitted = false,
  ) {}

  has(id: string): boolean {
    return this.standbys.has(id);
  }

  ids(): string[] {
    return [...this.standbys.keys()];
  }

  /** Starts following the changelogs of a standby task whose stores are open. */
  add(task: StreamTask, dir: string, targets: StandbyTarget[]): void {
    this.standbys.set(task.id, { task, dir, targets });
    for (const t of targets) {
      this.route.set(key(t.topic, t.partition), { task, store: t.store });
      this.positions.set(key(t.topic, t.partition), t.from ?? 0n);
    }
    const consumer = this.ensureConsumer();
    consumer.assign([...this.route.keys()].map(parseKey));
    for (const t of targets) if (t.from !== null) consumer.seek({ topic: t.topic, partition: t.partition }, t.from);
  }

  /** Stops following a standby and hands it over with its positions (for promotion or close). */
  remove(id: string): { task: StreamTask; dir: string; positions: Map<string, bigint> } | null {
    const s = this.standbys.get(id);
    if (s === undefined) return null;
    this.standbys.delete(id);
    const positions = new Map<string, bigint>();
    for (const t of s.targets) {
      const k = key(t.topic, t.partition);
      positions.set(k, this.positions.get(k) ?? 0n);
      this.route.delete(k);
      this.positions.delete(k);
    }
    this.consumer?.assign([...this.route.keys()].map(parseKey));
    return { task: s.task, dir: s.dir, positions };
  }

  /** The sum of a standby's changelog positions (its task offset sum), or null when it is not a standby here. */
  offsetSum(id: string): bigint | null {
    const s = this.standbys.get(id);
    if (s === undefined) return null;
    return s.targets.reduce((n, t) => n + (this.positions.get(key(t.topic, t.partition)) ?? 0n), 0n);
  }

  /** Flushes the standby stores and writes the checkpoints of the persistent ones (after each commit). */
  checkpoint(): void {
    for (const s of this.standbys.values()) {
      s.task.flush();
      const offsets = new Map<string, bigint>();
      for (const t of s.targets) if (t.persistent) offsets.set(key(t.topic, t.partition), this.positions.get(key(t.topic, t.partition)) ?? 0n);
      if (offsets.size > 0) writeCheckpoint(s.dir, offsets);
    }
  }

  /** Closes every standby (checkpointed first) and the changelog consumer. */
  async close(): Promise<void> {
    this.checkpoint();
    for (const id of this.ids()) this.remove(id)?.task.close();
    const consumer = this.consumer;
    this.consumer = null;
    await consumer?.close().catch(() => {});
    await this.loop?.catch(() => {});
  }

  private ensureConsumer(): Consumer<Buffer | null, Buffer | null> {
    if (this.consumer !== null) return this.consumer;
    const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: this.bootstrap, clientId: this.clientId, autoOffsetReset: 'earliest', isolationLevel: this.readCommitted ? 'read_committed' : 'read_uncommitted' });
    this.consumer = consumer;
    this.loop = (async () => {
      try {
        for await (const batch of consumer.batches()) this.apply(batch.topic, batch.partition, batch.records);
      } catch (err) {
        if (this.consumer === consumer) this.onError(err);
      }
    })();
    return consumer;
  }

  private apply(topic: string, partition: number, records: readonly { offset: bigint; key: Buffer | null; value: Buffer | null }[]): void {
    const k = key(topic, partition);
    const target = this.route.get(k);
    if (target === undefined) return; // promoted or closed meanwhile
    let next = this.positions.get(k) ?? 0n;
    for (const r of records) {
      if (r.offset < next) continue;
      // The fetch buffers are reused: the store keeps copies.
      target.task.restore(target.store, Buffer.from(r.key ?? Buffer.alloc(0)), r.value === null ? null : Buffer.from(r.value));
      next = r.offset + 1n;
    }
    this.positions.set(k, next);
  }
}

function parseKey(k: string): { topic: string; partition: number } {
  const i = k.lastIndexOf(':');
  return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
}
