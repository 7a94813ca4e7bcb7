/**
 * `tributary bench consume`: reads a topic's partitions and reports
 * records/s and MB/s, like kafka-consumer-perf-test.
 *
 * The records come from a `BenchSource`:
 * - `ConsumerSource` (default): our Consumer, `for await (const batch of
 *   consumer.batches())`. Without --group it assigns every partition and
 *   starts at --from; with --group it subscribes (the group's committed
 *   offsets win, --from applies where there are none, as auto.offset.reset).
 * - `FetchSource` (`--source fetch`): plain Fetch requests
 *   (src/client/records.ts), one at a time, every partition assigned; it
 *   shows the cost of the protocol layer without the Consumer.
 * Time: the consumer starts (assign/subscribe, or the first fetch) → the N-th
 * record, or the last one when --timeout-ms passes without a record.
 */
import type { Cluster } from '../../client/cluster.js';
import { Consumer } from '../../client/consumer.js';
import type { ConsumerBatch } from '../../client/consumer-types.js';
import { invalidArgument } from '../../net/errors.js';
import { fetchMany, listOffsetsMany, type FetchPosition } from '../../client/records.js';
import { clientSecurity, connectCluster, run, toJson, writeOut, type CommonOptions } from './common.js';
import type { ConsumerBenchSettings } from './bench.js';
import { ProgressReporter, formatInt, newCounters, rates, type Counters } from './bench-stats.js';

/** What the bench reads of a record. */
export interface BenchRecord {
  key: Buffer | null;
  value: Buffer | null;
}

/** A stream of records from every partition of one topic. */
export interface BenchSource {
  /** Starts consuming (assign or subscribe); resolves early, without effect, if `stop` fires first. */
  start(stop: Promise<void>): Promise<void>;
  /** The next records; [] when none arrived within a fetch wait; null once `stop` fired or the stream ended. */
  poll(stop: Promise<void>): Promise<BenchRecord[] | null>;
  /** Fetch requests (FetchSource) or batches received (ConsumerSource). */
  readonly polls: number;
  readonly name: string;
  close(): Promise<void>;
}

export interface SourceOptions {
  from: 'earliest' | 'latest';
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  partitionMaxBytes: number;
}

async function partitionsOf(cluster: Cluster, topic: string): Promise<number[]> {
  const meta = await cluster.topic(topic, true);
  if (meta.partitions.length === 0) throw invalidArgument(`topic ${topic} has no partitions`);
  return meta.partitions.map((p) => p.partition);
}

/** Direct assignment of every partition, plain Fetch requests. */
export class FetchSource implements BenchSource {
  polls = 0;
  readonly name = 'fetch';

  private constructor(
    private readonly cluster: Cluster,
    private readonly positions: FetchPosition[],
    private readonly options: SourceOptions,
  ) {}

  static async open(cluster: Cluster, topic: string, options: SourceOptions): Promise<FetchSource> {
    const partitions = await partitionsOf(cluster, topic);
    const offsets = await listOffsetsMany(
      cluster,
      partitions.map((partition) => ({ topic, partition, spec: options.from })),
    );
    return new FetchSource(
      cluster,
      offsets.map((o) => ({ topic, partition: o.partition, offset: o.offset })),
      options,
    );
  }

  async start(): Promise<void> {
    // Positions are known; the first poll fetches.
  }

  async poll(): Promise<BenchRecord[]> {
    this.polls++;
    const results = await fetchMany(this.cluster, this.positions, {
      maxWaitMs: this.options.fetchMaxWaitMs,
      maxBytes: this.options.fetchMaxBytes,
      partitionMaxBytes: this.options.partitionMaxBytes,
    });
    const out: BenchRecord[] = [];
    results.forEach((r, i) => {
      (this.positions[i] as FetchPosition).offset = r.nextOffset;
      for (const rec of r.records) out.push(rec);
    });
    return out;
  }

  async close(): Promise<void> {
    // The cluster belongs to the caller.
  }
}

export interface ConsumerSourceOptions extends SourceOptions {
  group: string | null;
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  maxPollRecords: number;
  /** Start at these offsets (by partition) instead of --from; assign mode only. */
  startOffsets?: ReadonlyMap<number, bigint>;
}

type Batch = ConsumerBatch<Buffer | null, Buffer | null>;

/** Our Consumer: batches() of one partition each. */
export class ConsumerSource implements BenchSource {
  polls = 0;
  readonly name = 'consumer';
  private readonly iterator: AsyncIterator<Batch>;
  private pending: Promise<IteratorResult<Batch>> | null = null;
  /** Resolves the waiting poll with null when `stop` fires. */
  private wake: (() => void) | null = null;
  private stopListened = false;
  private stopFired = false;

