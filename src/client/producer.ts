/**
 * The Producer: typed serializers, per-partition batching with linger and a
 * byte budget, compression, acks 0/1/-1, retries with backoff, flush and
 * close, and idempotence (on by default, as the Java client): a producer id
 * from InitProducerId and a sequence number per partition in every batch
 * header, so the broker drops a retried batch it already has
 * (producer-idempotence.ts). Without idempotence a retried batch whose first
 * attempt was appended is appended twice (at-least-once).
 *
 * Per record, `send()` does the serializer calls, one partition choice and
 * one array push into the open batch, and returns the one promise the caller
 * awaits; it is resolved from the batch's single Produce response. No timer,
 * no promise chain, no closure per record beyond that. `sendBatch()` returns
 * one promise for many records.
 *
 * Sending, retries, ordering and idempotence are in producer-sender.ts.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { RecordInput } from '../protocol/record-batch/builder.js';
import { Cluster } from './cluster.js';
import { ClientErrorCode, KafkaProtocolError, TransactionAbortableError, TributaryClientError, invalidArgument } from '../net/errors.js';
import { resolveIdempotence } from './producer-idempotence.js';
import { Sender } from './producer-sender.js';
import { COMPRESSION_CODECS } from './records.js';
import { RecordAccumulator, recordBytes, type BatchAck, type RecordMetadata, type Sink } from './producer-accumulator.js';
import { createPartitioner, type ProducerPartitioner } from './producer-partitioners.js';
import { Fifo } from '../util/fifo.js';
import { BatchSink, RecordSink, nonNegative, positive, toHeaderList } from './producer-input.js';
import { backoffMs, isRetriable } from './producer-retry.js';
import { sleep } from '../util/sleep.js';
import { TransactionManager, offsetsToSend, type ConsumerGroupMetadata, type ConsumerLike, type TxnOffsets } from './producer-transactions.js';
import {
  BATCH_SIZE_DEFAULT,
  BUFFER_MEMORY_DEFAULT,
  DELIVERY_TIMEOUT_MS_DEFAULT,
  LINGER_MS_DEFAULT,
  MAX_BLOCK_MS_DEFAULT,
  MAX_REQUEST_BYTES_DEFAULT,
  PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT,
  PRODUCER_RETRIES_DEFAULT,
  PRODUCER_RETRY_BACKOFF_MS_DEFAULT,
  Serializers,
  type ProducerOptions,
  type ProducerRecord,
  type Serializer,
} from './producer-types.js';

export * from './producer-types.js';

type Resolved = Required<
  Pick<ProducerOptions<unknown, unknown>, 'acks' | 'batchSize' | 'lingerMs' | 'bufferMemory' | 'retries' | 'retryBackoffMs' | 'deliveryTimeoutMs' | 'requestTimeoutMs' | 'maxRequestBytes'>
>;

/** A record waiting for metadata or room in bufferMemory, in send order. */
interface Blocked {
  topic: string;
  partition: number | undefined;
  key: Buffer | string | null;
  value: Buffer | string | null;
  record: RecordInput;
  bytes: number;
  sink: Sink;
  /** Set once metadata was refreshed for an explicit partition beyond the known count (partitions added since). */
  refreshed?: boolean;
}

/** What `producer.transaction(fn)` hands to `fn`. */
export interface TransactionScope<K, V> {
  send(record: ProducerRecord<K, V>): Promise<RecordMetadata>;
  sendBatch(records: readonly ProducerRecord<K, V>[]): Promise<BatchAck[]>;
  sendOffsets(source: ConsumerLike | (ConsumerGroupMetadata & { offsets: TxnOffsets })): Promise<void>;
}

