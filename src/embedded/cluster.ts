/**
 * `startCluster`: real brokers for tests, on ephemeral loopback ports with a
 * temporary data directory, running outside the caller's event loop (worker
 * threads by default, or child processes) so the caller's timers and client
 * timeouts see real time. One broker by default; `brokers: 3` starts a
 * multi-node cluster (combined broker + controller nodes, or `controllers`
 * of them voters and the rest broker-only). Started by the shared cluster
 * launcher (launcher.ts). See src/embedded/README.md and docs/testing.md.
 *
 *   const cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': '0' } });
 *   // any Kafka client: new Kafka({ brokers: cluster.bootstrap.split(',') })
 *   await cluster.stop();
 *
 * Lifetime: a host is ref'd while starting, restarting and stopping, and
 * unref'd while it runs (unless keepAlive), so a test file that forgets
 * stop() still exits when its own work is done. A process 'exit' hook then
 * SIGKILLs children and removes temporary data dirs; a child whose parent
 * vanished cleans up itself (broker-host.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planCluster, portsNeeded, type ClusterLayout } from './cluster-plan.js';
import { resolveOptions, type ResolvedOptions, type StartClusterOptions } from './cluster-options.js';
import { EmbeddedError, EmbeddedErrorCode } from './errors.js';
import { hostRunner, type HostRun, type StartupTimings } from './host-runner.js';
import type { Isolation } from './host-process.js';
import { launchCluster, type LaunchedCluster, type LaunchedNode } from './launcher.js';
import { describeExit } from './node-runner.js';
import { freePort } from './probe.js';

export type { Isolation } from './host-process.js';
export type { StartupTimings } from './host-runner.js';
export type { StartClusterOptions } from './cluster-options.js';
export { LOG_LEVEL_DEFAULT, START_TIMEOUT_MS_DEFAULT, STOP_TIMEOUT_MS_DEFAULT } from './cluster-options.js';

/** One broker of an embedded cluster. */
export interface EmbeddedBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/** Options of `EmbeddedCluster.restart` and `EmbeddedNode.restart`. */
export interface RestartOptions {
  /** Kill the broker without a graceful shutdown (SIGKILL, as `kill -9`). Needs isolation 'process'. */
  hard?: boolean;
}

/** One node of a running embedded cluster: stop, kill, start, pause it alone. */
export interface EmbeddedNode extends EmbeddedBroker {
  /** The node's controller listener port; null for a broker-only node and for a one-broker cluster. */
  readonly controllerPort: number | null;
  /** The node's data directory (its log.dirs). */
  readonly dataDir: string;
  /** Its process id (isolation 'process'); null for a worker thread or a stopped node. */
  readonly pid: number | null;
  readonly running: boolean;
  /** Graceful shutdown (controlled shutdown in a multi-node cluster). The other nodes keep running. */
  stop(): Promise<void>;
  /** SIGKILL, as `kill -9`: no flush, no controlled shutdown. Needs isolation 'process'. */
  kill(): Promise<void>;
  /** Starts a stopped or killed node on the same ports and data; resolves once it serves and lists every running broker. */
  start(): Promise<void>;
  /** stop() (or kill() with `hard`), then start(). */
  restart(options?: RestartOptions): Promise<void>;
  /** SIGSTOP: the process freezes, its sockets stay open. Needs isolation 'process'. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

/** A running embedded cluster: its bootstrap string, brokers, data directory, restart and stop. */
export interface EmbeddedCluster {
  /** `host:port[,host:port...]`: every broker, for any client's bootstrap servers. */
  readonly bootstrap: string;
  readonly brokers: readonly EmbeddedBroker[];
  readonly clusterId: string;
  /** The data directory: the broker's log.dirs; with several brokers, node i keeps its data in `<dataDir>/node-<i>`. */
  readonly dataDir: string;
  readonly isolation: Isolation;
  /** The first broker's process id (isolation 'process'); null for a worker thread. */
  readonly pid: number | null;
  /** Where the first broker's last start-up's time went, in the broker host. */
  readonly startupTimings: StartupTimings;
  /** Node by node.id (1-based). */
  node(nodeId: number): EmbeddedNode;
  /** Graceful shutdown of every broker, then removes a temporary data dir (unless keepData). Idempotent. */
  stop(): Promise<void>;
  /** Stops and starts every broker again on the same ports and data dir (for recovery tests). */
  restart(options?: RestartOptions): Promise<void>;
}

type Launched = LaunchedCluster<HostRun>;
type Node = LaunchedNode<HostRun>;

function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

function brokerOf(node: Node): EmbeddedBroker {
  const l = node.run?.listeners?.find((x) => x.name === 'PLAINTEXT') ?? node.run?.listeners?.[0];
  const host = l === undefined || isWildcard(l.host) ? '127.0.0.1' : l.host;
  return { nodeId: node.run?.nodeId ?? node.id, host, port: node.port };
}

function unsupported(message: string): Promise<never> {
  return Promise.reject(new EmbeddedError(EmbeddedErrorCode.UNSUPPORTED, message));
}

const HARD_NEEDS_PROCESS = "needs isolation: 'process' (a worker thread cannot be killed like a process: its open files would leak)";

class NodeHandle implements EmbeddedNode {
  constructor(
    private readonly node: Node,
    private readonly owner: Cluster,
  ) {}

