/**
 * The Producer's sender: picks the batches to send from the accumulator,
 * one Produce request per leader, handles the answers (retries, metadata
 * refresh, delivery timeout), and runs idempotence (InitProducerId, sequence
 * numbers, epoch bumps; the rules are in producer-idempotence.ts).
 *
 * Ordering: at most `maxInFlight` batches per partition are in flight (5
 * by default, with or without idempotence, as Java), each partition's requests are queued on the
 * connection in batch order (the next waits until the previous one is
 * encoded and queued), and a failed batch stays in its queue ahead of the
 * batches not yet sent; it is resent alone once every earlier request of its
 * partition is answered, then the next ones. With idempotence the broker
 * rejects a batch that would skip a sequence, so records of one partition are
 * appended in send order even across retries and lost responses.
 *
 * Cost: everything here is per batch or per request; nothing per record.
 */
import { ErrorCode } from '../protocol/errors.js';
import { buildRecordBatch, buildRecordBatchSync } from '../protocol/record-batch/builder.js';
import { BufferPool } from '../util/buffer-pool.js';
import { Apis, supports, versionFor } from './apis.js';
import { REFRESH_METADATA_ERRORS, type Cluster } from './cluster.js';
import { KafkaProtocolError, ProducerFencedError, UnsupportedVersionError, throwIfKafkaError } from '../net/errors.js';
import type { PartitionQueue, ProducerBatch, RecordAccumulator } from './producer-accumulator.js';
import { ProducerIdentity, sequenceVerdict, stampSequence, type IdempotenceSettings } from './producer-idempotence.js';
import { backoffMs, deliveryTimeout, isRetriable } from './producer-retry.js';
import { MAX_IN_FLIGHT_DEFAULT, PRODUCER_RETRY_BACKOFF_MS_MAX } from './producer-types.js';
import { MetadataRefresher } from './metadata-refresh.js';
import type { Acks } from './records.js';

export interface SenderSettings {
  acks: Acks;
  /** Compression codec id of the batches. */
  codec: number;
  lingerMs: number;
  retries: number;
  retryBackoffMs: number;
  deliveryTimeoutMs: number;
  requestTimeoutMs: number;
  maxRequestBytes: number;
  idempotence: IdempotenceSettings;
  /** `maxInFlight` as the user gave it (the default depends on idempotence). */
  maxInFlightOption: number | undefined;
  /** A transactional producer's id: batches are transactional, Produce carries it, and the producer id comes from the transaction manager. */
  transactionalId: string | null;
}

/** What the sender asks of, and tells, the Producer. */
export interface SenderHooks {
  /** flush() (or a send waiting for memory) is under way: send open batches without lingering. */
  flushing(): boolean;
  /** A batch completed and released its memory. */
  onBatchDone(): void;
  /** The producer cannot go on (fenced, no producer id): fail what waits outside the accumulator. */
  onFatal(err: Error): void;
  /**
   * Transactions: whether a batch of this partition may be sent now (it was
   * added to the transaction). False makes the gate add it and drain again.
   */
  partitionGate?(topic: string, partition: number): boolean;
}

export class Sender {
  private drainScheduled = false;
  private closing = false;
  private readonly metadata: MetadataRefresher;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly inFlightRequests = new Set<Promise<void>>();
  /** Idempotence in effect (it is turned off when left to its default and the broker lacks InitProducerId). */
  private idempotent: boolean;
  private maxInFlight: number;
  private readonly identity = new ProducerIdentity();
  /** Set once the producer cannot go on: every pending and later send fails with it. */
  fatalError: Error | null = null;

  /**
   * Encoded batches of 64 KiB-8 MiB are built in recycled buffers, given back when the broker
   * acknowledged them (the request's bytes were all sent by then). A batch that fails, or that was
   * sent with acks=0, leaves its buffer to the GC: its socket write may not be over. Large fresh
   * buffers cost a page fault per 4 KiB on first write (bench/README.md, "Producer: recycled request and batch buffers").
   */
  private readonly batchBuffers = new BufferPool({ minBytes: 64 * 1024, maxBytes: 8 * 1024 * 1024, retainBytes: 16 * 1024 * 1024 });

