/**
 * `tributary bench produce`: N records through our Producer, as fast as the
 * acknowledgements allow or paced at --throughput, like
 * kafka-producer-perf-test.
 *
 * - Bulk mode (default): `sendBatch()` per chunk of records, one promise per
 *   chunk; each record's latency is its chunk's send → acknowledgement time.
 *   `--per-record`: one `send()` per record, each timed on its own.
 * - In flight: at most about `bufferMemory` bytes of records are handed to the
 *   producer and not yet acknowledged; the loop waits for the oldest chunk.
 * - Pacing: with --throughput R the loop sends chunks of about R/1000 records
 *   and sleeps (one timer per chunk, none per record) until the schedule says
 *   the next chunk is due; after a stall it catches up.
 * - Time: first send → last acknowledgement.
 */
import { randomBytes } from 'node:crypto';
import { Admin } from '../../client/admin.js';
import type { Cluster } from '../../client/cluster.js';
import { KafkaProtocolError } from '../../net/errors.js';
import { Producer } from '../../client/producer.js';
import type { ProducerOptions, ProducerRecord } from '../../client/producer-types.js';
import { connectCluster, formatError, run, toJson, writeOut, type CommonOptions } from './common.js';
import type { ProducerBenchSettings } from './bench.js';
import { transactionalLoop, type TransactionalLoopResult } from './bench-transactions.js';
import { LatencyHistogram, ProgressReporter, formatInt, formatLatencyLine, newCounters, rates, sleepUntil, type Counters, type LatencySummary } from './bench-stats.js';

/** Paced runs send a chunk about every millisecond. */
const PACED_CHUNKS_PER_SECOND = 1_000;
/** Per-record overhead counted against bufferMemory when bounding what is in flight (the accumulator's own estimate is close). */
const RECORD_OVERHEAD_BYTES = 70;

type Value = Buffer;

export interface ProduceLoopResult {
  counters: Counters;
  latency: LatencySummary;
  elapsedMs: number;
  firstError: Error | null;
}

/** The chunk size: --chunk-records, or about a millisecond's worth when paced. */
export function chunkSize(settings: Pick<ProducerBenchSettings, 'throughput' | 'chunkRecords' | 'perRecord'>): number {
  if (settings.perRecord) return 1;
  if (settings.throughput < 0) return settings.chunkRecords;
  return Math.max(1, Math.min(settings.chunkRecords, Math.round(settings.throughput / PACED_CHUNKS_PER_SECOND)));
}

/** Records the loop may keep handed to the producer and unacknowledged. */
export function inFlightRecordsMax(settings: Pick<ProducerBenchSettings, 'bufferMemory' | 'recordSize'>, chunk: number): number {
  return Math.max(2 * chunk, Math.floor(settings.bufferMemory / (settings.recordSize + RECORD_OVERHEAD_BYTES)));
}

export function producerOptionsFor(cluster: Cluster, settings: ProducerBenchSettings): ProducerOptions<Value | null, Value> {
  return {
    cluster,
    acks: settings.acks,
    compression: settings.compression,
    batchSize: settings.batchSize,
    lingerMs: settings.lingerMs,
    bufferMemory: settings.bufferMemory,
    ...(settings.idempotent === null ? {} : { idempotent: settings.idempotent }),
    ...(settings.maxInFlight === null ? {} : { maxInFlight: settings.maxInFlight }),
    ...(settings.transactionalId === null ? {} : { transactionalId: settings.transactionalId }),
  };
}

