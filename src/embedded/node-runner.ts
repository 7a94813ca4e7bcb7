/**
 * How the launcher runs one node. Two runners share this interface:
 *
 * - `cliRunner` (this file): `node <tributary main> start --config <file>` as
 *   a child process. `tributary cluster up` (log to a file, optionally
 *   detached) and the cluster tests (output captured for failure messages).
 * - `hostRunner` (host-runner.ts): the embedded broker host in a worker thread
 *   or a forked child, as `startCluster` runs it.
 *
 * `start` resolves once the node accepts connections on its broker port, or
 * rejects (the node is gone by then). Whether the node also sees the whole
 * cluster is the launcher's question (launcher.ts `waitForBrokers`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import type { ClusterLayout, NodeLayout } from './cluster-plan.js';
import { propertiesText } from './cluster-plan.js';
import type { BoundListener } from './messages.js';
import { portAccepts } from './probe.js';

export interface NodeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** A worker's uncaught exception, or a child that failed to spawn. */
  readonly error: Error | null;
}

/** One run of a node: from start until its process or thread ends. */
export interface RunningNode {
  /** The node's process id; null for a worker thread. */
  readonly pid: number | null;
  readonly exited: Promise<NodeExit>;
  readonly hasExited: boolean;
  /** The listeners the node bound, when the runner is told (the embedded host); null otherwise. */
  readonly listeners: readonly BoundListener[] | null;
  /** Graceful shutdown, bounded by the runner's stop timeout, then killed. Rejects only if the broker's own shutdown threw. */
  stop(): Promise<NodeExit>;
  /** SIGKILL (a worker: terminate) and wait for the end. */
  kill(): Promise<NodeExit>;
  /** For process 'exit' hooks, which cannot wait. */
  killNow(): void;
  /** ref: the node keeps the caller's process alive; unref: it does not. */
  setRef(ref: boolean): void;
}

export interface NodeRunner<R extends RunningNode = RunningNode> {
  start(layout: ClusterLayout, node: NodeLayout, config: Readonly<Record<string, string>>): Promise<R>;
}

export interface CliRunnerOptions {
  /** The tributary CLI entry script (dist/src/cli/main.js, or process.argv[1] inside the CLI). */
  readonly main: string;
  /** 'file': append to the node's log file; a function: receives the output (tests keep it for failure messages). */
  readonly output: 'file' | ((nodeId: number, text: string) => void);
  /** Leave the node running after this process exits (`cluster up --detach`). */
  readonly detached?: boolean;
  readonly cwd?: string;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
}

const PORT_POLL_MS = 50;

function spawnNode(options: CliRunnerOptions, node: NodeLayout): ChildProcess {
  const args = [options.main, 'start', '--config', node.configFile];
  // Output to a file (cluster up): own process group, so a terminal's Ctrl-C
  // reaches only the launching process, which sends each node exactly one
  // SIGTERM (a second one would make a node skip its graceful shutdown).
  if (options.output === 'file') {
    const out = openSync(node.logFile, 'a');
    try {
      return spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', out, out], detached: true });
    } finally {
      closeSync(out);
    }
  }
  // Captured output (tests): same process group, so a Ctrl-C of the test run reaches the nodes too.
  const sink = options.output;
  const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  sink(node.id, `----- node ${node.id}: node ${args.join(' ')}\n`);
  child.stdout?.on('data', (chunk: Buffer) => sink(node.id, chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => sink(node.id, chunk.toString('utf8')));
  return child;
}

function childRun(child: ChildProcess, options: CliRunnerOptions): RunningNode {
  let hasExited = false;
  const exited = new Promise<NodeExit>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal, error: null });
    });
    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      hasExited = true;
      resolve({ code: null, signal: null, error: err });
    });
  });
  const kill = async (): Promise<NodeExit> => {
    if (!hasExited) child.kill('SIGKILL');
    return exited;
  };
  return {
    pid: child.pid ?? null,
    exited,
    get hasExited() {
      return hasExited;
    },
    listeners: null,
    stop: async () => {
      if (hasExited) return exited;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), options.stopTimeoutMs)))]);
      clearTimeout(timer);
      return done ?? kill();
    },
    kill,
    killNow: () => {
      if (!hasExited) child.kill('SIGKILL');
    },
    setRef: (ref) => (ref ? child.ref() : child.unref()),
  };
}

/** Runs nodes as `tributary start --config <dir>/node-<i>.properties` child processes. */
export function cliRunner(options: CliRunnerOptions): NodeRunner {
  return {
    async start(layout, node, config) {
      writeFileSync(node.configFile, propertiesText(config, `node ${node.id} of ${layout.nodes.length}`));
      const child = spawnNode(options, node);
      const run = childRun(child, options);
      if (options.detached === true) run.setRef(false);
      const deadline = Date.now() + options.startTimeoutMs;
      while (Date.now() < deadline) {
        if (run.hasExited) throw new Error(`node ${node.id} exited during start-up (${describeExit(await run.exited)})`);
        if (await portAccepts(layout.host, node.brokerPort)) return run;
        await sleep(PORT_POLL_MS);
      }
      await run.kill();
      throw new Error(`node ${node.id} did not accept connections on port ${node.brokerPort} within ${options.startTimeoutMs} ms`);
    },
  };
}

export function describeExit(exit: NodeExit): string {
  if (exit.error !== null) return `${exit.error.name}: ${exit.error.message}`;
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${String(exit.code)}`;
}
