/**
 * `startCluster`: a real broker for tests, on an ephemeral loopback port with
 * a temporary data directory, running outside the caller's event loop (a
 * worker thread by default, or a child process) so the caller's timers and
 * client timeouts see real time. See src/embedded/README.md and
 * docs/testing.md.
 *
 *   const cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': '0' } });
 *   // any Kafka client: new Kafka({ brokers: [cluster.bootstrap] })
 *   await cluster.stop();
 *
 * Lifetime: the host is ref'd while starting, restarting and stopping, and
 * unref'd while it runs (unless keepAlive), so a test file that forgets
 * stop() still exits when its own work is done. A process 'exit' hook then
 * SIGKILLs a child and removes temporary data dirs; a child whose parent
 * vanished cleans up itself (broker-host.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { ConfigError, type ConfigProblem } from '../config/errors.js';
import type { LogLevel } from '../config/broker-defs.js';
import { EmbeddedError, EmbeddedErrorCode } from './errors.js';
import { spawnHost, type HostProcess, type Isolation } from './host-process.js';
import type { BoundListener, HostMessage, StartParams, WireError } from './messages.js';

export type { Isolation } from './host-process.js';

/** Where one start-up's time went (bench/startup.mjs prints these). */
export interface StartupTimings {
  /** Spawning the worker or child until its entry module ran (Node boot + the host's static imports). */
  readonly spawnMs: number;
  /** Loading the config and broker modules in the host. */
  readonly importMs: number;
  /** runBroker: recover logs, replay the metadata log, bind, register. */
  readonly runBrokerMs: number;
  /** Spawn until ready, as the caller saw it. */
  readonly totalMs: number;
}

const nowEpochMs = (): number => performance.timeOrigin + performance.now();

export const START_TIMEOUT_MS_DEFAULT = 30_000;
export const STOP_TIMEOUT_MS_DEFAULT = 15_000;
/** Quiet by default: tests print their own output; warnings and errors still show. */
export const LOG_LEVEL_DEFAULT: LogLevel = 'warn';
const TEMP_DIR_PREFIX = 'tributary-embedded-';

/** Options of `startCluster`. */
export interface StartClusterOptions {
  /** Number of brokers. Only 1 today; clustering is a later issue. */
  brokers?: number;
  /** server.properties overrides, by Kafka name: `{ 'num.partitions': '3' }`. Numbers and booleans are stringified. */
  config?: Readonly<Record<string, string | number | boolean>>;
  /** Use (and keep) this data directory. Default: a fresh temporary one, removed by stop(). */
  dataDir?: string;
  /** Keep the temporary data directory after stop() (to inspect it). */
  keepData?: boolean;
  /** The broker's log level (pino), written to stderr. Default 'warn'; same as config['log.level']. */
  logLevel?: LogLevel;
  /** 'worker' (default): a worker thread, fastest to start. 'process': a child process, which a crash or `restart({ hard: true })` kills alone. */
  isolation?: Isolation;
  /** Fail if the broker is not ready within this long (default 30 s). */
  startTimeoutMs?: number;
  /** stop() waits this long for a graceful shutdown, then kills (default 15 s). */
  stopTimeoutMs?: number;
  /** Keep the caller's process alive while the broker runs (a dev script); default false (tests). */
  keepAlive?: boolean;
}

/** One broker of an embedded cluster. */
export interface EmbeddedBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/** Options of `EmbeddedCluster.restart`. */
export interface RestartOptions {
  /** Kill the broker without a graceful shutdown (SIGKILL, as `kill -9`). Needs isolation 'process'. */
  hard?: boolean;
}

/** A running embedded cluster: its bootstrap string, brokers, data directory, restart and stop. */
export interface EmbeddedCluster {
  /** `host:port[,host:port]`, for any client's bootstrap servers. */
  readonly bootstrap: string;
  readonly brokers: readonly EmbeddedBroker[];
  readonly clusterId: string;
  /** The broker's data directory (log.dirs). */
  readonly dataDir: string;
  readonly isolation: Isolation;
  /** The broker process's pid (isolation 'process'); null for a worker thread. */
  readonly pid: number | null;
  /** Where the last start-up's time went, in the broker host. */
  readonly startupTimings: StartupTimings;
  /** Graceful shutdown, then removes a temporary data dir (unless keepData). Idempotent. */
  stop(): Promise<void>;
  /** Stops and starts the broker again on the same ports and data dir (for recovery tests). */
  restart(options?: RestartOptions): Promise<void>;
}