/** Creates the topic when asked (an existing topic is kept) and checks that it exists (auto-created by brokers that allow it). */
export async function prepareTopic(cluster: Cluster, settings: Pick<ProducerBenchSettings, 'topic' | 'createTopic' | 'partitions'>): Promise<number> {
  if (settings.createTopic) {
    const admin = new Admin(cluster);
    try {
      await admin.createTopic({ name: settings.topic, numPartitions: settings.partitions });
    } catch (err) {
      if (!(err instanceof KafkaProtocolError && err.errorName === 'TOPIC_ALREADY_EXISTS')) throw err;
      process.stderr.write(`note: topic ${settings.topic} already exists; using it as it is\n`);
    }
  }
  // As kafka-producer-perf-test: a missing topic is auto-created when the broker allows it.
  const meta = await cluster.topic(settings.topic, true, { allowAutoTopicCreation: true });
  return meta.partitions.length;
}

/**
 * Runs the send loop. `makeChunk(n)` returns the next n records (e2e stamps
 * them); the loop measures acknowledgement latency and keeps `counters`.
 */
export async function produceLoop(
  producer: Producer<Value | null, Value>,
  settings: ProducerBenchSettings,
  counters: Counters,
  latency: LatencyHistogram,
  makeChunk: (n: number) => ProducerRecord<Value | null, Value>[],
): Promise<Omit<ProduceLoopResult, 'counters' | 'latency'>> {
  const chunk = chunkSize(settings);
  const windowMax = inFlightRecordsMax(settings, chunk);
  const inFlight: Promise<void>[] = [];
  let firstError: Error | null = null;
  let sent = 0;
  const start = performance.now();
  const onDone = (records: ProducerRecord<Value | null, Value>[], sentAt: number) => (): void => {
    let bytes = 0;
    for (const r of records) bytes += r.value.length + (r.key?.length ?? 0);
    counters.records += records.length;
    counters.bytes += bytes;
    counters.inFlight -= records.length;
    latency.recordMs(performance.now() - sentAt, records.length);
  };
  const onFail = (n: number) => (err: unknown): void => {
    counters.errors += n;
    counters.inFlight -= n;
    firstError ??= err instanceof Error ? err : new Error(String(err));
  };
  while (sent < settings.records && firstError === null) {
    const n = Math.min(chunk, settings.records - sent);
    while (counters.inFlight + n > windowMax && inFlight.length > 0) await inFlight.shift();
    if (settings.throughput > 0) await sleepUntil(start + (sent * 1000) / settings.throughput);
    const records = makeChunk(n);
    const sentAt = performance.now();
    counters.inFlight += n;
    let p: Promise<void>;
    if (settings.perRecord) {
      p = producer.send(records[0] as ProducerRecord<Value | null, Value>).then(onDone(records, sentAt), onFail(n));
    } else {
      p = producer.sendBatch(records).then(onDone(records, sentAt), onFail(n));
    }
    inFlight.push(p);
    sent += n;
    // Let acknowledgements run now and then when nothing else yields (per-record, unpaced).
    if (inFlight.length >= 1024) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await producer.flush();
  return { elapsedMs: performance.now() - start, firstError };
}

/** Records of the chunk: one shared random value, or the payload file's values in turn. */
function chunkMaker(settings: ProducerBenchSettings): (n: number) => ProducerRecord<Buffer | null, Buffer>[] {
  const { topic } = settings;
  if (settings.payloads === null) {
    const value = randomBytes(settings.recordSize);
    let cached: ProducerRecord<Buffer | null, Buffer>[] = [];
    return (n) => {
      if (cached.length !== n) cached = Array.from({ length: n }, () => ({ topic, value }));
      return cached;
    };
  }
  const payloads = settings.payloads;
  let next = 0;
  return (n) => {
    const out: ProducerRecord<Buffer | null, Buffer>[] = new Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = { topic, value: payloads[next] as Buffer };
      next = (next + 1) % payloads.length;
    }
    return out;
  };
}

export interface ProduceSummary {
  bench: 'produce';
  topic: string;
  records: number;
  bytes: number;
  errors: number;
  elapsedMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  latencyMs: LatencySummary;
  /** With --transactional-id: transactions committed and commitTransaction's latency. */
  transactions?: { committed: number; perSec: number; commitLatencyMs: LatencySummary };
  settings: Record<string, unknown>;
}

