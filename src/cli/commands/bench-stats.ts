/**
 * Measurement pieces of `tributary bench`: a latency histogram (HDR, in
 * microseconds), a once-a-second progress line, and the summary (text or
 * JSON). Figures follow kafka-producer-perf-test: records/s and MB/s (10^6
 * bytes of payload per second) over the timed window, latency percentiles.
 */
import { build, type Histogram } from 'hdr-histogram-js';

/** 1 µs .. 1 hour, 3 significant digits (0.1% error). */
const HIGHEST_TRACKABLE_US = 3_600_000_000;
export const PROGRESS_INTERVAL_MS = 1_000;

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** Latencies recorded in microseconds, reported in milliseconds. */
export class LatencyHistogram {
  private readonly h: Histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
  });

  /** Records `count` samples of `ms` milliseconds (values are clamped to the trackable range). */
  recordMs(ms: number, count = 1): void {
    const us = Math.min(HIGHEST_TRACKABLE_US, Math.max(1, Math.round(ms * 1000)));
    this.h.recordValueWithCount(us, count);
  }

  get count(): number {
    return this.h.totalCount;
  }

  summary(): LatencySummary {
    if (this.h.totalCount === 0) return { count: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0 };
    // A percentile is the highest value equivalent to its bucket, which may lie above the largest value recorded.
    const max = this.h.maxValue;
    const at = (p: number): number => Math.round(Math.min(max, this.h.getValueAtPercentile(p))) / 1000;
    return {
      count: this.h.totalCount,
      p50: at(50),
      p95: at(95),
      p99: at(99),
      p999: at(99.9),
      max: Math.round(max) / 1000,
      mean: Math.round(this.h.mean) / 1000,
    };
  }
}

/** Counters a bench updates as it runs; the progress line and the summary read them. */
export interface Counters {
  /** Records completed (acknowledged, or consumed). */
  records: number;
  /** Payload bytes (key + value) of the completed records. */
  bytes: number;
  /** Records handed to the client and not completed yet. */
  inFlight: number;
  errors: number;
}

export function newCounters(): Counters {
  return { records: 0, bytes: 0, inFlight: 0, errors: 0 };
}

/** Formats one progress line: totals, and the rates over the last interval. */
export function progressLine(verb: string, now: Counters, previous: { records: number; bytes: number }, intervalMs: number, latency?: LatencySummary): string {
  const seconds = intervalMs / 1000;
  const rps = seconds > 0 ? (now.records - previous.records) / seconds : 0;
  const mbps = seconds > 0 ? (now.bytes - previous.bytes) / 1e6 / seconds : 0;
  const parts = [`${now.records} records ${verb}`, `${formatInt(rps)} records/s`, `${mbps.toFixed(2)} MB/s`, `${now.inFlight} in flight`];
  if (latency !== undefined && latency.count > 0) parts.push(`p99 ${latency.p99.toFixed(1)} ms`, `max ${latency.max.toFixed(1)} ms`);
  if (now.errors > 0) parts.push(`${now.errors} errors`);
  return parts.join(', ');
}

/**
 * Prints a progress line on stderr every PROGRESS_INTERVAL_MS (one timer for
 * the whole run, not per record) until stopped.
 */
export class ProgressReporter {
  private timer: NodeJS.Timeout | null = null;
  private last = { records: 0, bytes: 0, atMs: 0 };

  constructor(
    private readonly enabled: boolean,
    private readonly verb: string,
    private readonly counters: Counters,
    private readonly latency?: () => LatencySummary,
  ) {}

  start(): void {
    if (!this.enabled) return;
    this.last = { records: this.counters.records, bytes: this.counters.bytes, atMs: performance.now() };
    this.timer = setInterval(() => this.tick(), PROGRESS_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const now = performance.now();
    process.stderr.write(`${progressLine(this.verb, this.counters, this.last, now - this.last.atMs, this.latency?.())}\n`);
    this.last = { records: this.counters.records, bytes: this.counters.bytes, atMs: now };
  }
}

/** records/s and MB/s over `ms` milliseconds. */
export function rates(records: number, bytes: number, ms: number): { recordsPerSec: number; mbPerSec: number } {
  const seconds = ms / 1000;
  if (seconds <= 0) return { recordsPerSec: 0, mbPerSec: 0 };
  return { recordsPerSec: Math.round(records / seconds), mbPerSec: Math.round((bytes / 1e6 / seconds) * 100) / 100 };
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatLatencyLine(label: string, l: LatencySummary): string {
  const f = (v: number): string => v.toFixed(2);
  return `${label}: p50 ${f(l.p50)}  p95 ${f(l.p95)}  p99 ${f(l.p99)}  p99.9 ${f(l.p999)}  max ${f(l.max)}  (mean ${f(l.mean)}, ${formatInt(l.count)} samples)`;
}

/**
 * Waits until `performance.now()` reaches `targetMs` (one timer per call).
 * The producer loop calls it once per chunk of records, never per record.
 */
export function sleepUntil(targetMs: number): Promise<void> {
  const delay = targetMs - performance.now();
  if (delay <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, delay));
}
