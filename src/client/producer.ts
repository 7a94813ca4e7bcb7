/**
 * The Producer: typed serializers, per-partition batching with linger and a
 * byte budget, compression, acks 0/1/-1, retries with backoff, flush and
 * close. Not idempotent yet (issue 4, item 2): a retried batch whose first
 * attempt was appended is appended twice (at-least-once, as the Java client
 * with enable.idempotence=false).
 *
 * Per record, `send()` does the serializer calls, one partition choice and
 * one array push into the open batch, and returns the one promise the caller
 * awaits; it is resolved from the batch's single Produce response. No timer,
 * no promise chain, no closure per record beyond that. `sendBatch()` returns
 * one promise for many records.
 *
 * Ordering: at most one batch per partition is in flight, and a failed batch
 * stays at the head of its queue until it is retried, so records of one
 * partition are appended in send order even across retries (requests to the
 * same broker for different partitions are still pipelined, and each request
 * carries one batch for every ready partition the broker leads).
 */
import { ErrorCode } from '../protocol/errors.js';
import { buildRecordBatch, buildRecordBatchSync, type RecordInput } from '../protocol/record-batch/builder.js';
import { Apis, versionFor } from './apis.js';
import { Cluster, REFRESH_METADATA_ERRORS } from './cluster.js';
import { ClientErrorCode, KafkaProtocolError, TributaryClientError, invalidArgument } from './errors.js';
import { COMPRESSION_CODECS } from './records.js';
import { RecordAccumulator, recordBytes, type BatchAck, type PartitionQueue, type ProducerBatch, type RecordMetadata, type Sink } from './producer-accumulator.js';
import { createPartitioner, type ProducerPartitioner } from './producer-partitioners.js';
import { Fifo, RecordSink, deliveryTimeout, isRetriable, nonNegative, positive, sleep, toHeaderList } from './producer-support.js';
import {
  BATCH_SIZE_DEFAULT,
  BUFFER_MEMORY_DEFAULT,
  DELIVERY_TIMEOUT_MS_DEFAULT,
  LINGER_MS_DEFAULT,
  MAX_REQUEST_BYTES_DEFAULT,
  PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT,
  PRODUCER_RETRIES_DEFAULT,
  PRODUCER_RETRY_BACKOFF_MS_DEFAULT,
  PRODUCER_RETRY_BACKOFF_MS_MAX,
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
}

export class Producer<K = Buffer | string | null, V = Buffer | string | null> {
  private readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly keySerializer: Serializer<K>;
  private readonly valueSerializer: Serializer<V>;
  private readonly codec: number;
  private readonly settings: Resolved;
  private readonly accumulator: RecordAccumulator;
  private readonly partitioner: ProducerPartitioner;
  private readonly blocked = new Fifo<Blocked>();
  private pumping = false;
  private blockedDrained: (() => void)[] = [];
  private drainScheduled = false;
  private flushing = 0;
  private closed = false;
  private metadataRefresh: Promise<void> | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly inFlightRequests = new Set<Promise<void>>();

  private constructor(cluster: Cluster, ownsCluster: boolean, options: ProducerOptions<K, V>) {
    this.cluster = cluster;
    this.ownsCluster = ownsCluster;
    this.keySerializer = options.keySerializer ?? (Serializers.buffer as unknown as Serializer<K>);
    this.valueSerializer = options.valueSerializer ?? (Serializers.buffer as unknown as Serializer<V>);
    const codec = COMPRESSION_CODECS[options.compression ?? 'none'];
    if (codec === undefined) throw invalidArgument(`unknown compression '${String(options.compression)}'`);
    this.codec = codec;
    const acks = options.acks ?? -1;
    if (acks !== 0 && acks !== 1 && acks !== -1) throw invalidArgument(`acks must be 0, 1 or -1, got ${String(acks)}`);
    this.settings = {
      acks,
      batchSize: positive(options.batchSize ?? BATCH_SIZE_DEFAULT, 'batchSize'),
      lingerMs: nonNegative(options.lingerMs ?? LINGER_MS_DEFAULT, 'lingerMs'),
      bufferMemory: positive(options.bufferMemory ?? BUFFER_MEMORY_DEFAULT, 'bufferMemory'),
      retries: nonNegative(options.retries ?? PRODUCER_RETRIES_DEFAULT, 'retries'),
      retryBackoffMs: nonNegative(options.retryBackoffMs ?? PRODUCER_RETRY_BACKOFF_MS_DEFAULT, 'retryBackoffMs'),
      deliveryTimeoutMs: positive(options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS_DEFAULT, 'deliveryTimeoutMs'),
      requestTimeoutMs: positive(options.requestTimeoutMs ?? PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT, 'requestTimeoutMs'),
      maxRequestBytes: positive(options.maxRequestBytes ?? MAX_REQUEST_BYTES_DEFAULT, 'maxRequestBytes'),
    };
    this.partitioner = createPartitioner(options.partitioner ?? 'default', options.random);
    this.accumulator = new RecordAccumulator({
      batchSize: this.settings.batchSize,
      lingerMs: this.settings.lingerMs,
      bufferMemory: this.settings.bufferMemory,
      partitioner: this.partitioner,
      onReady: () => this.scheduleDrain(),
    });
  }