  get nodeId(): number {
    return brokerOf(this.node).nodeId;
  }
  get host(): string {
    return brokerOf(this.node).host;
  }
  get port(): number {
    return this.node.port;
  }
  get controllerPort(): number | null {
    return this.node.controllerPort;
  }
  get dataDir(): string {
    return this.node.dataDir;
  }
  get pid(): number | null {
    return this.node.isAlive() ? this.node.pid : null;
  }
  get running(): boolean {
    return this.node.isAlive();
  }

  async stop(): Promise<void> {
    await this.owner.guard(() => this.node.stop(), this.node.id);
  }

  kill(): Promise<void> {
    if (this.owner.isolation !== 'process') return unsupported(`kill() ${HARD_NEEDS_PROCESS}`);
    return this.owner.guard(() => this.node.kill(), this.node.id);
  }

  start(): Promise<void> {
    return this.owner.guard(() => this.owner.startNode(this.node), this.node.id);
  }

  restart(options: RestartOptions = {}): Promise<void> {
    if (options.hard === true && this.owner.isolation !== 'process') return unsupported(`restart({ hard: true }) ${HARD_NEEDS_PROCESS}`);
    return this.owner.guard(async () => {
      if (options.hard === true) await this.node.kill();
      else await this.node.stop();
      await this.owner.startNode(this.node);
    }, this.node.id);
  }

  pause(): void {
    this.node.pause();
  }

  resume(): void {
    this.node.resume();
  }
}

class Cluster implements EmbeddedCluster {
  readonly bootstrap: string;
  readonly dataDir: string;
  readonly isolation: Isolation;
  private readonly handles: readonly NodeHandle[];
  private stopping: Promise<void> | undefined;
  /** Operations in progress: by node id, or 'all' for a whole-cluster restart. */
  private readonly busy = new Map<number | 'all', Promise<void>>();

  constructor(
    private readonly options: ResolvedOptions,
    private readonly launched: Launched,
  ) {
    this.dataDir = options.dataDir;
    this.isolation = options.isolation;
    this.bootstrap = launched.bootstrap;
    this.handles = launched.nodes.map((n) => new NodeHandle(n, this));
  }

  get brokers(): readonly EmbeddedBroker[] {
    return this.launched.nodes.map(brokerOf);
  }

  get clusterId(): string {
    return this.firstRun().clusterId;
  }

  get pid(): number | null {
    return this.launched.node(1).pid;
  }

  get startupTimings(): StartupTimings {
    return this.firstRun().timings;
  }

