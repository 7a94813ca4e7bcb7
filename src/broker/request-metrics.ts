/**
 * Request counters per API key (and per version): counts, errors, a latency
 * histogram, and requests refused before reaching a handler. The connection
 * updates them on the hot path (a few number increments per request, no
 * labels, no allocation after the first request of an API version); the
 * Prometheus exporter in `metrics/` reads them at scrape time.
 */

/** Upper bounds (seconds) of the latency histogram buckets; +Inf is implicit. Long-poll Fetch needs the top ones. */
export const REQUEST_LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export interface RequestStats {
  started: number;
  completed: number;
  latencyMsTotal: number;
}

/** One (API key, version): what `tributary_requests_total` and friends report. */
export interface VersionStats {
  readonly apiKey: number;
  readonly apiVersion: number;
  requests: number;
  errors: number;
  latencySecondsSum: number;
  /** Per bucket of REQUEST_LATENCY_BUCKETS_SECONDS, not cumulative; the last entry counts latencies above every bound. */
  readonly bucketCounts: number[];
}

/** Why a request was refused before a handler saw it (the connection is closed for all but ApiVersions). */
export type RejectReason = 'bad_frame_size' | 'bad_header' | 'unknown_api_key' | 'unsupported_version' | 'malformed' | 'unauthenticated';

export class RequestMetrics {
  private readonly byKey = new Map<number, RequestStats>();
  /** Keyed by apiKey * 65536 + apiVersion (both int16 on the wire). */
  private readonly byVersion = new Map<number, VersionStats>();
  private readonly rejectedByReason = new Map<RejectReason, number>();

  requestStarted(apiKey: number): void {
    this.stats(apiKey).started++;
  }

  /**
   * A handled request was answered (or dropped: acks=0, closed connection).
   * `failed`: it got an error code at the top level of its response, or the
   * handler threw (UNKNOWN_SERVER_ERROR).
   */
  requestCompleted(apiKey: number, latencyMs: number, apiVersion = -1, failed = false): void {
    const s = this.stats(apiKey);
    s.completed++;
    s.latencyMsTotal += latencyMs;
    const v = this.versionStats(apiKey, apiVersion);
    v.requests++;
    if (failed) v.errors++;
    const seconds = latencyMs / 1000;
    v.latencySecondsSum += seconds;
    let i = 0;
    while (i < REQUEST_LATENCY_BUCKETS_SECONDS.length && seconds > (REQUEST_LATENCY_BUCKETS_SECONDS[i] as number)) i++;
    v.bucketCounts[i] = (v.bucketCounts[i] as number) + 1;
  }

  requestRejected(reason: RejectReason): void {
    this.rejectedByReason.set(reason, (this.rejectedByReason.get(reason) ?? 0) + 1);
  }

  snapshot(): ReadonlyMap<number, Readonly<RequestStats>> {
    return this.byKey;
  }

  /** Every (API key, version) seen so far. */
  versions(): IterableIterator<Readonly<VersionStats>> {
    return this.byVersion.values();
  }

  rejected(): ReadonlyMap<RejectReason, number> {
    return this.rejectedByReason;
  }

  /** Requests dispatched to a handler and not yet completed. */
  inFlight(): number {
    let n = 0;
    for (const s of this.byKey.values()) n += s.started - s.completed;
    return n;
  }

  private stats(apiKey: number): RequestStats {
    let s = this.byKey.get(apiKey);
    if (!s) {
      s = { started: 0, completed: 0, latencyMsTotal: 0 };
      this.byKey.set(apiKey, s);
    }
    return s;
  }

  private versionStats(apiKey: number, apiVersion: number): VersionStats {
    const k = apiKey * 65536 + apiVersion;
    let v = this.byVersion.get(k);
    if (!v) {
      v = { apiKey, apiVersion, requests: 0, errors: 0, latencySecondsSum: 0, bucketCounts: new Array<number>(REQUEST_LATENCY_BUCKETS_SECONDS.length + 1).fill(0) };
      this.byVersion.set(k, v);
    }
    return v;
  }
}

/** The error code at the top level of a response body (0 when it has none: most carry theirs per topic or partition). */
export function topLevelErrorCode(response: unknown): number {
  if (typeof response !== 'object' || response === null || !('errorCode' in response)) return 0;
  const code = response.errorCode;
  return typeof code === 'number' ? code : 0;
}
