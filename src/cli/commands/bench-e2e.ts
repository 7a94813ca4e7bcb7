/**
 * `tributary bench e2e`: end-to-end latency. A producer sends at
 * --throughput records/s; each value starts with the send time
 * (`performance.now()`, a monotonic clock, as a float64 of milliseconds)
 * taken just before its chunk is handed to `sendBatch()`. Our Consumer, in
 * the same process but on its own connections (a long-poll Fetch must not
 * delay produce responses), reads from the end offsets taken before the
 * first send. Latency = the time `batches()` hands the record out − send stamp.
 * No coordinated-omission correction: the stamp is the actual send time.
 */
import { randomBytes } from 'node:crypto';
import { Producer } from '../../client/producer.js';
import type { Cluster } from '../../client/cluster.js';
import type { ProducerRecord } from '../../client/producer-types.js';
import { listOffsetsMany } from '../../client/records.js';
import { connectCluster, formatError, run, toJson, writeOut, type CommonOptions } from './common.js';
import type { E2eBenchSettings } from './bench.js';
import { ConsumerSource, consumeLoop, type BenchRecord } from './bench-consume.js';
import { prepareTopic, produceLoop, producerOptionsFor, settingsRecord, formatSettings, type ProduceLoopResult } from './bench-produce.js';
import { LatencyHistogram, formatInt, formatLatencyLine, newCounters, progressLine, PROGRESS_INTERVAL_MS, rates, type Counters, type LatencySummary } from './bench-stats.js';

const STAMP_BYTES = 8;
/** The consumer's long poll: short, so a quiet partition answers quickly once records arrive. */
const E2E_FETCH_MAX_WAIT_MS = 500;
const E2E_MAX_POLL_RECORDS = 10_000;

export interface E2eSummary {
  bench: 'e2e';
  topic: string;
  records: number;
  consumed: number;
  errors: number;
  elapsedMs: number;
  /** Achieved send rate. */
  recordsPerSec: number;
  mbPerSec: number;
  latencyMs: LatencySummary;
  ackLatencyMs: LatencySummary;
  settings: Record<string, unknown>;
}

/** Makes `n` records whose values start with the current monotonic time. */
export function stampedChunkMaker(topic: string, recordSize: number): (n: number) => ProducerRecord<Buffer | null, Buffer>[] {
  const filler = randomBytes(recordSize);
  return (n) => {
    const block = Buffer.allocUnsafe(n * recordSize);
    const stamp = performance.now();
    const out: ProducerRecord<Buffer | null, Buffer>[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const value = block.subarray(i * recordSize, (i + 1) * recordSize);
      filler.copy(value, STAMP_BYTES, STAMP_BYTES);
      value.writeDoubleBE(stamp, 0);
      out[i] = { topic, value };
    }
    return out;
  };
}

/** The send stamp of a record written by stampedChunkMaker, or null when it has none. */
export function stampOf(record: BenchRecord): number | null {
  const v = record.value;
  if (v === null || v.length < STAMP_BYTES) return null;
  return v.readDoubleBE(0);
}

export async function runE2eBench(options: CommonOptions, settings: E2eBenchSettings): Promise<void> {
  await run(
    async () => {
      const producerCluster = await connectCluster(options);
      const consumerCluster = await connectCluster(options).catch(async (err: unknown) => {
        await producerCluster.close();
        throw err;
      });
      try {
        const partitions = await prepareTopic(producerCluster, settings);
        const source = await openE2eSource(consumerCluster, options, settings);
        const producer = await Producer.connect<Buffer | null, Buffer>(producerOptionsFor(producerCluster, settings));
        const measured = await measureE2e(producer, source, settings);
        await reportE2e(measured, partitions, options, settings);
      } finally {
        await consumerCluster.close();
        await producerCluster.close();
      }
    },
    { bootstrap: options.bootstrap },
  );
}

/** Our Consumer on its own cluster connections, starting at the end offsets taken now, before the first send, so it misses nothing. */
async function openE2eSource(consumerCluster: Cluster, options: CommonOptions, settings: E2eBenchSettings): Promise<ConsumerSource> {
  const meta = await consumerCluster.topic(settings.topic, true);
  const ends = await listOffsetsMany(
    consumerCluster,
    meta.partitions.map((p) => ({ topic: settings.topic, partition: p.partition, spec: 'latest' as const })),
  );
  return ConsumerSource.open(consumerCluster, options, settings.topic, {
    from: 'latest',
    group: null,
    maxPollRecords: E2E_MAX_POLL_RECORDS,
    fetchMaxWaitMs: E2E_FETCH_MAX_WAIT_MS,
    fetchMaxBytes: 50 * 1024 * 1024,
    partitionMaxBytes: 8 * 1024 * 1024,
    startOffsets: new Map(ends.map((o) => [o.partition, o.offset])),
  });
}

