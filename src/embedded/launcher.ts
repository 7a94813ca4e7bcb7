/**
 * The cluster launcher: runs a planned cluster (cluster-plan.ts) with a node
 * runner (node-runner.ts: CLI child processes; host-runner.ts: embedded
 * hosts), waits until every node serves and sees every broker, and stops,
 * kills, pauses, resumes or restarts single nodes. `tributary cluster up`,
 * `startCluster` and the cluster tests (test/helpers/cluster-process.ts) all
 * start clusters through `launchCluster`.
 *
 *   const cluster = launchCluster({ layout, runner, readyTimeoutMs: 30_000 });
 *   await cluster.start();          // every node at once: a quorum needs a majority up
 *   await cluster.node(2).kill();   // kill -9
 *   await cluster.node(2).start();  // same ports, same data
 *   await cluster.cleanup();        // stop every node, remove a temporary dir
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { rmSync } from 'node:fs';
import { nodeConfig, hostPort, type ClusterLayout, type NodeLayout } from './cluster-plan.js';
import { EmbeddedError, EmbeddedErrorCode } from './errors.js';
import type { NodeExit, NodeRunner, RunningNode } from './node-runner.js';
import { liveBrokerIds } from './probe.js';

const READY_POLL_MS = 100;

export interface LaunchOptions<R extends RunningNode> {
  readonly layout: ClusterLayout;
  readonly runner: NodeRunner<R>;
  /** Config for every node, over the planned keys (quorum timeouts in tests, `--override` of cluster up). */
  readonly overrides?: Readonly<Record<string, string>>;
  /** start() and waitForBrokers() give up after this long. */
  readonly readyTimeoutMs: number;
  /** A node ended without stop()/kill()/restart() asking it to. */
  readonly onUnexpectedExit?: (node: LaunchedNode<R>, exit: NodeExit) => void;
  /** Removed by cleanup() and at process exit: a temporary cluster directory. */
  readonly removeDir?: string | null;
  /** SIGKILL the nodes when this process exits (tests); false for `cluster up --detach`. Default true. */
  readonly killOnExit?: boolean;
  /** Running nodes keep this process alive. Default true; startCluster's tests want false. */
  readonly keepAlive?: boolean;
}

// ---------------------------------------------------------------- process exit hook

const live = new Set<{ abandon(): void }>();
let exitHookInstalled = false;

/** At exit nothing can be awaited: kill what still runs, remove temporary dirs. */
export function onProcessExit(item: { abandon(): void }): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.abandon();
    });
  }
  live.add(item);
  return () => live.delete(item);
}

// ---------------------------------------------------------------- one node

/** One node of a launched cluster; survives its restarts (each start is a new RunningNode). */
export class LaunchedNode<R extends RunningNode = RunningNode> {
  private current: R | null = null;
  private expectingExit = false;
  private boundPort: number;
  /** After a start that reported its listeners: the bound ones, so a restart binds the same ports (a lone node asks for port 0). */
  private boundListeners: string | null = null;
  private paused = false;

  constructor(
    readonly layout: NodeLayout,
    private readonly cluster: ClusterLayout,
    private readonly options: LaunchOptions<R>,
  ) {
    this.boundPort = layout.brokerPort;
  }

  get id(): number {
    return this.layout.id;
  }

  /** The broker listener's port (a lone node's port 0 is replaced by the bound one after its first start). */
  get port(): number {
    return this.boundPort;
  }

  get bootstrap(): string {
    return hostPort(this.cluster.host, this.boundPort);
  }

  get controllerPort(): number | null {
    return this.layout.controllerPort;
  }

  get dataDir(): string {
    return this.layout.dataDir;
  }

  /** The current run (null before the first start); its pid, listeners and runner-specific facts. */
  get run(): R | null {
    return this.current;
  }

  get pid(): number | null {
    return this.current?.pid ?? null;
  }

  isAlive(): boolean {
    return this.current !== null && !this.current.hasExited;
  }

  /** Starts the node (same ports and data as before) and waits until its broker port accepts connections. */
  async start(): Promise<void> {
    if (this.isAlive()) throw new Error(`node ${this.id} is already running (pid ${String(this.pid)})`);
    const planned = nodeConfig(this.cluster, this.layout, this.options.overrides);
    const config = this.boundListeners === null ? planned : { ...planned, listeners: this.boundListeners };
    const run = await this.options.runner.start(this.cluster, this.layout, config);
    this.current = run;
    this.expectingExit = false;
    this.paused = false;
    const plaintext = run.listeners?.find((l) => l.name === 'PLAINTEXT') ?? run.listeners?.[0];
    if (plaintext !== undefined) this.boundPort = plaintext.port;
    if (run.listeners !== null) this.boundListeners = run.listeners.map((l) => `${l.name}://${hostPort(l.host, l.port)}`).join(',');
    run.setRef(this.options.keepAlive ?? true);
    void run.exited.then((exit) => {
      if (this.current === run && !this.expectingExit) this.options.onUnexpectedExit?.(this, exit);
    });
  }

  /** Graceful shutdown (SIGTERM / the host's stop), bounded, then killed. */
  async stop(): Promise<NodeExit | null> {
    const run = this.current;
    if (run === null || run.hasExited) return null;
    this.expectingExit = true;
    if (this.paused) this.resume();
    return run.stop();
  }

