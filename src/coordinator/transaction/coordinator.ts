/**
 * The transaction coordinator (Kafka's TransactionCoordinator and
 * TransactionStateManager) as a state machine over injected persistence,
 * producer ids, markers and time (types.ts). It serves the transactional ids
 * of the __transaction_state partitions loaded here ("shards"; the
 * coordinator runtime loads them when this broker becomes the partition's
 * leader, and the partition's leader epoch is the coordinator epoch that
 * every marker carries).
 *
 * Every state change is written to __transaction_state before it is acted
 * on or answered; while a write is in flight the id answers
 * CONCURRENT_TRANSACTIONS. Ending a transaction is two writes around the
 * markers: PrepareCommit/PrepareAbort (then the client is answered), the
 * markers to every partition, then CompleteCommit/CompleteAbort
 * (completion.ts). A shard loaded with a Prepare* state resends its markers.
 *
 * Fencing: the epoch check here (PRODUCER_FENCED, which the handlers turn
 * into INVALID_PRODUCER_EPOCH for versions that predate it, KIP-588), the
 * epoch bump of InitProducerId (KIP-98), the epoch bump at every EndTxn for
 * transaction version 2 clients (KIP-890 part 2, which makes a delayed EndTxn
 * of an earlier transaction fail instead of ending a later one, KAFKA-17754).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { partitionForGroup } from '../group/offsets-topic/partitioner.js';
import { TxnCompletion, writeErrorCode } from './completion.js';
import type { TxnLogEntry } from './records.js';
import { PRODUCER_EPOCH_MAX, TxnMetadata, tpKey, type TopicPartition } from './state.js';
import type { EndTxnInput, InitProducerIdInput, ProducerIdAndEpoch, TxnCoordinatorDeps, TxnRef } from './types.js';
import { TxnQueries } from './queries.js';

/** The transactional ids of one loaded __transaction_state partition. */
export interface Shard {
  readonly partition: number;
  readonly coordinatorEpoch: number;
  readonly txns: Map<string, TxnMetadata>;
}

const failed = (errorCode: number): ProducerIdAndEpoch => ({ errorCode, producerId: -1n, producerEpoch: -1 });

export class TransactionCoordinator {
  private readonly shards = new Map<number, Shard>();
  private readonly loading = new Set<number>();
  readonly completion: TxnCompletion;
  readonly queries: TxnQueries;

  constructor(private readonly deps: TxnCoordinatorDeps) {
    this.completion = new TxnCompletion(deps, (s) => this.shards.get(s.partition) === s, (s, md, t) => this.persist(s, md, t));
    this.queries = new TxnQueries(deps, () => this.shards.values());
  }

  partitionFor(transactionalId: string): number {
    return partitionForGroup(transactionalId, this.deps.config.numPartitions);
  }

  // ------------------------------------------------------------- shards

  /** The partition is being loaded: its ids answer COORDINATOR_LOAD_IN_PROGRESS. */
  beginLoad(partition: number): void {
    this.shards.delete(partition);
    this.loading.add(partition);
  }

  /** Installs a loaded partition and resumes the transactions caught between Prepare* and Complete*. */
  loadPartition(partition: number, coordinatorEpoch: number, entries: ReadonlyMap<string, TxnLogEntry>): void {
    this.loading.delete(partition);
    const shard: Shard = { partition, coordinatorEpoch, txns: new Map() };
    for (const [id, e] of entries) if (e.state !== 'Dead') shard.txns.set(id, new TxnMetadata(id, e));
    this.shards.set(partition, shard);
    for (const md of shard.txns.values()) {
      if (md.state === 'PrepareCommit' || md.state === 'PrepareAbort') this.completion.sendMarkers(shard, md);
    }
  }

  /** Leadership moved away: the ids are served elsewhere; in-flight work sees the shard gone and stops. */
  unloadPartition(partition: number): void {
    this.loading.delete(partition);
    this.shards.delete(partition);
  }

  /** NONE-free lookup: the shard of the id, or the code to answer. */
  shardOf(transactionalId: string): Shard | number {
    const n = this.partitionFor(transactionalId);
    const s = this.shards.get(n);
    if (s !== undefined) return s;
    return this.loading.has(n) ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NOT_COORDINATOR;
  }