  /** Creates a producer on an existing cluster client, or connects one (`clusterOptions`). */
  static async connect<K = Buffer | string | null, V = Buffer | string | null>(options: ProducerOptions<K, V>): Promise<Producer<K, V>> {
    if (options.cluster !== undefined) return new Producer(options.cluster, false, options);
    if (options.clusterOptions === undefined) throw invalidArgument('Producer.connect needs `cluster` or `clusterOptions`');
    const cluster = await Cluster.connect(options.clusterOptions);
    try {
      return new Producer(cluster, true, options);
    } catch (err) {
      await cluster.close();
      throw err;
    }
  }

  /** Bytes accepted and not yet acknowledged. */
  get bufferedBytes(): number {
    return this.accumulator.usedBytes;
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
    return new Promise((resolve, reject) => {
      if (records.length === 0) return resolve([]);
      const acks: BatchAck[] = [];
      let remaining = records.length;
      let failed: Error | null = null;
      const settle = (count: number): void => {
        remaining -= count;
        if (remaining > 0) return;
        if (failed === null) resolve(acks);
        else reject(failed);
      };
      const sink: Sink = {
        done: (topic, partition, baseOffset, recordCount) => {
          acks.push({ topic, partition, baseOffset, recordCount });
          settle(recordCount);
        },
        fail: (err, count) => {
          failed ??= err;
          settle(count);
        },
      };
      for (const r of records) this.accept(r, sink);
    });
  }

