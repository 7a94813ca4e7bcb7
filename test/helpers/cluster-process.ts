/**
 * A multi-node Tributary cluster as child processes on loopback, for cluster
 * integration and chaos tests, started by the shared cluster launcher
 * (src/embedded/launcher.ts) with the CLI runner: each node is
 * `node dist/src/cli/main.js start --config <tmp>/node-<i>.properties`.
 *
 *   const cluster = await startCluster({ nodes: 3 });   // free ports, one temp dir
 *   t.after(() => cluster.cleanup());
 *   const leader = await cluster.activeController();     // DescribeQuorum
 *   await cluster.node(leader).kill9();                   // per node: start, stop, kill9, tail
 *   cluster.pause(2); cluster.resume(2);                  // SIGSTOP / SIGCONT
 *
 * Nodes 1..nodes are combined (broker + controller); `brokers` broker-only
 * nodes follow them. Short quorum and session timeouts by default so failover
 * and fencing fit in a test; override with `overrides`. Each node's output is
 * kept (bounded) for failure messages (`tails()`); TRIBUTARY_TEST_LOGS=1
 * prints it at cleanup.
 *
 * `network: true` puts a proxy in front of every node listener and makes
 * the nodes advertise the proxies (node-network.ts), so that
 * `cluster.network.partition(2)` cuts node 2 off from the other nodes and
 * from clients. `cluster.bootstrap` then names the proxies; `node(id).port`
 * stays the node's own port (for probes that must not be cut).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerMain, errorLogOf, freePort, repoRoot } from './broker-process.js';
import { metadataV1Request, parseMetadataV1Response, rawRequest, type MetadataV1 } from './raw-kafka.js';
import { Connection } from '../../src/net/connection.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../src/protocol/messages/55-describe-quorum.js';
import { hostPort, planCluster, portsNeeded, type ClusterLayout } from '../../src/embedded/cluster-plan.js';
import { launchCluster, type LaunchedCluster, type LaunchedNode } from '../../src/embedded/launcher.js';
import { cliRunner, describeExit, type NodeExit, type NodeRunner } from '../../src/embedded/node-runner.js';
import { ClusterNetwork } from './node-network.js';


export const CLUSTER_READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_CHARS_MAX = 256 * 1024;

/** Timeouts small enough for tests (defaults: election 1 s, fetch 2 s, session 9 s, heartbeat 2 s). */
export const FAST_CLUSTER_CONFIG: Readonly<Record<string, string>> = {
  'controller.quorum.election.timeout.ms': '300',
  'controller.quorum.fetch.timeout.ms': '600',
  'broker.session.timeout.ms': '2000',
  'broker.heartbeat.interval.ms': '200',
  'log.level': 'info',
};

export interface ClusterOptions {
  /** Combined (broker + controller) nodes; default 3. */
  nodes?: number;
  /** Broker-only nodes after them; default 0. */
  brokers?: number;
  overrides?: Record<string, string>;
  /** Config of one node on top of `overrides` (e.g. its broker.rack). */
  nodeOverrides?: (nodeId: number) => Record<string, string>;
  name?: string;
  /** Error logs the test provokes on purpose (BrokerOptions.allowErrorLogs), for every node. */
  allowErrorLogs?: readonly RegExp[];
  /** Proxies in front of every node listener, advertised instead of them, for network partitions (`cluster.network`). */
  network?: boolean;
  /** How long a node may take to start, and the cluster to be ready (default CLUSTER_READY_TIMEOUT_MS); chaos suites on a busy machine want more. */
  readyTimeoutMs?: number;
}

