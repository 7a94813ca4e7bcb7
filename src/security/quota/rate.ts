/**
 * A rate over sampled windows, as Kafka's metrics `Rate` over a
 * `SampledStat` measures it (the quota managers' sensors):
 *
 * - `samples` windows of `windowMs` each (`quota.window.num`, default 11, x
 *   `quota.window.size.seconds`, default 1). A value goes into the current
 *   window; a window is complete once `windowMs` has passed since it
 *   started, and the next record starts a new one, reusing the oldest slot.
 * - Before measuring, windows that started `samples * windowMs` ago or more
 *   are reset (they no longer count).
 * - rate = sum of the windows / window size in seconds, where the window
 *   size is the time since the oldest window started, but never less than
 *   `samples - 1` full windows (so a client that just started is measured
 *   over 10 s, not over its first few milliseconds, as in Kafka).
 *
 * Time is passed in (monotonic ms), so tests drive it by hand.
 */
import { invariant } from '../../util/assert.js';

export interface RateConfig {
  readonly samples: number;
  readonly windowMs: number;
}

interface Sample {
  startMs: number;
  value: number;
}

export class SampledRate {
  private readonly windows: Sample[] = [];
  private current = 0;
  /** Last time a value was recorded (idle sensors are dropped by their owner). */
  lastRecordMs = 0;

  constructor(private readonly config: RateConfig) {
    invariant(config.samples >= 2 && config.windowMs > 0, `a rate needs at least 2 windows of positive length, got ${config.samples} x ${config.windowMs} ms`);
  }

  record(value: number, nowMs: number): void {
    let sample = this.currentSample(nowMs);
    if (nowMs - sample.startMs >= this.config.windowMs) sample = this.advance(nowMs);
    sample.value += value;
    this.lastRecordMs = nowMs;
  }

  /** Units per second over the sampled windows. */
  measure(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let total = 0;
    for (const s of this.windows) total += s.value;
    return total / (this.windowSizeMs(nowMs) / 1000);
  }

  /** The time the rate is measured over, as Kafka's Rate.windowSize (at least 1 ms). */
  windowSizeMs(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let elapsedMs = nowMs - this.oldestStartMs(nowMs);
    const fullWindows = Math.floor(elapsedMs / this.config.windowMs);
    const minFullWindows = this.config.samples - 1;
    if (fullWindows < minFullWindows) elapsedMs += (minFullWindows - fullWindows) * this.config.windowMs;
    return Math.max(elapsedMs, 1);
  }

  private currentSample(nowMs: number): Sample {
    if (this.windows.length === 0) this.windows.push({ startMs: nowMs, value: 0 });
    return this.windows[this.current] as Sample;
  }

  private advance(nowMs: number): Sample {
    this.current = (this.current + 1) % this.config.samples;
    if (this.current >= this.windows.length) {
      const fresh = { startMs: nowMs, value: 0 };
      this.windows.push(fresh);
      return fresh;
    }
    const reused = this.windows[this.current] as Sample;
    reused.startMs = nowMs;
    reused.value = 0;
    return reused;
  }

  private purgeObsolete(nowMs: number): void {
    const expireAgeMs = this.config.samples * this.config.windowMs;
    for (const s of this.windows) {
      if (nowMs - s.startMs >= expireAgeMs) {
        s.startMs = nowMs;
        s.value = 0;
      }
    }
  }

  private oldestStartMs(nowMs: number): number {
    let oldest = nowMs;
    for (const s of this.windows) oldest = Math.min(oldest, s.startMs);
    return oldest;
  }
}

/**
 * How long a client over its quota is held back (Kafka's
 * QuotaUtils.throttleTime): long enough that the measured rate falls back
 * to the bound, i.e. (rate - bound) / bound x window size. 0 within the
 * quota. `maxMs` caps it (Kafka caps request-time throttles at one window).
 */
export function throttleTimeMs(rate: number, bound: number, windowSizeMs: number, maxMs = Number.POSITIVE_INFINITY): number {
  invariant(bound > 0, `quota bound must be positive, got ${bound}`);
  if (rate <= bound) return 0;
  return Math.min(Math.round(((rate - bound) / bound) * windowSizeMs), maxMs);
}
