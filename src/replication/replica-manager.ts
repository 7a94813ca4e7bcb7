/**
 * The partition data path of a broker (Kafka's ReplicaManager): every record
 * batch that reaches a partition log, and every read of one, goes through
 * here.
 *
 * - Hosting (`HostedPartitions`, partition-hosting.ts): the partitions the
 *   metadata image assigns to this node are opened (or created) and change
 *   state only through `applyAssignment`, which runs the transitions
 *   Partition.makeLeader / makeFollower; a partition this node stops
 *   replicating is removed (its log deleted with the topic).
 * - Appends (`appendRecords`): from a client (Produce: validated and stamped,
 *   append-validator.ts, producer-state checks), from a coordinator
 *   (__consumer_offsets batches it built itself: only the leader epoch is
 *   stamped), or from the leader as a follower (origin `replica`: batches kept
 *   exactly as the leader wrote them, at their offsets; the follower fetchers
 *   of partition replication feed it). Per-partition order: appends that must await join the
 *   partition's AppendQueue, and while it holds work later client appends
 *   join it too; everything else appends synchronously inside the call, so
 *   pipelined requests land in request order. acks=all waits in
 *   DelayedProduces until the high watermark covers the batch.
 * - Reads (`fetchRecords`): up to the high watermark (read_uncommitted) or
 *   the last stable offset (read_committed), long-polling in DelayedFetches,
 *   which every append wakes.
 *
 * Deterministic: time and timers are injected (principle 3 in
 * docs/architecture.md), so tests drive delayed operations on virtual time.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/errors.js';
import type { LogManager } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { LogConfig } from '../storage/config.js';
import type { ReadAllocator } from '../storage/fs.js';
import { StorageError } from '../storage/errors.js';
import { setPartitionLeaderEpoch } from '../protocol/record-batch/header.js';
import type { ProducerBatchHeader, ProducerCheckError } from '../storage/producer-state/producer-state.js';
import type { Clock } from '../util/clock.js';
import type { Timers } from '../util/timer.js';
import type {
  AppendEntry, AppendRequest, DivergingEpoch, FetchPartition, FetchPartitionResult, FetchRequestParams, FetchResult, PartitionAppendResult, ReadResult,
} from './data-path-types.js';
import { divergingEpoch, leaderEpochError } from './leader-epoch-checks.js';
import { appendMirrored } from './mirror-append.js';
import type { IsrChangeOutcome, IsrChangeProposal, Partition } from './partition.js';
import { HostedPartitions, type PartitionAssignment } from './partition-hosting.js';
import { DelayedFetches } from './delayed-fetch.js';
import { partitionBounds, readPartition, type ReadUpTo } from './partition-read.js';
import { TxnMarkerWriter } from './txn-markers.js';
import { TxnVerificationGate } from './txn-verification.js';
import { DelayedProduces } from './delayed-produce.js';
import type { TopicRules } from './topic-rules.js';
import { preferredReadReplica, type ReplicaSelector } from './replica-selector.js';
import {
  appendFailure, checkClientBatch, checkReplicatedBatches, needsPreparation, prepareBatch, stampBatch, type AppendFailure, type CheckedBatch,
} from './append-validator.js';

export { leaderEpochError } from './leader-epoch-checks.js';
export { REPLICA_LAG_TIME_MAX_MS_DEFAULT, type PartitionAssignment } from './partition-hosting.js';
export type {
  AppendEntry, AppendOrigin, AppendRequest, DivergingEpoch, FetchPartition, FetchPartitionResult, FetchRequestParams, FetchResult, PartitionAppendResult, ReadResult,
} from './data-path-types.js';

export interface ReplicaManagerDeps {
  readonly logManager: LogManager;
  readonly localNodeId: number;
  readonly logConfigFor: (topic: string) => LogConfig;
  readonly topicRules: (topic: string) => TopicRules;
  /** Whether the topic exists in the metadata image: an unhosted partition of it answers NOT_LEADER_OR_FOLLOWER. */
  readonly topicExists: (topic: string) => boolean;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: Logger;
  /** replica.lag.time.max.ms (default 30 s). */
  readonly replicaLagTimeMaxMs?: number | undefined;
  /** Whether a broker may join an ISR (registered, unfenced, not shutting down); default: none may (one node). */
  readonly isReplicaEligible?: (brokerId: number) => boolean;
  /** Sends an ISR change to the controller (AlterPartition); absent on a node that never has followers. */
  readonly alterPartition?: (p: Partition, proposal: IsrChangeProposal) => Promise<IsrChangeOutcome>;
  /** replica.selector.class (KIP-392); absent or null: consumers read from leaders only. */
  readonly replicaSelector?: ReplicaSelector | null;
  /** A broker's rack (broker.rack) from the metadata image, for the replica selector. */
  readonly rackOf?: (brokerId: number) => string | null;
}

