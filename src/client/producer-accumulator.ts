/**
 * The Producer's record accumulator: per-partition queues of batches, the
 * byte budget (`bufferMemory`), linger timers and the sticky partition.
 *
 * Invariants:
 * - A partition queue's batches are in append order; only the last one is
 *   open for appends. Batches are sent in queue order, at most `maxInFlight`
 *   per partition at once; the ones sent at least once form a prefix of the
 *   queue (a sent batch that failed waits there for its retry, ahead of
 *   every batch not yet sent).
 * - `usedBytes` is the sum of `memoryBytes` over all batches not yet
 *   completed, never above `bufferMemory`.
 * - At most one linger timer per partition, armed when a batch is created
 *   and cleared when that batch closes; no timer or promise per record.
 */
import assert from 'node:assert/strict';
import type { RecordInput } from '../protocol/record-batch/builder.js';
import type { BytesInput, RecordHeaderInput } from '../protocol/record-batch/record.js';
import type { ProducerPartitioner } from './producer-partitioners.js';

/** The 61-byte v2 batch header plus the Produce request's per-partition framing. */
export const BATCH_OVERHEAD_BYTES = 61 + 16;
/** A record's fixed varint fields (length, attributes, timestamp/offset deltas, key/value lengths, header count), at most. */
const RECORD_OVERHEAD_BYTES = 21;

/** Where `Producer.send` put a record: topic, partition and offset. */
export interface RecordMetadata {
  topic: string;
  partition: number;
  /** The record's offset; -1n with acks=0. */
  offset: bigint;
}

/** One contiguous run of records of a `sendBatch` call that landed in one batch. */
export interface BatchAck {
  topic: string;
  partition: number;
  /** Offset of the first record of the run; -1n with acks=0. */
  baseOffset: bigint;
  recordCount: number;
}

/** Who waits for a batch's records: one `send()` or one `sendBatch()`. */
export interface Sink {
  /** Called once per run of records in a batch (in completion order). */
  done(topic: string, partition: number, baseOffset: bigint, count: number): void;
  /** `count` records failed. */
  fail(err: Error, count: number): void;
}

export class ProducerBatch {
  readonly records: RecordInput[] = [];
  /** Who waits for which records: parallel arrays (no object per record): run i is records [firsts[i], firsts[i] + counts[i]). */
  private readonly sinks: Sink[] = [];
  private readonly firsts: number[] = [];
  private readonly counts: number[] = [];
  sizeBytes = BATCH_OVERHEAD_BYTES;
  memoryBytes = 0;
  /** No more appends: full, lingered, or sent. */
  closed = false;
  /** The encoded v2 batch, kept for retries. */
  encoded: Buffer | null = null;
  attempts = 0;
  /** Sent at least once (its records and sequence are fixed). */
  sent = false;
  /** A request carrying it is unanswered. */
  inFlight = false;
  /** Records in the batch, fixed when it is first sent (`records` is emptied once encoded). */
  count = 0;
  /** Idempotence: the id, epoch and first sequence number written into the batch header (-1: none). */
  producerId = -1n;
  producerEpoch = -1;
  baseSequence = -1;
  lastError: Error | null = null;
  private doneWaiters: (() => void)[] | null = null;

  constructor(
    readonly queue: PartitionQueue,
    readonly createdMs: number,
  ) {}

  get recordCount(): number {
    return this.sent ? this.count : this.records.length;
  }

  add(record: RecordInput, bytes: number, sink: Sink): void {
    const index = this.records.length;
    this.records.push(record);
    this.sizeBytes += bytes;
    this.memoryBytes += bytes;
    const last = this.sinks.length - 1;
    if (last >= 0 && this.sinks[last] === sink) {
      (this.counts as number[])[last] = (this.counts[last] as number) + 1;
    } else {
      this.sinks.push(sink);
      this.firsts.push(index);
      this.counts.push(1);
    }
  }

