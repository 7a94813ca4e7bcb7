/**
 * The producer of a stream thread (Kafka's StreamsProducer). Under
 * at_least_once it is a plain idempotent Producer. Under exactly_once_v2
 * (KIP-447) it is one transactional producer per thread, transactional id
 * `<applicationId>-<processId>-<threadIdx>` as Kafka names it: a transaction
 * begins with the first record sent after a commit, holds every output,
 * repartition and changelog record of every task of the thread, and commits
 * together with the input offsets (sendOffsetsToTransaction with the
 * consumer's group metadata, so a member fenced by a rebalance cannot commit).
 *
 * After a fencing the producer cannot be used again: `reset()` closes it and
 * opens a new one with the same transactional id (InitProducerId bumps the
 * epoch and aborts whatever the old instance left open).
 */
import { Producer, type BatchAck, type ProducerRecord } from '../../client/index.js';
import type { ConsumerGroupMetadata } from '../../client/producer-transactions.js';

/** Kafka Streams' `transaction.timeout.ms` under exactly-once: a crashed thread's open transaction is aborted by the coordinator after this long. */
export const EOS_TRANSACTION_TIMEOUT_MS = 10_000;

/** Bytes, or a string the Producer writes as UTF-8. */
type Bytes = Buffer | string | null;

export interface StreamsProducerOptions {
  bootstrap: string;
  clientId: string;
  /** Set under exactly_once_v2. */
  transactionalId: string | null;
}

export class StreamsProducer {
  private producer: Producer<Bytes, Bytes> | null = null;
  private inTransaction = false;

  constructor(private readonly options: StreamsProducerOptions) {}

  get eos(): boolean {
    return this.options.transactionalId !== null;
  }

  /** Connects (and, under exactly-once, initialises the transactional id: older instances are fenced). */
  async open(): Promise<void> {
    const { bootstrap, clientId, transactionalId } = this.options;
    this.producer = await Producer.connect<Bytes, Bytes>({
      clusterOptions: { bootstrap, clientId },
      ...(transactionalId === null ? {} : { transactionalId, transactionTimeoutMs: EOS_TRANSACTION_TIMEOUT_MS }),
    });
  }

  private get current(): Producer<Bytes, Bytes> {
    if (this.producer === null) throw new Error('the streams producer is not open');
    return this.producer;
  }

  /** Sends a batch; under exactly-once the first send after a commit begins the transaction. */
  sendBatch(records: readonly ProducerRecord<Bytes, Bytes>[]): Promise<BatchAck[]> {
    this.maybeBegin();
    return this.current.sendBatch(records);
  }

  private maybeBegin(): void {
    if (!this.eos || this.inTransaction) return;
    this.current.beginTransaction();
    this.inTransaction = true;
  }

  /** Whether a transaction is open (something was sent since the last commit or abort). */
  get transactionOpen(): boolean {
    return this.inTransaction;
  }

  /**
   * Commits the open transaction with the input offsets (exactly-once only).
   * With nothing sent and no offsets there is nothing to commit.
   */
  async commitTransaction(offsets: readonly { topic: string; partition: number; offset: bigint }[], group: ConsumerGroupMetadata): Promise<void> {
    if (!this.inTransaction && offsets.length === 0) return;
    this.maybeBegin();
    if (offsets.length > 0) await this.current.sendOffsetsToTransaction(offsets, group);
    await this.current.commitTransaction();
    this.inTransaction = false;
  }

  /** Aborts the open transaction, if any; a fenced producer has nothing left to abort (the new epoch did it). */
  async abortTransaction(): Promise<void> {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    await this.current.abortTransaction();
  }

  /** Replaces the producer by a new one with the same transactional id (after it was fenced or failed). */
  async reset(): Promise<void> {
    const old = this.producer;
    this.producer = null;
    this.inTransaction = false;
    await old?.close().catch(() => {});
    await this.open();
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    await p?.close().catch(() => {});
  }
}
