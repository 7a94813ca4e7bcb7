/**
 * Bootstrap and metadata cache: the base the CLI, the Admin helpers and the
 * later Producer/Consumer share.
 *
 * - `Cluster.connect` tries the bootstrap brokers in order until one answers
 *   ApiVersions, then loads Metadata.
 * - One connection per broker node, opened lazily and reopened when closed.
 * - Partition requests go to the partition's leader. `withLeader` runs an
 *   operation against the leader and, on NOT_LEADER_OR_FOLLOWER,
 *   UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE (and the other stale
 *   metadata errors below) or an unreachable broker, refreshes the metadata
 *   and retries, `retries` times at most, with exponential backoff.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode, errorInfo } from '../protocol/errors.js';
import { Apis, request } from './apis.js';
import { Connection, REQUEST_TIMEOUT_MS_DEFAULT, type ConnectionOptions } from '../net/connection.js';
import { sleep } from '../util/sleep.js';
import {
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  invalidArgument,
} from '../net/errors.js';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';
export const RETRIES_DEFAULT = 5;
export const RETRY_BACKOFF_MS_DEFAULT = 100;
export const RETRY_BACKOFF_MS_MAX = 2_000;

/** A `host:port` pair, as parsed from a bootstrap string. */
export interface BrokerAddress {
  readonly host: string;
  readonly port: number;
}

/** Options of `Cluster.connect` (and of every client's `clusterOptions`): bootstrap brokers, retries, and the connection options. */
export interface ClusterOptions extends Omit<ConnectionOptions, 'host' | 'port' | 'negotiateVersions'> {
  /** 'host:port[,host:port...]' or a list of addresses. */
  bootstrap: string | readonly BrokerAddress[];
  /** Retries after a stale-metadata error or an unreachable broker (default 5). */
  retries?: number;
  /** First backoff; doubles per retry up to RETRY_BACKOFF_MS_MAX (default 100). */
  retryBackoffMs?: number;
  /** Metadata v4+ allowAutoTopicCreation (default false); a call's MetadataLookupOptions override it. */
  allowAutoTopicCreation?: boolean;
}

/** Options of one Metadata lookup (`Cluster.refreshMetadata`, `Cluster.topic`). */
export interface MetadataLookupOptions {
  /** Ask the broker to create missing topics (Metadata v4+); default: the cluster's `allowAutoTopicCreation`. */
  allowAutoTopicCreation?: boolean;
}

/** A broker of the cluster, as Metadata or DescribeCluster lists it. */
export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

/** A partition's leader, epoch and replicas, from Metadata. */
export interface PartitionMetadata {
  readonly partition: number;
  /** Kafka error code for this partition (0, or e.g. LEADER_NOT_AVAILABLE). */
  readonly errorCode: number;
  /** -1 when there is no leader. */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

/** A topic's id, internal flag and partitions, from Metadata (`errorCode` non-zero for a topic that failed). */
export interface TopicMetadata {
  readonly name: string;
  /** Kafka error code for this topic (0, or e.g. UNKNOWN_TOPIC_OR_PARTITION). */
  readonly errorCode: number;
  /** Base64url topic id (Metadata v10+), or null when the broker did not send one. */
  readonly topicId: string | null;
  readonly isInternal: boolean;
  /** Sorted by partition index. */
  readonly partitions: readonly PartitionMetadata[];
}

/** The cluster client's metadata cache: cluster id, controller, brokers and the topics loaded so far. */
export interface ClusterMetadata {
  readonly clusterId: string | null;
  readonly controllerId: number;
  readonly brokers: ReadonlyMap<number, BrokerNode>;
  readonly topics: ReadonlyMap<string, TopicMetadata>;
}

/** Errors after which the cached metadata is stale: refresh and retry. */
export const REFRESH_METADATA_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.BROKER_NOT_AVAILABLE,
  // The replica's log dir failed; leadership moves elsewhere (Java's KafkaStorageException is an InvalidMetadataException).
  ErrorCode.KAFKA_STORAGE_ERROR,
]);

