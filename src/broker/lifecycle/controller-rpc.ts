/**
 * Connections from this node to the controllers' controller listeners
 * (`controller.quorum.voters`), one per voter, opened on first use and
 * dropped on any error so the next call reconnects. Used for forwarding
 * admin requests and for BrokerRegistration / BrokerHeartbeat.
 *
 * Requests go out without ApiVersions negotiation: every node runs the same
 * software, and the versions used are the ones the caller names (a
 * forwarded request keeps the client's version).
 */
import { Connection, type ApiPair, type ConnectionSecurity } from '../../net/connection.js';
import type { Infer, Input, MessageSchema } from '../../protocol/schema.js';
import type { QuorumVoterSettings } from '../settings.js';

/** A connection attempt to a controller fails after this long. */
export const CONTROLLER_CONNECT_TIMEOUT_MS = 2_000;

export class ControllerUnreachableError extends Error {
  readonly code = 'ERR_TRIB_CONTROLLER_UNREACHABLE';
  constructor(
    readonly controllerId: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ControllerUnreachableError';
  }
}

export class ControllerRpc {
  private readonly voters: ReadonlyMap<number, QuorumVoterSettings>;
  private readonly connections = new Map<number, Promise<Connection>>();
  private closed = false;

  constructor(
    voters: readonly QuorumVoterSettings[],
    private readonly clientId: string,
    /** TLS and/or SASL of the controller listener (src/security/node-links.ts); {} = PLAINTEXT. */
    private readonly security: ConnectionSecurity = {},
  ) {
    this.voters = new Map(voters.map((v) => [v.id, v]));
  }

  get voterIds(): number[] {
    return [...this.voters.keys()].sort((a, b) => a - b);
  }

  /** Sends one request to a voter's controller listener; any failure drops that connection. */
  async send<Req extends MessageSchema, Res extends MessageSchema>(
    controllerId: number,
    api: ApiPair<Req, Res>,
    version: number,
    body: Input<Req>,
    timeoutMs: number,
  ): Promise<Infer<Res>> {
    const connection = await this.connection(controllerId);
    try {
      return await connection.send(api, version, body, { timeoutMs });
    } catch (err) {
      this.drop(controllerId, connection);
      throw new ControllerUnreachableError(controllerId, `controller ${controllerId} did not answer: ${(err as Error).message}`, { cause: err });
    }
  }

  private connection(controllerId: number): Promise<Connection> {
    if (this.closed) return Promise.reject(new ControllerUnreachableError(controllerId, 'this node is shutting down'));
    const voter = this.voters.get(controllerId);
    if (voter === undefined) return Promise.reject(new ControllerUnreachableError(controllerId, `node ${controllerId} is not in controller.quorum.voters`));
    let pending = this.connections.get(controllerId);
    if (pending === undefined) {
      pending = Connection.connect({
        host: voter.host,
        port: voter.port,
        clientId: this.clientId,
        connectTimeoutMs: CONTROLLER_CONNECT_TIMEOUT_MS,
        negotiateVersions: false,
        ...this.security,
      });
      this.connections.set(controllerId, pending);
      pending.catch(() => {
        if (this.connections.get(controllerId) === pending) this.connections.delete(controllerId);
      });
    }
    return pending.catch((err: unknown) => {
      throw new ControllerUnreachableError(controllerId, `cannot connect to controller ${controllerId} at ${voter.host}:${voter.port}: ${(err as Error).message}`, { cause: err });
    });
  }

  private drop(controllerId: number, connection: Connection): void {
    void this.connections.get(controllerId)?.then((c) => {
      if (c === connection) this.connections.delete(controllerId);
    });
    connection.destroy();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => undefined)));
  }
}