/** Largest long-poll wait a client may ask for; bounds a timer per request. */
export const FETCH_WAIT_MS_MAX = 60_000;

const PRODUCER_CODES: Record<ProducerCheckError, number> = {
  invalid_producer_epoch: ErrorCode.INVALID_PRODUCER_EPOCH,
  out_of_order_sequence: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  invalid_record: ErrorCode.INVALID_RECORD,
  coordinator_fenced: ErrorCode.TRANSACTION_COORDINATOR_FENCED,
};

export class ReplicaManager {
  private readonly delayedFetches: DelayedFetches;
  private readonly delayedProduces: DelayedProduces;
  /** The hosted partitions and their leader/follower transitions (partition-hosting.ts). */
  private readonly hosted: HostedPartitions;
  /** KIP-890 part 1: transactional appends verified with the coordinator (setVerifier injects it). */
  readonly txnVerification = new TxnVerificationGate();
  /** WriteTxnMarkers: commit/abort markers written as leader (txn-markers.ts). */
  readonly txnMarkers: TxnMarkerWriter;

  constructor(private readonly deps: ReplicaManagerDeps) {
    this.delayedFetches = new DelayedFetches(deps.timers);
    this.delayedProduces = new DelayedProduces(deps.timers);
    this.hosted = new HostedPartitions(deps, this.delayedProduces, this.delayedFetches);
    this.txnMarkers = new TxnMarkerWriter(this, this.txnVerification, deps.clock);
  }

  get localNodeId(): number {
    return this.deps.localNodeId;
  }

  get(topic: string, partition: number): Partition | undefined {
    return this.hosted.get(topic, partition);
  }

  all(): IterableIterator<Partition> {
    return this.hosted.all();
  }

  /** Counts of ISR changes since start (metrics). */
  get isrChangeCounts(): Readonly<{ shrinks: number; expands: number; failed: number }> {
    return this.hosted.isrChangeCounts;
  }

  /** Long-poll fetches and acks=all appends now waiting (metrics, tests). */
  get delayedOperations(): { fetches: number; produces: number } {
    return { fetches: this.delayedFetches.size, produces: this.delayedProduces.size };
  }

  /** Called after a hosted partition became led here, or stopped being led here (HostedPartitions.onLeadershipChange). */
  onLeadershipChange(listener: (p: Partition, isLeader: boolean) => void): void {
    this.hosted.onLeadershipChange(listener);
  }

  /** Called after a hosted partition's leader or leader epoch changed as a follower (HostedPartitions.onFollowerChange). */
  onFollowerChange(listener: (p: Partition) => void): void {
    this.hosted.onFollowerChange(listener);
  }

  /** Brings a partition in line with the metadata image (HostedPartitions.applyAssignment). */
  applyAssignment(a: PartitionAssignment): Partition | undefined {
    return this.hosted.applyAssignment(a);
  }

  /** Kafka's periodic ISR check over the led partitions (HostedPartitions.shrinkIsrs); returns how many proposed a shrink. */
  shrinkIsrs(): number {
    return this.hosted.shrinkIsrs();
  }

