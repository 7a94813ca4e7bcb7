/**
 * Runs one source task (Kafka's WorkerSourceTask): poll, transform, convert,
 * send; a record's source offset counts as committed only after Kafka
 * acknowledged it (and every record polled before it), and offsets are
 * written to the offset store every offset.flush.interval.ms and on stop.
 * A restart therefore resumes after the last flushed offset: at-least-once.
 *
 * Polling does not wait for acknowledgements (as Kafka's, whose
 * SubmittedRecords commits offsets in poll order as acks arrive): up to
 * POLLS_IN_FLIGHT_MAX polls are sent and unacknowledged at once, and their
 * acknowledgements are handled in poll order, so an offset is never
 * committed before the records polled earlier. A failed send fails the task
 * and no offset polled after it is committed.
 */
import type { Producer } from '../../client/index.js';
import type { SourceOffset, SourceRecord, SourceTask, SourceTaskContext } from '../spi.js';
import type { TransformationChain } from '../transforms/index.js';
import type { RetryWithTolerance } from './error-handling.js';
import { ConnectMetrics } from './metrics.js';
import { offsetKey, type OffsetEntry, type OffsetStore } from './offset-store.js';
import { keyBytes, producerRecord, valueBytes, type RawRecord, type RecordConverters } from './records.js';
import type { TaskLifecycle } from './task-state.js';

export interface SourceTaskDeps {
  connector: string;
  taskId: number;
  task: SourceTask;
  props: Readonly<Record<string, string>>;
  converters: RecordConverters;
  chain: TransformationChain;
  producer: Producer<Buffer | null, Buffer | null>;
  offsets: OffsetStore;
  errors: RetryWithTolerance;
  metrics: ConnectMetrics;
  lifecycle: TaskLifecycle;
  flushIntervalMs: number;
  /** Topics records were sent to (GET /connectors/{name}/topics). */
  activeTopics: { add(topic: string): void };
}

type SendAck = Awaited<ReturnType<Producer<Buffer | null, Buffer | null>['send']>>;

/** Polls sent and not yet acknowledged; the next poll waits for the oldest beyond this. */
const POLLS_IN_FLIGHT_MAX = 16;

export class SourceTaskRunner {
  private stopping = false;
  /** Each sent poll's completion (acks handled, offsets pending), oldest first; each chained on the one before. */
  private readonly inFlight: Promise<void>[] = [];
  /** The first send that failed: the task fails with it. */
  private failure: { error: unknown } | null = null;
  private loop: Promise<void> | null = null;
  /** Acknowledged offsets not yet in the store, by partition key. */
  private readonly pending = new Map<string, OffsetEntry>();
  private lastFlushMs = Date.now();

  constructor(private readonly d: SourceTaskDeps) {}