/** What one e2e run measured: sent and received counters, both latency histograms, and how each loop ended. */
interface E2eMeasurement {
  sent: Counters;
  received: Counters;
  ack: LatencyHistogram;
  e2e: LatencyHistogram;
  /** Records received without a send stamp (something else writes to the topic). */
  unstamped: number;
  produced: Omit<ProduceLoopResult, 'counters' | 'latency'>;
  consumed: Awaited<ReturnType<typeof consumeLoop>>;
}

/**
 * Produces and consumes at once: the consumer stops when it has every record,
 * after --timeout-ms without one, or once the producer failed. Closes the
 * producer and the source.
 */
async function measureE2e(producer: Producer<Buffer | null, Buffer>, source: ConsumerSource, settings: E2eBenchSettings): Promise<E2eMeasurement> {
  const sent = newCounters();
  const received = newCounters();
  const ack = new LatencyHistogram();
  const e2e = new LatencyHistogram();
  let unstamped = 0;
  let producerFailed = false;
  const onRecords = (records: BenchRecord[], receivedAt: number): void => {
    for (const r of records) {
      const stamp = stampOf(r);
      if (stamp === null) unstamped++;
      else e2e.recordMs(receivedAt - stamp);
    }
  };
  const progress = settings.progress ? startE2eProgress(sent, received, e2e) : null;
  let produced;
  let consumed;
  try {
    const consuming = consumeLoop(source, received, settings.records, settings.timeoutMs, onRecords, () => producerFailed);
    try {
      produced = await produceLoop(producer, settings, sent, ack, stampedChunkMaker(settings.topic, settings.recordSize));
    } catch (err) {
      producerFailed = true;
      throw err;
    } finally {
      producerFailed ||= sent.errors > 0;
    }
    consumed = await consuming;
  } finally {
    if (progress !== null) clearInterval(progress);
    await producer.close().catch(() => undefined);
    await source.close();
  }
  return { sent, received, ack, e2e, unstamped, produced, consumed };
}

/** Prints the summary (text or --json); exit code 1 on a producer error, missing records or unstamped records. */
async function reportE2e(measured: E2eMeasurement, partitions: number, options: CommonOptions, settings: E2eBenchSettings): Promise<void> {
  const { sent, received, ack, e2e, unstamped, produced, consumed } = measured;
  const summary: E2eSummary = {
    bench: 'e2e',
    topic: settings.topic,
    records: sent.records,
    consumed: received.records,
    errors: sent.errors,
    elapsedMs: Math.round(produced.elapsedMs * 1000) / 1000,
    ...rates(sent.records, sent.bytes, produced.elapsedMs),
    latencyMs: e2e.summary(),
    ackLatencyMs: ack.summary(),
    settings: { ...settingsRecord(settings, partitions), timeoutMs: settings.timeoutMs, fetchMaxWaitMs: E2E_FETCH_MAX_WAIT_MS },
  };
  await writeOut(settings.json ? `${toJson(summary)}\n` : formatE2eSummary(summary));
  if (produced.firstError !== null) {
    process.stderr.write(`${formatError(produced.firstError, { bootstrap: options.bootstrap })}\n`);
    process.exitCode = 1;
  } else if (received.records < sent.records) {
    process.stderr.write(`error: received ${received.records} of ${sent.records} records (stopped by ${consumed.stoppedBy})\n`);
    process.exitCode = 1;
  } else if (unstamped > 0) {
    process.stderr.write(`error: ${unstamped} records without a send stamp: is something else writing to ${settings.topic}?\n`);
    process.exitCode = 1;
  }
}

function startE2eProgress(sent: Counters, received: Counters, e2e: LatencyHistogram): NodeJS.Timeout {
  let last = { records: 0, bytes: 0, atMs: performance.now() };
  const timer = setInterval(() => {
    const now = performance.now();
    const l = e2e.summary();
    process.stderr.write(`${progressLine('acknowledged', sent, last, now - last.atMs)}; ${received.records} received, e2e p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms, max ${l.max.toFixed(2)} ms\n`);
    last = { records: sent.records, bytes: sent.bytes, atMs: now };
  }, PROGRESS_INTERVAL_MS);
  timer.unref();
  return timer;
}

export function formatE2eSummary(s: E2eSummary): string {
  const lines = [
    `Sent ${formatInt(s.records)} records to ${s.topic} in ${(s.elapsedMs / 1000).toFixed(3)} s (${formatInt(s.recordsPerSec)} records/s, ${s.mbPerSec.toFixed(2)} MB/s); received ${formatInt(s.consumed)}`,
    formatLatencyLine('End-to-end latency ms (send → receive)', s.latencyMs),
    formatLatencyLine('Acknowledgement latency ms (send → ack)', s.ackLatencyMs),
    `Settings: ${formatSettings(s.settings)}`,
  ];
  if (s.errors > 0) lines.push(`Errors: ${s.errors}`);
  return `${lines.join('\n')}\n`;
}