  constructor(
    private readonly cluster: Cluster,
    private readonly accumulator: RecordAccumulator,
    private readonly settings: SenderSettings,
    private readonly hooks: SenderHooks,
  ) {
    this.idempotent = settings.idempotence.idempotent;
    this.maxInFlight = settings.idempotence.maxInFlight;
    this.metadata = new MetadataRefresher({
      cluster,
      topics: () => [...accumulator.queues.keys()],
      onRefreshed: () => this.scheduleDrain(),
      retryBackoffMs: settings.retryBackoffMs,
      backoffMsMax: PRODUCER_RETRY_BACKOFF_MS_MAX,
    });
  }

  get isIdempotent(): boolean {
    return this.idempotent;
  }

  get producerIdAndEpoch(): { producerId: bigint; producerEpoch: number } | null {
    if (!this.idempotent || this.identity.producerId < 0n) return null;
    return { producerId: this.identity.producerId, producerEpoch: this.identity.producerEpoch };
  }

  /** The transaction manager's InitProducerId answer: batches are numbered under it from now on. */
  assignProducerId(producerId: bigint, producerEpoch: number): void {
    this.identity.assign(producerId, producerEpoch);
    this.scheduleDrain();
  }

  /** Fails every queued batch and later sends with `err` (a fenced transactional producer). */
  fail(err: Error): void {
    this.enterFatal(err);
  }

  /** Fails the batches of one partition not sent yet (it could not join the transaction). */
  failUnsent(topic: string, partition: number, err: Error): void {
    const q = this.accumulator.queue(topic, partition);
    for (const b of [...q.batches]) if (!b.inFlight) this.finish(q, b, err);
  }