  /** kill -9 (a worker thread: terminate): no graceful shutdown; the next start recovers the logs. */
  async kill(): Promise<NodeExit | null> {
    const run = this.current;
    if (run === null || run.hasExited) return null;
    this.expectingExit = true;
    return run.kill();
  }

  /** SIGSTOP: the process freezes (sockets stay open, nothing answers). Child processes only. */
  pause(): void {
    process.kill(this.requirePid('pause'), 'SIGSTOP');
    this.paused = true;
  }

  /** SIGCONT after pause(). */
  resume(): void {
    process.kill(this.requirePid('resume'), 'SIGCONT');
    this.paused = false;
  }

  /** Stops (gracefully, or kill -9 with `hard`) and starts again on the same ports and data. */
  async restart(options: { hard?: boolean } = {}): Promise<void> {
    if (options.hard === true) await this.kill();
    else await this.stop();
    await this.start();
  }

  /** Process exit: no waiting possible. */
  killNow(): void {
    this.expectingExit = true;
    if (this.paused && this.pid !== null) process.kill(this.pid, 'SIGCONT');
    this.current?.killNow();
  }

  private requirePid(what: string): number {
    const pid = this.current?.pid ?? null;
    if (pid === null || !this.isAlive()) {
      const why = this.current !== null && this.current.pid === null ? 'it runs in a worker thread (use isolation: process)' : 'it is not running';
      throw new EmbeddedError(EmbeddedErrorCode.UNSUPPORTED, `cannot ${what} node ${this.id}: ${why}`);
    }
    return pid;
  }
}

// ---------------------------------------------------------------- the cluster

export class LaunchedCluster<R extends RunningNode = RunningNode> {
  readonly nodes: readonly LaunchedNode<R>[];
  private readonly forget: (() => void) | null;
  private cleaning: Promise<void> | undefined;

  constructor(private readonly options: LaunchOptions<R>) {
    this.nodes = options.layout.nodes.map((n) => new LaunchedNode(n, options.layout, options));
    this.forget = options.killOnExit === false ? null : onProcessExit(this);
  }

  get layout(): ClusterLayout {
    return this.options.layout;
  }

  get clusterId(): string {
    return this.options.layout.clusterId;
  }

  /** Every broker listener, comma-separated. */
  get bootstrap(): string {
    return this.nodes.map((n) => n.bootstrap).join(',');
  }

  get ids(): number[] {
    return this.nodes.map((n) => n.id);
  }

  /** Node by id (1-based, as node.id). */
  node(id: number): LaunchedNode<R> {
    const n = this.nodes[id - 1];
    if (n === undefined) throw new RangeError(`no node ${id} (nodes 1-${this.nodes.length})`);
    return n;
  }

  /**
   * Starts `ids` (default all) at once and waits until each lists all of them
   * as live brokers. On failure the nodes it started are killed before it rejects.
   */
  async start(ids: readonly number[] = this.ids): Promise<void> {
    const started = await Promise.allSettled(ids.map((id) => this.node(id).start()));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    try {
      if (failed !== undefined) throw failed.reason;
      if (!this.options.layout.lone) await this.waitForBrokers(ids, ids);
    } catch (err) {
      await Promise.all(ids.map((id) => this.node(id).kill()));
      throw err;
    }
  }

  /** Waits until every node in `askIds` lists exactly `brokerIds` as live (registered, unfenced) brokers. */
  async waitForBrokers(askIds: readonly number[], brokerIds: readonly number[], timeoutMs = this.options.readyTimeoutMs): Promise<void> {
    const want = [...brokerIds].sort((a, b) => a - b).join(',');
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      let ok = true;
      for (const id of askIds) {
        const node = this.node(id);
        if (node.run?.hasExited === true) throw new Error(`node ${id} exited while waiting for brokers ${want}`);
        const seen = await liveBrokerIds(this.options.layout.host, node.port);
        last = `node ${id}: ${seen === null ? 'no answer' : `brokers ${seen.join(',')}`}`;
        if (seen?.join(',') !== want) {
          ok = false;
          break;
        }
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`brokers ${want} not all live on nodes ${askIds.join(',')} within ${timeoutMs} ms; last: ${last}`);
      await sleep(READY_POLL_MS);
    }
  }

  /** Stops every node at once (paused ones are resumed first). Rejects with the first stop failure after all ended. */
  async stop(): Promise<void> {
    const results = await Promise.allSettled(this.nodes.map((n) => n.stop()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** stop(), then removes a temporary directory. Idempotent. */
  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      try {
        await this.stop();
      } finally {
        if (this.options.removeDir != null) rmSync(this.options.removeDir, { recursive: true, force: true });
        this.forget?.();
      }
    })();
    return this.cleaning;
  }

  /** Process exit: kill every node, remove a temporary directory. */
  abandon(): void {
    for (const n of this.nodes) n.killNow();
    if (this.options.removeDir != null) rmSync(this.options.removeDir, { recursive: true, force: true });
  }
}

export function launchCluster<R extends RunningNode>(options: LaunchOptions<R>): LaunchedCluster<R> {
  return new LaunchedCluster(options);
}
