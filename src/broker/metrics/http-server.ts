/**
 * The metrics HTTP listener (`metrics.listeners`): `GET /metrics` serves the
 * registry as Prometheus text, `GET /health` answers 200 `{"status":"ok"}`
 * while the broker serves requests and 503 while it starts or shuts down
 * (a readiness probe), anything else 404 (405 for other methods on those
 * two paths). Plain node:http; no request body is read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { formatHttpEndpoint, type HttpEndpoint } from './endpoints.js';

export type BrokerState = 'starting' | 'serving' | 'stopping';

export interface BoundHttpEndpoint extends HttpEndpoint {
  /** `http://host:port` with the bound port. */
  readonly url: string;
}

/** Scrapers and probes are few; anything past this is refused by the kernel backlog. */
export const METRICS_CONNECTIONS_MAX = 64;
/** A client that has not sent its headers by then is dropped. */
export const METRICS_HEADERS_TIMEOUT_MS = 5_000;
export const METRICS_REQUEST_TIMEOUT_MS = 10_000;

export class MetricsHttpServer {
  private readonly servers: Server[] = [];
  readonly addresses: BoundHttpEndpoint[] = [];
  private state: BrokerState = 'starting';
  private details: () => Record<string, unknown> = () => ({});
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly registry: Registry,
    private readonly logger: Logger,
  ) {}

  /** Binds every endpoint (all or nothing: a failed bind closes those already bound). */
  static async start(endpoints: readonly HttpEndpoint[], registry: Registry, logger: Logger): Promise<MetricsHttpServer> {
    const m = new MetricsHttpServer(registry, logger);
    try {
      for (const e of endpoints) await m.listen(e);
    } catch (err) {
      await m.close();
      throw err;
    }
    return m;
  }

  get brokerState(): BrokerState {
    return this.state;
  }

  setState(state: BrokerState): void {
    this.state = state;
  }

  /** Extra fields for the /health body (node id, cluster id, ...). */
  setHealthDetails(details: () => Record<string, unknown>): void {
    this.details = details;
  }

  private async listen(e: HttpEndpoint): Promise<void> {
    const server = createServer((req, res) => this.handle(req, res));
    server.maxConnections = METRICS_CONNECTIONS_MAX;
    server.headersTimeout = METRICS_HEADERS_TIMEOUT_MS;
    server.requestTimeout = METRICS_REQUEST_TIMEOUT_MS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: e.host === '' ? undefined : e.host, port: e.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.logger.error({ err, listener: formatHttpEndpoint(e) }, 'metrics listener error'));
    this.servers.push(server);
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : e.port;
    const bound = { host: e.host, port, url: formatHttpEndpoint({ host: e.host, port }) };
    this.addresses.push(bound);
    this.logger.info({ url: bound.url, port }, `metrics served at ${bound.url}/metrics`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/health') {
      send(res, 404, 'text/plain; charset=utf-8', 'not found: try /metrics or /health\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    if (path === '/health') {
      const ok = this.state === 'serving';
      const body = { status: ok ? 'ok' : this.state, ...this.details() };
      send(res, ok ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`, req.method === 'HEAD');
      return;
    }
    this.registry.metrics().then(
      (text) => send(res, 200, this.registry.contentType, text, req.method === 'HEAD'),
      (err: unknown) => {
        this.logger.error({ err, path }, 'collecting metrics failed');
        send(res, 500, 'text/plain; charset=utf-8', 'collecting metrics failed\n');
      },
    );
  }

  /** Stops listening and drops open connections (keep-alive scrapers included). */
  close(): Promise<void> {
    this.closing ??= Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    ).then(() => undefined);
    return this.closing;
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headOnly = false): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(headOnly ? undefined : body);
}
