/**
 * MirrorSourceTask: consumes its assigned source partitions and hands the
 * records to the worker unchanged (key, value, headers, timestamp, same
 * partition number) for the remote topic. The worker produces them to the
 * target and stores each record's source offset as Connect source offsets,
 * partition `{cluster, topic, partition}` and offset `{offset}` as
 * MirrorMaker 2 does, so a restart resumes after the last stored offset.
 *
 * When the worker reports where a record landed (`commitRecord`), the task
 * may emit an offset sync (upstream offset -> downstream offset) to
 * `mm2-offset-syncs.<target>.internal` under the `offset.lag.max` rule
 * (offset-sync-store.ts). Every due sync is sent (none replaced by a
 * newer one), so a translated offset is never more than offset.lag.max
 * records behind.
 */
import { Consumer, Producer, type ConsumerBatch } from '../client/index.js';
import { Schemas } from '../connect/data/schema.js';
import type { SourceRecord, SourceRecordMetadata, SourceTask, SourceTaskContext } from '../connect/spi.js';
import { SOURCE_DEF, parseMirrorConfig, type MirrorConfig } from './connector-config.js';
import { flowLabel, mirrorMetrics } from './metrics.js';
import { SyncRule } from './offset-sync-store.js';
import { encodeOffsetSync, type OffsetSync } from './records.js';
import { MIRROR_VERSION, decodePartitions } from './task-assignment.js';
import type { TopicPartitionRef } from './topic-sync.js';

/** Records buffered between the consumer and poll(); the consumer waits above it. */
const QUEUE_RECORDS_MAX = 10_000;
const POLL_WAIT_MS = 200;
const BYTES_SCHEMA = Schemas.bytes({ optional: true });

export class MirrorSourceTask implements SourceTask {
  private config: MirrorConfig | null = null;
  private consumer: Consumer | null = null;
  private syncProducer: Producer<Buffer, Buffer> | null = null;
  private readonly queue: ConsumerBatch<Buffer | null, Buffer | null>[] = [];
  private queued = 0;
  private wake: (() => void) | null = null;
  private drained: (() => void) | null = null;
  private pump: Promise<void> | null = null;
  private failure: unknown = null;
  private stopping = false;
  private readonly rules = new Map<string, SyncRule>();
  private maxOffsetLag = 100n;
  private label = { flow: '' };