interface ResolvedOptions {
  readonly isolation: Isolation;
  readonly config: Record<string, string>;
  readonly dataDir: string;
  readonly removeDataDir: boolean;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly keepAlive: boolean;
}

// ---------------------------------------------------------------- process exit hook

/** What the exit hook must clean: running clusters, and data dirs of starts in progress. */
const live = new Set<{ abandon(): void }>();
let exitHookInstalled = false;

/** At exit nothing can be awaited: SIGKILL children, remove temporary dirs (a worker ends with the process). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) c.abandon();
  });
}

// ---------------------------------------------------------------- options

function invalid(message: string): EmbeddedError {
  return new EmbeddedError(EmbeddedErrorCode.INVALID_OPTIONS, `startCluster: ${message}`);
}

function isPositiveTimeout(v: number): boolean {
  return Number.isFinite(v) && v > 0;
}

function resolveOptions(options: StartClusterOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const brokers = options.brokers ?? 1;
  if (brokers !== 1) {
    throw invalid(`brokers: ${String(brokers)} is not supported yet; only brokers: 1 works today (multi-broker clusters come with partition replication)`);
  }
  const isolation = options.isolation ?? 'worker';
  if (isolation !== 'worker' && isolation !== 'process') throw invalid(`isolation must be 'worker' or 'process', got ${JSON.stringify(isolation)}`);
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS_DEFAULT;
  if (!isPositiveTimeout(startTimeoutMs)) throw invalid(`startTimeoutMs must be a positive number of milliseconds, got ${String(startTimeoutMs)}`);
  const stopTimeoutMs = options.stopTimeoutMs ?? STOP_TIMEOUT_MS_DEFAULT;
  if (!isPositiveTimeout(stopTimeoutMs)) throw invalid(`stopTimeoutMs must be a positive number of milliseconds, got ${String(stopTimeoutMs)}`);

  const given: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.config ?? {})) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`config["${key}"] must be a string, number or boolean, got ${value === null ? 'null' : typeof value}`);
    }
    given[key] = String(value);
  }
  for (const key of ['log.dirs', 'log.dir']) {
    if (key in given) throw invalid(`config["${key}"]: use the dataDir option instead (startCluster owns log.dirs)`);
  }
  const removeDataDir = options.dataDir === undefined && options.keepData !== true;
  const dataDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), TEMP_DIR_PREFIX)) : resolvePath(options.dataDir);
  const config: Record<string, string> = {
    listeners: 'PLAINTEXT://127.0.0.1:0',
    'log.level': LOG_LEVEL_DEFAULT,
    ...given,
    ...(options.logLevel === undefined ? {} : { 'log.level': options.logLevel }),
    'log.dirs': dataDir,
  };
  return { isolation, config, dataDir, removeDataDir, startTimeoutMs, stopTimeoutMs, keepAlive: options.keepAlive === true };
}

// ---------------------------------------------------------------- errors across the boundary

function fromWire(e: WireError, during: 'start' | 'stop' = 'start'): Error {
  if (e.name === 'ConfigError' && e.problems !== null && (e.code === 'ERR_TRIB_CONFIG_INVALID' || e.code === 'ERR_TRIB_CONFIG_FILE')) {
    return new ConfigError(e.code, e.problems as ConfigProblem[]);
  }
  const cause = Object.assign(new Error(e.message), { name: e.name, ...(e.code === null ? {} : { code: e.code }) });
  if (e.stack !== null) cause.stack = e.stack;
  if (during === 'stop') return new EmbeddedError(EmbeddedErrorCode.STOP_FAILED, `broker failed to stop cleanly: ${e.message}`, { cause });
  return new EmbeddedError(EmbeddedErrorCode.START_FAILED, `broker failed to start: ${e.message}`, { cause });
}

function describeExit(exit: { code: number | null; signal: string | null; error: Error | null }): string {
  if (exit.error !== null) return `${exit.error.name}: ${exit.error.message}`;
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${String(exit.code)}`;
}

// ---------------------------------------------------------------- one start of the host

type Ready = Extract<HostMessage, { type: 'ready' }>;

/** Spawns a host, sends start, and waits (bounded) for ready; on any failure the host is gone before this rejects. */
async function launch(options: ResolvedOptions, config: Record<string, string>): Promise<{ host: HostProcess; ready: Ready; timings: StartupTimings }> {
  const spawnedAtMs = nowEpochMs();
  const host = spawnHost(options.isolation);
  const params: StartParams = { config, removeOnOrphan: options.removeDataDir ? options.dataDir : null };
  let timer: NodeJS.Timeout | undefined;
  const outcome = await new Promise<{ ready: Ready } | { error: Error }>((resolve) => {
    timer = setTimeout(() => {
      resolve({ error: new EmbeddedError(EmbeddedErrorCode.START_TIMEOUT, `broker did not start within ${options.startTimeoutMs} ms (startTimeoutMs); it was killed`) });
    }, options.startTimeoutMs);
    host.onMessage((m) => {
      if (m.type === 'ready') resolve({ ready: m });
      else if (m.type === 'failed') resolve({ error: fromWire(m.error) });
    });
    void host.exited.then((exit) => {
      const message = `broker ${options.isolation} exited during start-up (${describeExit(exit)})`;
      resolve({ error: new EmbeddedError(EmbeddedErrorCode.EXITED, message, exit.error === null ? undefined : { cause: exit.error }) });
    });
    host.send({ type: 'start', params });
  });
  clearTimeout(timer);
  if ('error' in outcome) {
    await host.kill();
    throw outcome.error;
  }
  const t = outcome.ready.timings;
  const timings = { spawnMs: t.entryAtMs - spawnedAtMs, importMs: t.importMs, runBrokerMs: t.runBrokerMs, totalMs: nowEpochMs() - spawnedAtMs };
  return { host, ready: outcome.ready, timings };
}

