/**
 * The transactional producer's side of KIP-98 (the Java client's
 * TransactionManager, reduced): InitProducerId with the transactional id at
 * the transaction coordinator (FindCoordinator key type 1), then per
 * transaction AddPartitionsToTxn for each partition before its first batch
 * goes out (the Sender's partition gate), AddOffsetsToTxn + TxnOffsetCommit
 * for `sendOffsets`, and EndTxn.
 *
 * States: ready -> inTransaction -> (committing | aborting) -> ready;
 * abortable (a send or offset commit of the transaction failed, or
 * TRANSACTION_ABORTABLE): only abort is allowed; fenced (PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH): nothing is, the producer must be closed.
 *
 * EndTxn whose answer is unknown (a timeout, a lost connection) is sent
 * again, with the same epoch, until an answer comes: the coordinator answers
 * a repeated end of a completed transaction with success (and a different
 * end with INVALID_TXN_STATE), so the outcome reported is the real one,
 * never a guessed abort.
 */
import { ErrorCode } from '../protocol/errors.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/messages/22-init-producer-id.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../protocol/messages/25-add-offsets-to-txn.js';
import { EndTxnRequest, EndTxnResponse } from '../protocol/messages/26-end-txn.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../protocol/messages/28-txn-offset-commit.js';
import type { Connection } from '../net/connection.js';
import { KafkaProtocolError, ProducerFencedError, TransactionAbortableError, TributaryClientError, ClientErrorCode } from '../net/errors.js';
import { api, request } from './apis.js';
import type { Cluster } from './cluster.js';
import { coordinatorConnection, findCoordinatorOnce } from './group-apis.js';

const TxnApis = {
  InitProducerId: api(InitProducerIdRequest, InitProducerIdResponse, 0, 4),
  AddPartitionsToTxn: api(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 0, 3),
  AddOffsetsToTxn: api(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 0, 3),
  EndTxn: api(EndTxnRequest, EndTxnResponse, 0, 3),
  TxnOffsetCommit: api(TxnOffsetCommitRequest, TxnOffsetCommitResponse, 0, 3),
} as const;

/** Errors after which the same request is sent again (to the coordinator found again). */
const RETRY = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NETWORK_EXCEPTION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
]);
const FENCED = new Set<number>([ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]);
/** Attempts of one coordinator request before it fails (about a minute with the cluster's backoff). */
const ATTEMPTS_MAX = 60;
const KEY_TYPE_TRANSACTION = 1;
/** CONCURRENT_TRANSACTIONS is waited out this often, this many times (30 s), before the usual backoff takes over. */
const CONCURRENT_BACKOFF_MS = 20;
const CONCURRENT_WAITS_MAX = 1_500;

export type TransactionState = 'uninitialized' | 'ready' | 'inTransaction' | 'committing' | 'aborting' | 'abortable' | 'fenced';

export interface ConsumerGroupMetadata {
  readonly groupId: string;
  readonly generationId?: number;
  readonly memberId?: string;
  readonly groupInstanceId?: string | null;
}

export interface TxnSenderControl {
  assignProducerId(producerId: bigint, producerEpoch: number): void;
  scheduleDrain(): void;
  fail(err: Error): void;
  /** Fails the unsent batches of a partition that could not be added to the transaction. */
  failUnsent(topic: string, partition: number, err: Error): void;
}

function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaProtocolError) return RETRY.has(err.kafkaErrorCode);
  // A lost connection or a request timeout: the answer is unknown, the request is sent again.
  return err instanceof TributaryClientError && err.code !== ClientErrorCode.INVALID_ARGUMENT;
}

export class TransactionManager {
  state: TransactionState = 'uninitialized';
  private producerId = -1n;
  private producerEpoch = -1;
  private readonly added = new Set<string>();
  private readonly adding = new Set<string>();
  /** Partitions met by the Sender and not yet in an AddPartitionsToTxn request. */
  private readonly toAdd = new Map<string, { topic: string; partition: number }>();
  private addScheduled = false;
  private addInFlight = false;
  private abortCause: Error | null = null;
  /**
   * The coordinator found last: asked again only after a request to it
   * failed (Java's client keeps it the same way), not before each request,
   * which cost a FindCoordinator round trip per AddPartitionsToTxn and EndTxn.
   */
  private coordinatorId: number | null = null;