  private constructor(
    private readonly consumer: Consumer,
    private readonly topic: string,
    private readonly partitions: readonly number[],
    private readonly options: ConsumerSourceOptions,
  ) {
    this.iterator = consumer.batches()[Symbol.asyncIterator]();
  }

  static async open(cluster: Cluster, common: CommonOptions, topic: string, options: ConsumerSourceOptions): Promise<ConsumerSource> {
    const partitions = await partitionsOf(cluster, topic);
    const consumer = new Consumer({
      bootstrap: common.bootstrap,
      clientId: 'tributary-bench',
      clusterOptions: { requestTimeoutMs: common.requestTimeoutMs, ...clientSecurity(common) },
      ...(options.group === null ? {} : { groupId: options.group }),
      autoOffsetReset: options.from,
      isolationLevel: options.isolationLevel ?? 'read_uncommitted',
      fetchMaxWaitMs: options.fetchMaxWaitMs,
      fetchMaxBytes: options.fetchMaxBytes,
      maxPartitionFetchBytes: options.partitionMaxBytes,
      maxPollRecords: options.maxPollRecords,
    });
    return new ConsumerSource(consumer, topic, partitions, options);
  }

  async start(stop: Promise<void>): Promise<void> {
    if (this.options.group !== null) {
      await Promise.race([this.consumer.subscribe([this.topic]), stop]);
      return;
    }
    this.consumer.assign(this.partitions.map((partition) => ({ topic: this.topic, partition })));
    for (const [partition, offset] of this.options.startOffsets ?? []) this.consumer.seek({ topic: this.topic, partition }, offset);
  }

  async poll(stop: Promise<void>): Promise<BenchRecord[] | null> {
    if (this.pending === null) {
      this.pending = this.iterator.next();
      // A failure after the bench stopped listening (stop fired) must not become an unhandled rejection.
      this.pending.catch(() => undefined);
    }
    // Not Promise.race([pending, stop.then(...)]) per poll: every race leaves a reaction on the
    // long-lived `stop` promise that keeps its result (a whole batch of records) reachable until the
    // run ends, so the bench would retain every record it read and measure the GC, not the consumer.
    // One listener on `stop` for the whole run wakes whichever poll is waiting.
    if (!this.stopListened) {
      this.stopListened = true;
      void stop.then(() => {
        this.stopFired = true;
        this.wake?.();
      });
    }
    if (this.stopFired) return null;
    const pending = this.pending;
    const next = await new Promise<IteratorResult<Batch> | null>((resolve, reject) => {
      this.wake = () => resolve(null);
      pending.then(resolve, reject);
    });
    this.wake = null;
    if (next === null) return null;
    this.pending = null;
    if (next.done === true) return null;
    this.polls++;
    return next.value.records;
  }

  async close(): Promise<void> {
    await this.consumer.close();
  }
}

/** How often the idle timeout is checked (one timer per run). */
const WATCHDOG_INTERVAL_MS = 50;

export interface ConsumeSummary {
  bench: 'consume';
  topic: string;
  records: number;
  bytes: number;
  elapsedMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  firstRecordAfterMs: number | null;
  /** Fetch requests (--source fetch) or batches received (consumer). */
  polls: number;
  /** Why the run stopped: the record count was reached, or the idle timeout. */
  stoppedBy: 'records' | 'timeout';
  consumer: string;
  settings: Record<string, unknown>;
}

export function recordBytes(r: BenchRecord): number {
  return (r.value?.length ?? 0) + (r.key?.length ?? 0);
}

/**
 * Polls until `limit` records (null: no limit), or until `timeoutMs` passes
 * without a record or `shouldStop()` says so; updates counters.
 */
