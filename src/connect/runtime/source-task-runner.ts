/**
 * Runs one source task (Kafka's WorkerSourceTask): poll, transform, convert,
 * send; a record's source offset counts as committed only after Kafka
 * acknowledged it (and every record polled before it), and offsets are
 * written to the offset store every offset.flush.interval.ms and on stop.
 * A restart therefore resumes after the last flushed offset: at-least-once.
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

export class SourceTaskRunner {
  private stopping = false;
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
        const polled = await task.poll();
        if (polled !== null && polled.length > 0) await this.sendAll(polled);
        if (Date.now() - this.lastFlushMs >= this.d.flushIntervalMs) await this.commitOffsets();
      }
      await this.commitOffsets();
    } catch (err) {
      lifecycle.fail(err);
      await this.commitOffsets().catch(() => undefined);
    } finally {
      await Promise.resolve(task.stop()).catch(() => undefined);
    }
  }

  private async sendAll(polled: SourceRecord[]): Promise<void> {
    this.d.metrics.sourceRecordsPolled.inc(this.labels, polled.length);
    const out: { record: SourceRecord; raw: RawRecord }[] = [];
    const dropped: SourceRecord[] = [];
    for (const record of polled) {
      const raw = await this.prepare(record);
      if (raw === null) dropped.push(record);
      else out.push({ record, raw });
    }
    // A commitRecord hook needs each record's metadata; without one, sendBatch's run acknowledgements are enough.
    const acks = out.length === 0 ? null : this.d.task.commitRecord === undefined ? (await this.d.producer.sendBatch(out.map((o) => o.raw)), null) : await Promise.all(out.map((o) => this.d.producer.send(o.raw)));
    for (const [i, o] of out.entries()) {
      this.d.activeTopics.add(o.raw.topic);
      const ack = acks?.[i];
      if (ack !== undefined) await this.d.task.commitRecord?.(o.record, ack);
    }
    for (const r of dropped) await this.d.task.commitRecord?.(r, null);
    this.d.metrics.sourceRecordsWritten.inc(this.labels, out.length);
    // Every polled record (sent or dropped) is done: its offset may be committed.
    for (const r of polled) this.pending.set(offsetKey(this.d.connector, r.sourcePartition), { partition: r.sourcePartition, offset: r.sourceOffset as SourceOffset });
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
