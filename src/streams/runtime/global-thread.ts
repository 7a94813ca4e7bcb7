/**
 * The global consumer of an instance (Kafka's GlobalStreamThread): a
 * group-less Consumer assigned every partition of every global topic, from
 * the beginning. `start()` resolves once the stores hold everything up to
 * the end offsets seen at start (before any task processes a record, so a
 * join never misses a row that was already in the topic); afterwards it
 * keeps applying new records in the background until `close()`.
 */
import { Consumer, type Admin } from '../../client/index.js';
import type { StreamsLogger } from './config.js';
import type { GlobalStores } from './global-stores.js';
import type { RawRecord } from './collector.js';

/** Keeps the global stores up to date with their topics. */
export class GlobalThread {
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly globals: GlobalStores,
    private readonly bootstrap: string,
    private readonly clientId: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Bootstraps the stores to the topics' current ends, then follows the topics. */
  async start(admin: Admin, log: StreamsLogger): Promise<void> {
    const topics = this.globals.topics();
    if (topics.length === 0) return;
    const started = performance.now();
    const described = await admin.describeTopics(topics);
    const partitions = described.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
    const ends = await admin.listOffsets(partitions.map((p) => ({ ...p, spec: 'latest' as const })));
    const behind = new Map(ends.filter((e) => e.offset > 0n).map((e) => [`${e.topic}:${e.partition}`, e.offset]));
    const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: this.bootstrap, clientId: this.clientId, autoOffsetReset: 'earliest' });
    this.consumer = consumer;
    consumer.assign(partitions);
    let applied = 0;
    let bootstrapError: unknown = null;
    let caughtUp!: () => void;
    const ready = new Promise<void>((resolve) => (caughtUp = resolve));
    if (behind.size === 0) caughtUp();
    this.loop = (async () => {
      try {
        for await (const batch of consumer.batches()) {
          // The fetch buffers are reused: the stores keep copies.
          for (const r of batch.records) {
            const record = r as RawRecord; // a consumer record has every RawRecord field
            this.globals.apply({ ...record, key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) });
          }
          this.globals.flush();
          applied += batch.records.length;
          const end = behind.get(`${batch.topic}:${batch.partition}`);
          const last = batch.records.at(-1);
          if (end !== undefined && last !== undefined && last.offset + 1n >= end) behind.delete(`${batch.topic}:${batch.partition}`);
          if (behind.size === 0) caughtUp();
        }
      } catch (err) {
        if (behind.size > 0) bootstrapError = err; // start() fails with it
        else if (this.consumer !== null) this.onError(err);
      } finally {
        caughtUp();
      }
    })();
    await ready;
    if (bootstrapError !== null) throw bootstrapError;
    log('info', `global stores bootstrapped from ${topics.join(', ')}: ${applied} records in ${Math.round(performance.now() - started)} ms`);
  }

  /** Stops following the topics. */
  async close(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    await consumer?.close().catch(() => {});
    await this.loop?.catch(() => {});
  }
}