  start(): void {
    this.loop = this.run();
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  private get labels(): { connector: string; task: string } {
    return ConnectMetrics.task(this.d.connector, this.d.taskId);
  }

  private async run(): Promise<void> {
    const { task, lifecycle } = this.d;
    try {
      const context: SourceTaskContext = {
        configs: () => this.d.props,
        offsetStorageReader: {
          offset: (p) => this.d.offsets.get(this.d.connector, p),
          offsets: (ps) => new Map(ps.map((p) => [p, this.d.offsets.get(this.d.connector, p)])),
        },
      };
      await task.start(this.d.props, context);
      if (lifecycle.state !== 'PAUSED') lifecycle.set('RUNNING');
      while (!this.stopping) {
        await lifecycle.whilePaused();
        if (this.stopping) break;
        this.throwIfFailed();
        const polled = await task.poll();
        if (polled !== null && polled.length > 0) await this.submit(polled);
        if (Date.now() - this.lastFlushMs >= this.d.flushIntervalMs) await this.commitOffsets();
      }
      await Promise.allSettled(this.inFlight);
      this.throwIfFailed();
      await this.commitOffsets();
    } catch (err) {
      lifecycle.fail(err);
      // What was acknowledged in poll order before the failure may be committed; nothing after it is.
      await Promise.allSettled(this.inFlight);
      await this.commitOffsets().catch(() => undefined);
    } finally {
      await Promise.resolve(task.stop()).catch(() => undefined);
    }
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.failure.error;
  }

  /** Prepares and sends one poll's records; resolves once they are handed to the producer (acks come later, in order). */
  private async submit(polled: SourceRecord[]): Promise<void> {
    this.d.metrics.sourceRecordsPolled.inc(this.labels, polled.length);
    const out: { record: SourceRecord; raw: RawRecord }[] = [];
    const dropped: SourceRecord[] = [];
    for (const record of polled) {
      const raw = await this.prepare(record);
      if (raw === null) dropped.push(record);
      else out.push({ record, raw });
    }
    for (const o of out) this.d.activeTopics.add(o.raw.topic);
    // A commitRecord hook needs each record's metadata; without one, sendBatch's run acknowledgements are enough.
    const { producer, task } = this.d;
    const acked: Promise<readonly SendAck[]> =
      out.length === 0 ? Promise.resolve([]) : task.commitRecord === undefined ? producer.sendBatch(out.map((o) => o.raw)).then(() => []) : Promise.all(out.map((o) => producer.send(o.raw)));
    const previous = this.inFlight.at(-1) ?? Promise.resolve();
    const done = previous.then(async () => {
      const acks = await acked;
      for (const [i, o] of out.entries()) {
        const ack = acks[i];
        if (ack !== undefined) await task.commitRecord?.(o.record, ack);
      }
      for (const r of dropped) await task.commitRecord?.(r, null);
      this.d.metrics.sourceRecordsWritten.inc(this.labels, out.length);
      // An earlier poll failed (and left the queue before this one chained on it): commit nothing after it.
      this.throwIfFailed();
      // Every record of this poll and of the polls before it is done: its offset may be committed.
      for (const r of polled) this.pending.set(offsetKey(this.d.connector, r.sourcePartition), { partition: r.sourcePartition, offset: r.sourceOffset as SourceOffset });
    });
    done.catch((error: unknown) => {
      this.failure ??= { error };
    });
    // The same rejection reaches the later polls through `previous`: none of their offsets is committed.
    acked.catch(() => undefined);
    this.inFlight.push(done);
    done.then(
      () => this.settled(done),
      () => this.settled(done),
    );
    if (this.inFlight.length > POLLS_IN_FLIGHT_MAX) await Promise.allSettled([this.inFlight[0]]);
  }

  private settled(done: Promise<void>): void {
    const i = this.inFlight.indexOf(done);
    if (i >= 0) this.inFlight.splice(i, 1);
  }

  /** The producer record, or null when a transform dropped it or it was skipped by errors.tolerance=all. */
  private async prepare(record: SourceRecord): Promise<RawRecord | null> {
    const { errors, chain, converters } = this.d;
    const describe = (): string => `record from ${JSON.stringify(record.sourcePartition)} at ${JSON.stringify(record.sourceOffset)}`;
    const t = await errors.execute('TRANSFORMATION', () => chain.apply(record), describe);
    if ('failed' in t) return this.skipped();
    if (t.ok === null) return null;
    const transformed = t.ok;
    const k = await errors.execute('KEY_CONVERTER', () => keyBytes(converters, transformed), describe);
    if ('failed' in k) return this.skipped();
    const v = await errors.execute('VALUE_CONVERTER', () => valueBytes(converters, transformed), describe);
    if ('failed' in v) return this.skipped();
    return producerRecord(transformed, k.ok, v.ok);
  }

  private skipped(): null {
    this.d.metrics.recordErrors.inc(this.labels);
    this.d.metrics.recordsSkipped.inc(this.labels);
    return null;
  }

  private async commitOffsets(): Promise<void> {
    this.lastFlushMs = Date.now();
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    const end = this.d.metrics.offsetCommitSeconds.startTimer(this.labels);
    await this.d.offsets.set(this.d.connector, entries);
    end();
    await this.d.task.commit?.();
  }

  /** Stops polling, flushes acknowledged offsets, stops the task. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.d.lifecycle.wake();
    await this.loop;
  }
}