  /** Sends everything accepted so far now (ignoring linger) and waits until it is acknowledged or failed. */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      if (this.blocked.length > 0) await new Promise<void>((resolve) => this.blockedDrained.push(resolve));
      const pending = [...this.accumulator.allBatches()].map((b) => b.whenDone());
      this.scheduleDrain();
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
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    await Promise.all([...this.inFlightRequests]);
    if (this.ownsCluster) await this.cluster.close();
  }

  // ------------------------------------------------------------- accepting

  private accept(r: ProducerRecord<K, V>, sink: Sink): void {
    if (this.closed) return sink.fail(new TributaryClientError(ClientErrorCode.PRODUCER_CLOSED, 'the producer is closed'), 1);
    let key: Buffer | string | null;
    let value: Buffer | string | null;
    try {
      key = r.key === undefined || r.key === null ? null : this.keySerializer(r.key, r.topic);
      value = this.valueSerializer(r.value, r.topic);
    } catch (err) {
      return sink.fail(new TributaryClientError(ClientErrorCode.SERIALIZATION, `cannot serialize a record for ${r.topic}: ${(err as Error).message}`, { cause: err }), 1);
    }
    const headers = r.headers === undefined ? undefined : toHeaderList(r.headers);
    const record: RecordInput = { key, value };
    if (headers !== undefined) record.headers = headers;
    if (r.timestamp !== undefined) record.timestamp = r.timestamp;
    const bytes = recordBytes(key, value, headers);
    if (bytes > this.settings.bufferMemory || bytes + 200 > this.settings.maxRequestBytes) {
      return sink.fail(
        new TributaryClientError(ClientErrorCode.RECORD_TOO_LARGE, `a record of ${bytes} bytes exceeds bufferMemory (${this.settings.bufferMemory}) or maxRequestBytes (${this.settings.maxRequestBytes})`),
        1,
      );
    }
    if (this.blocked.length === 0 && this.tryAppend(r.topic, r.partition, key, value, record, bytes, sink)) return;
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
  ): boolean {
    const t = this.cluster.metadata.topics.get(topic);
    if (t === undefined || t.errorCode !== 0 || t.partitions.length === 0) return false;
    if (!this.accumulator.hasRoom(bytes)) return false;
    const count = t.partitions.length;
    let partition: number | null;
    if (explicitPartition !== undefined) {
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
      while (this.blocked.length > 0) {
        const head = this.blocked.peek() as Blocked;
        if (this.tryAppend(head.topic, head.partition, head.key, head.value, head.record, head.bytes, head.sink)) {
          this.blocked.shift();
          attempt = 0;
          continue;
        }
        const t = this.cluster.metadata.topics.get(head.topic);
        if (t === undefined || t.errorCode !== 0 || t.partitions.length === 0) {
          try {
            await this.cluster.topic(head.topic, attempt > 0);
          } catch (err) {
            if (attempt >= this.settings.retries || !isRetriable(err)) {
              // Fail every blocked record of this topic: they would fail the same way.
              const topic = head.topic;
              for (const b of this.blocked.removeWhere((x) => x.topic === topic)) b.sink.fail(err as Error, 1);
              attempt = 0;
              continue;
            }
            await sleep(this.backoffMs(attempt++));
          }
          continue;
        }
        // Out of memory: send what we have and wait for a batch to complete.
        this.flushing++;
        this.scheduleDrain();
        await this.nextCompletion();
        this.flushing--;
      }
    } finally {
      this.pumping = false;
      for (const resolve of this.blockedDrained.splice(0)) resolve();
    }
  }

  private completionWaiters: (() => void)[] = [];

  private nextCompletion(): Promise<void> {
    return new Promise((resolve) => this.completionWaiters.push(resolve));
  }

  // --------------------------------------------------------------- sending

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  /** Sends the head batch of every ready partition, one Produce request per leader. */
  private drain(): void {
    const now = Date.now();
    const byLeader = new Map<number, PartitionQueue[]>();
    let needMetadata = false;
    for (const q of this.accumulator.allQueues()) {
      const head = q.batches[0];
      if (head === undefined || q.inFlight || now < q.retryAtMs) continue;
      if (!head.closed && this.flushing === 0 && q.batches.length === 1 && this.settings.lingerMs > 0) continue;
      const p = this.cluster.metadata.topics.get(q.topic)?.partitions[q.partition];
      const leader = p?.partition === q.partition && p.errorCode === 0 ? p.leaderId : -1;
      if (leader < 0 || !this.cluster.metadata.brokers.has(leader)) {
        if (now - head.createdMs > this.settings.deliveryTimeoutMs) this.finish(q, head, deliveryTimeout(head));
        else needMetadata = true;
        continue;
      }
      this.accumulator.close(q);
      q.inFlight = true;
      const list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, [q]);
      else list.push(q);
    }
    if (needMetadata) this.refreshMetadata(true);
    for (const [leader, queues] of byLeader) {
      let request: PartitionQueue[] = [];
      let bytes = 0;
      for (const q of queues) {
        const size = (q.batches[0] as ProducerBatch).sizeBytes;
        if (request.length > 0 && bytes + size > this.settings.maxRequestBytes) {
          this.track(this.sendRequest(leader, request));
          request = [];
          bytes = 0;
        }
        request.push(q);
        bytes += size;
      }
      this.track(this.sendRequest(leader, request));
    }
  }

  private track(p: Promise<void>): void {
    this.inFlightRequests.add(p);
    void p.finally(() => this.inFlightRequests.delete(p));
  }

  private async encode(batch: ProducerBatch): Promise<Buffer> {
    if (batch.encoded !== null) return batch.encoded;
    const opts = { records: batch.records, compression: this.codec, timestampMs: batch.createdMs };
    // none and snappy are cheap inline; gzip, lz4 and zstd go to the thread pool.
    batch.encoded = this.codec === 0 || this.codec === 2 ? buildRecordBatchSync(opts) : await buildRecordBatch(opts);
    batch.records.length = 0;
    return batch.encoded;
  }

  private async sendRequest(leader: number, queues: PartitionQueue[]): Promise<void> {
    const batches = queues.map((q) => q.batches[0] as ProducerBatch);
    let responses: Map<string, { errorCode: number; baseOffset: bigint; errorMessage: string | null }>;
    try {
      const encoded = await Promise.all(batches.map((b) => this.encode(b)));
      const topicData = new Map<string, { index: number; records: Buffer }[]>();
      queues.forEach((q, i) => {
        const list = topicData.get(q.topic);
        const entry = { index: q.partition, records: encoded[i] as Buffer };
        if (list === undefined) topicData.set(q.topic, [entry]);
        else list.push(entry);
      });
      const conn = await this.cluster.connectionTo(leader);
      const version = versionFor(conn, Apis.Produce);
      const timeoutMs = this.settings.requestTimeoutMs;
      const body = { transactionalId: null, acks: this.settings.acks, timeoutMs, topicData: [...topicData].map(([name, partitionData]) => ({ name, partitionData })) };
      if (this.settings.acks === 0) {
        await conn.sendOneWay(Apis.Produce.request, version, body);
        queues.forEach((q, i) => this.finish(q, batches[i] as ProducerBatch, null, -1n));
        return;
      }
      const response = await conn.send(Apis.Produce, version, body, { timeoutMs: timeoutMs + 5_000 });
      responses = new Map();
      for (const t of response.responses) {
        for (const p of t.partitionResponses) {
          const message = (p as { errorMessage?: unknown }).errorMessage;
          responses.set(`${t.name}\u0000${p.index}`, { errorCode: p.errorCode, baseOffset: p.baseOffset, errorMessage: typeof message === 'string' ? message : null });
        }
      }
    } catch (err) {
      queues.forEach((q, i) => this.retryOrFail(q, batches[i] as ProducerBatch, err as Error));
      return;
    }
    queues.forEach((q, i) => {
      const batch = batches[i] as ProducerBatch;
      const r = responses.get(`${q.topic}\u0000${q.partition}`);
      if (r === undefined) {
        this.retryOrFail(q, batch, new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: 'Produce', topic: q.topic, partition: q.partition, serverMessage: 'no answer for this partition' }));
      } else if (r.errorCode !== 0) {
        this.retryOrFail(q, batch, new KafkaProtocolError(r.errorCode, { api: 'Produce', topic: q.topic, partition: q.partition, serverMessage: r.errorMessage }));
      } else {
        this.finish(q, batch, null, r.baseOffset);
      }
    });
  }

  /** Retries a failed batch after a backoff (it stays at the head of its queue), or fails it. */
  private retryOrFail(q: PartitionQueue, batch: ProducerBatch, err: Error): void {
    batch.lastError = err;
    const now = Date.now();
    if (!isRetriable(err) || batch.attempts >= this.settings.retries) return this.finish(q, batch, err);
    if (now - batch.createdMs > this.settings.deliveryTimeoutMs) return this.finish(q, batch, deliveryTimeout(batch));
    const delay = this.backoffMs(batch.attempts);
    batch.attempts++;
    q.inFlight = false;
    q.retryAtMs = now + delay;
    if (!(err instanceof KafkaProtocolError) || REFRESH_METADATA_ERRORS.has(err.errorCode)) this.refreshMetadata(true);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      // Timers may fire a little before Date.now() reaches retryAtMs; the wait is over.
      q.retryAtMs = 0;
      this.scheduleDrain();
    }, delay);
    this.retryTimers.add(timer);
  }

  private finish(q: PartitionQueue, batch: ProducerBatch, err: Error | null, baseOffset = -1n): void {
    q.inFlight = false;
    q.retryAtMs = 0;
    this.accumulator.complete(q, batch);
    if (err === null) batch.succeed(baseOffset);
    else batch.fail(err);
    for (const resolve of this.completionWaiters.splice(0)) resolve();
    if (q.batches.length > 0 || this.blocked.length > 0) this.scheduleDrain();
  }

  private backoffMs(attempt: number): number {
    return Math.min(this.settings.retryBackoffMs * 2 ** attempt, PRODUCER_RETRY_BACKOFF_MS_MAX);
  }

  /** One metadata refresh at a time, for every topic the producer writes to. */
  private refreshMetadata(thenDrain: boolean): void {
    if (this.metadataRefresh !== null) return;
    const topics = [...this.accumulator.queues.keys()];
    this.metadataRefresh = this.cluster
      .refreshMetadata(topics)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.metadataRefresh = null;
        if (thenDrain) this.scheduleDrain();
      });
  }
}
