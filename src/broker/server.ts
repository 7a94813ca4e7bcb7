/**
 * TCP and TLS listeners. Each accepted socket becomes a Connection; the
 * server keeps track of them for graceful shutdown (stop accepting, answer
 * what is in flight, then close). On an SSL or SASL_SSL listener the
 * Connection is made once the TLS handshake is done, with the principal of
 * the client certificate (src/security/tls/peer-principal.ts); the
 * Connection reads decrypted bytes exactly as it reads plain ones.
 *
 * Connection limits (max.connections, max.connections.per.ip, ip
 * connection_creation_rate) are checked on accept by ConnectionQuotas
 * (src/security/quota/connection-quotas.ts), on a TLS listener once the
 * handshake is done; a refused socket is closed before any request is read,
 * with a warning logged.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { nodeTls } from '../util/lazy-builtins.js';
import type { Logger } from 'pino';
import { Connection, type ConnectionLimits } from './connection.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { BrokerServices } from './services.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import { SaslSession } from '../security/sasl/session.js';
import type { Admission, ConnectionQuotas } from '../security/quota/connection-quotas.js';
import { ANONYMOUS, peerPrincipal } from '../security/tls/peer-principal.js';

/** A client that has not finished its TLS handshake by then is dropped. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Longest a connection over its IP's connection_creation_rate is held open before it is closed. */
export const THROTTLED_CLOSE_DELAY_MS_MAX = 30_000;

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
  /** Connections refused at accept since start, by reason (metrics). */
  readonly refusedByReason = new Map<string, number>();
  /** Refused sockets whose close is delayed (connection_creation_rate), closed at shutdown at the latest. */
  private readonly delayedCloses = new Set<Socket>();

  constructor(
    private readonly registry: HandlerRegistry,
    private readonly services: BrokerServices,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
    /** Connection limits checked on accept; absent = none. */
    private readonly admission?: ConnectionQuotas,
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
    const server = this.createListener(spec, (socket, principal) => {
      const address = socket.remoteAddress ?? '';
      const admission = this.admission?.admit(spec.name, address);
      if (admission !== undefined && !admission.admitted) {
        this.refuse(socket, spec.name, admission);
        return;
      }
      const release = (): void => this.admission?.release(spec.name, address);
      if (gated && this.held !== null) {
        let served = false;
        socket.pause();
        socket.on('error', () => socket.destroy()); // a reset while held must not be an uncaught 'error'
        socket.once('close', () => {
          if (!served) release();
        });
        this.held.push({
          socket,
          serve: () => {
            served = true;
            this.accept(spec, socket, principal, registry, services, release);
          },
        });
        return;
      }
      this.accept(spec, socket, principal, registry, services, release);
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

  /** A plain TCP server, or a TLS one whose connections start once the handshake is done and the peer's principal is known. */
  private createListener(spec: ListenerSpec, onSocket: (socket: Socket, principal: string) => void): Server {
    const tls = spec.security?.tls ?? null;
    if (tls === null) return createServer({ noDelay: true }, (socket) => onSocket(socket, ANONYMOUS));
    const server = nodeTls().createServer({ ...tls.serverOptions, noDelay: true, handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS }, (socket: TLSSocket) => {
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

  private accept(spec: ListenerSpec, socket: Socket, principal: string, registry: HandlerRegistry, services: BrokerServices, release: () => void): void {
    const id = `${spec.name}-${this.nextConnectionId++}`;
    const sasl = spec.security?.sasl ?? null;
    const session = sasl === null ? null : new SaslSession({ ...sasl, scramCredential: (m, user) => services.metadata.scramCredential(m, user) }, () => services.clock.monotonicMs());
    const limits = sasl === null ? this.limits : { ...this.limits, unauthenticatedRequestBytesMax: sasl.receiveBytesMax };
    const connection = new Connection(id, socket, spec.name, registry, services, limits, this.logger, (c) => {
      this.connections.delete(c);
      release();
    }, session, principal);
    this.connections.add(connection);
    this.acceptedByListener.set(spec.name, (this.acceptedByListener.get(spec.name) ?? 0) + 1);
  }

  /** Open connections per principal (tenant usage, at scrape time). */
  connectionsByPrincipal(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const c of this.connections) counts.set(c.principal, (counts.get(c.principal) ?? 0) + 1);
    return counts;
  }

  /** Closes a socket the limits refused: at once, or after the throttle time of an IP over its connection rate (as Kafka). */
  private refuse(socket: Socket, listener: string, admission: Exclude<Admission, { admitted: true }>): void {
    this.refusedByReason.set(admission.reason, (this.refusedByReason.get(admission.reason) ?? 0) + 1);
    this.logger.warn({ listener, client: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, reason: admission.reason }, `connection refused: ${admission.message}`);
    socket.on('error', () => {});
    if (admission.reason !== 'ip_rate') {
      socket.destroy();
      return;
    }
    socket.pause();
    this.delayedCloses.add(socket);
    const timer = setTimeout(() => {
      this.delayedCloses.delete(socket);
      socket.destroy();
    }, Math.min(admission.closeAfterMs, THROTTLED_CLOSE_DELAY_MS_MAX));
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      this.delayedCloses.delete(socket);
    });
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
    for (const s of this.delayedCloses) s.destroy();
  }
}