/** The producer: `Producer.connect(options)`, then `send` / `sendBatch`, `flush`, `close`. Batches per partition, compresses, retries in order. */
export class Producer<K = Buffer | string | null, V = Buffer | string | null> {
  private readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly keySerializer: Serializer<K>;
  private readonly valueSerializer: Serializer<V>;
  private readonly settings: Resolved;
  private readonly accumulator: RecordAccumulator;
  private readonly sender: Sender;
  private readonly partitioner: ProducerPartitioner;
  /** Metadata lookups of the topics sent to ask for auto-creation (ProducerOptions.allowAutoTopicCreation). */
  private readonly topicLookup: { allowAutoTopicCreation: boolean };
  private readonly blocked = new Fifo<Blocked>();
  private pumping = false;
  private blockedDrained: (() => void)[] = [];
  private flushing = 0;
  private closed = false;
  private completionWaiters: (() => void)[] = [];
  /** How long a send waits for its topic's metadata. */
  private readonly maxBlockMs: number;
  /** Set for a transactional producer (ProducerOptions.transactionalId). */
  private readonly txn: TransactionManager | null;

  private constructor(cluster: Cluster, ownsCluster: boolean, options: ProducerOptions<K, V>) {
    this.cluster = cluster;
    this.ownsCluster = ownsCluster;
    this.keySerializer = options.keySerializer ?? (Serializers.buffer as unknown as Serializer<K>);
    this.valueSerializer = options.valueSerializer ?? (Serializers.buffer as unknown as Serializer<V>);
    const codec = COMPRESSION_CODECS[options.compression ?? 'none'];
    if (codec === undefined) throw invalidArgument(`unknown compression '${String(options.compression)}'`);
    const acks = options.acks ?? -1;
    if (acks !== 0 && acks !== 1 && acks !== -1) throw invalidArgument(`acks must be 0, 1 or -1, got ${String(acks)}`);
    const retries = nonNegative(options.retries ?? PRODUCER_RETRIES_DEFAULT, 'retries');
    const transactionalId = options.transactionalId ?? null;
    if (transactionalId === '') throw invalidArgument('transactionalId must not be empty');
    // Transactions need idempotence (Java's rule): left unset it is on; set to false it conflicts.
    const idempotence = resolveIdempotence({ idempotent: transactionalId !== null ? (options.idempotent ?? true) : options.idempotent, acks, retries, maxInFlight: options.maxInFlight });
    if (transactionalId !== null && !idempotence.idempotent) throw invalidArgument('a transactional producer needs idempotence (acks -1, retries > 0, maxInFlight <= 5)');
    this.settings = {
      acks,
      batchSize: positive(options.batchSize ?? BATCH_SIZE_DEFAULT, 'batchSize'),
      lingerMs: nonNegative(options.lingerMs ?? LINGER_MS_DEFAULT, 'lingerMs'),
      bufferMemory: positive(options.bufferMemory ?? BUFFER_MEMORY_DEFAULT, 'bufferMemory'),
      retries,
      retryBackoffMs: nonNegative(options.retryBackoffMs ?? PRODUCER_RETRY_BACKOFF_MS_DEFAULT, 'retryBackoffMs'),
      deliveryTimeoutMs: positive(options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS_DEFAULT, 'deliveryTimeoutMs'),
      requestTimeoutMs: positive(options.requestTimeoutMs ?? PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT, 'requestTimeoutMs'),
      maxRequestBytes: positive(options.maxRequestBytes ?? MAX_REQUEST_BYTES_DEFAULT, 'maxRequestBytes'),
    };
    this.maxBlockMs = nonNegative(options.maxBlockMs ?? MAX_BLOCK_MS_DEFAULT, 'maxBlockMs');
    this.partitioner = createPartitioner(options.partitioner ?? 'default', options.random);
    this.topicLookup = { allowAutoTopicCreation: options.allowAutoTopicCreation ?? true };
    this.accumulator = new RecordAccumulator({
      batchSize: this.settings.batchSize,
      lingerMs: this.settings.lingerMs,
      bufferMemory: this.settings.bufferMemory,
      partitioner: this.partitioner,
      onReady: () => this.sender.scheduleDrain(),
    });
    this.txn = null;
    this.sender = new Sender(cluster, this.accumulator, { ...this.settings, codec, idempotence, maxInFlightOption: options.maxInFlight, transactionalId }, {
      ...(transactionalId === null ? {} : { partitionGate: (topic: string, partition: number) => this.txn?.gate(topic, partition) ?? true }),
      flushing: () => this.flushing > 0,
      onBatchDone: () => {
        for (const resolve of this.completionWaiters.splice(0)) resolve();
        if (this.blocked.length > 0) this.sender.scheduleDrain();
      },
      onFatal: (err) => {
        for (const b of this.blocked.removeWhere(() => true)) b.sink.fail(err, 1);
      },
    });
    if (transactionalId !== null) this.txn = new TransactionManager(cluster, transactionalId, positive(options.transactionTimeoutMs ?? 60_000, 'transactionTimeoutMs'), this.sender);
  }