  version(): string {
    return MIRROR_VERSION;
  }

  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parseMirrorConfig(SOURCE_DEF, props);
    this.config = config;
    this.label = flowLabel(config.source, config.target);
    this.maxOffsetLag = BigInt(config.c.number('offset.lag.max'));
    const partitions = decodePartitions(props['task.assigned.partitions']);
    const syncsBootstrap = config.c.string('offset-syncs.topic.location') === 'target' ? config.targetBootstrap : config.sourceBootstrap;
    this.syncProducer = await Producer.connect<Buffer, Buffer>({ clusterOptions: { bootstrap: syncsBootstrap, clientId: `mirror-${config.source}-${config.target}-offset-syncs` }, lingerMs: 0 });
    const reset = config.c.string('consumer.auto.offset.reset') === 'latest' ? 'latest' : 'earliest';
    const consumer = new Consumer({ bootstrap: config.sourceBootstrap, clientId: `mirror-${config.source}-${config.target}-source`, autoOffsetReset: reset, maxPollRecords: config.c.number('consumer.max.poll.records') });
    this.consumer = consumer;
    consumer.assign(partitions);
    for (const tp of partitions) {
      const stored = context.offsetStorageReader.offset(sourcePartition(config.source, tp));
      const offset = stored?.offset;
      // The stored offset is the last record replicated: resume at the next one.
      if (typeof offset === 'number' && offset >= 0) consumer.seek(tp, BigInt(offset) + 1n);
    }
    this.pump = this.runPump(consumer);
  }

  private async runPump(consumer: Consumer): Promise<void> {
    try {
      for await (const batch of consumer.batches()) {
        this.queue.push(batch);
        this.queued += batch.records.length;
        this.wake?.();
        while (this.queued >= QUEUE_RECORDS_MAX && !this.stopping) await new Promise<void>((r) => (this.drained = r));
        if (this.stopping) return;
      }
    } catch (err) {
      if (!this.stopping) this.failure = err;
      this.wake?.();
    }
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.failure !== null) throw this.failure;
    if (this.queue.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_WAIT_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    const config = this.config;
    if (config === null || this.queue.length === 0) return null;
    const batches = this.queue.splice(0, this.queue.length);
    this.queued = 0;
    this.drained?.();
    this.drained = null;
    const out: SourceRecord[] = [];
    for (const b of batches) for (const r of b.records) out.push(toSourceRecord(config, r));
    return out;
  }

  /** The worker's acknowledgement of one record: metrics, and an offset sync when one is due. */
  commitRecord(record: SourceRecord, metadata: SourceRecordMetadata | null): void {
    if (metadata === null || this.config === null) return;
    const upstreamTopic = String(record.sourcePartition.topic);
    const partition = Number(record.sourcePartition.partition);
    const upstreamOffset = BigInt(record.sourceOffset.offset as number);
    mirrorMetrics.records.inc(this.label);
    mirrorMetrics.bytes.inc(this.label, recordBytes(record));
    if (record.timestamp !== null) mirrorMetrics.latency.observe(this.label, Math.max(0, Date.now() - record.timestamp) / 1000);
    const key = `${upstreamTopic}\u0000${partition}`;
    let rule = this.rules.get(key);
    if (rule === undefined) this.rules.set(key, (rule = new SyncRule(this.maxOffsetLag)));
    if (rule.update(upstreamOffset, metadata.offset)) {
      rule.sent();
      this.sendSync({ topic: upstreamTopic, partition, upstreamOffset, downstreamOffset: metadata.offset });
    }
  }

  /**
   * Sends a sync at once: the syncs of all partitions go in send order to
   * the syncs topic's single partition (the producer keeps that order), so
   * none is dropped and translation stays within offset.lag.max.
   */
  private sendSync(sync: OffsetSync): void {
    const producer = this.syncProducer;
    if (producer === null || this.config === null) return;
    const { key, value } = encodeOffsetSync(sync);
    producer
      .send({ topic: this.config.policy.offsetSyncsTopic(this.config.target), partition: 0, key, value })
      .then(() => mirrorMetrics.offsetSyncs.inc(this.label))
      .catch((err: unknown) => process.stderr.write(`[MirrorSourceTask] offset sync failed: ${(err as Error).message}\n`));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.drained?.();
    this.wake?.();
    await this.consumer?.close().catch(() => undefined);
    await this.pump;
    await this.syncProducer?.flush().catch(() => undefined);
    await this.syncProducer?.close().catch(() => undefined);
  }
}

export function sourcePartition(cluster: string, tp: TopicPartitionRef): Record<string, unknown> {
  return { cluster, topic: tp.topic, partition: tp.partition };
}

type RawConsumed = ConsumerBatch<Buffer | null, Buffer | null>['records'][number];

function toSourceRecord(config: MirrorConfig, r: RawConsumed): SourceRecord {
  return {
    topic: config.policy.formatRemoteTopic(config.source, r.topic),
    kafkaPartition: r.partition,
    keySchema: BYTES_SCHEMA,
    key: r.key,
    valueSchema: BYTES_SCHEMA,
    value: r.value,
    timestamp: r.timestamp,
    headers: r.headers.map((h) => ({ key: h.key, schema: BYTES_SCHEMA, value: h.value })),
    sourcePartition: sourcePartition(config.source, r),
    sourceOffset: { offset: Number(r.offset) },
  };
}

function recordBytes(r: SourceRecord): number {
  const len = (v: unknown): number => (Buffer.isBuffer(v) ? v.length : 0);
  return len(r.key) + len(r.value) + r.headers.reduce((n, h) => n + h.key.length + len(h.value), 0);
}
