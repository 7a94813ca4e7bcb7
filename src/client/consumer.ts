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
import { Fetcher, fetcherConfig } from './consumer-fetcher.js';
import { SafePoint, createMember } from './consumer-group.js';
import { PartitionSet, batchDecoding, takeBatch, type BatchDecoding } from './consumer-partitions.js';
import { PatternSubscription } from './consumer-pattern.js';
import { EventLoopTurns } from './consumer-turns.js';
import { partitionKey, type PartitionState } from './consumer-state.js';
import { AUTO_COMMIT_INTERVAL_MS_DEFAULT, positiveIntegerOption, type ConsumerBatch, type ConsumerOptions, type ConsumerRecord } from './consumer-types.js';
import type { OffsetSpecifier, RunOptions, TopicPartition } from './consumer-types.js';
import { ClientErrorCode, TributaryClientError, invalidArgument } from '../net/errors.js';
import type { CommittedOffset, OffsetToCommit } from './group-offsets.js';
import type { GroupMember } from './group.js';
import { ConsumerOffsets } from './consumer-offsets.js';
import { recordIterator, runHandlers, type BatchSource } from './consumer-iterator.js';
import { PositionValidator, processWarnings } from './consumer-validate.js';

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
  private readonly decoding: BatchDecoding<K, V>;
  private readonly partitions = new PartitionSet<K, V>();
  private cluster: Cluster | null = null;
  private connecting: Promise<Cluster> | null = null;
  private fetcher: Fetcher<K, V> | null = null;
  private member: GroupMember | null = null;
  private mode: 'none' | 'subscribe' | 'assign' = 'none';
  private readonly pattern: PatternSubscription;
  private closed = false;
  private closing: Promise<void> | null = null;
  private waiters: (() => void)[] = [];
  private failure: unknown = null;
  /** Whether a batch is with the application; revokes wait for it. */
  private readonly safePoint = new SafePoint();
  private readonly turns = new EventLoopTurns();
  /** The partition of the batch handed out last. */
  private handedOut: PartitionState<K, V> | null = null;
  private driving: Promise<void> | null = null;
  private nextAutoCommitAt = 0;
  private readonly offsets: ConsumerOffsets<K, V>;
  /** KIP-320 position validation after leader changes. */
  private readonly validator: PositionValidator<K, V>;
  /** What the record loops (consumer-iterator.ts) see of this consumer. */
  private readonly source: BatchSource<K, V>;

  constructor(options: ConsumerOptions<K, V> & { metadataMaxAgeMs?: number }) {
    if (typeof options.bootstrap !== 'string' || options.bootstrap.length === 0) throw invalidArgument('bootstrap is required');
    this.options = options;
    this.groupId = options.groupId ?? null;
    if (this.groupId === '') throw invalidArgument('groupId must not be empty');
    this.autoCommit = (options.autoCommit ?? true) && this.groupId !== null;
    this.autoCommitIntervalMs = positiveIntegerOption(options.autoCommitIntervalMs ?? AUTO_COMMIT_INTERVAL_MS_DEFAULT, 'autoCommitIntervalMs');
    this.decoding = batchDecoding(options);
    if (options.autoOffsetReset !== undefined && !['earliest', 'latest', 'none'].includes(options.autoOffsetReset)) {
      throw invalidArgument(`autoOffsetReset must be 'earliest', 'latest' or 'none', got '${String(options.autoOffsetReset)}'`);
    }
    this.offsets = new ConsumerOffsets<K, V>({
      groupId: this.groupId,
      autoOffsetReset: options.autoOffsetReset ?? 'latest',
      isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0,
      states: this.partitions.states,
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
    const autoOffsetReset = options.autoOffsetReset ?? 'latest';
    this.validator = new PositionValidator<K, V>({
      autoOffsetReset,
      logger: options.logger ?? processWarnings,
      states: () => this.partitions.states.values(),
      cluster: () => this.cluster,
      closed: () => this.closed,
      fail: (err) => this.fail(err),
      reset: (s) => {
        s.requestReset(autoOffsetReset as 'earliest' | 'latest');
        void this.offsets.resetOffsets();
      },
      changed: () => {
        this.fetcher?.pump();
        this.wakeup();
      },
      refreshMetadata: () => this.fetcher?.refreshMetadata(),
    });
    this.pattern = new PatternSubscription(options.metadataMaxAgeMs ?? METADATA_MAX_AGE_MS_DEFAULT, {
      cluster: () => this.cluster,
      member: () => this.member,
      closed: () => this.closed,
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
      list = await this.pattern.subscribe(topics, cluster);
    } else {
      list = typeof topics === 'string' ? [topics] : [...topics];
      if (list.length === 0) throw invalidArgument('subscribe to at least one topic');
      this.pattern.watch(list, cluster);
    }
    this.mode = 'subscribe';
    if (this.member === null) {
      this.member = createMember(cluster, this.options, list, this.pattern.active, {
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
    this.pattern.scheduleMetadataRefresh();
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
    this.partitions.retain(new Set(partitions.map((tp) => partitionKey(tp.topic, tp.partition))));
    const added = this.partitions.add(groupByTopic(partitions));
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
    return this.partitions.assignment();
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
      this.safePoint.leave();
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
    const s = this.partitions.get(tp);
    if (offset === 'earliest' || offset === 'latest') {
      s.requestReset(offset);
      void this.offsets.resetOffsets();
    } else {
      if (typeof offset === 'number' && !Number.isSafeInteger(offset)) throw invalidArgument(`seek offset must be an integer, got ${offset}`);
      const o = BigInt(offset);
      if (o < 0n) throw invalidArgument(`seek offset must be >= 0, got ${o}`);
      s.seekUnvalidated(o);
    }
    this.fetcher?.pump();
    this.wakeup();
  }

  /** Stops handing out (and fetching) records of these assigned partitions until `resume`. */
  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.partitions.get(tp).paused = true;
  }

  /** Resumes paused partitions. */
  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.partitions.get(tp).paused = false;
    this.fetcher?.pump();
    this.wakeup();
  }

  /** The paused partitions, sorted. */
  paused(): TopicPartition[] {
    return this.partitions.paused();
  }

  /** The next offset handed out for the partition; null while it is not known yet. */
  position(tp: TopicPartition): bigint | null {
    return this.partitions.get(tp).position;
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
        ? this.offsets.positions(this.partitions.all(), false)
        : offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), ...(o.metadata !== undefined ? { metadata: o.metadata } : {}) }));
    await this.offsets.commit(list);
  }

  /**
   * The group membership now, as Java's `consumer.groupMetadata()`: generationId -1 and memberId ''
   * before the first join (and while a rebalance has dropped the generation). Inside
   * onPartitionsAssigned it is the generation that assigned the partitions.
   */
  groupMetadata(): { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null } {
    const groupId = this.requireGroup('groupMetadata()');
    const generation = this.member?.generationInfo ?? null;
    return { groupId, generationId: generation?.generationId ?? -1, memberId: this.member?.memberId ?? '', groupInstanceId: this.options.groupInstanceId ?? null };
  }

  /** Rebalances soon, at the next safe point (Java's `enforceRebalance`), e.g. so an assignor sends new userData. */
  enforceRebalance(reason = 'requested by the application'): void {
    this.assertOpen();
    this.member?.requestRejoin(reason);
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
    this.safePoint.leave();
    this.pattern.stop();
    this.fetcher?.close();
    try {
      if (this.member !== null) {
        // Revokes (our onRevoked commits with autoCommit), then LeaveGroup unless static.
        await this.member.close();
      } else if (this.autoCommit && this.mode === 'assign') {
        await this.offsets.commit(this.offsets.positions(this.partitions.all(), true)).catch(() => undefined);
      }
      await this.driving?.catch(() => undefined);
    } finally {
      this.partitions.clear();
      if (this.connecting !== null) await this.connecting.then((c) => c.close()).catch(() => undefined);
    }
  }

  // ------------------------------------------------------------ the pull

  private async nextBatch(): Promise<ConsumerBatch<K, V> | null> {
    this.safePoint.leave();
    for (;;) {
      if (this.closed) return null;
      this.throwFailure();
      // Rebalances run in the background (kept partitions go on being consumed with cooperative-sticky).
      if (this.member !== null && this.member.rejoinNeeded) void this.driveGroup();
      // Not while joining: the commit would queue behind the parked JoinGroup on the coordinator connection.
      if (this.autoCommit && performance.now() >= this.nextAutoCommitAt && this.member?.isJoining !== true) await this.autoCommitNow();
      this.offsets.retryPositions();
      // After a slice of handing out without a turn of the event loop, one turn (consumer-turns.ts); then look again.
      if (this.turns.due()) {
        await this.turns.turn();
        continue;
      }
      const taken = await this.takeReady();
      if (taken === 'again') continue;
      if (taken !== null) {
        this.safePoint.enter();
        return taken;
      }
      await this.waitForData();
      this.turns.turned();
    }
  }

  /** Hands out the next batch of a ready partition (round robin); 'again' when a fetch held no records. */
  private async takeReady(): Promise<ConsumerBatch<K, V> | null | 'again'> {
    const s = this.partitions.nextReady();
    if (s === null) return null;
    const batch = await takeBatch(s, this.decoding, () => this.fetcher?.pump());
    if (batch !== 'again') this.handedOut = s;
    return batch;
  }

  private waitForData(): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const done = (): void => {
        if (timer !== null) clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
      // Waiting is a safe point: wake up for the next auto-commit.
      if (!this.autoCommit || this.partitions.states.size === 0) return;
      const dueInMs = this.nextAutoCommitAt - performance.now();
      if (dueInMs > 0) {
        timer = setTimeout(() => this.wakeup(), dueInMs);
        return;
      }
      // Already due (it was skipped while a rebalance ran). Checked after the waiter is queued: a
      // rebalance still running wakes it when it ends (driveGroup); one that ended since the pull's
      // check, while nobody waited, must not leave the commit waiting for data that may never come.
      if (this.member?.isJoining !== true) done();
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
    const states = this.partitions.add(added);
    await this.offsets.initPositions(states);
    const list = states.map((s) => ({ topic: s.topic, partition: s.partition }));
    if (list.length > 0) await this.options.listeners?.onPartitionsAssigned?.(list);
    this.fetcher?.pump();
    this.wakeup();
  }

  private async onRevoked(partitions: TopicPartitions[]): Promise<void> {
    const states = this.partitions.of(partitions);
    // Hand out nothing more of them, and let the application finish the batch it holds.
    for (const s of states) s.revoking = true;
    await this.safePoint.reached(this.closed);
    if (this.autoCommit) await this.offsets.commit(this.offsets.positions(states, true)).catch(() => undefined);
    try {
      await this.options.listeners?.onPartitionsRevoked?.(states.map((s) => ({ topic: s.topic, partition: s.partition })));
    } finally {
      this.partitions.remove(states);
    }
  }

  private async onLost(partitions: TopicPartitions[]): Promise<void> {
    const states = this.partitions.of(partitions);
    for (const s of states) s.revoking = true;
    await this.safePoint.reached(this.closed);
    const list = states.map((s) => ({ topic: s.topic, partition: s.partition }));
    try {
      const listeners = this.options.listeners;
      if (listeners?.onPartitionsLost !== undefined) await listeners.onPartitionsLost(list);
      else await listeners?.onPartitionsRevoked?.(list);
    } finally {
      this.partitions.remove(states);
    }
  }

  // ------------------------------------------------------------ offsets

  private async autoCommitNow(): Promise<void> {
    this.nextAutoCommitAt = performance.now() + this.autoCommitIntervalMs;
    // A failed auto-commit (e.g. the group is rebalancing) is retried at the next interval, on revoke or on close.
    await this.offsets.commit(this.offsets.positions(this.partitions.all(), true)).catch(() => undefined);
  }

  // ------------------------------------------------------------ plumbing

  private ensureCluster(): Promise<Cluster> {
    this.connecting ??= Cluster.connect({
      ...this.options.clusterOptions,
      ...(this.options.sasl === undefined ? {} : { sasl: this.options.sasl }),
      ...(this.options.tls === undefined ? {} : { tls: this.options.tls }),
      bootstrap: this.options.bootstrap,
      clientId: this.options.clientId ?? 'tributary-consumer',
    }).then((cluster) => {
      this.cluster = cluster;
      this.fetcher = new Fetcher<K, V>(cluster, fetcherConfig(this.options, this.options.metadataMaxAgeMs ?? METADATA_MAX_AGE_MS_DEFAULT), {
        states: () => this.partitions.states.values(),
        onData: () => this.wakeup(),
        onReset: (s, _spec, cause) => this.offsets.onOutOfRange(s, cause),
        onError: (err) => this.fail(err),
        onValidate: () => this.validator.run(),
      });
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

  private requireGroup(what: string): string {
    if (this.groupId === null) throw invalidArgument(`${what} needs a groupId`);
    return this.groupId;
  }

  private assertOpen(): void {
    if (this.closed) throw new TributaryClientError(ClientErrorCode.CONSUMER_CLOSED, 'the consumer is closed');
  }
}
