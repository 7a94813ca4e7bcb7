/**
 * The bookkeeping behind `FileSystem.writeFileAtomicAsync` (both
 * implementations): which write of a path is the newest, and how many
 * background writes run at once. No I/O here.
 *
 * Ordering rule: every change of a path's content (an atomic write, sync or
 * async, a rename onto or away from it, an unlink) takes the next number of
 * that path when it is *issued*. A background write installs its file (the
 * rename of its temp file) only if no change with a higher number was
 * installed or issued meanwhile; otherwise its temp file is dropped. So an
 * older write never lands after a newer one, whatever order the thread pool
 * finishes them in, and a file deleted while a write of it was pending stays
 * deleted (a truncation deleting producer snapshots past its end must not see
 * one come back).
 */
import { invariant } from '../util/assert.js';

/** Background atomic writes (temp file, fsync, rename, directory fsync) running at once. */
export const BACKGROUND_WRITES_MAX = 16;

export class PathWriteOrder {
  private next = 0;
  /** Per path: the number of its newest change issued. */
  private readonly newest = new Map<string, number>();

  /** A change of `path` is issued now; returns its number. */
  issue(path: string): number {
    const n = ++this.next;
    this.newest.set(path, n);
    return n;
  }

  /** Whether the change numbered `n` is still the newest of `path` (may install). */
  isNewest(path: string, n: number): boolean {
    return this.newest.get(path) === n;
  }

  /** The change numbered `n` is installed or dropped: forget the path if nothing newer came. */
  done(path: string, n: number): void {
    if (this.newest.get(path) === n) this.newest.delete(path);
  }
}

/**
 * At most `max` tasks running at once, the rest started in arrival order;
 * `idle()` resolves once nothing runs or waits (shutdown waits for it).
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private waitingHead = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(readonly max: number) {
    invariant(Number.isInteger(max) && max >= 1, 'concurrency limit is a positive integer');
  }

  /** Tasks running or waiting. */
  get pending(): number {
    return this.running + this.waiting.length - this.waitingHead;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Resolves when no task runs or waits. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private release(): void {
    if (this.waitingHead < this.waiting.length) {
      // The slot passes straight to the next task: `running` stays the same.
      const next = this.waiting[this.waitingHead] as () => void;
      this.waiting[this.waitingHead++] = undefined as unknown as () => void;
      if (this.waitingHead === this.waiting.length) {
        this.waiting.length = 0;
        this.waitingHead = 0;
      }
      next();
      return;
    }
    this.running--;
    if (this.running === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