  /** Resolves every waiter from the batch's base offset (-1n: unknown, acks=0). */
  succeed(baseOffset: bigint): void {
    const { topic, partition } = this.queue;
    for (let i = 0; i < this.sinks.length; i++) {
      const first = this.firsts[i] as number;
      (this.sinks[i] as Sink).done(topic, partition, baseOffset < 0n ? -1n : baseOffset + BigInt(first), this.counts[i] as number);
    }
    this.settle();
  }

  fail(err: Error): void {
    for (let i = 0; i < this.sinks.length; i++) (this.sinks[i] as Sink).fail(err, this.counts[i] as number);
    this.settle();
  }

  /** Resolves when the batch completes (either way); used by flush(). */
  whenDone(): Promise<void> {
    return new Promise((resolve) => (this.doneWaiters ??= []).push(resolve));
  }

  private settle(): void {
    this.sinks.length = 0;
    this.firsts.length = 0;
    this.counts.length = 0;
    for (const resolve of this.doneWaiters ?? []) resolve();
    this.doneWaiters = null;
  }
}

export class PartitionQueue {
  readonly batches: ProducerBatch[] = [];
  /** Batches of this partition in unanswered requests. */
  inFlightCount = 0;
  /** The broker those requests went to: new batches wait while the leader differs (a leader move). */
  inFlightLeader = -1;
  /** A batch was picked and its request is not yet queued on the connection: the next waits, to keep send order. */
  sending = false;
  /** Idempotence: the (producerId, epoch) this partition's sequences belong to, and the next sequence. */
  producerId = -1n;
  producerEpoch = -1;
  nextSequence = 0;
  /**
   * Idempotence: a batch of the current epoch was acknowledged, so the leader holds this
   * producer's sequence. Until then one batch at a time: a leader without state for a
   * producer takes any first sequence (Kafka 3.x), so a later batch could land first.
   */
  sequenceConfirmed = false;
  /** A numbered batch failed for good or the broker lost the sequence: bump the epoch once nothing is in flight. */
  needsEpochBump = false;
  /** Epoch ms before which the head batch must not be (re)sent. */
  retryAtMs = 0;
  lingerTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get open(): ProducerBatch | undefined {
    const last = this.batches[this.batches.length - 1];
    return last !== undefined && !last.closed ? last : undefined;
  }
}

export interface AccumulatorOptions {
  batchSize: number;
  lingerMs: number;
  bufferMemory: number;
  partitioner: ProducerPartitioner;
  /** Called when a batch may have become sendable (full, lingered). */
  onReady: () => void;
  now?: () => number;
}

/** Bytes a record adds to a batch (an upper bound of its encoded size). */
export function recordBytes(key: BytesInput, value: BytesInput, headers: readonly RecordHeaderInput[] | undefined): number {
  let n = RECORD_OVERHEAD_BYTES + bytesOf(key) + bytesOf(value);
  if (headers !== undefined) for (const h of headers) n += 10 + Buffer.byteLength(h.key) + bytesOf(h.value);
  return n;
}

function bytesOf(b: BytesInput): number {
  if (b === null || b === undefined) return 0;
  return typeof b === 'string' ? Buffer.byteLength(b) : b.length;
}

export class RecordAccumulator {
  readonly queues = new Map<string, Map<number, PartitionQueue>>();
  usedBytes = 0;
  private readonly sticky = new Map<string, ProducerBatch>();
  private readonly now: () => number;

  constructor(private readonly options: AccumulatorOptions) {
    this.now = options.now ?? Date.now;
  }

  hasRoom(bytes: number): boolean {
    return this.usedBytes + bytes <= this.options.bufferMemory;
  }

  queue(topic: string, partition: number): PartitionQueue {
    let byPartition = this.queues.get(topic);
    if (byPartition === undefined) this.queues.set(topic, (byPartition = new Map()));
    let q = byPartition.get(partition);
    if (q === undefined) byPartition.set(partition, (q = new PartitionQueue(topic, partition)));
    return q;
  }