/** The partitionable network of a cluster: proxies per node, advertised as the voters and the broker listeners. */
async function proxiedNetwork(layout: ClusterLayout, runner: NodeRunner): Promise<{ network: ClusterNetwork; runner: NodeRunner; voters: string }> {
  const network = await ClusterNetwork.create(layout.nodes.map((n) => ({ id: n.id, controller: n.controllerPort !== null })));
  for (const n of layout.nodes) network.target(n.id, n.brokerPort, n.controllerPort);
  const voters = layout.nodes.flatMap((n) => (n.controllerPort === null ? [] : [`${n.id}@${hostPort(layout.host, network.controllerPort(n.id))}`])).join(',');
  const proxied: NodeRunner = {
    start: (cluster, node, config) => runner.start(cluster, node, { ...config, 'advertised.listeners': `PLAINTEXT://${hostPort(layout.host, network.brokerPort(node.id))}` }),
  };
  return { network, runner: proxied, voters };
}

/** One node, with the calls the cluster tests make (the shape of BrokerProcess). */
export class ClusterNode {
  constructor(
    readonly name: string,
    private readonly node: LaunchedNode,
    private readonly output: () => string,
  ) {}

  get port(): number {
    return this.node.port;
  }
  get bootstrap(): string {
    return this.node.bootstrap;
  }
  get dataDir(): string {
    return this.node.dataDir;
  }
  get controllerPort(): number | null {
    return this.node.controllerPort;
  }
  get pid(): number | undefined {
    return this.node.isAlive() ? (this.node.pid ?? undefined) : undefined;
  }
  isAlive(): boolean {
    return this.node.isAlive();
  }
  /** Starts the node and waits until its broker port accepts connections. */
  start(): Promise<void> {
    return this.node.start();
  }
  /** SIGTERM, wait (bounded) for exit, then SIGKILL. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }> {
    const exit: NodeExit | null = await this.node.stop();
    if (exit === null) return { code: null, signal: null, killed: false };
    return { code: exit.code, signal: exit.signal, killed: exit.signal === 'SIGKILL' };
  }
  /** kill -9: no graceful shutdown. */
  async kill9(): Promise<void> {
    await this.node.kill();
  }
  pause(): void {
    this.node.pause();
  }
  resume(): void {
    this.node.resume();
  }
  /** The last `lines` lines of the node's output (all its starts). */
  tail(lines = 80): string {
    return this.output().split('\n').slice(-lines).join('\n');
  }
  /** The kept output lines that contain any of `texts` (a group id, a topic), the last `max` of them. */
  linesWith(texts: readonly string[], max = 40): string[] {
    return this.output().split('\n').filter((l) => texts.some((t) => l.includes(t))).slice(-max);
  }
}

export class ClusterProcess {
  readonly nodes: readonly ClusterNode[];

  private constructor(
    private readonly launched: LaunchedCluster,
    name: string,
    outputs: ReadonlyMap<number, string>,
    private readonly health: ClusterHealth,
    /** The partitionable network (`network: true`), else null. */
    readonly network: ClusterNetwork | null = null,
  ) {
    this.nodes = launched.nodes.map((n) => new ClusterNode(`${name}-node${n.id}`, n, () => outputs.get(n.id) ?? ''));
  }

