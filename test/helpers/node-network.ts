/**
 * A partitionable network between the nodes of a test cluster (and its
 * clients), made of one TCP proxy per node listener on 127.0.0.1.
 *
 * Every node advertises its proxies instead of its own ports: the voters
 * (`controller.quorum.voters`: Raft traffic and broker heartbeats) name each
 * node's controller proxy, and `advertised.listeners` names its broker proxy
 * (clients after Metadata, and followers fetching from a leader). So every
 * connection into node N passes N's proxies, and `partition(N)` can cut N off.
 *
 * Where a connection comes from is read from the client id of its first
 * Kafka request header: nodes name themselves (`raft-<id>` for the Raft
 * transport, `tributary-node-<id>` for the broker's controller channel,
 * `broker-<id>-replica-fetcher` for follower fetchers; `sourceNodeOf`). A connection whose client id
 * names no node is looked up in /proc when the network knows the nodes'
 * process ids (`nodePids`, Linux): the process that owns the connecting
 * socket is a node whatever client id it sends, so an inter-node client that
 * forgets to name itself is still cut. Anything else is a client,
 * which sits with the majority. A connection from src into node dst is cut
 * when src ≠ dst and either end is partitioned; a node talking to its own
 * listeners (a combined node heartbeating to the controller on itself) is
 * never cut, as loopback on one machine is not.
 *
 * Two modes:
 * - 'blackhole' (the default, as a pulled cable): connections are accepted
 *   and bytes are silently dropped both ways, so peers see timeouts, not
 *   resets: a partitioned broker is fenced by the session timeout, as a
 *   SIGSTOPped one is. Connections that were blackholed are reset at heal,
 *   as a TCP connection whose retransmissions gave up would be.
 * - 'refuse': cut connections are reset at once and new ones closed as soon
 *   as their first request names them (what a firewall REJECT rule does).
 *
 *   const network = await ClusterNetwork.create([{ id: 1, controller: true }, ...]);
 *   network.target(1, brokerPort, controllerPort);   // where node 1 really listens
 *   network.partition(2);                             // node 2 alone; clients stay with the rest
 *   network.heal();
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type PartitionMode = 'blackhole' | 'refuse';

/** The largest header prefix the proxy waits for before it gives up identifying a connection. */
const IDENTIFY_BYTES_MAX = 64 * 1024;
const CONTROLLED_SHUTDOWN_API_KEY = 7;

/**
 * Inter-node client ids: `raft-<id>` (Raft transport), `tributary-node-<id>` (the broker's controller
 * channel), `broker-<id>-replica-fetcher` (follower fetchers), each optionally followed by `-<anything>`.
 */
const NODE_CLIENT_ID = /^(?:raft|tributary-node|broker)-(\d+)(?![0-9])/;

/** The node a connection comes from, by its client id; null for a client. */
export function sourceNodeOf(clientId: string | null): number | null {
  const m = clientId === null ? null : NODE_CLIENT_ID.exec(clientId);
  return m === null ? null : Number(m[1]);
}

/**
 * The client id of the first request frame in `bytes`: undefined while more
 * bytes are needed, null when the header has none (v0, or a null id).
 */
export function firstClientId(bytes: Buffer): string | null | undefined {
  if (bytes.length < 4 + 2 + 2 + 4 + 2) return undefined;
  const apiKey = bytes.readInt16BE(4);
  const apiVersion = bytes.readInt16BE(6);
  // Request header v0 (no client id) is left only in ControlledShutdown v0.
  if (apiKey === CONTROLLED_SHUTDOWN_API_KEY && apiVersion === 0) return null;
  const length = bytes.readInt16BE(12);
  if (length < 0) return null;
  if (bytes.length < 14 + length) return undefined;
  return bytes.toString('utf8', 14, 14 + length);
}

