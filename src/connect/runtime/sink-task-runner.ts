/**
 * Runs one sink task (Kafka's WorkerSinkTask) over a Consumer in the group
 * `connect-<connector>`: records are converted, transformed and passed to
 * `put`; every offset.flush.interval.ms (and on revocation and stop) the
 * task's `preCommit` (default: `flush`, then the consumed offsets) decides
 * what is committed to the group. Records that fail conversion or a
 * transform are skipped (errors.tolerance=all, to the DLQ when one is set)
 * or fail the task.
 */
import { Consumer, type ConsumerRecord, type TopicPartition } from '../../client/index.js';
import type { SinkOffsets, SinkRecord, SinkTask, SinkTaskContext, TopicPartitionRef } from '../spi.js';
import type { TransformationChain } from '../transforms/index.js';
import type { DeadLetterQueue, DlqRecord } from './dead-letter-queue.js';
import type { RetryWithTolerance } from './error-handling.js';
import { ConnectMetrics } from './metrics.js';
import { headerBytes, sinkRecordBase, type RecordConverters } from './records.js';

const toBuffer = (v: Buffer | string | null): Buffer | null => (v === null || Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'));
import type { TaskLifecycle } from './task-state.js';

type RawConsumerRecord = ConsumerRecord<Buffer | null, Buffer | null>;

export interface SinkTaskDeps {
  connector: string;
  taskId: number;
  task: SinkTask;
  props: Readonly<Record<string, string>>;
  bootstrap: string;
  clientId: string;
  converters: RecordConverters;
  chain: TransformationChain;
  errors: RetryWithTolerance;
  dlq: DeadLetterQueue | null;
  metrics: ConnectMetrics;
  lifecycle: TaskLifecycle;
  flushIntervalMs: number;
  activeTopics: { add(topic: string): void };
}

const SINK_METADATA_MAX_AGE_MS = 2_000;
const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export class SinkTaskRunner {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  /** Next offset to read per partition, for what was put. */
  private readonly consumed: SinkOffsets = new Map();
  private lastCommitMs = Date.now();
  private commitRequested = false;
  /** The consumed record behind each record put, for the errant record reporter's DLQ. */
  private readonly rawOf = new WeakMap<SinkRecord, RawConsumerRecord>();
  /** Deliveries and commits, one at a time: awaited by stop() before its final commit. */
  private work: Promise<void> = Promise.resolve();
  /** Commits every offset.flush.interval.ms even when no record arrives (as Kafka's WorkerSinkTask). */
  private commitTimer: NodeJS.Timeout | null = null;

  constructor(private readonly d: SinkTaskDeps) {}

  private get labels(): { connector: string; task: string } {
    return ConnectMetrics.task(this.d.connector, this.d.taskId);
  }

  start(): void {
    this.loop = this.run();
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  private newConsumer(): Consumer<Buffer | null, Buffer | null> {
    return new Consumer<Buffer | null, Buffer | null>({
      bootstrap: this.d.bootstrap,
      clientId: `${this.d.clientId}-${this.d.connector}-${this.d.taskId}`,
      groupId: `connect-${this.d.connector}`,
      autoCommit: false,
      autoOffsetReset: 'earliest',
      // Short, so a sink subscribed to a topic that does not exist yet sees it soon after a source creates it.
      metadataMaxAgeMs: SINK_METADATA_MAX_AGE_MS,
      listeners: {
        onPartitionsAssigned: async (tps) => {
          await this.d.task.open?.(tps);
        },
        onPartitionsRevoked: async (tps) => {
          await this.commit().catch(() => undefined);
          for (const tp of tps) this.consumed.delete(tpKey(tp.topic, tp.partition));
          await this.d.task.close?.(tps);
        },
        onPartitionsLost: async (tps) => {
          for (const tp of tps) this.consumed.delete(tpKey(tp.topic, tp.partition));
          await this.d.task.close?.(tps);
        },
      },
    });
  }

  private context(consumer: Consumer<Buffer | null, Buffer | null>): SinkTaskContext {
    return {
      configs: () => this.d.props,
      assignment: () => consumer.assignment(),
      offset: (tp: TopicPartitionRef, offset: bigint) => consumer.seek(tp, offset),
      pause: (...tps: TopicPartitionRef[]) => consumer.pause(tps),
      resume: (...tps: TopicPartitionRef[]) => consumer.resume(tps),
      requestCommit: () => {
        this.commitRequested = true;
      },
      errantRecordReporter: () => (record: SinkRecord, error: Error) => this.reportErrant(record, error),
    };
  }

  /**
   * KIP-610: a record the task could not write. With errors.tolerance=none
   * this throws (the task fails); with all it is counted, logged if asked,
   * and sent to the DLQ with its original bytes (or, for a record the task
   * built itself, the bytes the converters make of it).
   */
  private async reportErrant(record: SinkRecord, error: Error): Promise<void> {
    this.d.metrics.recordErrors.inc(this.labels);
    const describe = (): string => `record at ${record.topic}-${record.kafkaPartition}@${record.kafkaOffset}`;
    const r = await this.d.errors.execute('TASK_PUT', () => {
      throw error;
    }, describe);
    if (!('failed' in r)) return;
    this.d.metrics.recordsSkipped.inc(this.labels);
    if (this.d.dlq === null) return;
    await this.d.dlq.report(this.rawOf.get(record) ?? this.rebuild(record), r.failed);
    this.d.metrics.dlqRecords.inc(this.labels);
  }

  private rebuild(record: SinkRecord): DlqRecord {
    const { converters } = this.d;
    return {
      topic: record.topic,
      partition: record.kafkaPartition,
      offset: record.kafkaOffset,
      key: converters.key.fromConnectData(record.topic, record.keySchema, record.key),
      value: converters.value.fromConnectData(record.topic, record.valueSchema, record.value),
      headers: record.headers.map((h) => ({ key: h.key, value: toBuffer(headerBytes(h)) })),
      timestamp: record.timestamp ?? Date.now(),
    };
  }

  private async run(): Promise<void> {
    const { task, lifecycle, props } = this.d;
    try {
      const consumer = this.newConsumer();
      this.consumer = consumer;
      await task.start(props, this.context(consumer));
      const regex = (props['topics.regex'] ?? '').trim();
      const topics = (props.topics ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
      await consumer.subscribe(regex !== '' ? new RegExp(`^(?:${regex})$`) : topics);
      if (lifecycle.state !== 'PAUSED') lifecycle.set('RUNNING');
      this.commitTimer = setInterval(() => {
        // A failed commit is retried at the next one; the offsets stay in `consumed`.
        if (!this.stopping && this.commitDue) void this.serial(() => this.commit()).catch(() => undefined);
      }, this.d.flushIntervalMs);
      this.commitTimer.unref();
      for await (const batch of consumer.batches()) {
        if (this.stopping) break;
        await this.serial(() => this.deliver(batch.records));
        if (this.commitDue) await this.serial(() => this.commit());
        if (lifecycle.state === 'PAUSED') await this.pauseAll(consumer);
      }
    } catch (err) {
      if (!this.stopping) lifecycle.fail(err);
    } finally {
      if (this.commitTimer !== null) clearInterval(this.commitTimer);
    }
  }

  private get commitDue(): boolean {
    return this.commitRequested || Date.now() - this.lastCommitMs >= this.d.flushIntervalMs;
  }

  private serial(f: () => Promise<void>): Promise<void> {
    const run = this.work.then(f);
    this.work = run.catch(() => undefined);
    return run;
  }

  private async pauseAll(consumer: Consumer<Buffer | null, Buffer | null>): Promise<void> {
    const assigned: TopicPartition[] = consumer.assignment();
    consumer.pause(assigned);
    await this.d.lifecycle.whilePaused();
    if (!this.stopping) consumer.resume(assigned);
  }

  private async deliver(records: RawConsumerRecord[]): Promise<void> {
    this.d.metrics.sinkRecordsRead.inc(this.labels, records.length);
    const out: SinkRecord[] = [];
    for (const raw of records) {
      this.d.activeTopics.add(raw.topic);
      const converted = await this.convert(raw);
      if (converted !== null) {
        out.push(converted);
        this.rawOf.set(converted, raw);
      }
    }
    const put = await this.d.errors.execute('TASK_PUT', () => this.d.task.put(out));
    if ('failed' in put) return;
    this.d.metrics.sinkRecordsPut.inc(this.labels, out.length);
    const last = records[records.length - 1];
    if (last !== undefined) this.consumed.set(tpKey(last.topic, last.partition), { topic: last.topic, partition: last.partition, offset: last.offset + 1n });
  }

  private async convert(raw: RawConsumerRecord): Promise<SinkRecord | null> {
    const { errors, converters, chain } = this.d;
    const base = sinkRecordBase(raw);
    const describe = (): string => `record at ${raw.topic}-${raw.partition}@${raw.offset}`;
    const k = await errors.execute('KEY_CONVERTER', () => converters.key.toConnectData(raw.topic, raw.key), describe);
    if ('failed' in k) return this.skip(raw, k.failed);
    const v = await errors.execute('VALUE_CONVERTER', () => converters.value.toConnectData(raw.topic, raw.value), describe);
    if ('failed' in v) return this.skip(raw, v.failed);
    const record: SinkRecord = { ...base, keySchema: k.ok.schema, key: k.ok.value, valueSchema: v.ok.schema, value: v.ok.value };
    const t = await errors.execute('TRANSFORMATION', () => chain.apply(record), describe);
    if ('failed' in t) return this.skip(raw, t.failed);
    return t.ok;
  }

  private async skip(raw: RawConsumerRecord, failed: Parameters<DeadLetterQueue['report']>[1]): Promise<null> {
    this.d.metrics.recordErrors.inc(this.labels);
    this.d.metrics.recordsSkipped.inc(this.labels);
    if (this.d.dlq !== null) {
      await this.d.dlq.report(raw, failed);
      this.d.metrics.dlqRecords.inc(this.labels);
    }
    return null;
  }

  private async commit(): Promise<void> {
    this.lastCommitMs = Date.now();
    this.commitRequested = false;
    const consumer = this.consumer;
    if (consumer === null || this.consumed.size === 0) return;
    const end = this.d.metrics.offsetCommitSeconds.startTimer(this.labels);
    const current: SinkOffsets = new Map(this.consumed);
    let toCommit: SinkOffsets;
    if (this.d.task.preCommit !== undefined) toCommit = await this.d.task.preCommit(current);
    else {
      await this.d.task.flush?.(current);
      toCommit = current;
    }
    if (toCommit.size > 0) await consumer.commit([...toCommit.values()]);
    end();
  }

  /** Stops delivering, commits what was put, closes the consumer and stops the task. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.commitTimer !== null) clearInterval(this.commitTimer);
    this.d.lifecycle.wake();
    try {
      await this.work;
      if (this.d.lifecycle.state !== 'FAILED') await this.commit().catch((err: unknown) => this.d.lifecycle.fail(err));
    } finally {
      await this.consumer?.close().catch(() => undefined);
      await this.loop;
      await Promise.resolve(this.d.task.stop()).catch(() => undefined);
    }
  }
}