export async function consumeLoop(
  source: BenchSource,
  counters: Counters,
  limit: number | null,
  timeoutMs: number,
  onRecords?: (records: BenchRecord[], receivedAt: number) => void,
  shouldStop: () => boolean = () => false,
): Promise<{ elapsedMs: number; firstRecordAfterMs: number | null; stoppedBy: 'records' | 'timeout' }> {
  const start = performance.now();
  let lastRecordAt = start;
  let firstRecordAfterMs: number | null = null;
  let stopped = false;
  let fire: () => void = () => undefined;
  const stop = new Promise<void>((resolve) => (fire = resolve));
  const watchdog = setInterval(() => {
    if (performance.now() - lastRecordAt >= timeoutMs || shouldStop()) {
      stopped = true;
      fire();
    }
  }, Math.min(WATCHDOG_INTERVAL_MS, timeoutMs));
  const result = (stoppedBy: 'records' | 'timeout'): { elapsedMs: number; firstRecordAfterMs: number | null; stoppedBy: 'records' | 'timeout' } => ({
    elapsedMs: lastRecordAt - start,
    firstRecordAfterMs,
    stoppedBy,
  });
  try {
    await source.start(stop);
    for (;;) {
      if (limit !== null && counters.records >= limit) return result('records');
      if (stopped) return result('timeout');
      const records = await source.poll(stop);
      if (records === null) return result('timeout');
      if (records.length === 0) continue;
      const now = performance.now();
      firstRecordAfterMs ??= now - start;
      lastRecordAt = now;
      const take = limit === null ? records.length : Math.min(records.length, limit - counters.records);
      let bytes = 0;
      for (let i = 0; i < take; i++) bytes += recordBytes(records[i] as BenchRecord);
      counters.records += take;
      counters.bytes += bytes;
      onRecords?.(take === records.length ? records : records.slice(0, take), now);
    }
  } finally {
    clearInterval(watchdog);
  }
}

/** Opens the source the settings ask for. */
export async function openSource(cluster: Cluster, options: CommonOptions, settings: ConsumerBenchSettings): Promise<BenchSource> {
  if (settings.source === 'fetch') return FetchSource.open(cluster, settings.topic, settings);
  return ConsumerSource.open(cluster, options, settings.topic, settings);
}

export async function runConsumeBench(options: CommonOptions, settings: ConsumerBenchSettings): Promise<void> {
  await run(
    async () => {
      const cluster = await connectCluster(options);
      try {
        const source = await openSource(cluster, options, settings);
        const counters = newCounters();
        const progress = new ProgressReporter(settings.progress, 'consumed', counters);
        progress.start();
        let result;
        try {
          result = await consumeLoop(source, counters, settings.records, settings.timeoutMs);
        } finally {
          progress.stop();
          await source.close();
        }
        const summary: ConsumeSummary = {
          bench: 'consume',
          topic: settings.topic,
          records: counters.records,
          bytes: counters.bytes,
          elapsedMs: Math.round(result.elapsedMs * 1000) / 1000,
          ...rates(counters.records, counters.bytes, result.elapsedMs),
          firstRecordAfterMs: result.firstRecordAfterMs === null ? null : Math.round(result.firstRecordAfterMs * 1000) / 1000,
          polls: source.polls,
          stoppedBy: result.stoppedBy,
          consumer: source.name,
          settings: {
            from: settings.from,
            group: settings.group,
            isolationLevel: settings.isolationLevel,
            maxPollRecords: settings.maxPollRecords,
            timeoutMs: settings.timeoutMs,
            fetchMaxWaitMs: settings.fetchMaxWaitMs,
            fetchMaxBytes: settings.fetchMaxBytes,
            partitionMaxBytes: settings.partitionMaxBytes,
          },
        };
        await writeOut(settings.json ? `${toJson(summary)}\n` : formatConsumeSummary(summary));
        if (settings.records !== null && counters.records < settings.records) {
          process.stderr.write(`error: consumed ${counters.records} of ${settings.records} records: no record for ${settings.timeoutMs} ms (--timeout-ms)\n`);
          process.exitCode = 1;
        }
      } finally {
        await cluster.close();
      }
    },
    { bootstrap: options.bootstrap },
  );
}

export function formatConsumeSummary(s: ConsumeSummary): string {
  const first = s.firstRecordAfterMs === null ? 'no record' : `first record after ${s.firstRecordAfterMs.toFixed(1)} ms`;
  return (
    [
      `Consumed ${formatInt(s.records)} records (${(s.bytes / 1e6).toFixed(2)} MB) from ${s.topic} in ${(s.elapsedMs / 1000).toFixed(3)} s: ${formatInt(s.recordsPerSec)} records/s, ${s.mbPerSec.toFixed(2)} MB/s`,
      `${s.consumer === 'fetch' ? 'Fetches' : 'Batches'}: ${s.polls}, ${first}, stopped by ${s.stoppedBy === 'records' ? 'the record count' : 'the idle timeout'}`,
      `Settings: consumer=${s.consumer} ${Object.entries(s.settings)
        .map(([k, v]) => `${k}=${v === null ? '-' : String(v)}`)
        .join(' ')}`,
    ].join('\n') + '\n'
  );
}