  isLoaded(partition: number): boolean {
    return this.shards.has(partition);
  }

  // ------------------------------------------------------ InitProducerId

  async initProducerId(input: InitProducerIdInput): Promise<ProducerIdAndEpoch> {
    if (input.transactionalId === '') return failed(ErrorCode.INVALID_REQUEST);
    if (input.transactionTimeoutMs <= 0 || input.transactionTimeoutMs > this.deps.config.maxTimeoutMs) return failed(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const shard = this.shardOf(input.transactionalId);
    if (typeof shard === 'number') return failed(shard);
    let md = shard.txns.get(input.transactionalId);
    if (md === undefined) {
      const pid = await this.deps.producerIds.newProducerId();
      if (typeof pid !== 'bigint') return failed(pid.errorCode);
      if (this.shards.get(shard.partition) !== shard) return failed(ErrorCode.NOT_COORDINATOR);
      md = shard.txns.get(input.transactionalId) ?? this.newMetadata(shard, input, pid);
    }
    return this.initExisting(shard, md, input);
  }

  private newMetadata(shard: Shard, input: InitProducerIdInput, producerId: bigint): TxnMetadata {
    const now = this.deps.clock.nowMs();
    const md = new TxnMetadata(input.transactionalId, {
      producerId, previousProducerId: -1n, nextProducerId: -1n, producerEpoch: -1, nextProducerEpoch: -1,
      txnTimeoutMs: input.transactionTimeoutMs, state: 'Empty', partitions: [],
      txnLastUpdateTimestampMs: now, txnStartTimestampMs: -1, clientTransactionVersion: 1,
    });
    shard.txns.set(input.transactionalId, md);
    return md;
  }

  private async initExisting(shard: Shard, md: TxnMetadata, input: InitProducerIdInput): Promise<ProducerIdAndEpoch> {
    if (md.inFlight) return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
    // An id whose metadata was just created (epoch -1) takes any producer id and epoch, as Kafka
    // (isValidProducerId): a client may name the id of its earlier idempotent session
    // (@platformatic/kafka does, on its first transaction) or recover from UNKNOWN_PRODUCER_ID.
    if (input.producerId >= 0n && md.producerEpoch >= 0) {
      // KIP-360: a producer bumping its own epoch must name its current id and epoch.
      // A retry of the InitProducerId that bumped the epoch, or a producer whose
      // transaction the coordinator aborted (timeout) with a bump: the current
      // epoch, no new bump (Kafka's prepareIncrementProducerEpoch).
      const idle = md.state === 'Empty' || md.state === 'CompleteCommit' || md.state === 'CompleteAbort';
      if (idle && input.producerId === md.producerId && input.producerEpoch === md.lastProducerEpoch && md.lastProducerEpoch >= 0) {
        return { errorCode: ErrorCode.NONE, producerId: md.producerId, producerEpoch: md.producerEpoch };
      }
      const current = input.producerId === md.producerId && input.producerEpoch === md.producerEpoch;
      const previous = input.producerId === md.previousProducerId && md.previousProducerId >= 0n && input.producerEpoch >= PRODUCER_EPOCH_MAX;
      if (!current && !previous) return failed(ErrorCode.PRODUCER_FENCED);
    }
    switch (md.state) {
      case 'PrepareCommit':
      case 'PrepareAbort':
      case 'PrepareEpochFence':
      case 'Dead':
        return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Ongoing':
        // A new producer instance: fence the old one and abort its transaction; the client retries.
        this.completion.fenceAndAbort(shard, md, 'fenced');
        return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Empty':
      case 'CompleteCommit':
      case 'CompleteAbort':
        return this.bumpAndReset(shard, md, input.transactionTimeoutMs);
    }
  }

  private async bumpAndReset(shard: Shard, md: TxnMetadata, txnTimeoutMs: number): Promise<ProducerIdAndEpoch> {
    let producerId = md.producerId;
    let producerEpoch = md.producerEpoch + 1;
    let previousProducerId = md.previousProducerId;
    if (md.producerEpoch >= PRODUCER_EPOCH_MAX) {
      const pid = await this.deps.producerIds.newProducerId();
      if (typeof pid !== 'bigint') return failed(pid.errorCode);
      if (this.shards.get(shard.partition) !== shard || md.inFlight) return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
      previousProducerId = md.producerId;
      producerId = pid;
      producerEpoch = 0;
    }
    const target: TxnLogEntry = {
      ...md.entry(), producerId, previousProducerId, nextProducerId: -1n, producerEpoch, nextProducerEpoch: -1,
      txnTimeoutMs, state: 'Empty', partitions: [], txnStartTimestampMs: -1, txnLastUpdateTimestampMs: this.deps.clock.nowMs(),
    };
    const code = await this.persist(shard, md, target);
    return code === ErrorCode.NONE ? { errorCode: ErrorCode.NONE, producerId, producerEpoch } : failed(code);
  }

  // ------------------------------------------------- AddPartitionsToTxn

  /** The id's metadata if `ref` is its current producer, else the error. */
  private validate(ref: TxnRef): { shard: Shard; md: TxnMetadata } | number {
    const shard = this.shardOf(ref.transactionalId);
    if (typeof shard === 'number') return shard;
    const md = shard.txns.get(ref.transactionalId);
    if (md === undefined || md.producerId !== ref.producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (md.producerEpoch !== ref.producerEpoch) return ErrorCode.PRODUCER_FENCED;
    return { shard, md };
  }

  /**
   * The marker phase under way for the id's previous transaction (settles
   * when its Complete* record is written or the phase stops), or null. Until
   * then AddPartitionsToTxn and AddOffsetsToTxn answer
   * CONCURRENT_TRANSACTIONS; the broker waits for this, a bounded time,
   * before answering so (src/broker/txn-concurrent-wait.ts).
   */
  markerPhase(transactionalId: string): Promise<void> | null {
    const shard = this.shardOf(transactionalId);
    if (typeof shard === 'number') return null;
    const md = shard.txns.get(transactionalId);
    return md === undefined ? null : this.completion.markerPhaseOf(md);
  }

  /** Adds partitions to the transaction (one error for all of them, as Kafka). */
  async addPartitions(ref: TxnRef, partitions: readonly TopicPartition[]): Promise<number> {
    const v = this.validate(ref);
    if (typeof v === 'number') return v;
    const { shard, md } = v;
    if (md.inFlight) return ErrorCode.CONCURRENT_TRANSACTIONS;
    switch (md.state) {
      case 'PrepareCommit':
      case 'PrepareAbort':
      case 'PrepareEpochFence':
        return ErrorCode.CONCURRENT_TRANSACTIONS;
      case 'Dead':
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
      default:
        break;
    }
    if (md.state === 'Ongoing' && partitions.every((tp) => md.partitions.has(tpKey(tp)))) return ErrorCode.NONE;
    const now = this.deps.clock.nowMs();
    const all = new Map<string, TopicPartition>();
    if (md.state === 'Ongoing') for (const tp of md.entry().partitions) all.set(tpKey(tp), tp);
    for (const tp of partitions) all.set(tpKey(tp), tp);
    const target: TxnLogEntry = {
      ...md.entry(), state: 'Ongoing', partitions: [...all.values()],
      txnStartTimestampMs: md.state === 'Ongoing' ? md.txnStartTimestampMs : now, txnLastUpdateTimestampMs: now,
    };
    return this.persist(shard, md, target);
  }

  /**
   * KIP-890 part 1 (AddPartitionsToTxn v4+ verifyOnly): whether each
   * partition is in the producer's ongoing transaction. Never writes.
   */
  verifyPartitions(ref: TxnRef, partitions: readonly TopicPartition[]): { errorCode: number; partitions: Map<string, number> } {
    const result = new Map<string, number>();
    const v = this.validate(ref);
    const all = (code: number) => {
      for (const tp of partitions) result.set(tpKey(tp), code);
      return { errorCode: ErrorCode.NONE, partitions: result };
    };
    if (typeof v === 'number') return all(v);
    const { md } = v;
    if (md.pending !== null && md.pending.state !== 'Ongoing') return all(ErrorCode.CONCURRENT_TRANSACTIONS);
    for (const tp of partitions) {
      result.set(tpKey(tp), md.state === 'Ongoing' && md.partitions.has(tpKey(tp)) ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE);
    }
    return { errorCode: ErrorCode.NONE, partitions: result };
  }

  /** AddOffsetsToTxn: the group's __consumer_offsets partition joins the transaction. */
  addOffsets(ref: TxnRef, groupId: string, offsetsTopicPartitions: number): Promise<number> {
    return this.addPartitions(ref, [{ topic: '__consumer_offsets', partition: partitionForGroup(groupId, offsetsTopicPartitions) }]);
  }

  /** For TxnOffsetCommit: NONE when `ref` is the id's current producer with a transaction open. */
  checkOngoing(ref: TxnRef): number {
    const v = this.validate(ref);
    if (typeof v === 'number') return v === ErrorCode.INVALID_PRODUCER_ID_MAPPING ? ErrorCode.INVALID_PRODUCER_ID_MAPPING : v;
    return v.md.state === 'Ongoing' ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
  }

  // -------------------------------------------------------------- EndTxn

  /** EndTxn; transaction version 2 answers the bumped producer id and epoch (EndTxn v5). */
  endTxn(input: EndTxnInput): Promise<ProducerIdAndEpoch> {
    return this.completion.endTxn(input, this.shardOf(input.transactionalId));
  }

  // ---------------------------------------------------------------- writes

  /** Prepares, writes and completes (or rolls back) one transition; answers the wire code. */
  private async persist(shard: Shard, md: TxnMetadata, target: TxnLogEntry): Promise<number> {
    md.prepare(target);
    const code = await this.deps.persistence.write(shard.partition, md.transactionalId, target);
    if (this.shards.get(shard.partition) !== shard) return ErrorCode.NOT_COORDINATOR;
    if (code !== ErrorCode.NONE) {
      md.rollback();
      return writeErrorCode(code);
    }
    md.complete(target);
    return ErrorCode.NONE;
  }

  /**
   * Aborts transactions open longer than their timeout, and resumes stalled
   * marker phases (every transaction.abort.timed.out.transaction.cleanup.interval.ms).
   */
  abortTimedOut(): number {
    this.completion.resumeStalled(this.shards.values());
    let n = 0;
    const now = this.deps.clock.nowMs();
    for (const shard of this.shards.values()) {
      for (const md of shard.txns.values()) {
        if (md.state === 'Ongoing' && !md.inFlight && md.txnStartTimestampMs + md.txnTimeoutMs < now) {
          this.completion.fenceAndAbort(shard, md, 'timeout');
          n++;
        }
      }
    }
    return n;
  }

  /** Removes ids unused for transactional.id.expiration.ms (tombstones), as Kafka's removeExpiredTransactionalIds. */
  async expireTransactionalIds(): Promise<number> {
    const now = this.deps.clock.nowMs();
    const removals: Promise<boolean>[] = [];
    for (const shard of this.shards.values()) {
      for (const md of shard.txns.values()) {
        const idle = md.state === 'Empty' || md.state === 'CompleteCommit' || md.state === 'CompleteAbort';
        if (idle && !md.inFlight && md.txnLastUpdateTimestampMs + this.deps.config.idExpirationMs <= now) removals.push(this.remove(shard, md));
      }
    }
    return (await Promise.all(removals)).filter(Boolean).length;
  }

  private async remove(shard: Shard, md: TxnMetadata): Promise<boolean> {
    const target: TxnLogEntry = { ...md.entry(), state: 'Dead', partitions: [], txnLastUpdateTimestampMs: this.deps.clock.nowMs() };
    md.prepare(target);
    const code = await this.deps.persistence.write(shard.partition, md.transactionalId, null);
    if (this.shards.get(shard.partition) !== shard) return false;
    if (code !== ErrorCode.NONE) {
      md.rollback();
      return false;
    }
    md.complete(target);
    shard.txns.delete(md.transactionalId);
    return true;
  }
}