  /** Creates a producer on an existing cluster client, or connects one (`clusterOptions`). */
  static async connect<K = Buffer | string | null, V = Buffer | string | null>(options: ProducerOptions<K, V>): Promise<Producer<K, V>> {
    if (options.cluster !== undefined) {
      const producer = new Producer<K, V>(options.cluster, false, options);
      await producer.txn?.init();
      return producer;
    }
    if (options.clusterOptions === undefined) throw invalidArgument('Producer.connect needs `cluster` or `clusterOptions`');
    const cluster = await Cluster.connect({
      ...options.clusterOptions,
      ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
    });
    try {
      const producer = new Producer<K, V>(cluster, true, options);
      // A transactional producer gets its id (and fences older instances of its id) before the first send.
      await producer.txn?.init();
      return producer;
    } catch (err) {
      await cluster.close();
      throw err;
    }
  }

  // ---------------------------------------------------------- transactions

  private transactional(call: string): TransactionManager {
    if (this.txn === null) throw new TributaryClientError(ClientErrorCode.TRANSACTION_STATE, `${call} needs a transactional producer (transactionalId)`);
    return this.txn;
  }

  /** Starts a transaction: every send until commit/abort belongs to it. */
  beginTransaction(): void {
    this.transactional('beginTransaction').begin();
  }

  /** Adds the group's offsets to the transaction (committed with it, KIP-98/KIP-447). */
  sendOffsetsToTransaction(offsets: TxnOffsets, group: ConsumerGroupMetadata): Promise<void> {
    return this.transactional('sendOffsetsToTransaction').sendOffsets(group, offsets);
  }

  /** Flushes, then commits. An unknown outcome (timeout) is asked again, never reported as an abort. */
  commitTransaction(): Promise<void> {
    return this.transactional('commitTransaction').end(true, () => this.flush());
  }

  /** Flushes (what fails is part of the abort), then aborts: none of the transaction's records become visible. */
  abortTransaction(): Promise<void> {
    return this.transactional('abortTransaction').end(false, () => this.flush());
  }

  /**
   * Runs `fn` in a transaction: commits when it returns, aborts (and
   * rethrows) when it throws. `tx.send` / `tx.sendBatch` send in the
   * transaction; `tx.sendOffsets(consumer)` commits the consumer's positions
   * with it (or `tx.sendOffsets({ groupId, offsets })`).
   */
  async transaction<T>(fn: (tx: TransactionScope<K, V>) => Promise<T>): Promise<T> {
    const txn = this.transactional('transaction');
    txn.begin();
    const failed = (err: unknown): never => {
      txn.onSendFailed(err as Error);
      throw err;
    };
    const tx: TransactionScope<K, V> = {
      send: (record) => this.send(record).catch(failed),
      sendBatch: (records) => this.sendBatch(records).catch(failed),
      sendOffsets: (source) => {
        const { group, offsets } = offsetsToSend(source);
        return txn.sendOffsets(group, offsets);
      },
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      if (txn.state !== 'fenced') await txn.end(false, () => this.flush());
      throw err;
    }
    try {
      await txn.end(true, () => this.flush());
    } catch (err) {
      // The commit could not happen (a send of it failed): abort, then report why.
      if (err instanceof TransactionAbortableError) await txn.end(false, () => this.flush());
      throw err;
    }
    return result;
  }