/** Parses 'host:port[,host:port]' ('[::1]:9092' for IPv6; the port defaults to 9092). */
export function parseBootstrap(text: string): BrokerAddress[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (parts.length === 0) throw invalidArgument(`no broker address in '${text}' (expected host:port)`);
  return parts.map((part) => {
    const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(part);
    const host = m?.[1] ?? m?.[2];
    const port = m?.[3] === undefined ? 9092 : Number(m[3]);
    if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw invalidArgument(`bad broker address '${part}' (expected host:port, e.g. 127.0.0.1:9092)`);
    }
    return { host, port };
  });
}

/** The cluster client under Producer, Consumer and Admin: bootstrap, metadata cache, one connection per broker, leader routing and retries. */
export class Cluster {
  private readonly options: ClusterOptions;
  private readonly bootstrapAddresses: readonly BrokerAddress[];
  private bootstrapConnection: Connection | null = null;
  private readonly connections = new Map<number, Promise<Connection>>();
  /** The connections of `connections` that are open (set when one opens; a closed one is skipped where read). */
  private readonly established = new Map<number, Connection>();
  /** host:port -> epoch ms until which that broker is avoided by anyConnection (a request to it timed out). */
  private readonly unresponsiveUntil = new Map<string, number>();
  private current: ClusterMetadata = { clusterId: null, controllerId: -1, brokers: new Map(), topics: new Map() };
  private closed = false;
  readonly retries: number;
  readonly retryBackoffMs: number;

  private constructor(options: ClusterOptions) {
    this.options = options;
    this.bootstrapAddresses = typeof options.bootstrap === 'string' ? parseBootstrap(options.bootstrap) : options.bootstrap;
    if (this.bootstrapAddresses.length === 0) throw invalidArgument('no bootstrap brokers given');
    this.retries = options.retries ?? RETRIES_DEFAULT;
    this.retryBackoffMs = options.retryBackoffMs ?? RETRY_BACKOFF_MS_DEFAULT;
  }