  /** Plans the cluster (free ports, a temp dir); nothing runs until start(). */
  static async create(options: ClusterOptions = {}): Promise<ClusterProcess> {
    if (!existsSync(brokerMain)) throw new Error(`${brokerMain} missing: build first (npm run build)`);
    const controllers = options.nodes ?? 3;
    const brokerOnly = options.brokers ?? 0;
    const ports: number[] = [];
    for (let i = 0; i < portsNeeded(controllers, brokerOnly); i++) ports.push(await freePort());
    const dir = mkdtempSync(join(tmpdir(), `tributary-${options.name ?? 'cluster'}-`));
    const layout = planCluster({ controllers, brokerOnly, dir, ports });
    let cluster: ClusterProcess | undefined;
    const outputs = new Map<number, string>();
    const health = new ClusterHealth(options.allowErrorLogs ?? []);
    const sink = (id: number, text: string): void => {
      const all = (outputs.get(id) ?? '') + text;
      outputs.set(id, all.length > OUTPUT_CHARS_MAX ? all.slice(-OUTPUT_CHARS_MAX) : all);
      health.scan(id, text);
    };
    const readyTimeoutMs = options.readyTimeoutMs ?? CLUSTER_READY_TIMEOUT_MS;
    let runner: NodeRunner = cliRunner({ main: brokerMain, cwd: repoRoot, output: sink, startTimeoutMs: readyTimeoutMs, stopTimeoutMs: STOP_TIMEOUT_MS });
    let network: ClusterNetwork | null = null;
    const planned: Record<string, string> = {};
    if (options.network === true) {
      const proxied = await proxiedNetwork(layout, runner);
      network = proxied.network;
      runner = proxied.runner;
      planned['controller.quorum.voters'] = proxied.voters;
    }
    const perNode = options.nodeOverrides;
    if (perNode !== undefined) {
      const inner = runner;
      runner = { start: (cluster, node, config) => inner.start(cluster, node, { ...config, ...perNode(node.id) }) };
    }
    const launched = launchCluster({
      layout,
      runner,
      overrides: { ...FAST_CLUSTER_CONFIG, ...planned, ...options.overrides },
      readyTimeoutMs,
      removeDir: dir,
      onUnexpectedExit: (node, exit) => {
        health.crashes.push(`node ${node.id} (${describeExit(exit)})`);
        process.stderr.write(`[node ${node.id}] exited unexpectedly (${describeExit(exit)}); last output:\n${cluster?.node(node.id).tail() ?? ''}\n`);
      },
    });
    cluster = new ClusterProcess(launched, options.name ?? 'cluster', outputs, health, network);
    if (network !== null) {
      network.nodePids = () => new Map(launched.nodes.flatMap((n) => (n.isAlive() && n.pid !== null ? [[n.pid, n.id] as [number, number]] : [])));
    }
    return cluster;
  }

  get clusterId(): string {
    return this.launched.clusterId;
  }

  /** The combined nodes' controller listener ports, by node id (index 0 = node 1). */
  get controllerPorts(): readonly number[] {
    return this.launched.nodes.flatMap((n) => (n.controllerPort === null ? [] : [n.controllerPort]));
  }

  /** Every broker listener as clients should use them: through the proxies with `network: true`. */
  get bootstrap(): string {
    const network = this.network;
    if (network === null) return this.launched.bootstrap;
    return this.launched.ids.map((id) => `127.0.0.1:${network.brokerPort(id)}`).join(',');
  }

  /** Node by id (1-based, as node.id). */
  node(id: number): ClusterNode {
    const n = this.nodes[id - 1];
    if (n === undefined) throw new Error(`no node ${id}`);
    return n;
  }

  controllerPort(id: number): number {
    const p = this.node(id).controllerPort;
    if (p === null) throw new Error(`node ${id} is broker-only: no controller listener`);
    return p;
  }

  /** Starts `ids` (default every node) at once (a quorum needs a majority up) and waits until they all serve Metadata listing each other. */
  async start(ids: readonly number[] = this.launched.ids): Promise<void> {
    await this.launched.start(ids);
  }

  /** Metadata v1 from one node's broker listener (null = all topics, never auto-creates). */
  async metadata(id: number, timeoutMs = 5_000): Promise<MetadataV1> {
    return parseMetadataV1Response(await rawRequest(this.node(id).port, metadataV1Request(1, null), timeoutMs));
  }

  /** Waits until every node in `askIds` lists exactly `brokerIds` as live brokers. */
  waitForBrokers(askIds: readonly number[], brokerIds: readonly number[], timeoutMs = CLUSTER_READY_TIMEOUT_MS): Promise<void> {
    return this.launched.waitForBrokers(askIds, brokerIds, timeoutMs);
  }

  /** The Raft leader as the first answering controller says (DescribeQuorum, forwarded to the leader); -1 when none. */
  async activeController(ids: readonly number[] = this.controllerPorts.map((_, i) => i + 1)): Promise<number> {
    for (const id of ids) {
      if (!this.node(id).isAlive()) continue;
      try {
        const conn = await Connection.connect({ host: '127.0.0.1', port: this.controllerPort(id), connectTimeoutMs: 1000, requestTimeoutMs: 2000 });
        try {
          const res = await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
          const p = res.topics[0]?.partitions[0];
          if (p !== undefined && p.leaderId >= 0) return p.leaderId;
        } finally {
          conn.destroy();
        }
      } catch {
        // try the next one
      }
    }
    return -1;
  }