  /** Bytes accepted and not yet acknowledged. */
  get bufferedBytes(): number {
    return this.accumulator.usedBytes;
  }

  /** Whether idempotence is in effect (see `ProducerOptions.idempotent`). */
  get isIdempotent(): boolean {
    return this.sender.isIdempotent;
  }

  /** The producer id and epoch from InitProducerId; null before the first one (or without idempotence). */
  get producerIdAndEpoch(): { producerId: bigint; producerEpoch: number } | null {
    return this.sender.producerIdAndEpoch;
  }

  /** Sends one record; resolves with its partition and offset once its batch is acknowledged. */
  send(record: ProducerRecord<K, V>): Promise<RecordMetadata> {
    return new Promise((resolve, reject) => this.accept(record, new RecordSink(resolve, reject)));
  }

  /**
   * Sends many records with one promise; resolves when all are acknowledged,
   * with one entry per run of consecutive records that shared a batch.
   * Rejects with the first error (the other records still complete).
   */
  sendBatch(records: readonly ProducerRecord<K, V>[]): Promise<BatchAck[]> {
    if (records.length === 0) return Promise.resolve([]);
    // The sink holds no reference to `records`: the caller's array and record objects can be collected as soon as
    // they are accepted, instead of living (and being copied by the garbage collector) until the last acknowledgement.
    const sink = new BatchSink(records.length);
    try {
      for (let i = 0; i < records.length; i++) this.accept(records[i] as ProducerRecord<K, V>, sink);
    } catch (err) {
      sink.abort(err);
    }
    return sink.promise;
  }

