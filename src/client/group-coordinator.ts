/**
 * The connection of a `GroupMember` (group.ts) to its group coordinator:
 * found with FindCoordinator, opened on first use, dropped when the
 * coordinator moved or failed, and the retry loop for operations run on it.
 * The member talks to the coordinator over a connection of its own: a
 * JoinGroup may be parked for up to the rebalance timeout, and Kafka answers
 * one connection's requests in order, so sharing the cluster's connection
 * would stall fetches. Separate so the member keeps only its state machine.
 */
import type { Cluster } from './cluster.js';
import { Connection, type ConnectionOptions } from '../net/connection.js';
import { ConnectionClosedError, KafkaProtocolError } from '../net/errors.js';
import { COORDINATOR_RETRY_ERRORS, findCoordinator, isCoordinatorRetriable, type CoordinatorNode } from './group-apis.js';

export class CoordinatorLink {
  private coordinator: { node: CoordinatorNode; connection: Connection } | null = null;

  /** `memberClosed` is true once the member has finished closing: no new connection is kept then. */
  constructor(
    private readonly cluster: Cluster,
    private readonly groupId: string,
    private readonly connectionOptions: Omit<ConnectionOptions, 'host' | 'port'> | undefined,
    private readonly memberClosed: () => boolean,
  ) {}

  /** The coordinator connection, found (with `attempts` lookups at most) and opened when missing. */
  async connection(attempts?: number): Promise<Connection> {
    if (this.coordinator !== null && !this.coordinator.connection.isClosed) return this.coordinator.connection;
    this.drop();
    const node = await findCoordinator(this.cluster, this.groupId, attempts);
    const connection = await Connection.connect({ clientId: 'tributary', ...this.connectionOptions, host: node.host, port: node.port });
    if (this.memberClosed()) {
      connection.destroy();
      throw new ConnectionClosedError(`group member of ${this.groupId} is closed`);
    }
    this.coordinator = { node, connection };
    return connection;
  }

  /** Forgets the coordinator and closes its connection (the next use looks it up again). */
  drop(): void {
    const c = this.coordinator;
    this.coordinator = null;
    if (c !== null) void c.connection.close().catch(() => undefined);
  }

  /** Runs an offsets operation on the coordinator, finding it again (bounded) when it moved. */
  async run<T>(operation: (conn: Connection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await operation(await this.connection());
      } catch (err) {
        if (attempt >= this.cluster.retries || !isCoordinatorRetriable(err) || this.memberClosed()) throw err;
        if (!(err instanceof KafkaProtocolError && COORDINATOR_RETRY_ERRORS.has(err.errorCode))) this.drop();
        await this.cluster.backoff(attempt);
      }
    }
  }
}
