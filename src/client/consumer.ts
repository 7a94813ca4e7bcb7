/**
 * `Consumer`: consumer groups (subscribe) or manual assignment (assign),
 * with `for await` over records, `batches()` (one await per batch: the fast
 * path) and `run()` callbacks, on top of `Cluster`, `GroupMember` and the
 * fetcher (consumer-fetcher.ts).
 *
 *   const consumer = new Consumer({ bootstrap, groupId: 'audit', valueDeserializer: deserializers.json });
 *   await consumer.subscribe(['orders']);
 *   for await (const record of consumer) { ... }     // ends when close() is called
 *
 * Positions: `position(tp)` is the next offset handed to the application;
 * it moves when a batch is handed out, and per record with `for await` over
 * records (leaving the loop early refetches from the record after the last
 * one received) and run({ eachRecord }). Commits are "next offset to read",
 * as Kafka.
 * Auto-commit commits the positions every autoCommitIntervalMs, at safe
 * points only (the application asked for more, or is waiting), so what is
 * committed has been processed; and on revoke and close.
 *
 * Rebalances run in the background; revokes wait for a safe point
 * (consumer-group.ts). Listeners may be async; the rebalance waits for
 * them, and `commit()` works inside onPartitionsRevoked.
 */
import { Cluster } from './cluster.js';
import { groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { PartitionDecoder } from './consumer-decode.js';
import { Fetcher } from './consumer-fetcher.js';
import { createMember } from './consumer-group.js';
import { PartitionState, partitionKey } from './consumer-state.js';
import {
  AUTO_COMMIT_INTERVAL_MS_DEFAULT,
  CONSUMER_FETCH_MAX_BYTES_DEFAULT,
  CONSUMER_FETCH_MAX_WAIT_MS_DEFAULT,
  CONSUMER_FETCH_MIN_BYTES_DEFAULT,
  MAX_PARTITION_FETCH_BYTES_DEFAULT,
  MAX_POLL_RECORDS_DEFAULT,
  PREFETCH_FETCHES_MAX,
  type ConsumerBatch,
  type ConsumerOptions,
  type ConsumerRecord,
  type OffsetSpecifier,
  type RunOptions,
  type TopicPartition,
} from './consumer-types.js';
import { ClientErrorCode, TributaryClientError, invalidArgument } from './errors.js';
import type { CommittedOffset, OffsetToCommit } from './group-offsets.js';
import type { GroupMember } from './group.js';
import { ConsumerOffsets } from './consumer-offsets.js';
import { recordIterator, runHandlers, type BatchSource } from './consumer-iterator.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { deserializers, type Deserializer } from './serde.js';

/** How often a pattern subscription re-lists the topics (Java's metadata.max.age.ms). */
export const METADATA_MAX_AGE_MS_DEFAULT = 300_000;
/** Join rounds one drive may run (a cooperative revoke needs a second one). */
const DRIVE_ROUNDS_MAX = 10;

/** The consumer: `new Consumer({ bootstrap, groupId })`, `subscribe` or `assign`, then `for await` over records, `batches()` or `run()`; `commit`, `seek`, `pause`/`resume`, `close`. */
export class Consumer<K = Buffer | null, V = Buffer | null> implements AsyncIterable<ConsumerRecord<K, V>> {
  private readonly options: ConsumerOptions<K, V> & { metadataMaxAgeMs?: number };
  private readonly groupId: string | null;
  private readonly autoCommit: boolean;
  private readonly autoCommitIntervalMs: number;
  private readonly maxPollRecords: number;
  private readonly keyDeserializer: Deserializer<K> | null;
  private readonly valueDeserializer: Deserializer<V> | null;
  private readonly states = new Map<string, PartitionState<K, V>>();
  private order: PartitionState<K, V>[] = [];
  private cursor = 0;
  private cluster: Cluster | null = null;
  private connecting: Promise<Cluster> | null = null;
  private fetcher: Fetcher<K, V> | null = null;
  private member: GroupMember | null = null;
  private mode: 'none' | 'subscribe' | 'assign' = 'none';
  private pattern: RegExp | null = null;
  private metadataTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private waiters: (() => void)[] = [];
  private failure: unknown = null;
  /** A batch is with the application (between handing it out and the next pull). */
  private delivering = false;
  private safePointWaiters: (() => void)[] = [];
  /** The partition of the batch handed out last. */
  private handedOut: PartitionState<K, V> | null = null;
  private driving: Promise<void> | null = null;
  private nextAutoCommitAt = 0;
  private readonly offsets: ConsumerOffsets<K, V>;
  /** What the record loops (consumer-iterator.ts) see of this consumer. */
  private readonly source: BatchSource<K, V>;

  constructor(options: ConsumerOptions<K, V> & { metadataMaxAgeMs?: number }) {
    if (typeof options.bootstrap !== 'string' || options.bootstrap.length === 0) throw invalidArgument('bootstrap is required');
    this.options = options;
    this.groupId = options.groupId ?? null;
    if (this.groupId === '') throw invalidArgument('groupId must not be empty');
    this.autoCommit = (options.autoCommit ?? true) && this.groupId !== null;
    this.autoCommitIntervalMs = positive(options.autoCommitIntervalMs ?? AUTO_COMMIT_INTERVAL_MS_DEFAULT, 'autoCommitIntervalMs');
    this.maxPollRecords = positive(options.maxPollRecords ?? MAX_POLL_RECORDS_DEFAULT, 'maxPollRecords');
    const identity = (d: Deserializer<unknown> | undefined): boolean => d === undefined || d === deserializers.buffer;
    this.keyDeserializer = identity(options.keyDeserializer as Deserializer<unknown> | undefined) ? null : (options.keyDeserializer as Deserializer<K>);
    this.valueDeserializer = identity(options.valueDeserializer as Deserializer<unknown> | undefined) ? null : (options.valueDeserializer as Deserializer<V>);
    if (options.autoOffsetReset !== undefined && !['earliest', 'latest', 'none'].includes(options.autoOffsetReset)) {
      throw invalidArgument(`autoOffsetReset must be 'earliest', 'latest' or 'none', got '${String(options.autoOffsetReset)}'`);
    }
    this.offsets = new ConsumerOffsets<K, V>({
      groupId: this.groupId,
      autoOffsetReset: options.autoOffsetReset ?? 'latest',
      isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0,
      states: this.states,
      cluster: () => this.ensureCluster(),
      connected: () => this.cluster !== null,
      member: () => this.member,
      closed: () => this.closed,
      fail: (err) => this.fail(err),
      changed: () => {
        this.fetcher?.pump();
        this.wakeup();
      },
    });
    this.source = {
      batches: () => this.batches(),
      handedOut: () => this.handedOut as PartitionState<K, V>,
      isClosed: () => this.closed,
      pump: () => this.fetcher?.pump(),
    };
  }

  // ------------------------------------------------------------ subscribe / assign

  /** Joins the group for these topics (or the topics matching a pattern); resolves after the first assignment. */
  async subscribe(topics: readonly string[] | string | RegExp): Promise<void> {
    this.assertOpen();
    if (this.mode === 'assign') throw invalidArgument('subscribe() after assign(): a consumer uses one or the other');
    if (this.groupId === null) throw invalidArgument('subscribe() needs a groupId (or use assign())');
    const cluster = await this.ensureCluster();
    let list: string[];
    if (topics instanceof RegExp) {
      this.pattern = new RegExp(topics.source, topics.flags.replace(/[gy]/g, ''));
      list = await this.matchPattern(cluster);
    } else {
      list = typeof topics === 'string' ? [topics] : [...topics];
      if (list.length === 0) throw invalidArgument('subscribe to at least one topic');
      this.pattern = null;
    }
    this.mode = 'subscribe';
    if (this.member === null) {
      this.member = createMember(cluster, this.options, list, this.pattern !== null, {
        assigned: (added) => this.onAssigned(added),
        revoked: (partitions) => this.onRevoked(partitions),
        lost: (partitions) => this.onLost(partitions),
        rejoinNeeded: () => {
          // The rebalance runs in the background; a revoke waits for the application's safe point.
          void this.driveGroup();
          this.wakeup();
        },
        error: (err) => this.fail(err),
      });
    } else {
      this.member.setTopics(list);
    }
    if (this.pattern !== null) this.scheduleMetadataRefresh();
    this.nextAutoCommitAt = performance.now() + this.autoCommitIntervalMs;
    await this.driveGroup();
    this.throwFailure();
  }

  /** Takes these partitions (no group membership; offsets from the group's commits when groupId is set, else autoOffsetReset). */
  assign(partitions: readonly TopicPartition[]): void {
    this.assertOpen();
    if (this.mode === 'subscribe') throw invalidArgument('assign() after subscribe(): a consumer uses one or the other');
    for (const tp of partitions) {
      if (typeof tp.topic !== 'string' || tp.topic.length === 0 || !Number.isInteger(tp.partition) || tp.partition < 0) {
        throw invalidArgument(`bad topic-partition ${JSON.stringify(tp)}`);
      }
    }
    this.mode = 'assign';
    const keep = new Set(partitions.map((tp) => partitionKey(tp.topic, tp.partition)));
    for (const [key, s] of this.states) {
      if (keep.has(key)) continue;
      s.assigned = false;
      this.states.delete(key);
    }
    const added = this.addStates(groupByTopic(partitions));
    this.nextAutoCommitAt = performance.now() + this.autoCommitIntervalMs;
    void this.ensureCluster()
      .then(() => this.offsets.initPositions(added))
      .then(
        () => this.fetcher?.pump(),
        (err: unknown) => this.fail(err),
      );
  }

  /** The partitions assigned now, sorted. */
  assignment(): TopicPartition[] {
    return [...this.states.values()].map((s) => ({ topic: s.topic, partition: s.partition })).sort(compareTp);
  }

  // ------------------------------------------------------------ iteration

  /** Batches of records, one partition each, at most maxPollRecords; one await per batch. Ends on close(). */
  async *batches(): AsyncGenerator<ConsumerBatch<K, V>, void, undefined> {
    try {
      for (;;) {
        const batch = await this.nextBatch();
        if (batch === null) return;
        yield batch;
      }
    } finally {
      this.setDelivering(false);
    }
  }

  /**
   * Records one by one (built on batches()). The position follows each
   * record; leaving the loop early rewinds the partition to the record after
   * the last one received, and close() stops the loop at once (and commits
   * only what was received).
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<ConsumerRecord<K, V>> {
    return recordIterator(this.source);
  }

  /** Calls eachBatch or eachRecord for everything consumed until close(). A callback that throws rejects run() (its record is not consumed). */
  run(handlers: RunOptions<K, V>): Promise<void> {
    return runHandlers(this.source, handlers);
  }

  // ------------------------------------------------------------ positions

  /** Moves a partition's position; drops what was buffered for it. */
  seek(tp: TopicPartition, offset: OffsetSpecifier): void {
    this.assertOpen();
    const s = this.stateOf(tp);
    if (offset === 'earliest' || offset === 'latest') {
      s.requestReset(offset);
      void this.offsets.resetOffsets();
    } else {
      if (typeof offset === 'number' && !Number.isSafeInteger(offset)) throw invalidArgument(`seek offset must be an integer, got ${offset}`);
      const o = BigInt(offset);
      if (o < 0n) throw invalidArgument(`seek offset must be >= 0, got ${o}`);
      s.seekTo(o);
    }
    this.fetcher?.pump();
    this.wakeup();
  }

  /** Stops handing out (and fetching) records of these assigned partitions until `resume`. */
  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.stateOf(tp).paused = true;
  }

  /** Resumes paused partitions. */
  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.stateOf(tp).paused = false;
    this.fetcher?.pump();
    this.wakeup();
  }

  /** The paused partitions, sorted. */
  paused(): TopicPartition[] {
    return [...this.states.values()].filter((s) => s.paused).map((s) => ({ topic: s.topic, partition: s.partition })).sort(compareTp);
  }

  /** The next offset handed out for the partition; null while it is not known yet. */
  position(tp: TopicPartition): bigint | null {
    return this.stateOf(tp).position;
  }

  /** The group's committed offsets (default: the assigned partitions); offset -1n when none. */
  async committed(partitions?: readonly TopicPartition[]): Promise<CommittedOffset[]> {
    this.assertOpen();
    this.requireGroup('committed()');
    return this.offsets.committed(groupByTopic(partitions ?? this.assignment()));
  }

  /** Commits the given offsets (next offset to read), or the current positions of every assigned partition. */
  async commit(offsets?: readonly { topic: string; partition: number; offset: bigint | number; metadata?: string | null }[]): Promise<void> {
    this.assertOpen();
    this.requireGroup('commit()');
    const list: OffsetToCommit[] =
      offsets === undefined
        ? this.offsets.positions([...this.states.values()], false)
        : offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), ...(o.metadata !== undefined ? { metadata: o.metadata } : {}) }));
    await this.offsets.commit(list);
  }

  // ------------------------------------------------------------ close

  /** Ends iteration, commits (autoCommit), revokes and leaves the group (not static members), closes connections. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.wakeup();
    this.setDelivering(false);
    if (this.metadataTimer !== null) clearTimeout(this.metadataTimer);
    this.metadataTimer = null;
    this.fetcher?.close();
    try {
      if (this.member !== null) {
        // Revokes (our onRevoked commits with autoCommit), then LeaveGroup unless static.
        await this.member.close();
      } else if (this.autoCommit && this.mode === 'assign') {
        await this.offsets.commit(this.offsets.positions([...this.states.values()], true)).catch(() => undefined);
      }
      await this.driving?.catch(() => undefined);
    } finally {
      for (const s of this.states.values()) s.assigned = false;
      this.states.clear();
      this.order = [];
      if (this.connecting !== null) await this.connecting.then((c) => c.close()).catch(() => undefined);
    }
  }

  // ------------------------------------------------------------ the pull

  private async nextBatch(): Promise<ConsumerBatch<K, V> | null> {
    this.setDelivering(false);
    for (;;) {
      if (this.closed) return null;
      this.throwFailure();
      // Rebalances run in the background (kept partitions go on being consumed with cooperative-sticky).
      if (this.member !== null && this.member.rejoinNeeded) void this.driveGroup();
      // Not while joining: the commit would queue behind the parked JoinGroup on the coordinator connection.
      if (this.autoCommit && performance.now() >= this.nextAutoCommitAt && this.member?.isJoining !== true) await this.autoCommitNow();
      this.offsets.retryPositions();
      const taken = await this.takeReady();
      if (taken === 'again') continue;
      if (taken !== null) {
        this.delivering = true;
        return taken;
      }
      await this.waitForData();
    }
  }

  /** Hands out the next batch of a ready partition (round robin); 'again' when a fetch held no records. */
  private async takeReady(): Promise<ConsumerBatch<K, V> | null | 'again'> {
    const n = this.order.length;
    for (let i = 0; i < n; i++) {
      const s = this.order[(this.cursor + i) % n] as PartitionState<K, V>;
      if (!s.ready()) continue;
      this.cursor = (this.cursor + i + 1) % n;
      const fetched = s.buffered[0] as NonNullable<(typeof s.buffered)[number]>;
      const epoch = s.epoch;
      let out: ConsumerRecord<K, V>[];
      // Decoded maxPollRecords at a time: only the records handed out are alive.
      const decoder = (fetched.decoder ??= new PartitionDecoder<K, V>(
        { topic: s.topic, partition: s.partition, fetchOffset: fetched.fetchOffset, keyDeserializer: this.keyDeserializer, valueDeserializer: this.valueDeserializer },
        fetched.data,
        fetched.aborted,
      ));
      try {
        out = await decoder.read(this.maxPollRecords);
      } catch (err) {
        if (s.epoch === epoch && s.position !== null) s.seekTo(s.position);
        throw err instanceof DecodeError || err instanceof TributaryClientError
          ? err
          : new TributaryClientError(ClientErrorCode.DESERIALIZATION, `${s.topic}-${s.partition}: a deserializer threw: ${(err as Error).message}`, { cause: err });
      }
      // Seeked (or revoked) while decoding: that fetch is no longer wanted.
      if (s.epoch !== epoch || s.buffered[0] !== fetched) return 'again';
      if (decoder.finished) {
        s.buffered.shift();
        s.position = fetched.nextOffset;
        this.fetcher?.pump();
      } else {
        s.position = (out[out.length - 1] as ConsumerRecord<K, V>).offset + 1n;
      }
      s.highWatermark = fetched.highWatermark;
      if (out.length === 0) return 'again';
      this.handedOut = s;
      return { topic: s.topic, partition: s.partition, records: out, highWatermark: fetched.highWatermark };
    }
    return null;
  }

  private waitForData(): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const done = (): void => {
        if (timer !== null) clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
      // Waiting is a safe point: wake up for the next auto-commit. One already due waits for the
      // rebalance in progress, whose end wakes the pull.
      const dueInMs = this.nextAutoCommitAt - performance.now();
      if (this.autoCommit && this.states.size > 0 && dueInMs > 0) timer = setTimeout(() => this.wakeup(), dueInMs);
    });
  }

  private wakeup(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  // ------------------------------------------------------------ group

  private driveGroup(): Promise<void> {
    this.driving ??= (async () => {
      try {
        for (let round = 0; round < DRIVE_ROUNDS_MAX; round++) {
          const member = this.member;
          if (member === null || this.closed || !member.rejoinNeeded) break;
          await member.ensureActive();
        }
      } catch (err) {
        if (!this.closed) this.fail(err);
      } finally {
        this.driving = null;
        this.wakeup();
      }
    })();
    return this.driving;
  }

  private async onAssigned(added: TopicPartitions[]): Promise<void> {
    const states = this.addStates(added);
    await this.offsets.initPositions(states);
    const list = states.map((s) => ({ topic: s.topic, partition: s.partition }));
    if (list.length > 0) await this.options.listeners?.onPartitionsAssigned?.(list);
    this.fetcher?.pump();
    this.wakeup();
  }

  /** A batch is with the application; false wakes the revokes waiting for a safe point. */
  private setDelivering(delivering: boolean): void {
    this.delivering = delivering;
    if (delivering) return;
    const waiters = this.safePointWaiters;
    this.safePointWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when the application is not inside a batch (at once when it is not, or on close). */
  private safePoint(): Promise<void> {
    if (!this.delivering || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.safePointWaiters.push(resolve));
  }

  private async onRevoked(partitions: TopicPartitions[]): Promise<void> {
    const states = this.statesOf(partitions);
    // Hand out nothing more of them, and let the application finish the batch it holds.
    for (const s of states) s.revoking = true;
    await this.safePoint();
    if (this.autoCommit) await this.offsets.commit(this.offsets.positions(states, true)).catch(() => undefined);
    try {
      await this.options.listeners?.onPartitionsRevoked?.(states.map((s) => ({ topic: s.topic, partition: s.partition })));
    } finally {
      this.removeStates(states);
    }
  }

  private async onLost(partitions: TopicPartitions[]): Promise<void> {
    const states = this.statesOf(partitions);
    for (const s of states) s.revoking = true;
    await this.safePoint();
    const list = states.map((s) => ({ topic: s.topic, partition: s.partition }));
    try {
      const listeners = this.options.listeners;
      if (listeners?.onPartitionsLost !== undefined) await listeners.onPartitionsLost(list);
      else await listeners?.onPartitionsRevoked?.(list);
    } finally {
      this.removeStates(states);
    }
  }

  private async matchPattern(cluster: Cluster): Promise<string[]> {
    const pattern = this.pattern as RegExp;
    const metadata = await cluster.withRetry(() => cluster.refreshMetadata(null));
    return [...metadata.topics.values()].filter((t) => !t.isInternal && t.errorCode === 0 && pattern.test(t.name)).map((t) => t.name).sort();
  }

  private scheduleMetadataRefresh(): void {
    if (this.metadataTimer !== null || this.closed) return;
    this.metadataTimer = setTimeout(() => {
      this.metadataTimer = null;
      const cluster = this.cluster;
      if (cluster === null || this.closed || this.pattern === null) return;
      void this.matchPattern(cluster)
        .then((topics) => this.member?.setTopics(topics))
        .catch(() => undefined)
        .finally(() => this.scheduleMetadataRefresh());
    }, this.options.metadataMaxAgeMs ?? METADATA_MAX_AGE_MS_DEFAULT);
    this.metadataTimer.unref();
  }

  // ------------------------------------------------------------ offsets

  private addStates(partitions: readonly TopicPartitions[]): PartitionState<K, V>[] {
    const added: PartitionState<K, V>[] = [];
    for (const t of partitions) {
      for (const p of t.partitions) {
        const key = partitionKey(t.topic, p);
        let s = this.states.get(key);
        if (s === undefined) {
          s = new PartitionState<K, V>(t.topic, p);
          this.states.set(key, s);
        }
        added.push(s);
      }
    }
    this.order = [...this.states.values()];
    return added;
  }

  private removeStates(states: readonly PartitionState<K, V>[]): void {
    for (const s of states) {
      s.assigned = false;
      if (this.states.get(s.key) === s) this.states.delete(s.key);
    }
    this.order = [...this.states.values()];
  }

  private statesOf(partitions: readonly TopicPartitions[]): PartitionState<K, V>[] {
    const out: PartitionState<K, V>[] = [];
    for (const t of partitions) {
      for (const p of t.partitions) {
        const s = this.states.get(partitionKey(t.topic, p));
        if (s !== undefined) out.push(s);
      }
    }
    return out;
  }

  private async autoCommitNow(): Promise<void> {
    this.nextAutoCommitAt = performance.now() + this.autoCommitIntervalMs;
    // A failed auto-commit (e.g. the group is rebalancing) is retried at the next interval, on revoke or on close.
    await this.offsets.commit(this.offsets.positions([...this.states.values()], true)).catch(() => undefined);
  }

  // ------------------------------------------------------------ plumbing

  private ensureCluster(): Promise<Cluster> {
    this.connecting ??= Cluster.connect({
      ...this.options.clusterOptions,
      bootstrap: this.options.bootstrap,
      clientId: this.options.clientId ?? 'tributary-consumer',
    }).then((cluster) => {
      this.cluster = cluster;
      const o = this.options;
      this.fetcher = new Fetcher<K, V>(
        cluster,
        {
          minBytes: o.fetchMinBytes ?? CONSUMER_FETCH_MIN_BYTES_DEFAULT,
          maxWaitMs: o.fetchMaxWaitMs ?? CONSUMER_FETCH_MAX_WAIT_MS_DEFAULT,
          maxBytes: o.fetchMaxBytes ?? CONSUMER_FETCH_MAX_BYTES_DEFAULT,
          partitionMaxBytes: o.maxPartitionFetchBytes ?? MAX_PARTITION_FETCH_BYTES_DEFAULT,
          isolationLevel: o.isolationLevel === 'read_committed' ? 1 : 0,
          prefetchMax: PREFETCH_FETCHES_MAX,
        },
        {
          states: () => this.states.values(),
          onData: () => this.wakeup(),
          onReset: (s, _spec, cause) => this.offsets.onOutOfRange(s, cause),
          onError: (err) => this.fail(err),
        },
      );
      if (this.closed) this.fetcher.close();
      return cluster;
    });
    return this.connecting;
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.failure ??= err;
    this.wakeup();
  }

  private throwFailure(): void {
    const f = this.failure;
    if (f === null) return;
    this.failure = null;
    throw f;
  }

  private stateOf(tp: TopicPartition): PartitionState<K, V> {
    const s = this.states.get(partitionKey(tp.topic, tp.partition));
    if (s === undefined) throw invalidArgument(`${tp.topic}-${tp.partition} is not assigned to this consumer`);
    return s;
  }

  private requireGroup(what: string): string {
    if (this.groupId === null) throw invalidArgument(`${what} needs a groupId`);
    return this.groupId;
  }

  private assertOpen(): void {
    if (this.closed) throw new TributaryClientError(ClientErrorCode.CONSUMER_CLOSED, 'the consumer is closed');
  }
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw invalidArgument(`${name} must be a positive integer, got ${value}`);
  return value;
}

function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