// ---------------------------------------------------------------- the handle

function toBroker(nodeId: number, listeners: readonly BoundListener[]): EmbeddedBroker {
  const l = listeners.find((x) => x.name === 'PLAINTEXT') ?? listeners[0];
  if (l === undefined) throw new EmbeddedError(EmbeddedErrorCode.START_FAILED, 'broker started without a listener');
  const wildcard = l.host === '' || l.host === '0.0.0.0' || l.host === '::';
  return { nodeId, host: wildcard ? '127.0.0.1' : l.host, port: l.port };
}

function formatHostPort(b: EmbeddedBroker): string {
  return b.host.includes(':') ? `[${b.host}]:${b.port}` : `${b.host}:${b.port}`;
}

class Cluster implements EmbeddedCluster {
  readonly bootstrap: string;
  readonly brokers: readonly EmbeddedBroker[];
  readonly dataDir: string;
  readonly isolation: Isolation;
  private host: HostProcess;
  private ready: Ready;
  private timings: StartupTimings;
  private stopping: Promise<void> | undefined;
  private transition: Promise<void> | undefined;
  /** Set while this handle ends the host on purpose; an exit otherwise is a crash, reported on stderr. */
  private expectingExit = false;

  constructor(
    private readonly options: ResolvedOptions,
    started: { host: HostProcess; ready: Ready; timings: StartupTimings },
  ) {
    this.host = started.host;
    this.ready = started.ready;
    this.timings = started.timings;
    this.dataDir = options.dataDir;
    this.isolation = options.isolation;
    this.brokers = [toBroker(started.ready.nodeId, started.ready.listeners)];
    this.bootstrap = this.brokers.map(formatHostPort).join(',');
    this.adopt(started.host);
  }

  get clusterId(): string {
    return this.ready.clusterId;
  }

  get pid(): number | null {
    return this.host.pid;
  }

