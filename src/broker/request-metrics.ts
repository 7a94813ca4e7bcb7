/**
 * Request counters per API key: counts, errors and cumulative latency. The
 * Prometheus exporter of a later issue reads these; until then they back the
 * shutdown summary and tests.
 */
export interface RequestStats {
  started: number;
  completed: number;
  latencyMsTotal: number;
}

export class RequestMetrics {
  private readonly byKey = new Map<number, RequestStats>();

  requestStarted(apiKey: number): void {
    this.stats(apiKey).started++;
  }

  requestCompleted(apiKey: number, latencyMs: number): void {
    const s = this.stats(apiKey);
    s.completed++;
    s.latencyMsTotal += latencyMs;
  }

  snapshot(): ReadonlyMap<number, Readonly<RequestStats>> {
    return this.byKey;
  }

  private stats(apiKey: number): RequestStats {
    let s = this.byKey.get(apiKey);
    if (!s) {
      s = { started: 0, completed: 0, latencyMsTotal: 0 };
      this.byKey.set(apiKey, s);
    }
    return s;
  }
}
