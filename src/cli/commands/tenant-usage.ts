/**
 * The usage part of `tributary tenant describe`: a principal's current
 * produce and fetch bytes per second, request time and connections, read
 * from each broker's metrics endpoint (`metrics.listeners`, GET /metrics:
 * the `tributary_principal_*` gauges, src/broker/metrics/quota-collectors.ts)
 * and summed over the brokers given. Kafka has no API for this; the
 * numbers are the brokers' own, over the quota windows.
 */

export interface TenantUsage {
  produceBytesPerSec: number;
  fetchBytesPerSec: number;
  requestTimePercent: number;
  connections: number;
  /** Brokers that answered; the others are listed in `unreachable`. */
  brokers: number;
  unreachable: string[];
}

const GAUGES: Readonly<Record<string, keyof Omit<TenantUsage, 'brokers' | 'unreachable'>>> = {
  tributary_principal_produce_bytes_rate: 'produceBytesPerSec',
  tributary_principal_fetch_bytes_rate: 'fetchBytesPerSec',
  tributary_principal_request_time_percent: 'requestTimePercent',
  tributary_principal_connections: 'connections',
};

const FETCH_TIMEOUT_MS = 5_000;

/** Prometheus text label values escape \, " and newline. */
function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Adds the principal's samples of one /metrics page to `into`. */
export function addUsageFromMetrics(text: string, principal: string, into: TenantUsage): void {
  const label = `{principal="${escapeLabel(principal)}"}`;
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space < 0 || line.startsWith('#')) continue;
    const series = line.slice(0, space);
    const brace = series.indexOf('{');
    if (brace < 0 || series.slice(brace) !== label) continue;
    const field = GAUGES[series.slice(0, brace)];
    const value = Number(line.slice(space + 1));
    if (field !== undefined && Number.isFinite(value)) into[field] += value;
  }
}

export async function fetchTenantUsage(metricsUrls: readonly string[], principal: string): Promise<TenantUsage> {
  const usage: TenantUsage = { produceBytesPerSec: 0, fetchBytesPerSec: 0, requestTimePercent: 0, connections: 0, brokers: 0, unreachable: [] };
  await Promise.all(
    metricsUrls.map(async (base) => {
      const url = `${base.replace(/\/+$/, '')}/metrics`;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        addUsageFromMetrics(await res.text(), principal, usage);
        usage.brokers++;
      } catch (err) {
        usage.unreachable.push(`${url} (${(err as Error).message})`);
      }
    }),
  );
  return usage;
}
