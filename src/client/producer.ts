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
import { ErrorCode, errorInfo } from '../protocol/errors.js';
import { buildRecordBatch, buildRecordBatchSync, type RecordInput } from '../protocol/record-batch/builder.js';
import type { BytesInput, RecordHeaderInput } from '../protocol/record-batch/record.js';
import { Apis, versionFor } from './apis.js';
import { Cluster, REFRESH_METADATA_ERRORS, type ClusterOptions } from './cluster.js';
import {
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  invalidArgument,
} from './errors.js';
import { COMPRESSION_CODECS, type Acks, type CompressionName } from './records.js';
import { RecordAccumulator, recordBytes, type BatchAck, type PartitionQueue, type ProducerBatch, type RecordMetadata, type Sink } from './producer-accumulator.js';
import { createPartitioner, type PartitionerOption, type ProducerPartitioner, type RandomSource } from './producer-partitioners.js';

export const BATCH_SIZE_DEFAULT = 16_384;
export const LINGER_MS_DEFAULT = 5;
export const BUFFER_MEMORY_DEFAULT = 32 * 1024 * 1024;
export const PRODUCER_RETRIES_DEFAULT = 5;
export const PRODUCER_RETRY_BACKOFF_MS_DEFAULT = 100;
export const PRODUCER_RETRY_BACKOFF_MS_MAX = 1_000;
export const DELIVERY_TIMEOUT_MS_DEFAULT = 120_000;
export const PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
export const MAX_REQUEST_BYTES_DEFAULT = 1024 * 1024;

/** Turns a key or value into bytes (a string is written as UTF-8 by the batch builder). */
export type Serializer<T> = (data: T, topic: string) => Buffer | string | null;

export const Serializers = {
  /** Buffers and strings as they are; null stays null. */
  buffer: ((data: Buffer | string | null) => data) as Serializer<Buffer | string | null>,
  string: ((data: string | null) => data) as Serializer<string | null>,
  json: ((data: unknown) => (data === undefined ? null : JSON.stringify(data))) as Serializer<unknown>,
} as const;

export type ProducerHeaders = Readonly<Record<string, Buffer | string | null>> | readonly RecordHeaderInput[];

export interface ProducerRecord<K, V> {
  topic: string;
  key?: K | null;
  value: V;
  headers?: ProducerHeaders;
  /** Explicit partition; skips the partitioner. */
  partition?: number;
  /** Epoch ms (CreateTime); defaults to the time the record's batch was opened. */
  timestamp?: number | bigint;
}

export interface ProducerOptions<K, V> {
  /** Use this cluster client (not closed by close()) instead of connecting one. */
  cluster?: Cluster;
  /** Options for the cluster client the producer connects (when `cluster` is not given). */
  clusterOptions?: ClusterOptions;
  keySerializer?: Serializer<K>;
  valueSerializer?: Serializer<V>;
  /** 0: fire and forget; 1: the leader appended; -1: all in-sync replicas (default -1). */
  acks?: Acks;
  compression?: CompressionName;
  /** Bytes per partition batch before it is sent (default 16384). */
  batchSize?: number;
  /** How long a batch waits for more records (default 5, as Java since 3.x); 0 sends on the next tick. */
  lingerMs?: number;
  /** Bytes of records accepted but not yet acknowledged; send() waits for room (default 32 MiB). */
  bufferMemory?: number;
  /** Retries of a batch after a retriable error (default 5); 0 disables. */
  retries?: number;
  /** First retry backoff, doubled per attempt up to PRODUCER_RETRY_BACKOFF_MS_MAX (default 100). */
  retryBackoffMs?: number;
  /** A record fails when not acknowledged this long after its batch opened (default 120000). */
  deliveryTimeoutMs?: number;
  /** Produce request timeout, also sent to the broker as timeoutMs (default 30000). */
  requestTimeoutMs?: number;
  /** Produce requests are split to stay under this many bytes (default 1 MiB). */
  maxRequestBytes?: number;
  partitioner?: PartitionerOption;
  /** Randomness for the sticky partitioner (tests). */
  random?: RandomSource;
}

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
  private readonly blocked: Blocked[] = [];
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
    return new Promise((resolve, reject) => {
      const sink: Sink = { done: (topic, partition, offset) => resolve({ topic, partition, offset }), fail: (err) => reject(err) };
      this.accept(record, sink);
    });
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
    const blocked: Blocked = { topic: r.topic, partition: r.partition, key, value, record, bytes, sink };
    if (this.blocked.length > 0 || !this.tryAppend(blocked)) {
      this.blocked.push(blocked);
      void this.pump();
    }
  }

  /** Appends when the topic's metadata is cached and there is room; false when it must wait. */
  private tryAppend(b: Blocked): boolean {
    const t = this.cluster.metadata.topics.get(b.topic);
    if (t === undefined || t.errorCode !== 0 || t.partitions.length === 0) return false;
    if (!this.accumulator.hasRoom(b.bytes)) return false;
    const count = t.partitions.length;
    let partition: number | null;
    if (b.partition !== undefined) {
      if (!Number.isInteger(b.partition) || b.partition < 0 || b.partition >= count) {
        b.sink.fail(new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: b.topic, partition: b.partition }), 1);
        return true;
      }
      partition = b.partition;
    } else {
      try {
        partition = this.partitioner.partition({ topic: b.topic, key: b.key, value: b.value, partitionCount: count });
      } catch (err) {
        b.sink.fail(err as Error, 1);
        return true;
      }
      if (partition !== null && (!Number.isInteger(partition) || partition < 0 || partition >= count)) {
        b.sink.fail(invalidArgument(`the partitioner chose partition ${String(partition)} of ${b.topic}, which has ${count}`), 1);
        return true;
      }
    }
    this.accumulator.append(b.topic, partition, count, b.record, b.bytes, b.sink);
    return true;
  }

  /** Moves blocked records into batches, in order, loading metadata and waiting for memory as needed. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      let attempt = 0;
      while (this.blocked.length > 0) {
        const head = this.blocked[0] as Blocked;
        if (this.tryAppend(head)) {
          this.blocked.shift();
          attempt = 0;
          continue;
        }
        if (!this.cluster.metadata.topics.get(head.topic)?.partitions.length) {
          try {
            await this.cluster.topic(head.topic, attempt > 0);
          } catch (err) {
            if (attempt >= this.settings.retries || !isRetriable(err)) {
              // Fail every blocked record of this topic: they would fail the same way.
              const topic = head.topic;
              for (let i = this.blocked.length - 1; i >= 0; i--) if ((this.blocked[i] as Blocked).topic === topic) this.blocked.splice(i, 1)[0]?.sink.fail(err as Error, 1);
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

function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaProtocolError) return errorInfo(err.errorCode).retriable || REFRESH_METADATA_ERRORS.has(err.errorCode);
  return err instanceof ConnectionError || err instanceof ConnectionClosedError || err instanceof RequestTimeoutError;
}

function deliveryTimeout(batch: ProducerBatch): TributaryClientError {
  const { topic, partition } = batch.queue;
  return new TributaryClientError(ClientErrorCode.DELIVERY_TIMEOUT, `records for ${topic}-${partition} were not acknowledged within deliveryTimeoutMs`, {
    cause: batch.lastError ?? undefined,
  });
}

function toHeaderList(headers: ProducerHeaders): RecordHeaderInput[] {
  if (Array.isArray(headers)) return headers as RecordHeaderInput[];
  return Object.entries(headers as Record<string, BytesInput>).map(([key, value]) => ({ key, value }));
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw invalidArgument(`${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw invalidArgument(`${name} must be >= 0, got ${value}`);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