/** The inode of the TCP socket on 127.0.0.1 from `fromPort` to `toPort`, from /proc/net/tcp{,6}; null when not found. */
function socketInode(fromPort: number, toPort: number): string | null {
  const want = `:${fromPort.toString(16).toUpperCase().padStart(4, '0')}`;
  const to = `:${toPort.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(want) === true && f[2]?.endsWith(to) === true) return f[9] ?? null;
    }
  }
  return null;
}

/** Which of `pids` (pid → node id) holds the socket from `fromPort` to `toPort`; null when none (or no /proc). */
export function nodeOwningSocket(fromPort: number, toPort: number, pids: ReadonlyMap<number, number>): number | null {
  const inode = socketInode(fromPort, toPort);
  if (inode === null) return null;
  const link = `socket:[${inode}]`;
  for (const [pid, node] of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return node;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

export interface NetworkStats {
  connections: number;
  /** Connections reset because a partition cut their link. */
  reset: number;
  /** Connections held without forwarding (blackholed) at some point. */
  blackholed: number;
  /** Connections from a node process whose client id did not name the node (found through /proc). */
  unnamedFromNodes: number;
}

/** One proxied connection. */
class Link {
  /** null until the first request names the source. */
  source: number | null | undefined = undefined;
  upstream: Socket | null = null;
  black = false;
  closed = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    readonly owner: number,
    readonly downstream: Socket,
  ) {}

  /** Bytes received before identification; returns them all once the source is known. */
  buffer(chunk: Buffer): Buffer {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    return Buffer.concat(this.pending, this.pendingBytes);
  }

  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  takePending(): Buffer {
    const all = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return all;
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.downstream.destroy();
    this.upstream?.destroy();
  }
}

/** Forwards `from` → `to` with backpressure; drops bytes while the link is blackholed. */
function forward(link: Link, from: Socket, to: Socket): void {
  from.on('data', (chunk: Buffer) => {
    if (link.closed || link.black) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}

/** One listener that forwards to one port of one node. */
class NodeProxy {
  targetPort = 0;

  private constructor(
    private readonly server: Server,
    readonly node: number,
    readonly port: number,
  ) {}

  static async start(node: number, onConnection: (proxy: NodeProxy, socket: Socket) => void): Promise<NodeProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new NodeProxy(server, node, (server.address() as AddressInfo).port);
    server.on('connection', (socket) => onConnection(proxy, socket));
    return proxy;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface NetworkNode {
  readonly id: number;
  /** Has a controller listener (a combined node). */
  readonly controller: boolean;
}

export class ClusterNetwork {
  readonly stats: NetworkStats = { connections: 0, reset: 0, blackholed: 0, unnamedFromNodes: 0 };
  /** The nodes' process ids now (pid → node id), for connections whose client id names no node. */
  nodePids: () => ReadonlyMap<number, number> = () => new Map();
  /** The client ids of connections from node processes that did not name their node (to fix where they are created). */
  readonly unnamedClientIds = new Set<string>();
  private readonly links = new Set<Link>();
  private readonly isolated = new Map<number, PartitionMode>();

  private constructor(
    private readonly brokerProxies: ReadonlyMap<number, NodeProxy>,
    private readonly controllerProxies: ReadonlyMap<number, NodeProxy>,
  ) {}

  /** One broker proxy per node and one controller proxy per combined node, each on an ephemeral port. */
  static async create(nodes: readonly NetworkNode[]): Promise<ClusterNetwork> {
    const brokers = new Map<number, NodeProxy>();
    const controllers = new Map<number, NodeProxy>();
    let network: ClusterNetwork | undefined;
    const accept = (proxy: NodeProxy, socket: Socket): void => {
      if (network === undefined) socket.destroy();
      else network.accept(proxy, socket);
    };
    for (const n of nodes) {
      brokers.set(n.id, await NodeProxy.start(n.id, accept));
      if (n.controller) controllers.set(n.id, await NodeProxy.start(n.id, accept));
    }
    network = new ClusterNetwork(brokers, controllers);
    return network;
  }

  /** The port node `id`'s broker listener is advertised on. */
  brokerPort(id: number): number {
    return this.proxy(this.brokerProxies, id, 'broker').port;
  }

  /** The port node `id`'s controller listener is advertised on (the voters). */
  controllerPort(id: number): number {
    return this.proxy(this.controllerProxies, id, 'controller').port;
  }

  /** Where node `id` really listens. */
  target(id: number, brokerPort: number, controllerPort: number | null): void {
    this.proxy(this.brokerProxies, id, 'broker').targetPort = brokerPort;
    if (controllerPort !== null) this.proxy(this.controllerProxies, id, 'controller').targetPort = controllerPort;
  }

  /** Cuts node `id` off from the other nodes and from clients (existing connections too). */
  partition(id: number, mode: PartitionMode = 'blackhole'): void {
    this.proxy(this.brokerProxies, id, 'broker');
    this.isolated.set(id, mode);
    for (const link of this.links) this.enforce(link);
  }

  /** Ends the partition of `id` (default: every node). Blackholed connections are reset so their ends reconnect. */
  heal(id?: number): void {
    if (id === undefined) this.isolated.clear();
    else this.isolated.delete(id);
    for (const link of [...this.links]) {
      if (link.black && this.cutMode(link) === null) this.reset(link);
    }
  }

  /** Nodes now partitioned. */
  get partitioned(): number[] {
    return [...this.isolated.keys()].sort((a, b) => a - b);
  }

  /** Whether traffic from `source` (null: a client) to node `dest` is cut now, and how. */
  cutMode(link: { source: number | null | undefined; owner: number }): PartitionMode | null {
    const source = link.source ?? null;
    if (source === link.owner) return null;
    return this.isolated.get(link.owner) ?? (source === null ? null : (this.isolated.get(source) ?? null));
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) link.destroy();
    this.links.clear();
    await Promise.all([...this.brokerProxies.values(), ...this.controllerProxies.values()].map((p) => p.close()));
  }

  private proxy(map: ReadonlyMap<number, NodeProxy>, id: number, what: string): NodeProxy {
    const p = map.get(id);
    if (p === undefined) throw new RangeError(`no ${what} proxy for node ${id}`);
    return p;
  }

  private accept(proxy: NodeProxy, socket: Socket): void {
    this.stats.connections++;
    const link = new Link(proxy.node, socket);
    this.links.add(link);
    socket.setNoDelay(true);
    const end = (): void => this.drop(link);
    socket.on('close', end);
    socket.on('error', end);
    const identify = (chunk: Buffer): void => {
      const bytes = link.buffer(chunk);
      const clientId = firstClientId(bytes);
      if (clientId === undefined && link.bufferedBytes < IDENTIFY_BYTES_MAX) return;
      socket.off('data', identify);
      link.source = sourceNodeOf(clientId ?? null) ?? this.ownerNode(socket, proxy, clientId ?? null);
      this.connectUpstream(proxy, link);
    };
    socket.on('data', identify);
  }

  private ownerNode(socket: Socket, proxy: NodeProxy, clientId: string | null): number | null {
    const pids = this.nodePids();
    if (pids.size === 0 || socket.remotePort === undefined) return null;
    const node = nodeOwningSocket(socket.remotePort, proxy.port, pids);
    if (node !== null) {
      this.stats.unnamedFromNodes++;
      this.unnamedClientIds.add(String(clientId));
    }
    return node;
  }

  /** The source is known: hold, refuse, or open the connection to the node. */
  private connectUpstream(proxy: NodeProxy, link: Link): void {
    const mode = this.cutMode(link);
    if (mode === 'refuse') return this.reset(link);
    if (mode === 'blackhole') {
      // The request that named the source never reaches the node, nor does anything after it.
      link.takePending();
      link.downstream.on('data', () => undefined);
      return this.blackhole(link);
    }
    const upstream = createConnection({ host: '127.0.0.1', port: proxy.targetPort });
    link.upstream = upstream;
    upstream.setNoDelay(true);
    const end = (): void => this.drop(link);
    upstream.on('close', end);
    upstream.on('error', end);
    forward(link, link.downstream, upstream);
    forward(link, upstream, link.downstream);
    upstream.write(link.takePending());
  }

  private enforce(link: Link): void {
    if (link.source === undefined || link.closed) return; // decided once identified
    const mode = this.cutMode(link);
    if (mode === 'refuse') this.reset(link);
    else if (mode === 'blackhole' && !link.black) this.blackhole(link);
  }

  private blackhole(link: Link): void {
    link.black = true;
    this.stats.blackholed++;
  }

  private reset(link: Link): void {
    if (link.closed) return;
    this.stats.reset++;
    link.downstream.resetAndDestroy();
    link.upstream?.resetAndDestroy();
    link.destroy();
    this.links.delete(link);
  }

  private drop(link: Link): void {
    link.destroy();
    this.links.delete(link);
  }
}
