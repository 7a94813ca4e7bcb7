/**
 * The exporter proper (see index.ts): its own Registry with prom-client's
 * default process metrics, the broker collectors, and the HTTP listener.
 * Loaded only when `metrics.listeners` is set, so a broker without metrics
 * never loads prom-client or node:http.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { registerBrokerMetrics, type MetricsSources } from './collectors.js';
import { parseHttpEndpoint } from './endpoints.js';
import { MetricsHttpServer, type BoundHttpEndpoint, type BrokerState } from './http-server.js';

export class MetricsExporter {
  private constructor(
    readonly registry: Registry,
    private readonly http: MetricsHttpServer,
  ) {}

  /** Binds `listeners` (`http://host:port` entries, at least one). */
  static async start(listeners: readonly string[], logger: Logger): Promise<MetricsExporter> {
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
