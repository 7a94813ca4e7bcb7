/**
 * A partition's queue of appends that must await before they can write (a
 * compacted topic's key check, recompression for a topic with its own
 * compression.type). While it holds work, every later append to the same
 * partition joins it too, so appends still reach the log in the order they
 * arrived. The common path (nothing queued, nothing to await) never touches
 * it and appends synchronously.
 */
/** One settled promise for every idle queue (thousands of partitions), not one each. */
const SETTLED: Promise<unknown> = Promise.resolve();

export class AppendQueue {
  private tail: Promise<unknown> = SETTLED;
  private pending = 0;

  /** True while earlier appends are queued: a later one must queue behind them. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Runs `work` after everything queued before it has settled (whatever its outcome). */
  run<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    const next = this.tail.then(work, work).finally(() => {
      this.pending--;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}