  get startupTimings(): StartupTimings {
    return this.timings;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        await this.transition?.catch(() => undefined);
        await this.endHost();
      } finally {
        if (this.options.removeDataDir) rmSync(this.dataDir, { recursive: true, force: true });
        live.delete(this);
      }
    })();
    return this.stopping;
  }

  restart(options: RestartOptions = {}): Promise<void> {
    if (this.stopping !== undefined) return Promise.reject(new EmbeddedError(EmbeddedErrorCode.STOPPED, 'restart() after stop(): the cluster is stopped'));
    if (options.hard === true && this.isolation !== 'process') {
      return Promise.reject(new EmbeddedError(EmbeddedErrorCode.UNSUPPORTED, "restart({ hard: true }) needs isolation: 'process' (a worker thread cannot be killed like a process: its open files would leak)"));
    }
    if (this.transition !== undefined) return Promise.reject(new EmbeddedError(EmbeddedErrorCode.UNSUPPORTED, 'restart() while a restart is in progress'));
    const run = (async () => {
      if (options.hard === true) {
        this.expectingExit = true;
        this.host.setRef(true);
        await this.host.kill();
      } else {
        await this.endHost();
      }
      // Same ports as before, so the bootstrap address clients hold stays valid.
      const listeners = this.ready.listeners.map((l) => `${l.name}://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`).join(',');
      const started = await launch(this.options, { ...this.options.config, listeners });
      this.host = started.host;
      this.ready = started.ready;
      this.timings = started.timings;
      this.adopt(started.host);
    })();
    this.transition = run.finally(() => {
      this.transition = undefined;
    });
    return this.transition;
  }

  /** Process exit: no waiting possible. */
  abandon(): void {
    this.expectingExit = true;
    this.host.killNow();
    if (this.options.removeDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  private adopt(host: HostProcess): void {
    this.expectingExit = false;
    host.setRef(this.options.keepAlive);
    void host.exited.then((exit) => {
      if (this.host !== host || this.expectingExit) return;
      process.stderr.write(`[tributary] embedded broker ${this.bootstrap} exited unexpectedly (${describeExit(exit)}); stop() still cleans up\n`);
    });
  }

  /** Graceful stop of the current host, bounded; kills it if it does not finish in time. */
  private async endHost(): Promise<void> {
    const host = this.host;
    this.expectingExit = true;
    if (host.hasExited) return;
    host.setRef(true);
    let timer: NodeJS.Timeout | undefined;
    let failure: Error | undefined;
    const answered = new Promise<'stopped' | 'exited' | 'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.stopTimeoutMs);
      host.onMessage((m) => {
        if (m.type === 'stopped') resolve('stopped');
        else if (m.type === 'failed') {
          failure = fromWire(m.error, 'stop');
          resolve('stopped');
        }
      });
      void host.exited.then(() => resolve('exited'));
    });
    host.send({ type: 'stop' });
    const how = await answered;
    clearTimeout(timer);
    if (how === 'timeout') process.stderr.write(`[tributary] embedded broker ${this.bootstrap} did not stop within ${this.options.stopTimeoutMs} ms; killing it\n`);
    // A worker waits to be terminated after 'stopped'; a child exits by itself (bounded, then killed).
    let exited: unknown = null;
    if (how === 'stopped' && host.isolation === 'process') {
      exited = await Promise.race([host.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), this.options.stopTimeoutMs)))]);
      clearTimeout(timer);
    }
    if (exited === null) await host.kill();
    if (failure !== undefined) throw failure;
  }
}

/**
 * Starts a one-broker cluster for tests: resolves once the broker accepts
 * connections. Rejects with the broker's ConfigError for a bad config, or an
 * EmbeddedError (`code` ERR_TRIB_EMBEDDED_*) otherwise; nothing is left
 * running or on disk after a rejection.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<EmbeddedCluster> {
  const resolved = resolveOptions(options);
  installExitHook();
  // A child started meanwhile cleans up after itself on IPC disconnect; a worker ends with the process.
  const starting = { abandon: () => (resolved.removeDataDir ? rmSync(resolved.dataDir, { recursive: true, force: true }) : undefined) };
  live.add(starting);
  try {
    const cluster = new Cluster(resolved, await launch(resolved, resolved.config));
    live.add(cluster);
    return cluster;
  } catch (err) {
    starting.abandon();
    throw err;
  } finally {
    live.delete(starting);
  }
}