  /** Waits (bounded) for a leader among `ids` other than `not`. */
  async waitForActiveController(ids: readonly number[], not = -1, timeoutMs = CLUSTER_READY_TIMEOUT_MS): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const id = await this.activeController(ids);
      if (id >= 0 && id !== not && ids.includes(id)) return id;
      if (Date.now() > deadline) throw new Error(`no active controller among ${ids.join(',')} (other than ${not}) within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** SIGSTOP: the process freezes (sockets stay open, nothing answers). */
  pause(id: number): void {
    this.node(id).pause();
  }

  resume(id: number): void {
    this.node(id).resume();
  }

  /**
   * Resumes paused nodes, stops every node, removes the temp dir. Then throws
   * if a node logged an error the test did not allow (allowErrorLogs) or
   * exited without being asked to, as BrokerProcess.cleanup() does.
   */
  async cleanup(): Promise<void> {
    try {
      await this.launched.cleanup();
    } finally {
      await this.network?.close();
      if (process.env['TRIBUTARY_TEST_LOGS'] === '1') process.stderr.write(`${this.tails(400)}\n`);
    }
    const problems = this.health.problems();
    if (problems.length > 0) throw new Error(`cluster: ${problems.join('; ')}\n${this.tails(60)}`);
  }

  /** Every node's last output lines, for failure messages. */
  tails(lines = 30): string {
    return this.nodes.map((n) => `--- ${n.name} (${n.isAlive() ? `pid ${n.pid}` : 'not running'})\n${n.tail(lines)}`).join('\n');
  }
}

/** Creates and starts a cluster; on failure stops what started. */
/** Times a cluster start is tried again when a planned port was taken meanwhile. */
const PORT_RACE_ATTEMPTS = 3;

export async function startCluster(options: ClusterOptions = {}): Promise<ClusterProcess> {
  for (let attempt = 1; ; attempt++) {
    const cluster = await ClusterProcess.create(options);
    try {
      await cluster.start();
      return cluster;
    } catch (err) {
      const tails = cluster.tails();
      await cluster.cleanup().catch(() => undefined);
      // The layout picks free ports before the nodes bind them; a process of
      // another test can take one in between. Plan new ports and start again.
      if (/EADDRINUSE/.test(`${(err as Error).message}\n${tails}`) && attempt < PORT_RACE_ATTEMPTS) continue;
      if (err instanceof Error) err.message += `\n${tails}`;
      throw err;
    }
  }
}

/** Error logs and unexpected exits seen on a cluster's nodes (reported once, at cleanup). */
class ClusterHealth {
  readonly crashes: string[] = [];
  private readonly errorLogs: string[] = [];
  private readonly partialLines = new Map<number, string>();

  constructor(private readonly allowErrorLogs: readonly RegExp[]) {}

  scan(id: number, text: string): void {
    const lines = ((this.partialLines.get(id) ?? '') + text).split('\n');
    this.partialLines.set(id, lines.pop() ?? '');
    for (const line of lines) {
      const entry = errorLogOf(line);
      if (entry === null || this.allowErrorLogs.some((re) => re.test(entry.detail))) continue;
      this.errorLogs.push(`node ${id}: ${entry.detail}`);
    }
  }

  /** What makes cleanup() fail; emptied once reported. */
  problems(): string[] {
    const out: string[] = [];
    if (this.errorLogs.length > 0) out.push(`logged ${this.errorLogs.length} error(s): ${this.errorLogs.slice(0, 5).join(' | ')}`);
    if (this.crashes.length > 0) out.push(`exited unexpectedly: ${this.crashes.join(', ')}`);
    this.errorLogs.length = 0;
    this.crashes.length = 0;
    return out;
  }
}
