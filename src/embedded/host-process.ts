/**
 * The caller's view of one broker host, whichever isolation runs it: a
 * worker thread (`new Worker`) or a child process (`fork`). Both run
 * broker-host.js, found next to this module through import.meta.url, so the
 * package works from node_modules and from any working directory.
 *
 * Neither inherits the caller's execArgv: `--inspect`, `--test`, `--cpu-prof`
 * or a TypeScript loader meant for the caller's code must not apply to the
 * broker (the host is plain JS).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isHostMessage, type HostMessage, type ParentMessage } from './messages.js';

/** Where an embedded broker runs: a worker thread or a child process. */
export type Isolation = 'worker' | 'process';

export const HOST_MODULE_URL = new URL('./broker-host.js', import.meta.url);

export interface HostExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** A worker's uncaught exception, or a fork that failed to spawn. */
  readonly error: Error | null;
}

export interface HostProcess {
  readonly isolation: Isolation;
  /** The child's pid; null for a worker (it shares the caller's pid). */
  readonly pid: number | null;
  /** Resolves once the thread or process has ended. */
  readonly exited: Promise<HostExit>;
  readonly hasExited: boolean;
  send(message: ParentMessage): void;
  onMessage(handler: (message: HostMessage) => void): void;
  /** ref: keeps the caller's process alive while the host runs; unref: does not. */
  setRef(ref: boolean): void;
  /** Ends the host at once (worker.terminate / SIGKILL) and waits for it. */
  kill(): Promise<HostExit>;
  /** For process 'exit' hooks, which cannot wait: SIGKILL a child; a worker ends with the process. */
  killNow(): void;
}

export function spawnHost(isolation: Isolation): HostProcess {
  return isolation === 'worker' ? workerHost() : childHost();
}

function workerHost(): HostProcess {
  const worker = new Worker(HOST_MODULE_URL, { execArgv: [] });
  let hasExited = false;
  let error: Error | null = null;
  worker.on('error', (err) => {
    error = err;
  });
  const exited = new Promise<HostExit>((resolve) => {
    worker.once('exit', (code) => {
      hasExited = true;
      resolve({ code, signal: null, error });
    });
  });
  return {
    isolation: 'worker',
    pid: null,
    exited,
    get hasExited() {
      return hasExited;
    },
    send: (message) => worker.postMessage(message),
    onMessage: (handler) => worker.on('message', (m: unknown) => (isHostMessage(m) ? handler(m) : undefined)),
    setRef: (ref) => (ref ? worker.ref() : worker.unref()),
    kill: async () => {
      if (!hasExited) await worker.terminate();
      return exited;
    },
    killNow: () => undefined,
  };
}

function childHost(): HostProcess {
  // stdout is ignored: under `node --test` the caller's stdout carries the
  // test protocol. The broker logs to fd 2, which the child shares.
  const child: ChildProcess = fork(fileURLToPath(HOST_MODULE_URL), [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });
  let hasExited = false;
  let error: Error | null = null;
  child.on('error', (err) => {
    error = err;
  });
  const exited = new Promise<HostExit>((resolve) => {
    // 'close' would wait for stdio shared with other processes; 'exit' is the process itself.
    child.once('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal, error });
    });
    // A failed spawn emits 'error' and never 'exit'.
    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      hasExited = true;
      resolve({ code: null, signal: null, error: err });
    });
  });
  return {
    isolation: 'process',
    pid: child.pid ?? null,
    exited,
    get hasExited() {
      return hasExited;
    },
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (handler) => child.on('message', (m: unknown) => (isHostMessage(m) ? handler(m) : undefined)),
    setRef: (ref) => {
      if (ref) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    kill: async () => {
      if (!hasExited) child.kill('SIGKILL');
      return exited;
    },
    killNow: () => {
      if (!hasExited) child.kill('SIGKILL');
    },
  };
}
