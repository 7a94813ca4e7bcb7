/**
 * A follower's fetcher for the partitions one leader broker leads (Kafka's
 * ReplicaFetcherThread / AbstractFetcherThread), as a deterministic state
 * machine: `buildRequest` says what to fetch next, `processResponse` applies
 * the answer (appends with origin `replica`, truncation, high watermark and
 * log start), `processFailure` backs off. Who sends the request and when is
 * the driver's business (ReplicaFetcherManager on real time, the replication
 * simulation on virtual time).
 *
 * Per partition it keeps the fetch offset (= this replica's log end) and the
 * epoch of the last fetched batch, sent as LastFetchedEpoch (Fetch v12+): the
 * leader answers DivergingEpoch when our log went another way (KIP-320), and
 * we truncate exactly as Kafka does (KIP-101/KIP-279): to the smaller of the
 * leader's end offset for that epoch and our own end of it, then fetch
 * again, which repeats until the logs agree.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { Partition } from './partition.js';
import { followLeaderLogStart, restartFollowerAt, truncateFollowerTo } from './log-truncation.js';
import type { DivergingEpoch, PartitionAppendResult } from './replica-manager.js';

/** One partition in a follower's Fetch. */
export interface ReplicaFetchPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
  readonly partitionMaxBytes: number;
}

export interface ReplicaFetchRequest {
  readonly replicaId: number;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly partitions: readonly ReplicaFetchPartition[];
}

export interface ReplicaFetchPartitionResponse {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly logStartOffset: bigint;
  /** The record batches (whole ones), or null / empty. */
  readonly records: Buffer | null;
  readonly divergingEpoch: DivergingEpoch | null;
}

export interface ReplicaFetchResponse {
  readonly errorCode: number;
  readonly partitions: readonly ReplicaFetchPartitionResponse[];
}

/** What the fetcher needs from the replica manager (so the simulation can hand it one too). */
export interface FollowerLogAccess {
  readonly localNodeId: number;
  /** The hosted partition, if any. */
  get(topic: string, partition: number): Partition | undefined;
  /** Appends fetched batches as follower (ReplicaManager.appendReplicated). */
  appendReplicated(p: Partition, entry: { topic: string; partition: number; records: Buffer }): PartitionAppendResult;
}

export interface ReplicaFetcherOptions {
  /** replica.fetch.wait.max.ms (Kafka: 500). */
  readonly maxWaitMs: number;
  /** replica.fetch.min.bytes (Kafka: 1). */
  readonly minBytes: number;
  /** replica.fetch.response.max.bytes (Kafka: 10 MiB). */
  readonly maxBytes: number;
  /** replica.fetch.max.bytes per partition (Kafka: 1 MiB). */
  readonly partitionMaxBytes: number;
  /** replica.fetch.backoff.ms: pause after an error (Kafka: 1000). */
  readonly backoffMs: number;
}

export const REPLICA_FETCHER_DEFAULTS: ReplicaFetcherOptions = {
  maxWaitMs: 500,
  minBytes: 1,
  maxBytes: 10 * 1024 * 1024,
  partitionMaxBytes: 1024 * 1024,
  backoffMs: 1000,
};

interface FetchState {
  readonly partition: Partition;
  /** The leader epoch this fetch state belongs to (the partition's when it was added). */
  readonly leaderEpoch: number;
  /** No fetch before this time (after an error). */
  delayedUntilMs: number;
  /** The leader's high watermark minus our log end after the last answer (Kafka's FetcherLagMetrics). */
  lag: bigint;
}

