/**
 * TCP listeners. Each accepted socket becomes a Connection; the server keeps
 * track of them for graceful shutdown (stop accepting, answer what is in
 * flight, then close).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { Connection, type ConnectionLimits } from './connection.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { BrokerServices } from './services.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import { SaslSession } from '../security/sasl/session.js';

export interface ListenerSpec {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** Absent = PLAINTEXT. */
  readonly security?: ListenerSecurity | undefined;
}

export interface BoundListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export class SocketServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 0;
  /** Connections accepted since start, per listener name (metrics). */
  readonly acceptedByListener = new Map<string, number>();
  /**
   * Sockets of gated listeners accepted while requests are held, each with
   * what serves it; null once requests are served. A cluster node holds its
   * broker listeners until its metadata has caught up (Kafka enables request
   * processing only then), so a restarted broker never answers from an old
   * image, e.g. UNKNOWN_TOPIC_OR_PARTITION for a topic created while it was down.
   */
  private held: { socket: Socket; serve: () => void }[] | null = null;

  constructor(
    private readonly registry: HandlerRegistry,
    private readonly services: BrokerServices,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {}

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Open connections per listener name (metrics, at scrape time). */
  connectionsByListener(): Map<string, number> {
    const counts = new Map<string, number>([...this.acceptedByListener.keys()].map((name) => [name, 0]));
    for (const c of this.connections) counts.set(c.listenerName, (counts.get(c.listenerName) ?? 0) + 1);
    return counts;
  }

  /**
   * Binds one listener. `apis` gives it its own API set (a controller
   * listener's registry and services whose apiVersions() lists that set);
   * default: the broker's.
   */
  async listen(spec: ListenerSpec, apis?: { registry: HandlerRegistry; services: BrokerServices }, gated = false): Promise<BoundListener> {
    const registry = apis?.registry ?? this.registry;
    const services = apis?.services ?? this.services;
    const server = createServer({ noDelay: true }, (socket) => {
      if (gated && this.held !== null) {
        socket.pause();
        socket.on('error', () => socket.destroy()); // a reset while held must not be an uncaught 'error'
        this.held.push({ socket, serve: () => this.accept(spec, socket, registry, services) });
        return;
      }
      this.accept(spec, socket, registry, services);
    });
    server.maxConnections = 10_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: spec.host === '' ? undefined : spec.host, port: spec.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.logger.error({ err, listener: spec.name }, 'listener error'));
    this.servers.push(server);
    if (!this.acceptedByListener.has(spec.name)) this.acceptedByListener.set(spec.name, 0);
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : spec.port;
    return { name: spec.name, host: spec.host, port };
  }

  /** Gated listeners accept from now on but serve no request until serveRequests(). */
  holdRequests(): void {
    this.held ??= [];
  }

  /** Serves what gated listeners accepted meanwhile, and everything after. */
  serveRequests(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const { socket, serve } of held) {
      if (socket.destroyed) continue;
      serve();
      socket.resume();
    }
  }

  private accept(spec: ListenerSpec, socket: Socket, registry: HandlerRegistry, services: BrokerServices): void {
    const id = `${spec.name}-${this.nextConnectionId++}`;
    const sasl = spec.security?.sasl ?? null;
    const session = sasl === null ? null : new SaslSession({ ...sasl, scramCredential: (m, user) => services.metadata.scramCredential(m, user) }, () => services.clock.monotonicMs());
    const limits = sasl === null ? this.limits : { ...this.limits, unauthenticatedRequestBytesMax: sasl.receiveBytesMax };
    const connection = new Connection(id, socket, spec.name, registry, services, limits, this.logger, (c) => this.connections.delete(c), session);
    this.connections.add(connection);
    this.acceptedByListener.set(spec.name, (this.acceptedByListener.get(spec.name) ?? 0) + 1);
  }

  /** Stops accepting, waits (bounded) for in-flight requests, then closes everything. */
  async shutdown(graceMs: number): Promise<void> {
    for (const s of this.servers) s.close();
    for (const { socket } of this.held ?? []) socket.destroy();
    this.held = null;
    const drained = Promise.all([...this.connections].map((c) => c.drain()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([drained, timeout]);
    if (timer) clearTimeout(timer);
    for (const c of this.connections) c.close('shutdown');
  }
}
