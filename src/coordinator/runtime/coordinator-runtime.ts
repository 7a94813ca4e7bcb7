/**
 * The coordinator runtime: what every coordinator that keeps its state in a
 * partitioned internal topic needs (the group coordinator on
 * __consumer_offsets today, the transaction coordinator on
 * __transaction_state next), written once (Kafka's CoordinatorRuntime).
 *
 * Per partition of the topic ("shard"):
 * - when this node becomes the partition's leader, the shard's state is
 *   loaded from the log (start to high watermark) and handed to the
 *   coordinator (`activate`); requests for it answer "loading" meanwhile;
 * - when leadership moves away (or the partition goes), the coordinator drops
 *   that state (`deactivate`) and requests answer "not coordinator";
 * - writes go through the ReplicaManager as origin `coordinator`, acks=all,
 *   so they are validated, ordered, replicated, and wake long-poll fetches
 *   exactly like client writes.
 *
 * Leadership comes from ReplicaManager.onLeadershipChange, which the
 * metadata image drives (Partition.makeLeader / makeFollower).
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { Partition } from '../../replication/partition.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';

/** What a coordinator plugs into the runtime: how to load a shard, install it, and drop it. */
export interface CoordinatorShards<Loaded> {
  /** Reads the shard's state from its partition's log (this node leads it). */
  load(partition: Partition): Promise<Loaded>;
  /** Installs a loaded shard; the coordinator serves its keys from now on. */
  activate(partitionIndex: number, loaded: Loaded): void;
  /** Drops a shard's state: leadership moved away or the partition is gone. */
  deactivate(partitionIndex: number): void;
}

/** Whether this node serves a shard now. */
export type ShardStatus = 'not_coordinator' | 'loading' | 'loaded';

/** A coordinator write's outcome; errorCode NONE once the high watermark covers it. */
export interface CoordinatorAppendOutcome {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly lastOffset: bigint;
}

/** The write side a coordinator's store uses (CoordinatorRuntime implements it). */
export interface CoordinatorWriter {
  /** This node's replica of partition `n` of the coordinator's topic, if hosted here. */
  partition(n: number): Partition | undefined;
  /**
   * Appends `batch` (built by the coordinator) to partition `n`. The append
   * happens synchronously inside the call, so calls land in call order; the
   * promise settles once it is committed (or failed).
   */
  append(n: number, batch: Buffer): Promise<CoordinatorAppendOutcome>;
}

export interface CoordinatorRuntimeOptions<Loaded> {
  /** The internal topic, e.g. __consumer_offsets. */
  readonly topic: string;
  readonly numPartitions: number;
  readonly replicaManager: ReplicaManager;
  readonly shards: CoordinatorShards<Loaded>;
  /** How long a write waits for the in-sync replicas (offsets.commit.timeout.ms for groups). */
  readonly writeTimeoutMs: number;
  readonly logger: Logger;
}

export class CoordinatorRuntime<Loaded> implements CoordinatorWriter {
  /** Partitions being loaded, each with the token of its load (a later load replaces an earlier one). */
  private readonly loading = new Map<number, symbol>();
  private readonly loaded = new Set<number>();
  private stopped = false;

  constructor(private readonly opts: CoordinatorRuntimeOptions<Loaded>) {
    opts.replicaManager.onLeadershipChange((p, isLeader) => {
      if (p.topic === opts.topic) this.onLeadershipChange(p.partition, isLeader);
    });
  }

  /** Loads every partition of the topic this node already leads (start-up, after the metadata replay). */
  loadHosted(): void {
    for (let n = 0; n < this.opts.numPartitions; n++) {
      const p = this.partition(n);
      if (p?.isLeader) this.onLeadershipChange(n, true);
    }
  }

  partition(n: number): Partition | undefined {
    return this.opts.replicaManager.get(this.opts.topic, n);
  }

  status(n: number): ShardStatus {
    const p = this.partition(n);
    if (!p || !p.isLeader) return 'not_coordinator';
    return this.loaded.has(n) && !this.loading.has(n) ? 'loaded' : 'loading';
  }

  /** True while any partition led here is still loading. */
  get loadInProgress(): boolean {
    return this.loading.size > 0;
  }

  async append(n: number, batch: Buffer): Promise<CoordinatorAppendOutcome> {
    const [result] = await this.opts.replicaManager.appendRecords({
      origin: 'coordinator',
      acks: -1,
      timeoutMs: this.opts.writeTimeoutMs,
      entries: [{ topic: this.opts.topic, partition: n, records: batch }],
    });
    if (result === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no append result', lastOffset: -1n };
    return { errorCode: result.errorCode, errorMessage: result.errorMessage, lastOffset: result.requiredOffset - 1n };
  }

  stop(): void {
    this.stopped = true;
  }

  private onLeadershipChange(n: number, isLeader: boolean): void {
    if (this.stopped) return;
    const p = this.partition(n);
    if (isLeader && p?.isLeader) {
      if (!this.loaded.has(n) && !this.loading.has(n)) void this.load(n, p);
      return;
    }
    if (this.loaded.delete(n) || this.loading.delete(n)) {
      this.opts.shards.deactivate(n);
      this.opts.logger.info({ topic: this.opts.topic, partition: n }, 'unloaded coordinator partition');
    }
  }

  private async load(n: number, p: Partition): Promise<void> {
    const token = Symbol(`load ${this.opts.topic}-${n}`);
    this.loading.set(n, token);
    const current = (): boolean => this.loading.get(n) === token;
    try {
      const state = await this.opts.shards.load(p);
      // Unloaded (leadership moved), reloaded, or stopped meanwhile: drop what was read.
      if (!current() || this.stopped || this.partition(n) !== p || !p.isLeader) return;
      this.opts.shards.activate(n, state);
      this.loaded.add(n);
    } catch (err) {
      if (current()) this.opts.logger.error({ err, topic: this.opts.topic, partition: n }, 'could not load coordinator partition; its keys stay unavailable');
    } finally {
      if (current()) this.loading.delete(n);
    }
  }
}
