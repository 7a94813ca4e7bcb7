/**
 * TCP and TLS listeners. Each accepted socket becomes a Connection; the
 * server keeps track of them for graceful shutdown (stop accepting, answer
 * what is in flight, then close). On an SSL or SASL_SSL listener the
 * Connection is made once the TLS handshake is done, with the principal of
 * the client certificate (src/security/tls/peer-principal.ts); the
 * Connection reads decrypted bytes exactly as it reads plain ones.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { Connection, type ConnectionLimits } from './connection.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { BrokerServices } from './services.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import { SaslSession } from '../security/sasl/session.js';
import { ANONYMOUS, peerPrincipal } from '../security/tls/peer-principal.js';

/** A client that has not finished its TLS handshake by then is dropped. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

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
  async listen(spec: ListenerSpec, apis?: { registry: HandlerRegistry; services: BrokerServices }): Promise<BoundListener> {
    const registry = apis?.registry ?? this.registry;
    const services = apis?.services ?? this.services;
    const server = this.createListener(spec, (socket, principal) => this.accept(spec, socket, principal, registry, services));
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

  /** A plain TCP server, or a TLS one whose connections start once the handshake is done and the peer's principal is known. */
  private createListener(spec: ListenerSpec, onSocket: (socket: Socket, principal: string) => void): Server {
    const tls = spec.security?.tls ?? null;
    if (tls === null) return createServer({ noDelay: true }, (socket) => onSocket(socket, ANONYMOUS));
    const server = createTlsServer({ ...tls.serverOptions, noDelay: true, handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS }, (socket: TLSSocket) => {
      const peer = peerPrincipal(socket, tls.principalMapper);
      const client = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
      if (!peer.ok) {
        this.logger.warn({ listener: spec.name, client, reason: peer.reason }, 'TLS client refused');
        socket.destroy();
        return;
      }
      // On SASL_SSL the principal comes from SASL; the certificate was only checked.
      const principal = spec.security?.sasl === null ? peer.principal : null;
      this.logger.debug({ listener: spec.name, client, principal, subject: peer.subject, protocol: socket.getProtocol(), cipher: socket.getCipher().name }, 'TLS connection established');
      onSocket(socket, principal ?? ANONYMOUS);
    });
    server.on('tlsClientError', (err, socket) => this.logger.debug({ err, listener: spec.name, client: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}` }, 'TLS handshake failed'));
    return server;
  }

  private accept(spec: ListenerSpec, socket: Socket, principal: string, registry: HandlerRegistry, services: BrokerServices): void {
    const id = `${spec.name}-${this.nextConnectionId++}`;
    const sasl = spec.security?.sasl ?? null;
    const session = sasl === null ? null : new SaslSession({ ...sasl, scramCredential: (m, user) => services.metadata.scramCredential(m, user) }, () => services.clock.monotonicMs());
    const limits = sasl === null ? this.limits : { ...this.limits, unauthenticatedRequestBytesMax: sasl.receiveBytesMax };
    const connection = new Connection(id, socket, spec.name, registry, services, limits, this.logger, (c) => this.connections.delete(c), session, principal);
    this.connections.add(connection);
    this.acceptedByListener.set(spec.name, (this.acceptedByListener.get(spec.name) ?? 0) + 1);
  }

  /** Stops accepting, waits (bounded) for in-flight requests, then closes everything. */
  async shutdown(graceMs: number): Promise<void> {
    for (const s of this.servers) s.close();
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
