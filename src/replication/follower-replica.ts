/**
 * What a partition leader knows about one of its followers (Kafka's Replica /
 * ReplicaState): the log end offset it reported in its last fetch and when
 * it was last caught up, which decides whether it stays in the ISR
 * (`replica.lag.time.max.ms`).
 *
 * Kafka's caught-up rule: a fetch at offset >= the leader's log end at that
 * moment means caught up now; a fetch at offset >= the leader's log end at
 * the previous fetch means it was caught up at the previous fetch. So a
 * follower that keeps up with a steady stream stays caught up although it is
 * always a little behind, and one that stops fetching, or falls further and
 * further behind, is not.
 */
export class FollowerReplica {
  /** The follower's log end offset (its last fetch offset); -1 before its first fetch in this leader epoch. */
  logEndOffset = -1n;
  /** Last time the follower was known to be caught up with the leader's log end (ms). */
  lastCaughtUpTimeMs: number;
  private lastFetchLeaderLogEndOffset = -1n;
  private lastFetchTimeMs = 0;

  constructor(
    readonly brokerId: number,
    /** ISR members start caught up (a new leader gives them a full lag window), others do not. */
    lastCaughtUpTimeMs: number,
  ) {
    this.lastCaughtUpTimeMs = lastCaughtUpTimeMs;
  }

  /** A follower fetch at `fetchOffset`, served when the leader's log ended at `leaderLogEndOffset`. */
  updateFetchState(fetchOffset: bigint, leaderLogEndOffset: bigint, fetchTimeMs: number): void {
    if (fetchOffset >= leaderLogEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, fetchTimeMs);
    } else if (fetchOffset >= this.lastFetchLeaderLogEndOffset && this.lastFetchLeaderLogEndOffset >= 0n) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.lastFetchTimeMs);
    }
    this.logEndOffset = fetchOffset;
    this.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    this.lastFetchTimeMs = fetchTimeMs;
  }

  /** Caught up enough to count for the ISR: at the leader's end, or caught up within `lagMaxMs`. */
  isCaughtUp(leaderLogEndOffset: bigint, nowMs: number, lagMaxMs: number): boolean {
    return this.logEndOffset >= leaderLogEndOffset || nowMs - this.lastCaughtUpTimeMs <= lagMaxMs;
  }
}
