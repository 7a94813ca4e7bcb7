/**
 * The broker's Prometheus exporter: a registry of its own (never prom-client's
 * global one, so several brokers can share a process), prom-client's default
 * process metrics (memory, CPU, event-loop lag, GC), the broker metrics of
 * collectors.ts, and the HTTP listener (exporter.ts, loaded lazily). Off
 * (null; prom-client and node:http are never loaded) when `metrics.listeners`
 * is empty.
 *
 * Lifecycle, driven by runBroker: start() binds before the logs are
 * recovered, so /health answers 503 while the broker starts; attach() once
 * the subsystems exist; setState('serving') when requests are served;
 * setState('stopping') when shutdown begins; close() once client
 * connections are drained.
 */
import type { Logger } from 'pino';
import type { MetricsExporter } from './exporter.js';

export { TrafficMetrics } from './traffic.js';
export type { MetricsExporter } from './exporter.js';
export type { MetricsSources } from './collectors.js';
export type { BoundHttpEndpoint, BrokerState } from './http-server.js';

/** Binds `listeners` (`http://host:port` entries); null, with nothing loaded, when there are none. */
export async function startMetricsExporter(listeners: readonly string[], logger: Logger): Promise<MetricsExporter | null> {
  if (listeners.length === 0) return null;
  const { MetricsExporter: Exporter } = await import('./exporter.js');
  return Exporter.start(listeners, logger);
}
