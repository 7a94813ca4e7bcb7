/**
 * The runtime's RecordCollector: collects sink and changelog records and
 * hands them to the application's Producer with one `sendBatch` per consumed
 * batch (`drain()`), without waiting for acknowledgements. A commit calls
 * `flush()`, which waits for every record sent so far, so offsets are only
 * committed after the output they led to is acknowledged (at least once).
 * A failed send goes to the production exception handler (with the first
 * record of the failed sendBatch); 'FAIL' makes the next flush throw.
 */
import { ProducerFencedError, TransactionAbortableError, type Admin, type BatchAck, type ProducerRecord } from '../../client/index.js';

/** Records collected before a sendBatch is forced (bounds memory within one consumed batch). */
const COLLECT_RECORDS_MAX = 10_000;
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { ProductionExceptionHandler } from './config.js';
import { sinkBytes, type RecordCollector, type SinkRecord } from './collector.js';

/** Where the collector sends: the thread's StreamsProducer (transactional under exactly_once_v2). */
export interface BatchSender {
  sendBatch(records: readonly ProducerRecord<Buffer | string | null, Buffer | string | null>[]): Promise<BatchAck[]>;
}

/** Sends a task's output through the Producer. */
export class ProducerCollector implements RecordCollector {
  private inFlight = new Set<Promise<unknown>>();
  private failure: unknown = null;
  /** Resolves partition counts for sinks with a partitioner; sends wait in order behind a lookup. */
  private chain: Promise<void> = Promise.resolve();
  private chained = 0;
  /** Bumped by discard(): acknowledgements and failures of sends before it are ignored. */
  private generation = 0;
  private buffer: SinkRecord[] = [];
  /** Per partition written (`topic:partition`), the offset after the last acknowledged record (read for changelogs). */
  readonly changelogOffsets = new Map<string, bigint>();

  constructor(
    private readonly producer: BatchSender,
    private readonly admin: Admin,
    private readonly partitions: Map<string, number>,
    private readonly onError: ProductionExceptionHandler,
  ) {}

  send(record: SinkRecord, choosePartition?: (numPartitions: number) => number | undefined): void {
    if (choosePartition === undefined && this.chained === 0) return this.produce(record, undefined);
    const known = this.partitions.get(record.topic);
    if (known !== undefined && this.chained === 0) return this.produce(record, choosePartition?.(known));
    // Keep order: this record (and every later one) waits for the lookup.
    this.drain();
    this.chained++;
    this.chain = this.chain
      .then(async () => {
        let n = this.partitions.get(record.topic);
        if (n === undefined && choosePartition !== undefined) {
          const [d] = await this.admin.describeTopics([record.topic]);
          n = d?.partitions.length ?? 0;
          if (n > 0) this.partitions.set(record.topic, n);
        }
        this.produce(record, n === undefined || n === 0 ? undefined : choosePartition?.(n));
        this.drain();
      })
      .catch((err: unknown) => this.fail(err, record))
      .finally(() => void this.chained--);
    this.track(this.chain);
  }

  logChange(topic: string, partition: number, key: Buffer, value: Buffer | null, timestamp: number): void {
    this.produce({ topic, key, value, timestamp }, partition);
  }

  /** Hands what was collected to the Producer (one sendBatch). */
  drain(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    const generation = this.generation;
    // Only the first record is kept for the handler: a closure over the whole batch would keep every record of it
    // alive until the acknowledgement (long enough for the garbage collector to copy them all).
    const first = batch[0] as SinkRecord;
    const sent = this.producer.sendBatch(batch).then(
      (acks) => {
        if (generation !== this.generation) return;
        for (const a of acks) {
          const k = `${a.topic}:${a.partition}`;
          const next = a.baseOffset + BigInt(a.recordCount);
          if (next > (this.changelogOffsets.get(k) ?? -1n)) this.changelogOffsets.set(k, next);
        }
      },
      (err: unknown) => {
        if (generation !== this.generation) return;
        this.fail(err, first);
      },
    );
    this.track(sent);
  }

  /**
   * Waits for every record sent so far (not for those sent meanwhile: under
   * steady load a flush of everything would never end); throws if one failed
   * and the handler said FAIL.
   */
  async flush(): Promise<void> {
    this.drain();
    await this.chain;
    this.drain();
    await Promise.allSettled([...this.inFlight]);
    if (this.failure !== null) {
      const err = this.failure;
      this.failure = null;
      throw new StreamsError(StreamsErrorCode.PROCESSING, `producing the topology's output failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }

  /**
   * Forgets what an aborted transaction wrote (exactly-once): records not yet
   * handed over, a failure waiting for the next flush, and the changelog
   * offsets reached (the restoration after the abort sets them again).
   * Sends still in flight settle on their own; the abort makes them invisible.
   */
  discard(): void {
    this.generation++;
    this.buffer = [];
    this.failure = null;
    this.changelogOffsets.clear();
  }

  /** Queues a record for the next sendBatch: the record itself is the Producer's record (the task made it for this). */
  private produce(record: SinkRecord, partition: number | undefined): void {
    if (partition !== undefined) record.partition = partition;
    this.buffer.push(record);
    if (this.buffer.length >= COLLECT_RECORDS_MAX) this.drain();
  }

  private track(p: Promise<unknown>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private fail(err: unknown, record: SinkRecord): void {
    // A fenced or aborted transaction is not the record's fault: the thread recovers, the handler is not asked (as Kafka).
    if (err instanceof ProducerFencedError || err instanceof TransactionAbortableError) {
      this.failure ??= err;
      return;
    }
    if (this.onError(err, { topic: record.topic, key: sinkBytes(record.key), value: sinkBytes(record.value) }) === 'FAIL' && this.failure === null) this.failure = err;
  }
}
