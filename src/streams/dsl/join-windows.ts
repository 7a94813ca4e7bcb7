/**
 * `JoinWindows` (Kafka Streams): how far apart in time two records of a
 * stream-stream join may be. A left record at t joins right records in
 * [t - before, t + after]; grace is how long after that window's end
 * out-of-order records are still accepted (and how long a left or outer
 * join waits before emitting a record that found no partner).
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';

/** The time window of a stream-stream join. */
export class JoinWindows {
  private constructor(
    /** How much earlier (ms) a right record may be than the left one. */
    readonly beforeMs: number,
    /** How much later (ms) a right record may be than the left one. */
    readonly afterMs: number,
    readonly graceMs: number,
  ) {}

  /** Records at most `timeDifferenceMs` apart join; no grace. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return JoinWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** Records at most `timeDifferenceMs` apart join; late records accepted for `graceMs`. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    check('time difference', timeDifferenceMs);
    check('grace', graceMs);
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, graceMs);
  }

  /** The same windows with the right side allowed `beforeMs` earlier than the left. */
  before(beforeMs: number): JoinWindows {
    check('before', beforeMs);
    return new JoinWindows(beforeMs, this.afterMs, this.graceMs);
  }

  /** The same windows with the right side allowed `afterMs` later than the left. */
  after(afterMs: number): JoinWindows {
    check('after', afterMs);
    return new JoinWindows(this.beforeMs, afterMs, this.graceMs);
  }
}

function check(what: string, ms: number): void {
  if (!Number.isInteger(ms) || ms < 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `join window ${what} must be a non-negative integer of ms, got ${ms}`);
}
