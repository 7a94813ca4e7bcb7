/**
 * The launcher's runner for `startCluster`: each node is an embedded broker
 * host (broker-host.ts) in a worker thread or a forked child. `start` sends
 * the config and waits (bounded) for `ready`, which carries the bound
 * listeners (a lone node binds port 0 and the launcher reads the port back).
 * `stop` asks for the graceful shutdown, bounded, then kills.
 */
import { ConfigError, type ConfigProblem } from '../config/errors.js';
import { EmbeddedError, EmbeddedErrorCode } from './errors.js';
import { spawnHost, type HostProcess, type Isolation } from './host-process.js';
import type { HostMessage, StartParams, WireError } from './messages.js';
import { describeExit, type NodeExit, type NodeRunner, type RunningNode } from './node-runner.js';

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

export interface HostRunnerOptions {
  readonly isolation: Isolation;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
  /** Child process only: a temporary data dir the child removes if its parent vanishes. */
  readonly removeOnOrphan: string | null;
}

export interface HostRun extends RunningNode {
  /** node.id and cluster id as the broker reported them. */
  readonly nodeId: number;
  readonly clusterId: string;
  readonly timings: StartupTimings;
}

type Ready = Extract<HostMessage, { type: 'ready' }>;

const nowEpochMs = (): number => performance.timeOrigin + performance.now();

export function fromWire(e: WireError, during: 'start' | 'stop' = 'start'): Error {
  if (e.name === 'ConfigError' && e.problems !== null && (e.code === 'ERR_TRIB_CONFIG_INVALID' || e.code === 'ERR_TRIB_CONFIG_FILE')) {
    return new ConfigError(e.code, e.problems as ConfigProblem[]);
  }
  const cause = Object.assign(new Error(e.message), { name: e.name, ...(e.code === null ? {} : { code: e.code }) });
  if (e.stack !== null) cause.stack = e.stack;
  if (during === 'stop') return new EmbeddedError(EmbeddedErrorCode.STOP_FAILED, `broker failed to stop cleanly: ${e.message}`, { cause });
  return new EmbeddedError(EmbeddedErrorCode.START_FAILED, `broker failed to start: ${e.message}`, { cause });
}

/** Spawns a host, sends start, and waits (bounded) for ready; on any failure the host is gone before this rejects. */
async function launch(options: HostRunnerOptions, config: Readonly<Record<string, string>>): Promise<{ host: HostProcess; ready: Ready; timings: StartupTimings }> {
  const spawnedAtMs = nowEpochMs();
  const host = spawnHost(options.isolation);
  const params: StartParams = { config, removeOnOrphan: options.removeOnOrphan };
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

/** Graceful stop of a host, bounded; kills it if it does not finish in time. Rejects with STOP_FAILED after ending it if the broker's shutdown threw. */
async function endHost(host: HostProcess, options: HostRunnerOptions, label: string): Promise<NodeExit> {
  if (host.hasExited) return host.exited;
  host.setRef(true);
  let timer: NodeJS.Timeout | undefined;
  let failure: Error | undefined;
  const answered = new Promise<'stopped' | 'exited' | 'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.stopTimeoutMs);
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
  if (how === 'timeout') process.stderr.write(`[tributary] embedded broker ${label} did not stop within ${options.stopTimeoutMs} ms; killing it\n`);
  // A worker waits to be terminated after 'stopped'; a child exits by itself (bounded, then killed).
  let exited: NodeExit | null = null;
  if (how === 'stopped' && host.isolation === 'process') {
    exited = await Promise.race([host.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), options.stopTimeoutMs)))]);
    clearTimeout(timer);
  }
  if (exited === null) exited = await host.kill();
  if (failure !== undefined) throw failure;
  return exited;
}

export function hostRunner(options: HostRunnerOptions): NodeRunner<HostRun> {
  return {
    async start(_layout, node, config) {
      const { host, ready, timings } = await launch(options, config);
      return {
        pid: host.pid,
        exited: host.exited,
        get hasExited() {
          return host.hasExited;
        },
        listeners: ready.listeners,
        nodeId: ready.nodeId,
        clusterId: ready.clusterId,
        timings,
        stop: () => endHost(host, options, `node ${node.id}`),
        kill: () => {
          host.setRef(true);
          return host.kill();
        },
        killNow: () => host.killNow(),
        setRef: (ref) => host.setRef(ref),
      };
    },
  };
}
