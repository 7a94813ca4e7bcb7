/**
 * Sliding windows (Kafka Streams' `SlidingWindows`, KIP-450): windows of a
 * fixed time difference D placed by the records themselves, both ends
 * inclusive. Each record at t has a left window [t - D, t] ending at it and,
 * once a later record lies in (t, t + D + 1], a right window
 * [t + 1, t + 1 + D] starting just after it; so every distinct set of
 * records at most D apart has exactly one window, and no empty window exists.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';

/** Record-defined windows of a maximum time difference. */
export class SlidingWindows {
  private constructor(
    /** The largest time difference (ms) between two records of one window; the window size. */
    readonly timeDifferenceMs: number,
    /** How long after a window's end out-of-order records are still added (ms). */
    readonly graceMs: number,
  ) {}

  /** Windows of records at most `timeDifferenceMs` apart; closed at their end. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return SlidingWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** Windows of records at most `timeDifferenceMs` apart; late records accepted for `graceMs`. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    if (!Number.isInteger(timeDifferenceMs) || timeDifferenceMs < 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `time difference must be a non-negative integer of ms, got ${timeDifferenceMs}`);
    if (!Number.isInteger(graceMs) || graceMs < 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `grace must be a non-negative integer of ms, got ${graceMs}`);
    return new SlidingWindows(timeDifferenceMs, graceMs);
  }
}
