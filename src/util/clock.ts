/**
 * Time as an injected dependency. Deterministic layers (storage, replication,
 * controller) never read the wall clock themselves: they are handed a Clock, so
 * the same code runs in the broker and in the seeded simulator.
 */
export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch (record timestamps, retention). */
  nowMs(): number;
  /** Monotonic milliseconds (timeouts, intervals); never goes back. */
  monotonicMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/** A clock the test or simulator moves by hand. */
export class ManualClock implements Clock {
  private wallMs: number;
  private monoMs = 0;

  constructor(startWallMs = 1_700_000_000_000) {
    this.wallMs = startWallMs;
  }

  nowMs(): number {
    return this.wallMs;
  }

  monotonicMs(): number {
    return this.monoMs;
  }

  advance(ms: number): void {
    if (ms < 0) throw new RangeError('a clock cannot go back');
    this.wallMs += ms;
    this.monoMs += ms;
  }
}
