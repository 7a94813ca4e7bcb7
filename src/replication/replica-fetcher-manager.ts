/**
 * Runs the follower fetchers of a broker on real time (Kafka's
 * ReplicaFetcherManager): one ReplicaFetcher per leader broker, each a loop
 * of Fetch request, response, apply, through an injected transport (the
 * broker sends Fetch over its inter-broker listener; tests pass another
 * ReplicaManager directly). The ReplicaManager tells it when a partition
 * starts following a (new) leader or epoch (`onFollowerChange`); partitions
 * that stop being followers of that leader are dropped by the fetcher itself.
 *
 * A long-poll Fetch keeps each loop mostly waiting on the leader (up to
 * replica.fetch.wait.max.ms); after an error the partition or the whole
 * fetcher backs off replica.fetch.backoff.ms.
 */
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import type { TimerHandle, Timers } from '../util/timer.js';
import type { Partition } from './partition.js';
import {
  REPLICA_FETCHER_DEFAULTS, ReplicaFetcher, type FetcherEvent, type FollowerLogAccess, type ReplicaFetchRequest, type ReplicaFetchResponse, type ReplicaFetcherOptions,
} from './replica-fetcher.js';

/** Sends a follower's Fetch to a leader broker. Rejects on connection errors and timeouts. */
export interface ReplicaFetchTransport {
  fetch(leaderId: number, request: ReplicaFetchRequest): Promise<ReplicaFetchResponse>;
  /** No fetcher talks to `leaderId` any more: its connection may go. */
  release(leaderId: number): void;
}

export interface ReplicaFetcherManagerDeps {
  readonly logs: FollowerLogAccess;
  readonly transport: ReplicaFetchTransport;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly options?: Partial<ReplicaFetcherOptions>;
}

interface Running {
  readonly fetcher: ReplicaFetcher;
  /** Resolves the loop's idle wait (a partition was added, or shutdown). */
  wake: (() => void) | null;
  stopped: boolean;
}

export class ReplicaFetcherManager {
  private readonly running = new Map<number, Running>();
  private readonly options: ReplicaFetcherOptions;
  private closed = false;

  constructor(private readonly deps: ReplicaFetcherManagerDeps) {
    this.options = { ...REPLICA_FETCHER_DEFAULTS, ...deps.options };
  }

  /** Fetchers running (one per leader) and partitions they fetch (metrics, tests). */
  get stats(): { fetchers: number; partitions: number } {
    let partitions = 0;
    for (const r of this.running.values()) partitions += r.fetcher.size;
    return { fetchers: this.running.size, partitions };
  }

  /** The largest follower lag, in records, over every fetcher (0 when this broker follows nothing). */
  maxLag(): bigint {
    let max = 0n;
    for (const r of this.running.values()) {
      const lag = r.fetcher.maxLag();
      if (lag > max) max = lag;
    }
    return max;
  }

  /**
   * `p` follows a (new) leader or leader epoch, or leads now: it moves to the
   * fetcher of its leader, or leaves every fetcher.
   */
  partitionChanged(p: Partition): void {
    for (const [leaderId, r] of this.running) if (leaderId !== p.leaderId) r.fetcher.remove(p);
    if (this.closed || p.isLeader || p.leaderId < 0) return;
    const existing = this.running.get(p.leaderId);
    if (existing !== undefined) {
      existing.fetcher.add(p);
      existing.wake?.();
      return;
    }
    const leaderId = p.leaderId;
    const fetcher = new ReplicaFetcher(leaderId, this.deps.logs, this.options, (e) => this.logEvent(leaderId, e));
    const r: Running = { fetcher, wake: null, stopped: false };
    this.running.set(leaderId, r);
    // The partition goes in before the loop starts: a loop with nothing to fetch ends at once.
    fetcher.add(p);
    void this.loop(leaderId, r);
  }

  private async loop(leaderId: number, r: Running): Promise<void> {
    const { clock, transport } = this.deps;
    while (!r.stopped) {
      const request = r.fetcher.buildRequest(clock.nowMs());
      if (request === null) {
        if (r.fetcher.size === 0) break;
        await this.idle(r);
        continue;
      }
      try {
        const response = await transport.fetch(leaderId, request);
        if (!r.stopped) r.fetcher.processResponse(request, response, clock.nowMs());
      } catch (err) {
        if (r.stopped) break;
        this.deps.logger.debug({ leaderId, err: (err as Error).message }, 'replica fetch failed; backing off');
        r.fetcher.processFailure(clock.nowMs());
      }
    }
    if (this.running.get(leaderId) === r) {
      this.running.delete(leaderId);
      transport.release(leaderId);
    }
  }

  /** Waits until a backing-off partition is ready, a partition is added, or shutdown. */
  private idle(r: Running): Promise<void> {
    const readyAt = r.fetcher.nextReadyAtMs();
    const waitMs = readyAt === null ? this.options.backoffMs : Math.max(1, readyAt - this.deps.clock.nowMs());
    return new Promise<void>((resolve) => {
      let timer: TimerHandle | undefined;
      const done = (): void => {
        timer?.cancel();
        r.wake = null;
        resolve();
      };
      r.wake = done;
      timer = this.deps.timers.schedule(waitMs, done);
    });
  }

  private logEvent(leaderId: number, e: FetcherEvent): void {
    const { logger } = this.deps;
    if (e.kind === 'truncated') {
      const level = e.belowHighWatermark ? 'warn' : 'info';
      logger[level]({ leaderId, topic: e.topic, partition: e.partition, toOffset: String(e.toOffset), removed: String(e.removed) },
        e.belowHighWatermark ? 'follower truncated below its high watermark (after an unclean election)' : 'follower truncated its log to the leader\'s');
    } else if (e.kind === 'restarted_at_leader_start') {
      logger.info({ leaderId, topic: e.topic, partition: e.partition, offset: String(e.offset) }, 'follower log restarted at the leader\'s log start');
    } else {
      logger.debug({ leaderId, topic: e.topic, partition: e.partition, errorCode: e.errorCode }, 'replica fetch partition error');
    }
  }

  /** Stops every fetcher (shutdown); in-flight fetches are abandoned. */
  shutdown(): void {
    this.closed = true;
    for (const [leaderId, r] of this.running) {
      r.stopped = true;
      r.wake?.();
      this.deps.transport.release(leaderId);
    }
    this.running.clear();
  }
}