export function settingsRecord(s: ProducerBenchSettings, partitions: number): Record<string, unknown> {
  return {
    recordSize: s.recordSize,
    payloadFile: s.payloads !== null,
    acks: s.acks,
    compression: s.compression,
    batchSize: s.batchSize,
    lingerMs: s.lingerMs,
    bufferMemory: s.bufferMemory,
    throughput: s.throughput,
    idempotent: s.idempotent,
    maxInFlight: s.maxInFlight,
    transactionalId: s.transactionalId,
    recordsPerTransaction: s.transactionalId === null ? null : s.recordsPerTransaction,
    mode: s.perRecord ? 'send' : `sendBatch(${chunkSize(s)})`,
    partitions,
  };
}

export function formatSettings(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${v === null ? 'default' : String(v)}`)
    .join(' ');
}

export async function runProduceBench(options: CommonOptions, settings: ProducerBenchSettings): Promise<void> {
  await run(
    async () => {
      const cluster = await connectCluster(options);
      try {
        const partitions = await prepareTopic(cluster, settings);
        const producer = await Producer.connect<Buffer | null, Buffer>(producerOptionsFor(cluster, settings));
        const counters = newCounters();
        const latency = new LatencyHistogram();
        const progress = new ProgressReporter(settings.progress, 'acknowledged', counters);
        progress.start();
        let result;
        let txn: TransactionalLoopResult | null = null;
        try {
          if (settings.transactionalId === null) result = await produceLoop(producer, settings, counters, latency, chunkMaker(settings));
          else result = txn = await transactionalLoop(producer, settings, counters, latency, chunkMaker(settings), chunkSize(settings));
        } finally {
          progress.stop();
          await producer.close().catch(() => undefined);
        }
        const summary: ProduceSummary = {
          bench: 'produce',
          topic: settings.topic,
          records: counters.records,
          bytes: counters.bytes,
          errors: counters.errors,
          elapsedMs: Math.round(result.elapsedMs * 1000) / 1000,
          ...rates(counters.records, counters.bytes, result.elapsedMs),
          latencyMs: latency.summary(),
          ...(txn === null ? {} : { transactions: { committed: txn.transactions, perSec: Math.round((txn.transactions * 1000 * 100) / result.elapsedMs) / 100, commitLatencyMs: txn.commitLatency.summary() } }),
          settings: settingsRecord(settings, partitions),
        };
        await writeOut(settings.json ? `${toJson(summary)}\n` : formatProduceSummary(summary));
        if (result.firstError !== null) {
          process.stderr.write(`${formatError(result.firstError, { bootstrap: options.bootstrap })}\n`);
          process.stderr.write(`error: ${counters.errors} of ${settings.records} records failed or were not sent\n`);
          process.exitCode = 1;
        }
      } finally {
        await cluster.close();
      }
    },
    { bootstrap: options.bootstrap },
  );
}

export function formatProduceSummary(s: ProduceSummary): string {
  const lines = [
    `Produced ${formatInt(s.records)} records (${(s.bytes / 1e6).toFixed(2)} MB) to ${s.topic} in ${(s.elapsedMs / 1000).toFixed(3)} s: ${formatInt(s.recordsPerSec)} records/s, ${s.mbPerSec.toFixed(2)} MB/s`,
    formatLatencyLine('Latency ms (send → ack)', s.latencyMs),
    ...(s.transactions === undefined ? [] : [`Transactions: ${formatInt(s.transactions.committed)} committed, ${s.transactions.perSec} /s`, formatLatencyLine('Commit latency ms (commitTransaction)', s.transactions.commitLatencyMs)]),
    `Settings: ${formatSettings(s.settings)}`,
  ];
  if (s.errors > 0) lines.push(`Errors: ${s.errors}`);
  return `${lines.join('\n')}\n`;
}