  /** Stops hosting a partition; with `deleteData` its log is removed from disk. */
  removePartition(topic: string, partition: number, deleteData: boolean): void {
    this.hosted.removePartition(topic, partition, deleteData);
  }

  /** Applies a changed topic config to the open logs of that topic. */
  updateTopicConfig(topic: string): void {
    this.hosted.updateTopicConfig(topic);
  }

  /**
   * Appends one batch per entry. Every append that need not await happens
   * synchronously inside this call, before it returns its promise. Results
   * come back in entry order; with acks=all each waits for its high watermark.
   */
  async appendRecords(req: AppendRequest): Promise<PartitionAppendResult[]> {
    return this.appendRecordsNow(req);
  }

  /**
   * appendRecords without a promise when nothing has to wait: with acks 0 or
   * 1 and every entry appended (or refused) inside the call, the results
   * come back directly, so the Produce handler answers in the same turn of
   * the event loop (no promise hops per request: the common linger-0
   * produce, bench/README.md "Per-request cost"). Otherwise the promise.
   */
  appendRecordsNow(req: AppendRequest): PartitionAppendResult[] | Promise<PartitionAppendResult[]> {
    const validAcks = req.acks === 0 || req.acks === 1 || req.acks === -1;
    const pending: (PartitionAppendResult | Promise<PartitionAppendResult>)[] = new Array(req.entries.length);
    let waits = req.acks === -1;
    for (let i = 0; i < req.entries.length; i++) {
      const e = req.entries[i] as AppendEntry;
      const r = validAcks ? this.appendOne(req, e) : failed(e, appendFailure(ErrorCode.INVALID_REQUIRED_ACKS, `acks must be 0, 1 or -1, not ${req.acks}`));
      if (r instanceof Promise) waits = true;
      pending[i] = r;
    }
    return waits ? this.awaitAppends(req, pending) : (pending as PartitionAppendResult[]);
  }

  /** The appends that went through the partitions' queues, then (acks=all) the high watermark. */
  private async awaitAppends(req: AppendRequest, pending: readonly (PartitionAppendResult | Promise<PartitionAppendResult>)[]): Promise<PartitionAppendResult[]> {
    const results = await Promise.all(pending);
    if (req.acks !== -1) return results;
    await Promise.all(results.map(async (r) => {
      if (r.errorCode !== ErrorCode.NONE) return;
      const p = this.get(r.topic, r.partition);
      const code = p === undefined ? ErrorCode.NOT_LEADER_OR_FOLLOWER : await this.delayedProduces.wait(p, r.requiredOffset, req.timeoutMs);
      if (code !== ErrorCode.NONE) {
        r.errorCode = code;
        r.errorMessage = code === ErrorCode.REQUEST_TIMED_OUT
          ? `the in-sync replicas did not acknowledge the batch within ${req.timeoutMs} ms`
          : code === ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND ? 'the batch was written but the in-sync replicas fell below min.insync.replicas before it was committed' : 'leadership moved before the batch was committed';
      }
    }));
    return results;
  }