  /** Sends everything accepted so far now (ignoring linger) and waits until it is acknowledged or failed. */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      if (this.blocked.length > 0) await new Promise<void>((resolve) => this.blockedDrained.push(resolve));
      const pending = [...this.accumulator.allBatches()].map((b) => b.whenDone());
      this.sender.scheduleDrain();
      await Promise.all(pending);
    } finally {
      this.flushing--;
    }
  }

  /** Flushes, then stops: later sends fail with ERR_TRIB_PRODUCER_CLOSED; closes the cluster client it opened. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    this.accumulator.clearTimers();
    await this.sender.close();
    if (this.ownsCluster) await this.cluster.close();
  }

  // ------------------------------------------------------------- accepting

  private accept(r: ProducerRecord<K, V>, sink: Sink): void {
    if (this.closed) return sink.fail(new TributaryClientError(ClientErrorCode.PRODUCER_CLOSED, 'the producer is closed'), 1);
    if (this.sender.fatalError !== null) return sink.fail(this.sender.fatalError, 1);
    let key: Buffer | string | null;
    let value: Buffer | string | null;
    try {
      key = r.key === undefined || r.key === null ? null : this.keySerializer(r.key, r.topic);
      value = this.valueSerializer(r.value, r.topic);
    } catch (err) {
      return sink.fail(new TributaryClientError(ClientErrorCode.SERIALIZATION, `cannot serialize a record for ${r.topic}: ${(err as Error).message}`, { cause: err }), 1);
    }
    const headers = r.headers === undefined ? undefined : toHeaderList(r.headers);
    // One literal per shape: adding headers or a timestamp to `{ key, value }` afterwards would give every such
    // record an out-of-object property array (an allocation per record, and one more hidden class for the encoder).
    const record: RecordInput = headers === undefined && r.timestamp === undefined ? { key, value } : { key, value, headers, timestamp: r.timestamp };
    const bytes = recordBytes(key, value, headers);
    if (bytes > this.settings.bufferMemory || bytes + 200 > this.settings.maxRequestBytes) {
      return sink.fail(
        new TributaryClientError(ClientErrorCode.RECORD_TOO_LARGE, `a record of ${bytes} bytes exceeds bufferMemory (${this.settings.bufferMemory}) or maxRequestBytes (${this.settings.maxRequestBytes})`),
        1,
      );
    }
    if (this.blocked.length === 0 && this.tryAppend(r.topic, r.partition, key, value, record, bytes, sink, true)) return;
    this.blocked.push({ topic: r.topic, partition: r.partition, key, value, record, bytes, sink });
    void this.pump();
  }

  /** Appends when the topic's metadata is cached and there is room; false when it must wait. */
  private tryAppend(
    topic: string,
    explicitPartition: number | undefined,
    key: Buffer | string | null,
    value: Buffer | string | null,
    record: RecordInput,
    bytes: number,
    sink: Sink,
    mayRefresh = false,
  ): boolean {
    const t = this.cluster.metadata.topics.get(topic);
    if (t === undefined || t.errorCode !== 0 || t.partitions.length === 0) return false;
    if (!this.accumulator.hasRoom(bytes)) return false;
    const count = t.partitions.length;
    let partition: number | null;
    if (explicitPartition !== undefined) {
      if (mayRefresh && Number.isInteger(explicitPartition) && explicitPartition >= count) return false;
      if (!Number.isInteger(explicitPartition) || explicitPartition < 0 || explicitPartition >= count) {
        sink.fail(new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: topic, partition: explicitPartition }), 1);
        return true;
      }
      partition = explicitPartition;
    } else {
      try {
        partition = this.partitioner.partition({ topic, key, value, partitionCount: count });
      } catch (err) {
        sink.fail(err as Error, 1);
        return true;
      }
      if (partition !== null && (!Number.isInteger(partition) || partition < 0 || partition >= count)) {
        sink.fail(invalidArgument(`the partitioner chose partition ${String(partition)} of ${topic}, which has ${count}`), 1);
        return true;
      }
    }
    this.accumulator.append(topic, partition, count, record, bytes, sink);
    return true;
  }

  /** Moves blocked records into batches, in order, loading metadata and waiting for memory as needed. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      let attempt = 0;
      let waitingSinceMs = 0;
      while (this.blocked.length > 0) {
        const head = this.blocked.peek() as Blocked;
        if (this.tryAppend(head.topic, head.partition, head.key, head.value, head.record, head.bytes, head.sink, head.refreshed !== true)) {
          this.blocked.shift();
          attempt = 0;
          continue;
        }
        const t = this.cluster.metadata.topics.get(head.topic);
        if (t !== undefined && t.errorCode === 0 && head.partition !== undefined && head.partition >= t.partitions.length && head.refreshed !== true) {
          // An explicit partition the cached metadata does not know: partitions may have been added (Java waits for metadata too); one refresh, then it fails.
          head.refreshed = true;
          await this.cluster.topic(head.topic, true, this.topicLookup).catch(() => undefined);
          continue;
        }
        if (t === undefined || t.errorCode !== 0 || t.partitions.length === 0) {
          if (attempt === 0) waitingSinceMs = Date.now();
          try {
            await this.cluster.topic(head.topic, attempt > 0, this.topicLookup);
          } catch (err) {
            // Bounded in count and in time (Java's max.block.ms): retries are unbounded by default.
            if (attempt >= this.settings.retries || Date.now() - waitingSinceMs >= this.maxBlockMs || !isRetriable(err)) {
              // Fail every blocked record of this topic: they would fail the same way.
              const topic = head.topic;
              for (const b of this.blocked.removeWhere((x) => x.topic === topic)) b.sink.fail(err as Error, 1);
              attempt = 0;
              continue;
            }
            await sleep(backoffMs(this.settings.retryBackoffMs, attempt++));
          }
          continue;
        }
        // Out of memory: send what we have and wait for a batch to complete.
        this.flushing++;
        this.sender.scheduleDrain();
        await this.nextCompletion();
        this.flushing--;
      }
    } finally {
      this.pumping = false;
      for (const resolve of this.blockedDrained.splice(0)) resolve();
    }
  }

  private nextCompletion(): Promise<void> {
    return new Promise((resolve) => this.completionWaiters.push(resolve));
  }

}
