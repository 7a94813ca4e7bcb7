/**
 * Timers on virtual time for the group coordinator tests and simulation: a
 * ManualClock plus a queue of due callbacks. advance() runs the callbacks in
 * due order, moving the clock to each, and lets promise callbacks settle
 * after each one (so awaited persistence and request promises resolve in a
 * deterministic order).
 */
import { ManualClock } from '../../src/util/clock.js';
import type { TimerHandle, Timers } from '../../src/util/timer.js';

interface Entry {
  readonly dueMs: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** Lets every queued promise callback run (they are all microtasks: no real I/O is involved). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class VirtualTimers implements Timers {
  private heap: Entry[] = [];
  private seq = 0;
  live = 0;

  constructor(readonly clock: ManualClock = new ManualClock()) {}

  schedule(delayMs: number, fn: () => void): TimerHandle {
    if (!(delayMs >= 0)) throw new RangeError(`timer delay ${delayMs}`);
    const e: Entry = { dueMs: this.clock.monotonicMs() + delayMs, seq: this.seq++, fn, cancelled: false };
    this.push(e);
    this.live++;
    return {
      cancel: () => {
        if (!e.cancelled) {
          e.cancelled = true;
          this.live--;
        }
      },
    };
  }

  /** Monotonic time of the next live timer, or null. */
  nextDueMs(): number | null {
    this.dropCancelled();
    const top = this.heap[0];
    return top === undefined ? null : top.dueMs;
  }

  /** Runs the next timer if it is due by `limitMs` (monotonic); returns false when none is. */
  runNext(limitMs: number): boolean {
    this.dropCancelled();
    const top = this.heap[0];
    if (top === undefined || top.dueMs > limitMs) return false;
    this.pop();
    top.cancelled = true;
    this.live--;
    const now = this.clock.monotonicMs();
    if (top.dueMs > now) this.clock.advance(top.dueMs - now);
    top.fn();
    return true;
  }

  /** Moves time forward by `ms`, running every timer that falls due, settling promises after each. */
  async advance(ms: number): Promise<void> {
    const limit = this.clock.monotonicMs() + ms;
    await settle();
    while (this.runNext(limit)) await settle();
    const now = this.clock.monotonicMs();
    if (limit > now) this.clock.advance(limit - now);
    await settle();
  }

  private dropCancelled(): void {
    while (this.heap[0] !== undefined && this.heap[0].cancelled) this.pop();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i] as Entry, h[p] as Entry)) break;
      [h[i], h[p]] = [h[p] as Entry, h[i] as Entry];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (h.length === 0 || last === undefined) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l] as Entry, h[m] as Entry)) m = l;
      if (r < h.length && this.less(h[r] as Entry, h[m] as Entry)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m] as Entry, h[i] as Entry];
      i = m;
    }
  }
}
