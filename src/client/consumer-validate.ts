/**
 * The Consumer's position validation after a leader change (KIP-320), as the
 * Java consumer's OffsetsForLeaderEpochUtils: a partition whose leader epoch
 * moved (consumer-fetcher.ts notices it in the metadata) stops fetching
 * until OffsetForLeaderEpoch (API 23), sent to the new leader with the epoch
 * of the last batch consumed and the caller's current leader epoch, says
 * where that epoch ends in the new leader's log:
 *
 * - at or past the position: nothing was lost; fetching goes on;
 * - below the position: the log was truncated under the consumer (an
 *   unclean election, or a leader that lost acks=1 data). With an
 *   autoOffsetReset policy the position moves back to that end offset and a
 *   warning is logged (Java logs and seeks the same way); with 'none' the
 *   application gets a LogTruncationError and the partition stops until it
 *   seeks;
 * - no end offset (the leader knows no epoch that old): the reset policy
 *   applies, or LogTruncationError without a divergent offset.
 *
 * Stale-metadata answers (FENCED/UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER)
 * and unreachable leaders leave the partition waiting: the metadata is
 * refreshed and validation runs again after the cluster's backoff. A broker
 * without OffsetForLeaderEpoch skips validation (as Java).
 */
import { offsetsForLeaderEpochFor, type LeaderEpochResult } from './admin-offsets.js';
import { REFRESH_METADATA_ERRORS, type Cluster } from './cluster.js';
import type { PartitionState } from './consumer-state.js';
import { LogTruncationError, UnsupportedVersionError } from '../net/errors.js';

/** Where a consumer's warnings go: `console`, a pino logger's `warn` wrapped, or your own. */
export interface ConsumerLogger {
  warn(message: string): void;
}

/** The default warning sink: a process warning (printed once per message on stderr by Node). */
export const processWarnings: ConsumerLogger = {
  warn: (message) => process.emitWarning(message, { code: 'TRIB_LOG_TRUNCATION' }),
};

/** What validation needs from the Consumer. */
export interface ValidationHost<K, V> {
  readonly autoOffsetReset: 'earliest' | 'latest' | 'none';
  readonly logger: ConsumerLogger;
  states(): Iterable<PartitionState<K, V>>;
  cluster(): Cluster | null;
  closed(): boolean;
  /** An error for the application's next pull. */
  fail(err: unknown): void;
  /** A reset through ListOffsets (no end offset known). */
  reset(state: PartitionState<K, V>): void;
  /** Positions changed or validation ended: fetch again. */
  changed(): void;
  /** The metadata is stale: refresh it. */
  refreshMetadata(): void;
}

/** A partition sent for validation, with what it was sent under. */
interface Sent<K, V> {
  readonly state: PartitionState<K, V>;
  readonly epoch: number;
  readonly position: bigint;
  readonly lastEpoch: number;
}

export class PositionValidator<K, V> {
  private running = false;
  private again = false;

  constructor(private readonly host: ValidationHost<K, V>) {}

  /** Validates every partition waiting for it; one run at a time (a call during a run runs again after it). */
  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    const cluster = this.host.cluster();
    if (cluster === null || this.host.closed()) return;
    this.running = true;
    void this.loop(cluster).finally(() => {
      this.running = false;
      this.host.changed();
    });
  }

  private async loop(cluster: Cluster): Promise<void> {
    for (let attempt = 0; !this.host.closed(); attempt++) {
      this.again = false;
      const sent: Sent<K, V>[] = [];
      for (const s of this.host.states()) {
        if (!s.awaitingValidation || !s.assigned || s.position === null) continue;
        sent.push({ state: s, epoch: s.epoch, position: s.position, lastEpoch: s.lastEpoch });
      }
      if (sent.length === 0) return;
      const retry = await this.validate(cluster, sent);
      if (!retry && !this.again) return;
      if (retry) {
        this.host.refreshMetadata();
        await cluster.backoff(Math.min(attempt, 4));
      }
    }
  }

  /** One OffsetForLeaderEpoch round; true when some partition must be tried again. */
  private async validate(cluster: Cluster, sent: readonly Sent<K, V>[]): Promise<boolean> {
    let results: LeaderEpochResult[];
    try {
      results = await offsetsForLeaderEpochFor(
        cluster,
        sent.map((i) => ({ topic: i.state.topic, partition: i.state.partition, leaderEpoch: i.lastEpoch, currentLeaderEpoch: i.state.leaderEpoch })),
      );
    } catch (err) {
      if (err instanceof UnsupportedVersionError) {
        for (const i of sent) i.state.awaitingValidation = false;
        return false;
      }
      if (cluster.isRetriable(err, true)) return true;
      this.host.fail(err);
      for (const i of sent) i.state.awaitingValidation = false;
      return false;
    }
    let retry = false;
    sent.forEach((item, index) => {
      const r = results[index] as LeaderEpochResult;
      const s = item.state;
      // Seeked, reset or revoked meanwhile: that answer is for a position no longer held.
      if (s.epoch !== item.epoch || !s.assigned || !s.awaitingValidation) return;
      if (r.error !== null) {
        if (REFRESH_METADATA_ERRORS.has(r.error.kafkaErrorCode)) {
          retry = true;
          return;
        }
        s.awaitingValidation = false;
        this.host.fail(r.error);
        return;
      }
      s.awaitingValidation = false;
      this.apply(item, r);
    });
    return retry;
  }

  /** The end offset of the position's epoch in the new leader's log, against the position. */
  private apply(item: Sent<K, V>, r: LeaderEpochResult): void {
    const s = item.state;
    const policy = this.host.autoOffsetReset;
    const where = `${s.topic}-${s.partition}`;
    if (r.endOffset < 0n || r.leaderEpoch < 0) {
      if (policy === 'none') {
        s.fetchOffset = null;
        this.host.fail(new LogTruncationError(s.topic, s.partition, item.position, null, -1));
        return;
      }
      this.host.logger.warn(`${where}: the leader has no end offset for epoch ${item.lastEpoch} (position ${item.position}): the log was truncated; resetting to ${policy}`);
      this.host.reset(s);
      return;
    }
    if (r.endOffset >= item.position) return;
    if (policy === 'none') {
      s.fetchOffset = null;
      this.host.fail(new LogTruncationError(s.topic, s.partition, item.position, r.endOffset, r.leaderEpoch));
      return;
    }
    this.host.logger.warn(
      `${where}: the log was truncated after a leader change: position ${item.position} (epoch ${item.lastEpoch}) is past the leader's end offset ${r.endOffset} (epoch ${r.leaderEpoch}); resetting the position to ${r.endOffset}`,
    );
    s.seekTo(r.endOffset);
    s.lastEpoch = r.leaderEpoch;
  }
}
