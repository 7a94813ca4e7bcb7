/**
 * Long-poll support for Fetch ("purgatory" in Kafka): a fetch that found fewer
 * than minBytes waits until enough new bytes were appended to the partitions
 * it reads, or until maxWaitMs passes, without holding up anything else.
 * Appends wake the waiters watching that partition; each waiter tracks how
 * many bytes arrived since it started, so no log is read again until the
 * waiter is satisfied. A consumer counts committed bytes (below the high
 * watermark: it cannot read the rest; below the last stable offset with
 * read_committed, so a marker that moves the LSO wakes it), a follower
 * appended bytes (it reads up to the log end).
 */
import type { TimerHandle, Timers } from '../util/timer.js';
import type { Partition } from './partition.js';

/**
 * Which bytes a waiter can read: a read_uncommitted consumer's end at the
 * high watermark, a read_committed one's at the last stable offset, a
 * follower's at the log end.
 */
export type FetchVisibility = 'committed' | 'stable' | 'appended';

function bytesOf(p: Partition, visibility: FetchVisibility): number {
  const v = p.visible;
  return visibility === 'committed' ? v.committedTotal : visibility === 'stable' ? v.stableTotal : v.appended;
}

interface Waiter {
  readonly visibility: FetchVisibility;
  readonly partitions: readonly Partition[];
  readonly startBytes: readonly number[];
  readonly minBytes: number;
  readonly knownBytes: number;
  readonly resolve: () => void;
  timer: TimerHandle | undefined;
  done: boolean;
}

export class DelayedFetches {
  private readonly byPartition = new Map<Partition, Set<Waiter>>();
  private readonly all = new Set<Waiter>();

  constructor(private readonly timers: Timers) {}

  /** Resolves when at least `minBytes - knownBytes` new bytes arrive, or after maxWaitMs. */
  wait(partitions: readonly Partition[], knownBytes: number, minBytes: number, maxWaitMs: number, visibility: FetchVisibility = 'committed'): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        visibility,
        partitions,
        startBytes: partitions.map((p) => bytesOf(p, visibility)),
        minBytes,
        knownBytes,
        resolve,
        timer: undefined,
        done: false,
      };
      waiter.timer = this.timers.schedule(maxWaitMs, () => this.finish(waiter));
      this.all.add(waiter);
      for (const p of partitions) {
        let set = this.byPartition.get(p);
        if (!set) {
          set = new Set();
          this.byPartition.set(p, set);
        }
        set.add(waiter);
      }
    });
  }

  /** Called after every append to `partition` and every advance of its high watermark. */
  onAppend(partition: Partition): void {
    const waiters = this.byPartition.get(partition);
    if (!waiters) return;
    for (const w of waiters) {
      let arrived = w.knownBytes;
      for (let i = 0; i < w.partitions.length; i++) {
        arrived += bytesOf(w.partitions[i] as Partition, w.visibility) - (w.startBytes[i] as number);
      }
      if (arrived >= w.minBytes) this.finish(w);
    }
  }

  /** Wakes a partition's waiters without new data (deleted, leadership moved). */
  wakeAll(partition?: Partition): void {
    const targets = partition ? [...(this.byPartition.get(partition) ?? [])] : [...this.all];
    for (const w of targets) this.finish(w);
  }

  get size(): number {
    return this.all.size;
  }

  private finish(w: Waiter): void {
    if (w.done) return;
    w.done = true;
    w.timer?.cancel();
    this.all.delete(w);
    for (const p of w.partitions) {
      const set = this.byPartition.get(p);
      if (!set) continue;
      set.delete(w);
      if (set.size === 0) this.byPartition.delete(p);
    }
    w.resolve();
  }
}
