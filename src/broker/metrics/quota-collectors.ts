/**
 * Quota metrics (docs/metrics.md, "Quotas"): throttles per quota type
 * (Kafka's per-quota `throttle-time` sensors, summed over clients),
 * connections refused at accept, and each principal's usage, the read path
 * of `tributary tenant describe`. Filled at scrape time from plain numbers
 * kept by the quota managers; labels are bounded (quota types, refusal
 * reasons, and at most USERS_TRACKED_MAX principals, idle ones dropped).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QuotaType, ThrottleStats } from '../../security/quota/client-quota-manager.js';
import type { PrincipalUsage } from '../../security/quota/usage.js';

export interface QuotaMetricsSource {
  throttleStats(): ReadonlyMap<QuotaType, Readonly<ThrottleStats>>;
  /** Connections refused at accept, by reason (listener_limit, broker_limit, ip_limit, ip_rate). */
  refusedConnections(): ReadonlyMap<string, number>;
  usage(): readonly PrincipalUsage[];
  connectionsByPrincipal(): ReadonlyMap<string, number>;
}

/** `prefix`: collectors.ts's METRIC_PREFIX (passed in, so the two files do not import each other). */
export function registerQuotaMetrics(registry: Registry, q: QuotaMetricsSource, prefix: string): void {
  const registers = [registry];
  const name = (n: string): string => `${prefix}${n}`;
  new Counter({
    name: name('quota_throttle_time_ms_total'),
    help: 'Milliseconds clients were throttled for (throttle_time_ms sent, then the connection muted), by the quota that set it: produce, fetch, request, controller_mutation.',
    labelNames: ['quota_type'] as const,
    registers,
    collect() {
      this.reset();
      for (const [type, s] of q.throttleStats()) this.inc({ quota_type: type }, s.throttleMsTotal);
    },
  });
  new Counter({
    name: name('quota_throttled_requests_total'),
    help: 'Requests answered with a throttle time, by the quota that set it.',
    labelNames: ['quota_type'] as const,
    registers,
    collect() {
      this.reset();
      for (const [type, s] of q.throttleStats()) this.inc({ quota_type: type }, s.throttled);
    },
  });
  new Counter({
    name: name('connections_refused_total'),
    help: 'Connections closed at accept by a connection limit: listener_limit, broker_limit, ip_limit (max.connections*), ip_rate (connection_creation_rate).',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [reason, n] of q.refusedConnections()) this.inc({ reason }, n);
    },
  });
  registerUsageMetrics(registers, q, name);
}

/** Per-principal usage gauges (tenant describe reads these). */
function registerUsageMetrics(registers: Registry[], q: QuotaMetricsSource, name: (n: string) => string): void {
  const gauge = (metric: string, help: string, value: (u: PrincipalUsage) => number): void => {
    new Gauge({
      name: name(metric),
      help,
      labelNames: ['principal'] as const,
      registers,
      collect() {
        this.reset();
        for (const u of q.usage()) this.set({ principal: u.principal }, value(u));
      },
    });
  };
  gauge('principal_produce_bytes_rate', 'Produce request bytes per second of a principal, over the quota windows.', (u) => u.produceBytesPerSec);
  gauge('principal_fetch_bytes_rate', 'Fetched record bytes per second of a principal (consumers), over the quota windows.', (u) => u.fetchBytesPerSec);
  gauge('principal_request_time_percent', 'Handler time of a principal, percent of one thread (request_percentage units).', (u) => u.requestTimePercent);
  new Gauge({
    name: name('principal_connections'),
    help: 'Open client connections of a principal.',
    labelNames: ['principal'] as const,
    registers,
    collect() {
      this.reset();
      for (const [principal, n] of q.connectionsByPrincipal()) this.set({ principal }, n);
    },
  });
}
