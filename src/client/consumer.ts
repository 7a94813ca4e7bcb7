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
 * Rebalances run at safe points too (consumer-group.ts). Listeners may be
 * async; the rebalance waits for them, and `commit()` works inside
 * onPartitionsRevoked.
 */
import { Cluster } from './cluster.js';
import { groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { decodePartition } from './consumer-decode.js';
import { Fetcher } from './consumer-fetcher.js';
import { createMember } from './consumer-group.js';
import { PartitionState, partitionKey, type ResetSpec } from './consumer-state.js';
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
import { ClientErrorCode, KafkaProtocolError, TributaryClientError, invalidArgument } from './errors.js';
import { withCoordinator } from './group-apis.js';
import { STANDALONE_COMMIT, commitOffsets, fetchCommittedOffsets, type CommittedOffset, type OffsetToCommit } from './group-offsets.js';
import type { GroupMember } from './group.js';
import { listOffsetsMany } from './records.js';
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
  /** The partition of the batch handed out last. */
  private handedOut: PartitionState<K, V> | null = null;
  private driving: Promise<void> | null = null;
  private nextAutoCommitAt = 0;
  private resetting = false;
  private resetAgain = false;

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
      this.pattern = new RegExp(topics.source, topics.flags.replace('g', ''));
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
          if (!this.delivering) void this.driveGroup();
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
      .then(() => this.initPositions(added))
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
      this.delivering = false;
    }
  }

  /**
   * Records one by one (built on batches()). The position follows each
   * record; leaving the loop early rewinds the partition to the record after
   * the last one received, and close() stops the loop at once (and commits
   * only what was received).
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<ConsumerRecord<K, V>, void, undefined> {
    for await (const batch of this.batches()) {
      const state = this.handedOut as PartitionState<K, V>;
      const epoch = state.epoch;
      const batchEnd = state.position;
      const records = batch.records;
      let complete = false;
      try {
        for (let i = 0; i < records.length; i++) {
          if (this.closed) return;
          const record = records[i] as ConsumerRecord<K, V>;
          if (state.epoch === epoch) state.position = record.offset + 1n;
          yield record;
        }
        complete = true;
      } finally {
        this.settleBatch(state, epoch, complete ? batchEnd : null);
      }
    }
  }

  /** Calls eachBatch or eachRecord for everything consumed until close(). A callback that throws rejects run() (its record is not consumed). */
  async run(handlers: RunOptions<K, V>): Promise<void> {
    const { eachBatch, eachRecord } = handlers;
    if (eachBatch === undefined && eachRecord === undefined) throw invalidArgument('run() needs eachBatch or eachRecord');
    for await (const batch of this.batches()) {
      if (eachBatch !== undefined) {
        const state = this.handedOut as PartitionState<K, V>;
        const epoch = state.epoch;
        try {
          await eachBatch(batch);
        } catch (err) {
          // The batch was not consumed: back to its first record.
          if (state.epoch === epoch) state.position = (batch.records[0] as ConsumerRecord<K, V>).offset;
          this.settleBatch(state, epoch, null);
          throw err;
        }
        continue;
      }
      const state = this.handedOut as PartitionState<K, V>;
      const epoch = state.epoch;
      const batchEnd = state.position;
      const records = batch.records;
      let complete = false;
      try {
        for (let i = 0; i < records.length; i++) {
          if (this.closed) return;
          const record = records[i] as ConsumerRecord<K, V>;
          // Until its callback returns, a record is not consumed (a throw leaves the position on it).
          if (state.epoch === epoch) state.position = record.offset;
          const done = (eachRecord as NonNullable<typeof eachRecord>)(record);
          if (done !== undefined && typeof (done as Promise<void>).then === 'function') await done;
          if (state.epoch === epoch) state.position = record.offset + 1n;
        }
        complete = true;
      } finally {
        this.settleBatch(state, epoch, complete ? batchEnd : null);
      }
    }
  }

  /**
   * After a batch's records were iterated: a complete batch leaves the
   * position at the batch end; an interrupted one (break, throw) refetches
   * from the position, which the loop kept at the next record to consume.
   * Nothing changes when the partition was seeked meanwhile, or on close.
   */
  private settleBatch(state: PartitionState<K, V>, epoch: number, batchEnd: bigint | null): void {
    if (state.epoch !== epoch || state.position === null) return;
    if (batchEnd !== null) state.position = batchEnd;
    else if (!this.closed && state.assigned) {
      state.seekTo(state.position);
      this.fetcher?.pump();
    }
  }

  // ------------------------------------------------------------ positions

  /** Moves a partition's position; drops what was buffered for it. */
  seek(tp: TopicPartition, offset: OffsetSpecifier): void {
    this.assertOpen();
    const s = this.stateOf(tp);
    if (offset === 'earliest' || offset === 'latest') {
      s.requestReset(offset);
      void this.resetOffsets();
    } else {
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
    const groupId = this.requireGroup('committed()');
    const tps = groupByTopic(partitions ?? this.assignment());
    if (tps.length === 0) return [];
    if (this.member !== null) return this.member.fetchCommitted(tps);
    const cluster = await this.ensureCluster();
    return withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, tps));
  }

  /** Commits the given offsets (next offset to read), or the current positions of every assigned partition. */
  async commit(offsets?: readonly { topic: string; partition: number; offset: bigint | number; metadata?: string | null }[]): Promise<void> {
    this.assertOpen();
    this.requireGroup('commit()');
    const list: OffsetToCommit[] =
      offsets === undefined
        ? this.positions([...this.states.values()], false)
        : offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), ...(o.metadata !== undefined ? { metadata: o.metadata } : {}) }));
    await this.commitOffsets(list);
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
    if (this.metadataTimer !== null) clearTimeout(this.metadataTimer);
    this.metadataTimer = null;
    this.fetcher?.close();
    try {
      if (this.member !== null) {
        // Revokes (our onRevoked commits with autoCommit), then LeaveGroup unless static.
        await this.member.close();
      } else if (this.autoCommit && this.mode === 'assign') {
        await this.commitOffsets(this.positions([...this.states.values()], true)).catch(() => undefined);
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
    this.delivering = false;
    for (;;) {
      if (this.closed) return null;
      this.throwFailure();
      if (this.member !== null && this.member.rejoinNeeded) await this.driveGroup();
      if (this.closed) return null;
      this.throwFailure();
      if (this.autoCommit && performance.now() >= this.nextAutoCommitAt) await this.autoCommitNow();
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
      if (fetched.records === null) {
        const epoch = s.epoch;
        try {
          const target = { topic: s.topic, partition: s.partition, fetchOffset: fetched.fetchOffset, keyDeserializer: this.keyDeserializer, valueDeserializer: this.valueDeserializer };
          fetched.records = (await decodePartition(target, fetched.data, fetched.aborted)).records;
        } catch (err) {
          if (s.epoch === epoch && s.position !== null) s.seekTo(s.position);
          throw err instanceof DecodeError || err instanceof TributaryClientError
            ? err
            : new TributaryClientError(ClientErrorCode.DESERIALIZATION, `${s.topic}-${s.partition}: a deserializer threw: ${(err as Error).message}`, { cause: err });
        }
        // Seeked (or revoked) while decoding: that fetch is no longer wanted.
        if (s.epoch !== epoch || s.buffered[0] !== fetched) return 'again';
      }
      const records = fetched.records;
      const start = fetched.index;
      const end = Math.min(records.length, start + this.maxPollRecords);
      const out = start === 0 && end === records.length ? records : records.slice(start, end);
      fetched.index = end;
      if (end >= records.length) {
        s.buffered.shift();
        s.position = fetched.nextOffset;
        this.fetcher?.pump();
      } else {
        s.position = (records[end] as ConsumerRecord<K, V>).offset;
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
      // Waiting is a safe point: wake up for the next auto-commit.
      if (this.autoCommit && this.states.size > 0) timer = setTimeout(() => this.wakeup(), Math.max(1, this.nextAutoCommitAt - performance.now()));
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
    await this.initPositions(states);
    const list = states.map((s) => ({ topic: s.topic, partition: s.partition }));
    if (list.length > 0) await this.options.listeners?.onPartitionsAssigned?.(list);
    this.fetcher?.pump();
    this.wakeup();
  }

  private async onRevoked(partitions: TopicPartitions[]): Promise<void> {
    const states = this.statesOf(partitions);
    if (this.autoCommit) await this.commitOffsets(this.positions(states, true)).catch(() => undefined);
    try {
      await this.options.listeners?.onPartitionsRevoked?.(states.map((s) => ({ topic: s.topic, partition: s.partition })));
    } finally {
      this.removeStates(states);
    }
  }

  private async onLost(partitions: TopicPartitions[]): Promise<void> {
    const states = this.statesOf(partitions);
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

  /** Starting positions: the group's committed offsets, else the reset policy. */
  private async initPositions(states: readonly PartitionState<K, V>[]): Promise<void> {
    const need = states.filter((s) => s.position === null && s.resetTo === null);
    if (need.length === 0) return;
    if (this.groupId !== null) {
      const tps = groupByTopic(need);
      const groupId = this.groupId;
      const cluster = await this.ensureCluster();
      const committed =
        this.member !== null ? await this.member.fetchCommitted(tps) : await withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, tps));
      for (const c of committed) {
        const s = this.states.get(partitionKey(c.topic, c.partition));
        if (s === undefined || c.error !== null || c.offset < 0n || s.position !== null) continue;
        s.seekTo(c.offset);
        s.committed = c.offset;
      }
    }
    const policy = this.options.autoOffsetReset ?? 'latest';
    for (const s of need) {
      if (s.position !== null || !s.assigned) continue;
      if (policy === 'none') {
        this.fail(new TributaryClientError(ClientErrorCode.OFFSET_OUT_OF_RANGE, `${s.topic}-${s.partition}: no committed offset and autoOffsetReset is 'none' (seek() to start)`));
        continue;
      }
      s.requestReset(policy);
    }
    await this.resetOffsets();
  }

  /** ListOffsets for every partition waiting for a reset; one run at a time (a request during a run runs again after it). */
  private async resetOffsets(): Promise<void> {
    if (this.resetting) {
      this.resetAgain = true;
      return;
    }
    this.resetting = true;
    try {
      do {
        this.resetAgain = false;
        const waiting = [...this.states.values()].filter((s) => s.resetTo !== null);
        if (waiting.length === 0) break;
        const cluster = await this.ensureCluster();
        const epochs = waiting.map((s) => s.epoch);
        const isolation = this.options.isolationLevel === 'read_committed' ? 1 : 0;
        const listed = await listOffsetsMany(cluster, waiting.map((s) => ({ topic: s.topic, partition: s.partition, spec: s.resetTo as ResetSpec })), isolation);
        waiting.forEach((s, i) => {
          const r = listed[i];
          if (r !== undefined && s.epoch === epochs[i] && s.resetTo !== null) s.seekTo(r.offset);
        });
      } while (this.resetAgain);
    } catch (err) {
      if (!this.closed) this.fail(err);
    } finally {
      this.resetting = false;
    }
    this.fetcher?.pump();
    this.wakeup();
  }

  private onOutOfRange(s: PartitionState<K, V>, cause: KafkaProtocolError): void {
    const policy = this.options.autoOffsetReset ?? 'latest';
    if (policy === 'none') {
      s.fetchOffset = null; // stop fetching it until the application seeks
      this.fail(new TributaryClientError(ClientErrorCode.OFFSET_OUT_OF_RANGE, `${s.topic}-${s.partition}: offset ${String(s.position)} is out of range and autoOffsetReset is 'none'`, { cause }));
      return;
    }
    s.requestReset(policy);
    void this.resetOffsets();
  }

  /** Positions to commit; `changedOnly` skips partitions whose position was already committed. */
  private positions(states: readonly PartitionState<K, V>[], changedOnly: boolean): OffsetToCommit[] {
    const out: OffsetToCommit[] = [];
    for (const s of states) {
      if (s.position === null) continue;
      if (changedOnly && s.committed === s.position) continue;
      out.push({ topic: s.topic, partition: s.partition, offset: s.position });
    }
    return out;
  }

  private async commitOffsets(list: readonly OffsetToCommit[]): Promise<void> {
    if (list.length === 0) return;
    const groupId = this.requireGroup('commit');
    if (this.member !== null) {
      await this.member.commit(list);
    } else {
      const cluster = await this.ensureCluster();
      const results = await withCoordinator(cluster, groupId, (conn) => commitOffsets(conn, { groupId, ...STANDALONE_COMMIT }, list));
      const failed = results.find((r) => r.error !== null)?.error;
      if (failed !== undefined && failed !== null) throw failed;
    }
    for (const o of list) {
      const s = this.states.get(partitionKey(o.topic, o.partition));
      if (s !== undefined) s.committed = o.offset;
    }
  }

  private async autoCommitNow(): Promise<void> {
    this.nextAutoCommitAt = performance.now() + this.autoCommitIntervalMs;
    // A failed auto-commit (e.g. the group is rebalancing) is retried at the next interval, on revoke or on close.
    await this.commitOffsets(this.positions([...this.states.values()], true)).catch(() => undefined);
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
          onReset: (s, _spec, cause) => this.onOutOfRange(s, cause),
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