  node(nodeId: number): EmbeddedNode {
    const handle = this.handles[nodeId - 1];
    if (handle === undefined) throw new EmbeddedError(EmbeddedErrorCode.INVALID_OPTIONS, `node(${nodeId}): the cluster has nodes 1-${this.handles.length}`);
    return handle;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.allSettled([...this.busy.values()]);
      await this.launched.cleanup();
    })();
    return this.stopping;
  }

  restart(options: RestartOptions = {}): Promise<void> {
    if (options.hard === true && this.isolation !== 'process') return unsupported(`restart({ hard: true }) ${HARD_NEEDS_PROCESS}`);
    return this.guard(async () => {
      if (options.hard === true) await Promise.all(this.launched.nodes.map((n) => n.kill()));
      else await this.launched.stop();
      await this.launched.start();
    }, 'all');
  }

  /** One operation per node at a time, a whole-cluster restart alone; none after stop(). */
  guard(action: () => Promise<unknown>, key: number | 'all'): Promise<void> {
    if (this.stopping !== undefined) return Promise.reject(new EmbeddedError(EmbeddedErrorCode.STOPPED, 'the cluster is stopped (stop() was called)'));
    if (this.busy.has('all') || this.busy.has(key) || (key === 'all' && this.busy.size > 0)) {
      return unsupported(key === 'all' ? 'restart() while a restart, start or stop is in progress' : `node ${key}: a restart, start or stop is in progress`);
    }
    const run = action()
      .then(() => undefined)
      .finally(() => this.busy.delete(key));
    this.busy.set(key, run);
    return run;
  }

  /** Starts one node and waits until it lists every running broker. */
  async startNode(node: Node): Promise<void> {
    await node.start();
    if (this.launched.nodes.length === 1) return;
    const running = this.launched.nodes.filter((n) => n.isAlive()).map((n) => n.id);
    await this.launched.waitForBrokers([node.id], running);
  }

  private firstRun(): HostRun {
    const run = this.launched.node(1).run;
    if (run === null) throw new EmbeddedError(EmbeddedErrorCode.STOPPED, 'the cluster never started');
    return run;
  }
}

async function layoutFor(options: ResolvedOptions): Promise<ClusterLayout> {
  if (options.brokers === 1) return planCluster({ controllers: 1, dir: options.dataDir, ports: [0], lone: true, nodeDir: () => options.dataDir });
  const ports: number[] = [];
  for (let i = 0; i < portsNeeded(options.controllers, options.brokers - options.controllers); i++) ports.push(await freePort());
  const layout = planCluster({ controllers: options.controllers, brokerOnly: options.brokers - options.controllers, dir: options.dataDir, ports });
  // Kept with the data: a given dataDir started again keeps its cluster id (the brokers' meta.properties check it).
  writeFileSync(join(layout.dir, 'cluster.id'), `${layout.clusterId}\n`);
  return layout;
}

function launch(options: ResolvedOptions, layout: ClusterLayout): Launched {
  const runner = hostRunner({
    isolation: options.isolation,
    startTimeoutMs: options.startTimeoutMs,
    stopTimeoutMs: options.stopTimeoutMs,
    removeOnOrphan: options.removeDataDir ? options.dataDir : null,
  });
  return launchCluster({
    layout,
    runner,
    overrides: options.config,
    readyTimeoutMs: options.startTimeoutMs,
    removeDir: options.removeDataDir ? options.dataDir : null,
    keepAlive: options.keepAlive,
    onUnexpectedExit: (node, exit) => {
      process.stderr.write(`[tributary] embedded broker ${node.bootstrap} exited unexpectedly (${describeExit(exit)}); stop() still cleans up\n`);
    },
  });
}

/**
 * Starts a cluster for tests: resolves once every broker serves (and, with
 * several, each lists all of them). Rejects with the broker's ConfigError for
 * a bad config, or an EmbeddedError (`code` ERR_TRIB_EMBEDDED_*) otherwise;
 * nothing is left running or on disk after a rejection.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<EmbeddedCluster> {
  const resolved = resolveOptions(options);
  const launched = launch(resolved, await layoutFor(resolved));
  try {
    await launched.start();
  } catch (err) {
    await launched.cleanup().catch(() => undefined);
    throw err;
  }
  return new Cluster(resolved, launched);
}