  /** Connects to the first reachable bootstrap broker and loads cluster metadata (no topics). */
  static async connect(options: ClusterOptions): Promise<Cluster> {
    const cluster = new Cluster(options);
    try {
      await cluster.refreshMetadata([]);
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  /** The last metadata loaded. */
  get metadata(): ClusterMetadata {
    return this.current;
  }

  // ------------------------------------------------------------ connections

  /**
   * A connection to any broker, for requests any broker answers (Metadata,
   * FindCoordinator): the least loaded open one, as the Java client's
   * leastLoadedNode, else a new one. A connection still being opened is
   * never waited for here: a broker that accepts TCP but does not answer
   * (SIGSTOP, a hung process) would hold up the metadata refresh that lets
   * a client leave it, while the other brokers could answer at once.
   */
  async anyConnection(): Promise<Connection> {
    this.assertOpen();
    const now = Date.now();
    const open = this.openConnections();
    const answering = open.filter((c) => !this.unresponsive(c.address, now));
    if (answering.length > 0) return leastLoaded(answering);
    // Every open connection (if any) goes to a broker that stopped answering: try the others first.
    const errors: string[] = [];
    const seen = new Set<string>();
    const addresses = [...this.bootstrapAddresses, ...[...this.current.brokers.values()].map((b) => ({ host: b.host, port: b.port }))].filter((a) => {
      const key = `${a.host}:${a.port}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const ordered = [...addresses.filter((a) => !this.unresponsive(`${a.host}:${a.port}`, now)), ...addresses.filter((a) => this.unresponsive(`${a.host}:${a.port}`, now))];
    for (const address of ordered) {
      const already = open.find((c) => c.host === address.host && c.port === address.port);
      if (already !== undefined) return already;
      try {
        const conn = await Connection.connect({ ...this.connectionOptions(), host: address.host, port: address.port });
        const previous = this.bootstrapConnection;
        this.bootstrapConnection = conn;
        if (previous !== null) void previous.close();
        return conn;
      } catch (err) {
        if (err instanceof RequestTimeoutError) this.markUnresponsive(`${address.host}:${address.port}`);
        errors.push((err as Error).message);
      }
    }
    throw new TributaryClientError(
      ClientErrorCode.NO_BROKERS,
      `could not reach any broker (${errors.join('; ')}); check --bootstrap and that the broker is running`,
    );
  }

  /** The open connections (node ones and the bootstrap one); closed ones are dropped, and a timed-out one marks its broker unresponsive. */
  private openConnections(): Connection[] {
    const open: Connection[] = [];
    for (const [nodeId, conn] of this.established) {
      if (!conn.isClosed) {
        open.push(conn);
        continue;
      }
      if (conn.closedByTimeout) this.markUnresponsive(conn.address);
      this.established.delete(nodeId);
    }
    const boot = this.bootstrapConnection;
    if (boot !== null && !boot.isClosed) open.push(boot);
    else if (boot !== null && boot.closedByTimeout) this.markUnresponsive(boot.address);
    return open;
  }

  /**
   * A broker that let a request time out is avoided for requests any broker
   * answers, for one request timeout (then it is tried again like the others).
   */
  private markUnresponsive(address: string): void {
    this.unresponsiveUntil.set(address, Date.now() + (this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT));
  }

  private unresponsive(address: string, now: number): boolean {
    const until = this.unresponsiveUntil.get(address);
    if (until === undefined) return false;
    if (until > now) return true;
    this.unresponsiveUntil.delete(address);
    return false;
  }

  /** The connection to broker `nodeId` (opened on first use, reopened when closed). */
  async connectionTo(nodeId: number): Promise<Connection> {
    this.assertOpen();
    const existing = this.connections.get(nodeId);
    if (existing !== undefined) {
      const conn = await existing.catch(() => null);
      if (conn !== null && !conn.isClosed) return conn;
      if (this.connections.get(nodeId) === existing) {
        this.connections.delete(nodeId);
        this.established.delete(nodeId);
        if (conn?.closedByTimeout === true) this.markUnresponsive(conn.address);
      }
    }
    const broker = this.current.brokers.get(nodeId);
    if (broker === undefined) {
      throw new KafkaProtocolError(ErrorCode.BROKER_NOT_AVAILABLE, { serverMessage: `broker ${nodeId} is not in the cluster metadata` });
    }
    const pending = Connection.connect({ ...this.connectionOptions(), host: broker.host, port: broker.port });
    this.connections.set(nodeId, pending);
    pending.then(
      (conn) => {
        if (this.connections.get(nodeId) === pending) this.established.set(nodeId, conn);
      },
      (err: unknown) => {
        if (this.connections.get(nodeId) === pending) this.connections.delete(nodeId);
        if (err instanceof RequestTimeoutError) this.markUnresponsive(`${broker.host}:${broker.port}`);
      },
    );
    return pending;
  }

  /** The controller if the metadata names one we can reach, else any broker (KRaft brokers forward admin requests). */
  async controllerConnection(): Promise<Connection> {
    const id = this.current.controllerId;
    if (id >= 0 && this.current.brokers.has(id)) {
      try {
        return await this.connectionTo(id);
      } catch {
        // Fall back to any broker.
      }
    }
    return this.anyConnection();
  }

  // --------------------------------------------------------------- metadata

  /**
   * Loads Metadata for `topics` (null: all topics; []: brokers only) and
   * merges it into the cache. Topics come back with their own error codes.
   */
  async refreshMetadata(topics: readonly string[] | null = null, options: MetadataLookupOptions = {}): Promise<ClusterMetadata> {
    const conn = await this.anyConnection();
    const { response } = await request(conn, Apis.Metadata, () => ({
      topics: topics === null ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation: options.allowAutoTopicCreation ?? this.options.allowAutoTopicCreation ?? false,
    }));
    const brokers = new Map<number, BrokerNode>(
      response.brokers.map((b) => [b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack }]),
    );
    const fresh = new Map<string, TopicMetadata>();
    // A null name (v12+) only answers a topic asked for by id, which this client never does.
    for (const t of response.topics) if (t.name !== null) fresh.set(t.name, keepNewerEpochs(toTopicMetadata({ ...t, name: t.name }), this.current.topics.get(t.name)));
    // A full listing replaces the cache; a partial one updates its topics.
    const merged = topics === null ? fresh : new Map([...this.current.topics, ...fresh]);
    if (topics !== null) for (const name of topics) if (!fresh.has(name)) merged.delete(name);
    this.current = { clusterId: response.clusterId, controllerId: response.controllerId, brokers, topics: merged };
    this.dropConnectionsToGoneBrokers(brokers);
    return this.current;
  }

  /** Cached metadata of a topic, loading it when absent or when `refresh` is set. Throws on a topic error. */
  async topic(name: string, refresh = false, options: MetadataLookupOptions = {}): Promise<TopicMetadata> {
    let t = refresh ? undefined : this.current.topics.get(name);
    if (t === undefined || t.errorCode !== 0) {
      await this.refreshMetadata([name], options);
      t = this.current.topics.get(name);
    }
    if (t === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: name });
    if (t.errorCode !== 0) throw new KafkaProtocolError(t.errorCode, { topic: name });
    return t;
  }

  /** Partition metadata; throws UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE as Kafka would. */
  async partition(topic: string, partition: number, refresh = false): Promise<PartitionMetadata> {
    const t = await this.topic(topic, refresh);
    const p = t.partitions.find((x) => x.partition === partition);
    if (p === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic, partition });
    if (p.errorCode !== 0 && p.errorCode !== ErrorCode.REPLICA_NOT_AVAILABLE) throw new KafkaProtocolError(p.errorCode, { topic, partition });
    if (p.leaderId < 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, { topic, partition });
    return p;
  }

  /** The node id leading a partition (from the cache when possible). */
  async leaderOf(topic: string, partition: number, refresh = false): Promise<number> {
    return (await this.partition(topic, partition, refresh)).leaderId;
  }

  // ------------------------------------------------------------------ retry

  /**
   * Runs `operation` against the leader of topic-partition. On a stale
   * metadata error or an unreachable leader, refreshes metadata and retries
   * with backoff. `retryOnClose` also retries when the connection closed after
   * the request was sent: right for reads, not for non-idempotent writes.
   */
  async withLeader<T>(
    topic: string,
    partition: number,
    operation: (connection: Connection, leaderId: number) => Promise<T>,
    options: { retryOnClose?: boolean } = {},
  ): Promise<T> {
    return this.withRetry(
      async (attempt) => {
        const leaderId = await this.leaderOf(topic, partition, attempt > 0);
        const conn = await this.connectionTo(leaderId);
        return operation(conn, leaderId);
      },
      options,
    );
  }

  /** Retries `operation(attempt)` after refreshable errors, with backoff. */
  async withRetry<T>(operation: (attempt: number) => Promise<T>, options: { retryOnClose?: boolean } = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await operation(attempt);
      } catch (err) {
        if (attempt >= this.retries || !this.isRetriable(err, options.retryOnClose ?? true)) throw err;
        await this.backoff(attempt);
      }
    }
  }

  /** Waits retryBackoffMs * 2^attempt, at most RETRY_BACKOFF_MS_MAX. */
  backoff(attempt: number): Promise<void> {
    return sleep(Math.min(this.retryBackoffMs * 2 ** attempt, RETRY_BACKOFF_MS_MAX));
  }

  /** Whether an error is worth a metadata refresh and a retry. */
  isRetriable(err: unknown, retryOnClose: boolean): boolean {
    if (err instanceof KafkaProtocolError) return REFRESH_METADATA_ERRORS.has(err.errorCode) || err.errorCode === ErrorCode.NETWORK_EXCEPTION;
    if (err instanceof ConnectionError) return true;
    if (err instanceof ConnectionClosedError) return retryOnClose;
    return false;
  }

  // ------------------------------------------------------------------ close

  /** Closes every connection; later calls fail with ERR_TRIB_CONNECTION_CLOSED. */
  async close(): Promise<void> {
    this.closed = true;
    const all: Promise<void>[] = [];
    for (const pending of this.connections.values()) all.push(pending.then((c) => c.close(), () => undefined));
    this.connections.clear();
    this.established.clear();
    if (this.bootstrapConnection !== null) all.push(this.bootstrapConnection.close());
    this.bootstrapConnection = null;
    await Promise.all(all);
  }

  private assertOpen(): void {
    if (this.closed) throw new ConnectionClosedError('the cluster client is closed');
  }

  private connectionOptions(): Omit<ConnectionOptions, 'host' | 'port'> {
    const { bootstrap: _b, retries: _r, retryBackoffMs: _rb, allowAutoTopicCreation: _a, ...rest } = this.options;
    return rest;
  }

  private dropConnectionsToGoneBrokers(brokers: ReadonlyMap<number, BrokerNode>): void {
    for (const [nodeId, pending] of this.connections) {
      if (brokers.has(nodeId)) continue;
      this.connections.delete(nodeId);
      this.established.delete(nodeId);
      pending.then((c) => c.close(), () => undefined);
    }
  }
}

type MetadataTopic = {
  errorCode: number;
  name: string;
  /** Metadata v10+; ZERO_UUID before (and for a topic that does not exist). */
  topicId: string;
  isInternal: boolean;
  partitions: {
    errorCode: number;
    partitionIndex: number;
    leaderId: number;
    leaderEpoch: number;
    replicaNodes: number[];
    isrNodes: number[];
    offlineReplicas: number[];
  }[];
};

/**
 * KIP-320: a broker that has not yet seen a leader change answers Metadata
 * with the old leader and an older leader epoch; such a partition keeps the
 * cached (newer) entry, so a client never routes back to a deposed leader.
 * A topic whose id changed (deleted and created again) takes the answer as it is.
 */
export function keepNewerEpochs(fresh: TopicMetadata, cached: TopicMetadata | undefined): TopicMetadata {
  if (cached === undefined || fresh.errorCode !== 0 || cached.errorCode !== 0) return fresh;
  if (fresh.topicId !== null && cached.topicId !== null && fresh.topicId !== cached.topicId) return fresh;
  let changed = false;
  const partitions = fresh.partitions.map((p) => {
    const old = cached.partitions[p.partition]?.partition === p.partition ? cached.partitions[p.partition] : undefined;
    if (old === undefined || p.leaderEpoch < 0 || old.leaderEpoch <= p.leaderEpoch) return p;
    changed = true;
    return old;
  });
  return changed ? { ...fresh, partitions } : fresh;
}

function toTopicMetadata(t: MetadataTopic): TopicMetadata {
  const topicId = t.topicId !== ZERO_UUID ? t.topicId : null;
  return {
    name: t.name,
    errorCode: t.errorCode,
    topicId,
    isInternal: t.isInternal,
    partitions: t.partitions
      .map((p) => ({
        partition: p.partitionIndex,
        errorCode: p.errorCode,
        leaderId: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
        offlineReplicas: p.offlineReplicas,
      }))
      .sort((a, b) => a.partition - b.partition),
  };
}

export function errorName(code: number): string {
  return errorInfo(code).name;
}

/** Java's leastLoadedNode: the connection with the fewest requests in flight; among equals a random one, so that one silent broker is not always tried first. */
function leastLoaded(connections: readonly Connection[]): Connection {
  const start = Math.floor(Math.random() * connections.length);
  let best = connections[start] as Connection;
  for (let i = 1; i < connections.length; i++) {
    const c = connections[(start + i) % connections.length] as Connection;
    if (c.inFlightCount < best.inFlightCount) best = c;
  }
  return best;
}