  constructor(
    private readonly cluster: Cluster,
    readonly transactionalId: string,
    private readonly transactionTimeoutMs: number,
    private readonly sender: TxnSenderControl,
  ) {}

  /** Runs `op` on the transaction coordinator, finding it again and retrying retriable errors. */
  private async onCoordinator<T>(what: string, op: (conn: Connection) => Promise<T>): Promise<T> {
    let concurrentWaits = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        if (this.coordinatorId === null) {
          const node = await findCoordinatorOnce(await this.cluster.anyConnection(), this.transactionalId, KEY_TYPE_TRANSACTION);
          if (!this.cluster.metadata.brokers.has(node.nodeId)) await this.cluster.refreshMetadata([]);
          this.coordinatorId = node.nodeId;
        }
        return await op(await this.cluster.connectionTo(this.coordinatorId));
      } catch (err) {
        // Any failure may mean the coordinator moved (NOT_COORDINATOR, a lost connection): find it again next time.
        if (!(err instanceof KafkaProtocolError && err.kafkaErrorCode === ErrorCode.CONCURRENT_TRANSACTIONS)) this.coordinatorId = null;
        // The previous transaction's markers are still being written: that takes milliseconds, so a short,
        // flat wait (Java's client waits 20 ms for AddPartitionsToTxn) instead of the exponential backoff.
        if (err instanceof KafkaProtocolError && err.kafkaErrorCode === ErrorCode.CONCURRENT_TRANSACTIONS && concurrentWaits < CONCURRENT_WAITS_MAX) {
          concurrentWaits++;
          attempt--;
          await new Promise((resolve) => setTimeout(resolve, CONCURRENT_BACKOFF_MS));
          continue;
        }
        if (attempt + 1 >= ATTEMPTS_MAX || !isRetriable(err)) throw this.classify(err, what);
        await this.cluster.backoff(Math.min(attempt, 5));
      }
    }
  }

  /** Fencing becomes ProducerFencedError (and the producer fails); the rest is passed on. */
  private classify(err: unknown, what: string): Error {
    if (err instanceof KafkaProtocolError && FENCED.has(err.kafkaErrorCode)) {
      this.state = 'fenced';
      const fenced = new ProducerFencedError(`${what}: the transactional producer '${this.transactionalId}' was fenced by a newer instance`, { cause: err });
      this.sender.fail(fenced);
      return fenced;
    }
    if (err instanceof KafkaProtocolError && err.kafkaErrorCode === ErrorCode.TRANSACTION_ABORTABLE) return this.toAbortable(err);
    return err instanceof Error ? err : new Error(String(err));
  }

  private toAbortable(cause: unknown): TransactionAbortableError {
    const err = cause instanceof TransactionAbortableError ? cause : new TransactionAbortableError(`the transaction must be aborted: ${(cause as Error).message}`, { cause });
    if (this.state === 'inTransaction') this.state = 'abortable';
    this.abortCause ??= err;
    return err;
  }

  private check(code: number, api: string): void {
    if (code !== ErrorCode.NONE) throw new KafkaProtocolError(code, { api });
  }

  async init(): Promise<void> {
    if (this.state !== 'uninitialized') throw this.stateError('initTransactions');
    const r = await this.onCoordinator('InitProducerId', async (conn) => {
      const { response } = await request(conn, TxnApis.InitProducerId, () => ({ transactionalId: this.transactionalId, transactionTimeoutMs: this.transactionTimeoutMs, producerId: -1n, producerEpoch: -1 }));
      this.check(response.errorCode, 'InitProducerId');
      return response;
    });
    this.producerId = r.producerId;
    this.producerEpoch = r.producerEpoch;
    this.sender.assignProducerId(r.producerId, r.producerEpoch);
    this.state = 'ready';
  }

  begin(): void {
    if (this.state !== 'ready') throw this.stateError('beginTransaction');
    this.added.clear();
    this.abortCause = null;
    this.state = 'inTransaction';
  }

  private stateError(call: string): TributaryClientError {
    if (this.state === 'fenced') return new ProducerFencedError(`${call}: the transactional producer '${this.transactionalId}' was fenced`);
    return new TributaryClientError(ClientErrorCode.TRANSACTION_STATE, `${call} is not allowed in state ${this.state}`);
  }

  /**
   * The Sender's gate: a partition sends only once it is in the transaction;
   * the first ask starts AddPartitionsToTxn. Also while committing or
   * aborting: records sent just before commitTransaction() (not awaited)
   * are flushed by it, so their partitions are still added then.
   */
  gate(topic: string, partition: number): boolean {
    const key = `${topic}\u0000${partition}`;
    if (this.added.has(key)) return true;
    const open = this.state === 'inTransaction' || this.state === 'committing' || this.state === 'aborting';
    if (!open) {
      // An abortable (or fenced) transaction never takes another partition, so a batch waiting at this
      // gate would wait forever, and with it the sendBatch() or flush() that awaits it, and so the abort
      // (records can reach the accumulator after the transaction turned abortable: those that waited for
      // metadata). Fail them now, as Java's Sender aborts the undrained batches on an abortable error.
      if (this.state === 'abortable' || this.state === 'fenced') {
        const cause = this.abortCause ?? this.stateError('send');
        queueMicrotask(() => this.sender.failUnsent(topic, partition, cause));
      }
      return false;
    }
    if (this.adding.has(key)) return false;
    this.adding.add(key);
    this.toAdd.set(key, { topic, partition });
    // Every partition the Sender meets in this drain goes in one request (as Java's client batches
    // them): concurrent AddPartitionsToTxn for one id would only meet CONCURRENT_TRANSACTIONS.
    if (!this.addScheduled && !this.addInFlight) {
      this.addScheduled = true;
      queueMicrotask(() => void this.sendAdds());
    }
    return false;
  }

  /** One AddPartitionsToTxn for every partition waiting; the next batch goes when it is answered. */
  private async sendAdds(): Promise<void> {
    this.addScheduled = false;
    if (this.addInFlight || this.toAdd.size === 0) return;
    const batch = [...this.toAdd];
    this.toAdd.clear();
    this.addInFlight = true;
    try {
      await this.addPartitions(batch.map(([, tp]) => tp));
      for (const [key] of batch) this.added.add(key);
    } catch (err) {
      this.failSends(err);
      // Their batches can never go in this transaction: fail them, so flush() (and the abort) can end.
      const cause = err instanceof Error ? err : new Error(String(err));
      for (const [, tp] of batch) this.sender.failUnsent(tp.topic, tp.partition, cause);
    } finally {
      for (const [key] of batch) this.adding.delete(key);
      this.addInFlight = false;
      if (this.toAdd.size > 0) void this.sendAdds();
      this.sender.scheduleDrain();
    }
  }

  private async addPartitions(partitions: readonly { topic: string; partition: number }[]): Promise<void> {
    const byTopic = new Map<string, number[]>();
    for (const tp of partitions) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
    await this.onCoordinator('AddPartitionsToTxn', async (conn) => {
      const { response } = await request(conn, TxnApis.AddPartitionsToTxn, () => ({
        transactionalId: this.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch,
        topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps })),
      }));
      for (const t of response.results ?? []) for (const p of t.results) this.check(p.errorCode, 'AddPartitionsToTxn');
    });
  }

  /** A partition could not be added: the transaction can only abort, and its queued batches fail. */
  private failSends(err: unknown): void {
    if (this.state === 'fenced') return;
    this.toAbortable(err);
  }

  /** A batch of the transaction failed for good: only abort remains. */
  onSendFailed(err: Error): void {
    if (this.state === 'inTransaction') this.toAbortable(err);
  }

  async sendOffsets(group: ConsumerGroupMetadata, offsets: readonly { topic: string; partition: number; offset: bigint; metadata?: string | null; leaderEpoch?: number }[]): Promise<void> {
    if (this.state !== 'inTransaction') throw this.stateError('sendOffsets');
    try {
      await this.onCoordinator('AddOffsetsToTxn', async (conn) => {
        const { response } = await request(conn, TxnApis.AddOffsetsToTxn, () => ({ transactionalId: this.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch, groupId: group.groupId }));
        this.check(response.errorCode, 'AddOffsetsToTxn');
      });
      await this.txnOffsetCommit(group, offsets);
    } catch (err) {
      if ((this.state as TransactionState) === 'fenced') throw err;
      throw this.toAbortable(err);
    }
  }

  private async txnOffsetCommit(group: ConsumerGroupMetadata, offsets: Parameters<TransactionManager['sendOffsets']>[1]): Promise<void> {
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null }[]>();
    for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), { partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch ?? -1, committedMetadata: o.metadata ?? null }]);
    for (let attempt = 0; ; attempt++) {
      try {
        const conn = await coordinatorConnection(this.cluster, group.groupId);
        const { response } = await request(conn, TxnApis.TxnOffsetCommit, () => ({
          transactionalId: this.transactionalId, groupId: group.groupId, producerId: this.producerId, producerEpoch: this.producerEpoch,
          generationId: group.generationId ?? -1, memberId: group.memberId ?? '', groupInstanceId: group.groupInstanceId ?? null,
          topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
        }));
        for (const t of response.topics) for (const p of t.partitions) this.check(p.errorCode, 'TxnOffsetCommit');
        return;
      } catch (err) {
        if (attempt + 1 >= ATTEMPTS_MAX || !isRetriable(err)) throw this.classify(err, 'TxnOffsetCommit');
        await this.cluster.backoff(Math.min(attempt, 5));
      }
    }
  }

  /** EndTxn, sent again while its answer is unknown; `flush` waits for the transaction's batches first. */
  async end(commit: boolean, flush: () => Promise<void>): Promise<void> {
    if (commit && this.state === 'abortable') throw this.abortCause ?? this.stateError('commitTransaction');
    if (this.state !== 'inTransaction' && this.state !== 'abortable') throw this.stateError(commit ? 'commitTransaction' : 'abortTransaction');
    this.state = commit ? 'committing' : 'aborting';
    try {
      await flush();
    } catch (err) {
      if (commit) {
        this.state = 'abortable';
        throw this.toAbortable(err);
      }
    }
    // A partition could not be added, or a send failed, while the flush ran: nothing may be committed.
    if (commit && this.abortCause !== null) {
      this.state = 'abortable';
      throw this.abortCause;
    }
    if (this.added.size > 0 || commit || this.adding.size > 0) {
      await this.onCoordinator('EndTxn', async (conn) => {
        const { response } = await request(conn, TxnApis.EndTxn, () => ({ transactionalId: this.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch, committed: commit }));
        // Nothing was added to an aborted transaction: the coordinator has nothing to end.
        if (!commit && response.errorCode === ErrorCode.INVALID_TXN_STATE && this.added.size === 0) return;
        this.check(response.errorCode, 'EndTxn');
      }).catch((err: unknown) => {
        if (this.state !== 'fenced') this.state = 'abortable';
        throw err;
      });
    }
    this.added.clear();
    this.state = 'ready';
  }
}

/** What `tx.sendOffsets` takes: a consumer (its group and current positions), or a group and the offsets. */
export interface ConsumerLike {
  groupMetadata(): ConsumerGroupMetadata;
  assignment(): { topic: string; partition: number }[];
  position(tp: { topic: string; partition: number }): bigint | null;
}

export type TxnOffsets = readonly { topic: string; partition: number; offset: bigint; metadata?: string | null; leaderEpoch?: number }[];

/** The offsets to commit with the transaction: the consumer's positions, or the ones given. */
export function offsetsToSend(source: ConsumerLike | (ConsumerGroupMetadata & { offsets: TxnOffsets })): { group: ConsumerGroupMetadata; offsets: TxnOffsets } {
  if ('offsets' in source) return { group: source, offsets: source.offsets };
  const offsets: { topic: string; partition: number; offset: bigint }[] = [];
  for (const tp of source.assignment()) {
    const offset = source.position(tp);
    if (offset !== null) offsets.push({ topic: tp.topic, partition: tp.partition, offset });
  }
  return { group: source.groupMetadata(), offsets };
}
