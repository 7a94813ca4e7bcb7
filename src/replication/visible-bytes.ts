/**
 * Byte counters of one partition replica for delayed fetches
 * (delayed-fetch.ts): how many bytes were appended, how many are below the
 * high watermark (what read_uncommitted consumers can read), and how many
 * are below the last stable offset (what read_committed consumers can read,
 * KIP-98). A waiting fetch compares the counter it can see with its value
 * when it started, so no log is read again until enough arrived.
 *
 * Each append is remembered as (end offset, appended total after it) until
 * the bound passes its end; bounds only move up, except on truncation.
 */
import { Fifo } from '../util/fifo.js';

interface Pending {
  readonly endOffset: bigint;
  readonly bytesTotal: number;
}

/** Appends not yet below one bound; `total` is the counter of those that are. */
class BoundedBytes {
  total = 0;
  private readonly pending = new Fifo<Pending>();

  push(p: Pending): void {
    this.pending.push(p);
  }

  /** The bound moved to `bound`: appends ending at or below it count. */
  advance(bound: bigint): void {
    for (let u = this.pending.peek(); u !== undefined && u.endOffset <= bound; u = this.pending.peek()) {
      this.total = u.bytesTotal;
      this.pending.shift();
    }
  }

  /** Truncation to `end`: appends past it are gone; every counter restarts at `total`. */
  truncate(end: bigint, total: number): void {
    this.pending.removeWhere((u) => u.endOffset > end);
    this.total = total;
  }
}

export class VisibleBytes {
  /** Bumped on every append (a follower's fetch reads up to the log end). */
  appended = 0;
  private readonly committed = new BoundedBytes();
  private readonly stable = new BoundedBytes();

  /** Bytes below the high watermark. */
  get committedTotal(): number {
    return this.committed.total;
  }

  /** Bytes below the last stable offset. */
  get stableTotal(): number {
    return this.stable.total;
  }

  /** An append ending at `endOffset`, then the bounds after it. */
  onAppend(endOffset: bigint, bytes: number, highWatermark: bigint, lastStableOffset: bigint): void {
    this.appended += bytes;
    const p = { endOffset, bytesTotal: this.appended };
    this.committed.push(p);
    this.stable.push(p);
    this.onBounds(highWatermark, lastStableOffset);
  }

  /** The high watermark and the last stable offset, after either moved. */
  onBounds(highWatermark: bigint, lastStableOffset: bigint): void {
    this.committed.advance(highWatermark);
    this.stable.advance(lastStableOffset);
  }

  /** The log was cut to `end`: counters agree again (waiters compare differences only). */
  onTruncated(end: bigint): void {
    const total = Math.max(this.appended, this.committed.total, this.stable.total);
    this.appended = total;
    this.committed.truncate(end, total);
    this.stable.truncate(end, total);
  }
}