/** Something the fetcher did that the driver may log or count (truncations, errors). */
export type FetcherEvent =
  | { kind: 'truncated'; topic: string; partition: number; toOffset: bigint; removed: bigint; belowHighWatermark: boolean }
  | { kind: 'restarted_at_leader_start'; topic: string; partition: number; offset: bigint }
  | { kind: 'partition_error'; topic: string; partition: number; errorCode: number };

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ReplicaFetcher {
  private readonly states = new Map<string, FetchState>();

  constructor(
    readonly leaderId: number,
    private readonly logs: FollowerLogAccess,
    private readonly opts: ReplicaFetcherOptions = REPLICA_FETCHER_DEFAULTS,
    private readonly onEvent: (e: FetcherEvent) => void = () => undefined,
  ) {}

  get size(): number {
    return this.states.size;
  }

  /** The largest lag, in records, of the partitions this fetcher follows (Kafka's ReplicaFetcherManager MaxLag). */
  maxLag(): bigint {
    let max = 0n;
    for (const s of this.states.values()) if (this.isCurrent(s) && s.lag > max) max = s.lag;
    return max;
  }

  has(p: Partition): boolean {
    return this.states.get(key(p.topic, p.partition))?.partition === p;
  }

  /** Starts (or restarts, for a new leader epoch) fetching `p` from this leader at its log end. */
  add(p: Partition): void {
    this.states.set(key(p.topic, p.partition), { partition: p, leaderEpoch: p.leaderEpoch, delayedUntilMs: 0, lag: 0n });
  }

  remove(p: Partition): void {
    const k = key(p.topic, p.partition);
    if (this.states.get(k)?.partition === p) this.states.delete(k);
  }

  /** The next Fetch, or null when no partition is ready (none, or all backing off). */
  buildRequest(nowMs: number): ReplicaFetchRequest | null {
    const partitions: ReplicaFetchPartition[] = [];
    for (const [k, s] of this.states) {
      // A partition that left this leader (removed, now leading, new epoch) is dropped here.
      if (!this.isCurrent(s)) {
        this.states.delete(k);
        continue;
      }
      if (s.delayedUntilMs > nowMs) continue;
      const p = s.partition;
      partitions.push({
        topic: p.topic,
        topicId: p.topicId,
        partition: p.partition,
        fetchOffset: p.logEndOffset,
        currentLeaderEpoch: s.leaderEpoch,
        lastFetchedEpoch: p.leaderEpochs.latestEpoch,
        logStartOffset: p.logStartOffset,
        partitionMaxBytes: this.opts.partitionMaxBytes,
      });
    }
    if (partitions.length === 0) return null;
    return { replicaId: this.logs.localNodeId, maxWaitMs: this.opts.maxWaitMs, minBytes: this.opts.minBytes, maxBytes: this.opts.maxBytes, partitions };
  }

  /** The earliest time a backing-off partition becomes ready, or null when none is waiting. */
  nextReadyAtMs(): number | null {
    let next: number | null = null;
    for (const s of this.states.values()) if (this.isCurrent(s) && (next === null || s.delayedUntilMs < next)) next = s.delayedUntilMs;
    return next;
  }

  /**
   * Applies the leader's answer to `request`. Partitions whose state changed
   * meanwhile (removed, new leader epoch, log end moved) are skipped: what was
   * fetched no longer fits.
   */
  processResponse(request: ReplicaFetchRequest, response: ReplicaFetchResponse, nowMs: number): void {
    if (response.errorCode !== ErrorCode.NONE) {
      this.processFailure(nowMs);
      return;
    }
    const asked = new Map(request.partitions.map((r) => [key(r.topic, r.partition), r]));
    for (const r of response.partitions) {
      const k = key(r.topic, r.partition);
      const s = this.states.get(k);
      const sent = asked.get(k);
      if (s === undefined || sent === undefined || !this.isCurrent(s)) continue;
      if (s.leaderEpoch !== sent.currentLeaderEpoch || s.partition.logEndOffset !== sent.fetchOffset) continue;
      this.processPartition(s, sent, r, nowMs);
    }
  }

  /** The request failed as a whole (connection lost, timeout): every partition backs off. */
  processFailure(nowMs: number): void {
    for (const s of this.states.values()) s.delayedUntilMs = nowMs + this.opts.backoffMs;
  }

  private processPartition(s: FetchState, sent: ReplicaFetchPartition, r: ReplicaFetchPartitionResponse, nowMs: number): void {
    const p = s.partition;
    if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      this.handleOutOfRange(p, sent, r);
      return;
    }
    if (r.errorCode !== ErrorCode.NONE) {
      // Not the leader (any more), a fenced or unknown epoch, a storage error
      // there: wait for the metadata to say who leads, and retry later.
      s.delayedUntilMs = nowMs + this.opts.backoffMs;
      this.onEvent({ kind: 'partition_error', topic: p.topic, partition: p.partition, errorCode: r.errorCode });
      return;
    }
    if (r.divergingEpoch !== null) {
      this.truncateOnDivergence(p, r.divergingEpoch);
      return;
    }
    if (r.records !== null && r.records.length > 0) {
      const appended = this.logs.appendReplicated(p, { topic: p.topic, partition: p.partition, records: r.records });
      if (appended.errorCode !== ErrorCode.NONE) {
        s.delayedUntilMs = nowMs + this.opts.backoffMs;
        this.onEvent({ kind: 'partition_error', topic: p.topic, partition: p.partition, errorCode: appended.errorCode });
        return;
      }
    }
    p.updateFollowerHighWatermark(r.highWatermark);
    followLeaderLogStart(p, r.logStartOffset);
    s.lag = r.highWatermark > p.logEndOffset ? r.highWatermark - p.logEndOffset : 0n;
  }

  /**
   * Kafka's truncation rule: the leader says its epoch E ends at L. Our own
   * end for E (the largest epoch <= E we have, and where it ends) is F.
   * Truncate to min(L, F): if we have E, the logs agree up to there; if we do
   * not, that is an intermediate point and the next fetch (with our new last
   * epoch) may diverge again, further back.
   */
  private truncateOnDivergence(p: Partition, diverging: DivergingEpoch): void {
    let target: bigint;
    if (diverging.endOffset < 0n) {
      // The leader has no epoch at or below ours: keep only what is committed.
      target = p.highWatermark;
    } else {
      const ours = p.endOffsetForEpoch(diverging.epoch);
      target = ours.endOffset >= 0n && ours.endOffset < diverging.endOffset ? ours.endOffset : diverging.endOffset;
    }
    if (target > p.logEndOffset) target = p.logEndOffset;
    this.truncate(p, target);
  }

  private truncate(p: Partition, target: bigint): void {
    const belowHighWatermark = target < p.highWatermark;
    const removed = truncateFollowerTo(p, target);
    this.onEvent({ kind: 'truncated', topic: p.topic, partition: p.partition, toOffset: target, removed, belowHighWatermark });
  }

  /**
   * Our fetch offset is outside the leader's log. Below its start (retention
   * moved it past us): start over, empty, at its start. Above its end (only
   * after an unclean election, when our last epoch check did not catch it):
   * keep what the leader reports as committed.
   */
  private handleOutOfRange(p: Partition, sent: ReplicaFetchPartition, r: ReplicaFetchPartitionResponse): void {
    if (r.logStartOffset >= 0n && sent.fetchOffset < r.logStartOffset) {
      restartFollowerAt(p, r.logStartOffset);
      this.onEvent({ kind: 'restarted_at_leader_start', topic: p.topic, partition: p.partition, offset: r.logStartOffset });
      return;
    }
    const target = r.highWatermark >= 0n && r.highWatermark < p.logEndOffset ? r.highWatermark : p.highWatermark;
    if (target < p.logEndOffset) this.truncate(p, target);
  }

  /** Still the partition this fetcher serves: hosted, following this leader, in the epoch it was added for. */
  private isCurrent(s: FetchState): boolean {
    const p = s.partition;
    return this.logs.get(p.topic, p.partition) === p && !p.isLeader && p.leaderId === this.leaderId && p.leaderEpoch === s.leaderEpoch;
  }
}
