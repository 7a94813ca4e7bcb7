/**
 * The broker's Prometheus exporter: a registry of its own (never prom-client's
 * global one, so several brokers can share a process), prom-client's default
 * process metrics (memory, CPU, event-loop lag, GC), the broker metrics of
 * collectors.ts, and the HTTP listener. Off (null, nothing allocated) when
 * `metrics.listeners` is empty.
 *
 * Lifecycle, driven by runBroker: start() binds before the logs are
 * recovered, so /health answers 503 while the broker starts; attach() once
 * the subsystems exist; setState('serving') when requests are served;
 * setState('stopping') when shutdown begins; close() once client
 * connections are drained.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { registerBrokerMetrics, type MetricsSources } from './collectors.js';
import { parseHttpEndpoint } from './endpoints.js';
import { MetricsHttpServer, type BoundHttpEndpoint, type BrokerState } from './http-server.js';

export { TrafficMetrics } from './traffic.js';
export type { MetricsSources } from './collectors.js';
export type { BoundHttpEndpoint, BrokerState } from './http-server.js';

export class MetricsExporter {
  private constructor(
    readonly registry: Registry,
    private readonly http: MetricsHttpServer,
  ) {}

  /** Binds `listeners` (`http://host:port` entries); null when there are none. */
  static async start(listeners: readonly string[], logger: Logger): Promise<MetricsExporter | null> {
    if (listeners.length === 0) return null;
    const endpoints = listeners.map(parseHttpEndpoint);
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const http = await MetricsHttpServer.start(endpoints, registry, logger);
    return new MetricsExporter(registry, http);
  }

  get addresses(): readonly BoundHttpEndpoint[] {
    return this.http.addresses;
  }

  /** Registers the broker metrics (once the subsystems exist). */
  attach(sources: MetricsSources): void {
    registerBrokerMetrics(this.registry, sources);
    this.http.setHealthDetails(() => ({ nodeId: sources.nodeId, clusterId: sources.clusterId }));
  }

  setState(state: BrokerState): void {
    this.http.setState(state);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