  /** Stops the retry timers and waits for the requests under way (call after the last batch completed). */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.metadata.close();
    await Promise.all([...this.inFlightRequests, this.metadata.pending]);
  }

  /** Drains on the next turn of the event loop (once, however often it is asked). */
  scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  /**
   * Sends the next batch of every ready partition, one Produce request per
   * leader (split at maxRequestBytes). A partition whose previous request is
   * still being encoded waits, so its requests reach the connection in order.
   */
  private drain(): void {
    const now = Date.now();
    if (this.fatalError !== null) return this.failQueued(this.fatalError);
    const byLeader = new Map<number, PartitionQueue[]>();
    const picked = new Map<PartitionQueue, ProducerBatch>();
    let needMetadata = false;
    let needProducerId = false;
    for (const q of this.accumulator.allQueues()) {
      if (q.sending || q.batches.length === 0 || now < q.retryAtMs) continue;
      const batch = this.nextToSend(q);
      if (batch === undefined) continue;
      if (now - batch.createdMs > this.settings.deliveryTimeoutMs) {
        this.failBatch(q, batch, deliveryTimeout(batch));
        continue;
      }
      if (this.idempotent && !this.prepareSequence(q)) {
        needProducerId ||= !this.identity.ready;
        continue;
      }
      if (this.hooks.partitionGate !== undefined && !this.hooks.partitionGate(q.topic, q.partition)) continue;
      const p = this.cluster.metadata.topics.get(q.topic)?.partitions[q.partition];
      const leader = p?.partition === q.partition && p.errorCode === 0 ? p.leaderId : -1;
      if (leader < 0 || !this.cluster.metadata.brokers.has(leader)) {
        needMetadata = true;
        continue;
      }
      // The leader moved while batches are in flight to the old one: send nothing new to the
      // new leader until they are answered, or a later batch could land there first (Java's
      // RecordAccumulator does the same). Their retries then go to the new leader, in order.
      if (q.inFlightCount > 0 && q.inFlightLeader !== leader) continue;
      if (q.open === batch) this.accumulator.close(q);
      this.markSent(q, batch, leader);
      picked.set(q, batch);
      const list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, [q]);
      else list.push(q);
    }
    if (needMetadata) this.metadata.request();
    if (needProducerId) this.requestProducerId();
    for (const [leader, queues] of byLeader) {
      let request: PartitionQueue[] = [];
      let batches: ProducerBatch[] = [];
      let bytes = 0;
      for (const q of queues) {
        const batch = picked.get(q) as ProducerBatch;
        if (request.length > 0 && bytes + batch.sizeBytes > this.settings.maxRequestBytes) {
          this.track(this.sendRequest(leader, request, batches));
          request = [];
          batches = [];
          bytes = 0;
        }
        request.push(q);
        batches.push(batch);
        bytes += batch.sizeBytes;
      }
      this.track(this.sendRequest(leader, request, batches));
    }
  }

  /**
   * The batch of `q` to send now, if any: a batch that was sent before goes
   * alone once nothing earlier of its partition is in flight; a new one while
   * fewer than maxInFlight are, unless it is the open batch still lingering.
   */
  private nextToSend(q: PartitionQueue): ProducerBatch | undefined {
    const batches = q.batches;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i] as ProducerBatch;
      if (b.inFlight) continue;
      if (b.sent) return q.inFlightCount === 0 ? b : undefined;
      if (q.inFlightCount >= (this.idempotent && !q.sequenceConfirmed ? 1 : this.maxInFlight)) return undefined;
      if (!b.closed && !this.hooks.flushing() && i === batches.length - 1 && this.settings.lingerMs > 0) return undefined;
      return b;
    }
    return undefined;
  }

  /**
   * Idempotence: true when `q` may send under the current producer id and
   * epoch. A partition left on an older epoch first waits for its in-flight
   * batches, then renumbers what it has not had acknowledged from 0; one that
   * needs a bump asks for it once nothing of it is in flight.
   */
  private prepareSequence(q: PartitionQueue): boolean {
    const id = this.identity;
    if (!id.ready) return false;
    if (id.isStale(q.producerId, q.producerEpoch)) {
      if (q.inFlightCount > 0) return false;
      id.renumber(q);
    }
    if (q.needsEpochBump) {
      if (q.inFlightCount === 0) id.bumpRequested = true;
      return false;
    }
    return true;
  }

  /** Fixes a batch's records (and, with idempotence, its sequence) on its first send; marks it in flight. */
  private markSent(q: PartitionQueue, batch: ProducerBatch, leader: number): void {
    if (!batch.sent) {
      batch.sent = true;
      batch.count = batch.records.length;
      if (this.idempotent) stampSequence(q, batch);
    }
    batch.inFlight = true;
    q.inFlightCount++;
    q.inFlightLeader = leader;
    q.sending = true;
  }

  private track(p: Promise<void>): void {
    this.inFlightRequests.add(p);
    void p.finally(() => this.inFlightRequests.delete(p));
  }

  private async encode(batch: ProducerBatch): Promise<Buffer> {
    if (batch.encoded !== null) return batch.encoded;
    const opts = {
      records: batch.records,
      compression: this.settings.codec,
      timestampMs: batch.createdMs,
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence,
      transactional: this.settings.transactionalId !== null,
      allocate: this.batchBuffers.allocate,
    };
    // none and snappy are cheap inline; gzip, lz4 and zstd go to the thread pool.
    batch.encoded = this.settings.codec === 0 || this.settings.codec === 2 ? buildRecordBatchSync(opts) : await buildRecordBatch(opts);
    batch.records.length = 0;
    return batch.encoded;
  }

  /** The requests of `queues` are on the connection (or failed): their next batches may go. */
  private released(queues: PartitionQueue[]): void {
    let more = false;
    for (const q of queues) {
      if (!q.sending) continue;
      q.sending = false;
      if (q.inFlightCount < this.maxInFlight && q.batches.length > q.inFlightCount) more = true;
    }
    if (more) this.scheduleDrain();
  }

  private async sendRequest(leader: number, queues: PartitionQueue[], batches: ProducerBatch[]): Promise<void> {
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
      const body = { transactionalId: this.settings.transactionalId, acks: this.settings.acks, timeoutMs, topicData: [...topicData].map(([name, partitionData]) => ({ name, partitionData })) };
      if (this.settings.acks === 0) {
        const written = conn.sendOneWay(Apis.Produce.request, version, body);
        this.released(queues);
        await written;
        queues.forEach((q, i) => this.finish(q, batches[i] as ProducerBatch, null, -1n));
        return;
      }
      const pending = conn.send(Apis.Produce, version, body, { timeoutMs: timeoutMs + 5_000 });
      this.released(queues);
      const response = await pending;
      responses = new Map();
      for (const t of response.responses) {
        for (const p of t.partitionResponses) {
          const message = (p as { errorMessage?: unknown }).errorMessage;
          responses.set(`${t.name}\u0000${p.index}`, { errorCode: p.errorCode, baseOffset: p.baseOffset, errorMessage: typeof message === 'string' ? message : null });
        }
      }
    } catch (err) {
      this.released(queues);
      queues.forEach((q, i) => this.retryOrFail(q, batches[i] as ProducerBatch, err as Error));
      return;
    }
    queues.forEach((q, i) => {
      const batch = batches[i] as ProducerBatch;
      const r = responses.get(`${q.topic}\u0000${q.partition}`);
      if (r === undefined) {
        this.retryOrFail(q, batch, new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: 'Produce', topic: q.topic, partition: q.partition, serverMessage: 'no answer for this partition' }));
      } else if (r.errorCode === 0) {
        this.metadata.progress();
        this.finish(q, batch, null, r.baseOffset);
        this.recycle(batch);
      } else {
        this.onPartitionError(q, batch, r.errorCode, r.baseOffset, r.errorMessage);
      }
    });
  }

  /** A Produce error for one batch: sequence errors as the idempotent producer reads them, the rest by the retry rules. */
  private onPartitionError(q: PartitionQueue, batch: ProducerBatch, errorCode: number, baseOffset: bigint, serverMessage: string | null): void {
    const err = new KafkaProtocolError(errorCode, { api: 'Produce', topic: q.topic, partition: q.partition, serverMessage });
    if (this.idempotent && batch.baseSequence >= 0 && this.fatalError === null) {
      const stale = this.identity.isStale(batch.producerId, batch.producerEpoch);
      switch (sequenceVerdict(errorCode, stale, q.batches[0] === batch)) {
        case 'duplicate':
          // Already appended by an earlier attempt whose answer was lost; the offset is the original one when the broker says it.
          this.finish(q, batch, null, baseOffset);
          return this.recycle(batch);
        case 'wait':
          return this.requeue(q, batch, err);
        case 'bump':
          q.needsEpochBump = true;
          return this.retryOrFail(q, batch, err, true);
        case 'fenced':
          this.enterFatal(new ProducerFencedError(`the producer was fenced on ${q.topic}-${q.partition}: ${err.message}`, { cause: err }));
          return this.finish(q, batch, this.fatalError);
        case 'other':
          break;
      }
    }
    this.retryOrFail(q, batch, err);
  }

  /** The batch is no longer in flight. */
  private landed(q: PartitionQueue, batch: ProducerBatch): void {
    if (!batch.inFlight) return;
    batch.inFlight = false;
    q.inFlightCount--;
  }

  /** Resends a batch once the batches before it are answered (idempotence: it waits behind an earlier batch or epoch). */
  private requeue(q: PartitionQueue, batch: ProducerBatch, err: Error): void {
    batch.lastError = err;
    this.landed(q, batch);
    if (Date.now() - batch.createdMs > this.settings.deliveryTimeoutMs) return this.failBatch(q, batch, deliveryTimeout(batch));
    this.scheduleDrain();
  }

  /** Retries a failed batch after a backoff (it stays in its queue, ahead of the batches not yet sent), or fails it. */
  private retryOrFail(q: PartitionQueue, batch: ProducerBatch, err: Error, retriable = isRetriable(err)): void {
    batch.lastError = err;
    this.landed(q, batch);
    if (this.fatalError !== null) return this.finish(q, batch, this.fatalError);
    const now = Date.now();
    if (!retriable || batch.attempts >= this.settings.retries) return this.failBatch(q, batch, err);
    if (now - batch.createdMs > this.settings.deliveryTimeoutMs) return this.failBatch(q, batch, deliveryTimeout(batch));
    const delay = this.backoffMs(batch.attempts);
    batch.attempts++;
    q.retryAtMs = now + delay;
    if (!(err instanceof KafkaProtocolError) || REFRESH_METADATA_ERRORS.has(err.errorCode)) this.metadata.request();
    this.afterMs(delay, () => {
      // Timers may fire a little before Date.now() reaches retryAtMs; the wait is over.
      q.retryAtMs = 0;
    });
  }

  /** Fails a batch for good. With idempotence a batch that was sent leaves a gap in its partition's sequence: bump the epoch. */
  private failBatch(q: PartitionQueue, batch: ProducerBatch, err: Error): void {
    if (this.idempotent && batch.sent) q.needsEpochBump = true;
    this.finish(q, batch, err);
  }

  private finish(q: PartitionQueue, batch: ProducerBatch, err: Error | null, baseOffset = -1n): void {
    this.landed(q, batch);
    this.accumulator.complete(q, batch);
    if (err === null && batch.baseSequence >= 0 && batch.producerId === q.producerId && batch.producerEpoch === q.producerEpoch) q.sequenceConfirmed = true;
    if (err === null) batch.succeed(baseOffset);
    else batch.fail(err);
    if (q.batches.length > 0) this.scheduleDrain();
    this.hooks.onBatchDone();
  }

  /** An acknowledged batch's encoded buffer goes back to the pool (the broker has read every byte of its request). */
  private recycle(batch: ProducerBatch): void {
    if (batch.encoded === null) return;
    this.batchBuffers.release(batch.encoded);
    batch.encoded = null;
  }

  /** Runs `then` and a drain after `delayMs` (a retry timer; cleared by close()). */
  private afterMs(delayMs: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      then();
      this.scheduleDrain();
    }, delayMs);
    this.retryTimers.add(timer);
  }

  // ------------------------------------------------------------ idempotence

  /** Starts InitProducerId (a first id, or the bump a partition asked for) unless one is under way or backing off. */
  private requestProducerId(): void {
    const id = this.identity;
    // A transactional producer's id and epoch come from its transaction manager (assignProducerId).
    if (this.settings.transactionalId !== null) return;
    if (id.ready || id.status === 'requesting' || id.status === 'fatal' || Date.now() < id.retryAtMs) return;
    const previous = id.status;
    id.status = 'requesting';
    this.track(this.initProducerId(previous));
  }

  private async initProducerId(previous: 'none' | 'ready'): Promise<void> {
    const id = this.identity;
    try {
      const conn = await this.cluster.anyConnection();
      if (!supports(conn, Apis.InitProducerId)) {
        if (!this.settings.idempotence.explicit && id.producerId < 0n) {
          // Idempotence was only the default: go on without it, as with a conflicting option.
          this.idempotent = false;
          this.maxInFlight = this.settings.maxInFlightOption ?? MAX_IN_FLIGHT_DEFAULT;
          id.status = 'none';
          return;
        }
        throw new UnsupportedVersionError(Apis.InitProducerId.request.apiKey, `broker ${conn.address} does not support InitProducerId, which the idempotent producer needs (set idempotent: false)`);
      }
      const version = versionFor(conn, Apis.InitProducerId);
      const response = await conn.send(Apis.InitProducerId, version, id.requestBody(version), { timeoutMs: this.settings.requestTimeoutMs });
      throwIfKafkaError(response.errorCode, { api: 'InitProducerId' });
      id.assign(response.producerId, response.producerEpoch);
    } catch (err) {
      if (isRetriable(err) && !this.closing) {
        id.status = previous;
        const delay = this.backoffMs(id.attempts++);
        id.retryAtMs = Date.now() + delay;
        this.afterMs(delay, () => undefined);
        return;
      }
      id.status = 'fatal';
      const fenced = err instanceof KafkaProtocolError && (err.errorCode === ErrorCode.PRODUCER_FENCED || err.errorCode === ErrorCode.INVALID_PRODUCER_EPOCH);
      this.enterFatal(fenced ? new ProducerFencedError(`the producer was fenced: ${(err as Error).message}`, { cause: err }) : (err as Error));
    } finally {
      this.scheduleDrain();
    }
  }

  /** The producer cannot go on: fail what waits now, in-flight batches when answered, and every later send. */
  private enterFatal(err: Error): void {
    if (this.fatalError !== null) return;
    this.fatalError = err;
    this.hooks.onFatal(err);
    this.failQueued(err);
  }

  private failQueued(err: Error): void {
    for (const q of [...this.accumulator.allQueues()]) {
      for (const b of [...q.batches]) if (!b.inFlight) this.finish(q, b, err);
    }
  }

  private backoffMs(attempt: number): number {
    return backoffMs(this.settings.retryBackoffMs, attempt);
  }
}