  /**
   * Appends a record whose partition is known, or null for a sticky choice
   * (keyless records under the default partitioner, KIP-480). The caller
   * checked `hasRoom(bytes)`. Returns the partition used.
   */
  append(topic: string, partition: number | null, partitionCount: number, record: RecordInput, bytes: number, sink: Sink): number {
    assert.ok(this.hasRoom(bytes), 'append without room in bufferMemory');
    if (partition === null) {
      const current = this.sticky.get(topic);
      if (current !== undefined && !current.closed && current.queue.partition < partitionCount && this.fits(current, bytes)) {
        this.addTo(current, record, bytes, sink);
        return current.queue.partition;
      }
      const next = this.options.partitioner.nextSticky(topic, partitionCount, current === undefined ? -1 : current.queue.partition);
      const batch = this.addTo(this.batchFor(this.queue(topic, next), bytes), record, bytes, sink);
      this.sticky.set(topic, batch);
      return next;
    }
    const q = this.queue(topic, partition);
    this.addTo(this.batchFor(q, bytes), record, bytes, sink);
    return partition;
  }

  /** Closes the open batch of a queue (linger expired, or it is being sent). */
  close(q: PartitionQueue): void {
    const open = q.open;
    if (open !== undefined) open.closed = true;
    if (q.lingerTimer !== null) {
      clearTimeout(q.lingerTimer);
      q.lingerTimer = null;
    }
  }

  /** Removes a completed batch (usually the head; an acknowledged one may pass an earlier one awaiting retry) and releases its memory. */
  complete(q: PartitionQueue, batch: ProducerBatch): void {
    if (q.open === batch) this.close(q);
    batch.closed = true;
    if (q.batches[0] === batch) {
      q.batches.shift();
    } else {
      const index = q.batches.indexOf(batch);
      assert.ok(index > 0, 'a completed batch is in its queue');
      q.batches.splice(index, 1);
    }
    this.usedBytes -= batch.memoryBytes;
    assert.ok(this.usedBytes >= 0, 'usedBytes went negative');
  }

  /** Every batch not yet completed. */
  *allBatches(): Generator<ProducerBatch> {
    for (const byPartition of this.queues.values()) for (const q of byPartition.values()) yield* q.batches;
  }

  *allQueues(): Generator<PartitionQueue> {
    for (const byPartition of this.queues.values()) yield* byPartition.values();
  }

  clearTimers(): void {
    for (const q of this.allQueues()) {
      if (q.lingerTimer !== null) clearTimeout(q.lingerTimer);
      q.lingerTimer = null;
    }
  }

  private fits(batch: ProducerBatch, bytes: number): boolean {
    return batch.records.length === 0 || batch.sizeBytes + bytes <= this.options.batchSize;
  }

  /** The open batch of `q` if the record fits, else a new one (closing the full one). */
  private batchFor(q: PartitionQueue, bytes: number): ProducerBatch {
    const open = q.open;
    if (open !== undefined && this.fits(open, bytes)) return open;
    if (open !== undefined) {
      this.close(q);
      this.options.onReady();
    }
    const batch = new ProducerBatch(q, this.now());
    q.batches.push(batch);
    if (this.options.lingerMs > 0) {
      q.lingerTimer = setTimeout(() => {
        q.lingerTimer = null;
        if (q.open === batch) batch.closed = true;
        this.options.onReady();
      }, this.options.lingerMs);
    }
    return batch;
  }

  private addTo(batch: ProducerBatch, record: RecordInput, bytes: number, sink: Sink): ProducerBatch {
    batch.add(record, bytes, sink);
    this.usedBytes += bytes;
    if (batch.sizeBytes >= this.options.batchSize) {
      this.close(batch.queue);
      this.options.onReady();
    } else if (this.options.lingerMs === 0) {
      this.options.onReady();
    }
    return batch;
  }
}