  private appendOne(req: AppendRequest, e: AppendEntry): PartitionAppendResult | Promise<PartitionAppendResult> {
    const p = this.get(e.topic, e.partition);
    if (!p) {
      const code = this.deps.topicExists(e.topic) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return failed(e, appendFailure(code, `${e.topic}-${e.partition} is not hosted on this broker`));
    }
    if (req.origin === 'replica') return this.appendReplicated(p, e);
    if (req.origin === 'mirror') return this.appendFromMirror(p, e);
    if (!p.isLeader) return failed(e, appendFailure(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${p.leaderId} leads ${e.topic}-${e.partition}`));
    return req.origin === 'coordinator' ? this.appendFromCoordinator(p, e) : this.appendFromClient(req, p, e);
  }

  private appendFromClient(req: AppendRequest, p: Partition, e: AppendEntry): PartitionAppendResult | Promise<PartitionAppendResult> {
    const rules = this.deps.topicRules(e.topic);
    if (rules.mirrorState === 'active') {
      return this.rejected(req, e, appendFailure(ErrorCode.POLICY_VIOLATION, `${e.topic} is a read-only mirror topic (mirror.state=active): only tributary mirror writes it until it is promoted`));
    }
    if (req.acks === -1 && p.isr.length < rules.minInsyncReplicas) {
      return failed(e, appendFailure(ErrorCode.NOT_ENOUGH_REPLICAS, `${p.isr.length} in-sync replicas, min.insync.replicas is ${rules.minInsyncReplicas}`));
    }
    const checked = checkClientBatch(e.records, rules, req.produceVersion ?? 7);
    if (!checked.ok) return this.rejected(req, e, checked);
    const txn = this.txnVerification.precheck(p, checked.header, req.transactionalId ?? null);
    if (txn !== null && txn !== 'verify') return this.rejected(req, e, txn);
    if (!needsPreparation(checked, rules) && txn === null && !p.appendQueue.busy) return this.stampAndAppend(req, p, e, checked, rules);
    return p.appendQueue.run(async () => {
      const guard = txn === 'verify' ? await this.txnVerification.verify(p, checked.header, req.transactionalId as string) : null;
      if (guard !== null && !guard.ok) return this.rejected(req, e, guard);
      const prepared = await prepareBatch(checked, rules);
      if (!prepared.ok) return this.rejected(req, e, prepared);
      // Leadership may have moved (or the topic gone) while this append waited.
      if (this.get(e.topic, e.partition) !== p || !p.isLeader) return failed(e, appendFailure(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'leadership moved while the append waited'));
      // A marker for this producer written meanwhile ended the transaction that was verified.
      if (guard !== null && !this.txnVerification.consume(p, guard)) return this.rejected(req, e, appendFailure(ErrorCode.INVALID_TXN_STATE, 'the transaction ended while the append was verified'));
      return this.stampAndAppend(req, p, e, prepared, this.deps.topicRules(e.topic));
    });
  }

  private stampAndAppend(req: AppendRequest, p: Partition, e: AppendEntry, checked: CheckedBatch, rules: TopicRules): PartitionAppendResult {
    const { batch, header } = checked;
    const stamped = stampBatch(batch, header, rules, this.deps.clock.nowMs(), p.leaderEpoch);
    if (typeof stamped !== 'bigint') return this.rejected(req, e, stamped);
    const producer: ProducerBatchHeader | null = header.producerId >= 0n
      ? { producerId: header.producerId, epoch: header.producerEpoch, baseSequence: header.baseSequence, lastOffsetDelta: header.lastOffsetDelta }
      : null;
    const appended = p.appendClientBatch(batch, producer, rules.mirrorPromotedOffsets?.get(p.partition) ?? null);
    if (appended.kind === 'rejected') return this.rejected(req, e, appendFailure(PRODUCER_CODES[appended.error], appended.message));
    const logAppendTime = rules.messageTimestampType === 'LogAppendTime';
    if (appended.kind === 'duplicate') {
      return succeeded(e, p, appended.baseOffset, appended.lastOffset + 1n, logAppendTime ? appended.timestampMs : NO_TIMESTAMP, 0, 0);
    }
    this.delayedFetches.onAppend(p);
    // Committed once the high watermark reaches the log end this append just made (no BigInt made for it).
    return succeeded(e, p, appended.baseOffset, p.logEndOffset, stamped, batch.length, header.recordsCount);
  }

  /**
   * A coordinator's own batch (built, sized and checked by it): the leader
   * epoch is stamped and it is appended synchronously, whatever client
   * appends wait in the queue (they are independent writes).
   */
  private appendFromCoordinator(p: Partition, e: AppendEntry): PartitionAppendResult {
    const batch = e.records as Buffer;
    setPartitionLeaderEpoch(batch, p.leaderEpoch);
    try {
      const r = p.appendAsLeader(batch);
      this.delayedFetches.onAppend(p);
      return succeeded(e, p, r.baseOffset, r.lastOffset + 1n, NO_TIMESTAMP, batch.length, Number(r.lastOffset - r.baseOffset) + 1);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      return failed(e, appendFailure(ErrorCode.KAFKA_STORAGE_ERROR, `append to ${e.topic}-${e.partition} failed: ${err.message}`));
    }
  }

  /**
   * A follower's append of what it fetched from the leader: whole, CRC-checked
   * batches (a corrupt transfer is refused, never written; a partial last
   * batch, where the fetch's byte limit cut it, waits for the next fetch), starting exactly
   * at this replica's log end. Nothing is re-stamped: offsets, timestamps and
   * leader epochs stay the leader's. A batch that does not start at the log
   * end answers OFFSET_OUT_OF_RANGE: the fetcher must truncate (by leader
   * epoch) or refetch first.
   */
  appendReplicated(p: Partition, e: AppendEntry): PartitionAppendResult {
    if (p.isLeader) return failed(e, appendFailure(ErrorCode.NOT_LEADER_OR_FOLLOWER, `this broker leads ${e.topic}-${e.partition}; it appends no replicated batches`));
    const records = e.records;
    if (!Buffer.isBuffer(records) || records.length === 0) return failed(e, appendFailure(ErrorCode.CORRUPT_MESSAGE, 'no record batch'));
    const checked = checkReplicatedBatches(records);
    if (!checked.ok) return failed(e, checked);
    if (checked.baseOffset !== p.logEndOffset) {
      return failed(e, appendFailure(ErrorCode.OFFSET_OUT_OF_RANGE, `replicated batches start at ${checked.baseOffset}, the log ends at ${p.logEndOffset}`));
    }
    try {
      const whole = checked.wholeBytes === records.length ? records : records.subarray(0, checked.wholeBytes);
      const r = p.appendAsFollower(whole);
      this.delayedFetches.onAppend(p);
      return succeeded(e, p, r.baseOffset, r.lastOffset + 1n, NO_TIMESTAMP, whole.length, checked.offsetCount);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      return failed(e, appendFailure(ErrorCode.KAFKA_STORAGE_ERROR, `append to ${e.topic}-${e.partition} failed: ${err.message}`));
    }
  }

  /** An exact-mode mirror's copied batches, appended by this leader at their own offsets (mirror-append.ts). */
  private appendFromMirror(p: Partition, e: AppendEntry): PartitionAppendResult {
    const r = appendMirrored(p, e.records, this.deps.topicRules(e.topic));
    if (!r.ok) return failed(e, r);
    this.delayedFetches.onAppend(p);
    return succeeded(e, p, r.baseOffset, r.lastOffset + 1n, NO_TIMESTAMP, r.bytes, r.offsetCount);
  }

  private rejected(req: AppendRequest, e: AppendEntry, f: AppendFailure): PartitionAppendResult {
    this.deps.logger.debug({ topic: e.topic, partition: e.partition, reason: f.message, clientId: req.clientId ?? null }, 'rejected produced batch');
    return failed(e, f);
  }

  /**
   * Reads every requested partition; with fewer than minBytes available it
   * waits (up to maxWaitMs, at most FETCH_WAIT_MS_MAX) for appends, then reads
   * again. The first read's buffers go back through `release` when it is not
   * the one answered.
   */
  async fetchRecords(params: FetchRequestParams): Promise<FetchResult> {
    return this.readOrWait(params);
  }

  /**
   * fetchRecords, answered without a promise when it can be answered at
   * once: the Fetch handler's path, where a consumer that keeps up finds its
   * record already there on most fetches and the promise, its callbacks and
   * the suspended handler would be garbage per request (bench/README.md,
   * "Tail latency").
   */
  readOrWait(params: FetchRequestParams): FetchResult | Promise<FetchResult> {
    const first = this.collect(params);
    const maxWaitMs = Math.min(Math.max(params.maxWaitMs, 0), FETCH_WAIT_MS_MAX);
    if (first.answerNow || first.bytes >= params.minBytes || maxWaitMs <= 0 || first.waitOn.length === 0) return { topics: first.topics, buffers: first.buffers };
    if (params.release) for (const b of first.buffers) params.release(b);
    const visibility = (params.replicaId ?? -1) >= 0 ? 'appended' : params.readCommitted ? 'stable' : 'committed';
    return this.delayedFetches.wait(first.waitOn, first.bytes, params.minBytes, maxWaitMs, visibility).then(() => {
      const second = this.collect(params);
      return { topics: second.topics, buffers: second.buffers };
    });
  }

  // Plain loops and objects of fixed fields: this runs once or twice for every Fetch.
  private collect(params: FetchRequestParams): FetchResult & { bytes: number; answerNow: boolean; waitOn: Partition[] } {
    const state: CollectState = { budget: params.maxBytes > 0 ? params.maxBytes : 0, bytes: 0, answerNow: false, minOneBatch: true, waitOn: [], buffers: [] };
    const topics = new Array<{ topic: string; partitions: FetchPartitionResult[] }>(params.topics.length);
    for (let i = 0; i < params.topics.length; i++) {
      const t = params.topics[i] as FetchRequestParams['topics'][number];
      const partitions = new Array<FetchPartitionResult>(t.partitions.length);
      for (let j = 0; j < t.partitions.length; j++) partitions[j] = this.collectPartition(params, t.topic, t.partitions[j] as FetchPartition, state);
      topics[i] = { topic: t.topic, partitions };
    }
    return { topics, buffers: state.buffers, bytes: state.bytes, answerNow: state.answerNow, waitOn: state.waitOn };
  }

  /** One partition's part of `collect`: its read (or why it was not read), with `state` updated. */
  private collectPartition(params: FetchRequestParams, topic: string, fp: FetchPartition, state: CollectState): FetchPartitionResult {
    const p = this.get(topic, fp.partition);
    const replicaId = params.replicaId ?? -1;
    const located = this.fetchablePartition(topic, fp, p, params.clientRack !== undefined && replicaId < 0);
    if (located !== ErrorCode.NONE || p === undefined) {
      state.answerNow = true;
      return unreadPartition(fp.partition, located);
    }
    state.waitOn.push(p);
    const diverging = divergingEpoch(p, fp);
    if (diverging !== null) return { partition: fp.partition, ...partitionBounds(p), errorCode: ErrorCode.NONE, divergingEpoch: diverging, chunks: [], bytes: 0 };
    const preferred = replicaId < 0 ? this.preferredReplica(p, params.clientRack, fp.fetchOffset) : -1;
    if (preferred >= 0) {
      state.answerNow = true;
      return { partition: fp.partition, ...partitionBounds(p), errorCode: ErrorCode.NONE, preferredReadReplica: preferred, chunks: [], bytes: 0 };
    }
    const upTo = replicaId >= 0 ? 'logEnd' : params.readCommitted ? 'lastStable' : 'highWatermark';
    const leaderLogEnd = p.logEndOffset;
    const r = this.read(p, fp.fetchOffset, Math.min(fp.partitionMaxBytes, state.budget), upTo, state.minOneBatch, params.allocate);
    if (replicaId >= 0 && r.errorCode === ErrorCode.NONE && !p.updateFollowerFetchState(replicaId, fp.fetchOffset, leaderLogEnd, this.deps.clock.nowMs())) {
      for (const c of r.chunks) params.release?.(c);
      state.answerNow = true;
      return unreadPartition(fp.partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    }
    for (const c of r.chunks) state.buffers.push(c);
    if (r.errorCode !== ErrorCode.NONE) state.answerNow = true;
    if (r.bytes > 0) {
      state.minOneBatch = false;
      state.bytes += r.bytes;
      state.budget = Math.max(0, state.budget - r.bytes);
    }
    // Fixed fields unless the read carries aborted transactions (read_committed).
    if (r.abortedTransactions !== undefined) return { partition: fp.partition, ...r };
    return { partition: fp.partition, errorCode: r.errorCode, highWatermark: r.highWatermark, lastStableOffset: r.lastStableOffset, logStartOffset: r.logStartOffset, chunks: r.chunks, bytes: r.bytes };
  }

  /**
   * NONE when `p` may be fetched from here with this leader epoch, else the
   * error to answer. A follower serves consumers that may read from
   * followers (Fetch v11+, KIP-392), up to the high watermark it learnt
   * from its leader.
   */
  private fetchablePartition(topic: string, fp: FetchPartition, p: Partition | undefined, followerReadAllowed: boolean): number {
    if (!p) return this.deps.topicExists(topic) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (!p.isLeader && !(followerReadAllowed && p.leaderId >= 0)) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    return leaderEpochError(p, fp.currentLeaderEpoch);
  }

  /** The replica a consumer should read `p` from instead of this leader (KIP-392), or -1. */
  private preferredReplica(p: Partition, clientRack: string | undefined, fetchOffset: bigint): number {
    const selector = this.deps.replicaSelector;
    if (selector === undefined || selector === null || clientRack === undefined || clientRack === '' || !p.isLeader) return -1;
    return preferredReadReplica(p, selector, clientRack, fetchOffset, this.deps.clock.nowMs(), this.deps.rackOf ?? (() => null));
  }

  /** Reads `p` from `fetchOffset` up to its visible end (partition-read.ts). */
  read(p: Partition, fetchOffset: bigint, maxBytes: number, upTo: ReadUpTo, minOneBatch: boolean, allocate?: ReadAllocator): ReadResult {
    return readPartition(p, fetchOffset, maxBytes, upTo, minOneBatch, allocate);
  }

  /**
   * The data directories and the partition logs in each (DescribeLogDirs):
   * every log the LogManager holds, hosted or not, as Kafka reports them.
   */
  logDirs(): { dir: string; logs: PartitionLog[] }[] {
    return [{ dir: this.deps.logManager.dataDir, logs: this.deps.logManager.allLogs() }];
  }

  /** Answers every waiting long-poll fetch now, with what it has (shutdown). */
  wakeDelayedFetches(): void {
    this.delayedFetches.wakeAll();
  }

  /** Flushes every log (shutdown). */
  flushAll(): void {
    for (const p of this.hosted.all()) p.log.flush();
  }
}

/** What `collect` carries from one partition to the next: the byte budget left, what was read, what to wait on. */
interface CollectState {
  budget: number;
  bytes: number;
  /** An error, or a consumer sent to another replica: answered without a long poll. */
  answerNow: boolean;
  /** The first partition with data returns at least one whole batch (KIP-74). */
  minOneBatch: boolean;
  readonly waitOn: Partition[];
  readonly buffers: Buffer[];
}

/** A partition answered with an error and no read (no bounds known or given). */
function unreadPartition(partition: number, errorCode: number): FetchPartitionResult {
  return { partition, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, chunks: [], bytes: 0 };
}

/** -1 (none) for the int64 fields of a result: one constant, not a BigInt per result. */
const NO_TIMESTAMP = -1n;
const NO_OFFSET = -1n;

function failed(e: AppendEntry, f: AppendFailure): PartitionAppendResult {
  return {
    topic: e.topic, partition: e.partition, errorCode: f.errorCode, errorMessage: f.message,
    baseOffset: NO_OFFSET, logAppendTimeMs: NO_TIMESTAMP, logStartOffset: NO_OFFSET, requiredOffset: NO_OFFSET, appendedBytes: 0, appendedRecords: 0,
  };
}

/** `requiredOffset`: the high watermark that commits the append, its last offset + 1. */
function succeeded(
  e: AppendEntry, p: Partition, baseOffset: bigint, requiredOffset: bigint, logAppendTimeMs: bigint, appendedBytes: number, appendedRecords: number,
): PartitionAppendResult {
  return {
    topic: e.topic, partition: e.partition, errorCode: ErrorCode.NONE, errorMessage: null,
    baseOffset, logAppendTimeMs, logStartOffset: p.logStartOffset, requiredOffset, appendedBytes, appendedRecords,
  };
}
