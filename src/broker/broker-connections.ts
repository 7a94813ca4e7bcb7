/**
 * One connection per other broker, to the endpoint it registered for
 * `inter.broker.listener.name`, shared by what talks broker to broker
 * (replica fetchers, transaction markers and verification). A connection
 * whose request fails is dropped, so the next request reconnects to the
 * endpoint the metadata image has then (a restarted broker may come back on
 * another port); an endpoint that changed replaces the old connection.
 */
import { Connection, type ConnectionSecurity } from '../net/connection.js';

export interface BrokerEndpointLookup {
  /** Where broker `id` listens for other brokers, or undefined when unknown. */
  (id: number): { host: string; port: number } | undefined;
}

export interface BrokerConnectionsOptions {
  readonly clientId: string;
  /** For error messages: what these connections are for. */
  readonly purpose: string;
  readonly connectTimeoutMs: number;
  readonly maxResponseBytes: number;
  /** TLS and/or SASL of the inter-broker listener (src/security/node-links.ts); absent = PLAINTEXT. */
  readonly security?: ConnectionSecurity | undefined;
}

interface Open {
  readonly host: string;
  readonly port: number;
  readonly connection: Promise<Connection>;
}

export class BrokerConnections {
  private readonly open = new Map<number, Open>();
  private closed = false;

  constructor(private readonly endpointOf: BrokerEndpointLookup, private readonly opts: BrokerConnectionsOptions) {}

  /** Runs `send` on the connection to broker `id`; a failure drops that connection and is rethrown. */
  async use<T>(id: number, send: (connection: Connection) => Promise<T>): Promise<T> {
    const open = this.connection(id);
    try {
      return await send(await open.connection);
    } catch (err) {
      this.drop(id, open);
      throw err;
    }
  }

  /** Closes the connection to broker `id`, if any (nothing left to send there). */
  release(id: number): void {
    const open = this.open.get(id);
    if (open !== undefined) this.drop(id, open);
  }

  close(): void {
    this.closed = true;
    for (const [id, open] of [...this.open]) this.drop(id, open);
  }

  private connection(id: number): Open {
    if (this.closed) throw new Error(`the ${this.opts.purpose} connections are closed`);
    const endpoint = this.endpointOf(id);
    if (endpoint === undefined) throw new Error(`broker ${id} has no registered inter-broker endpoint`);
    const existing = this.open.get(id);
    if (existing !== undefined && existing.host === endpoint.host && existing.port === endpoint.port) return existing;
    if (existing !== undefined) this.drop(id, existing);
    const connection = Connection.connect({
      host: endpoint.host,
      port: endpoint.port,
      clientId: this.opts.clientId,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      maxResponseBytes: this.opts.maxResponseBytes,
      negotiateVersions: false,
      ...this.opts.security,
    });
    const open: Open = { ...endpoint, connection };
    this.open.set(id, open);
    connection.catch(() => {
      if (this.open.get(id) === open) this.open.delete(id);
    });
    return open;
  }

  private drop(id: number, open: Open): void {
    if (this.open.get(id) === open) this.open.delete(id);
    open.connection.then((c) => c.destroy(), () => undefined);
  }
}
