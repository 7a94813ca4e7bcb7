/**
 * A real Tributary broker as a child process, for integration and compat tests.
 *
 *   const broker = await startBroker();           // free loopback port, fresh temp data dir
 *   t.after(() => broker.cleanup());               // always: stops the process, removes the dir
 *   await broker.restart();                        // same port, same data dir
 *   await broker.kill9();                          // SIGKILL, no graceful shutdown
 *
 * The child's stdout/stderr are kept (bounded) and printed when it fails to
 * start, exits unexpectedly, or must be SIGKILLed on stop; set
 * TRIBUTARY_TEST_LOGS=1 to print them always. `explain()` wraps a test body so
 * a failing assertion carries the broker's last log lines.
 *
 * Every child is also SIGKILLed when the test process exits, so a crashed test
 * file never leaves a broker behind.
 *
 * A broker that logs at error level or above, exits on its own, or ends with a
 * non-zero code fails the test at `cleanup()`: a handler exception becomes a
 * retriable error that clients retry past, so the log is the only trace.
 * Tests that provoke errors on purpose list them in `allowErrorLogs` (each
 * with a comment saying why); `healthProblems()` lets a test check earlier.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from '../../src/embedded/probe.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A free loopback port: the launcher's (bind port 0, read it, close). */
export { freePort };

export const START_TIMEOUT_MS = 30_000;
export const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_BYTES_MAX = 256 * 1024;
const POLL_INTERVAL_MS = 50;

/** The repository root: the nearest ancestor of this file holding package.json (works from src and dist). */
export const repoRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && /"name":\s*"tributary"/.test(readFileSync(pkg, 'utf8'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repo root (package.json of tributary) not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
})();

export const brokerMain = join(repoRoot, 'dist', 'src', 'cli', 'main.js');

export interface BrokerOptions {
  /** Use this data dir (kept on cleanup) instead of a fresh temp dir (removed on cleanup). */
  dataDir?: string;
  /** Extra `--override key=value` settings, e.g. `{ 'log.flush.interval.messages': '1' }`. */
  overrides?: Record<string, string>;
  startTimeoutMs?: number;
  /** Label used in logs and temp dir names. */
  name?: string;
  /**
   * Error-level log lines this test provokes on purpose, matched against the
   * line's `msg` (and `err.message`). Anything else at error level fails
   * cleanup().
   */
  allowErrorLogs?: readonly RegExp[];
  /** Run the broker with this `ulimit -n` (through bash; the process is still node, same pid). */
  openFilesLimit?: number;
}

/** pino's numeric level for `error`; `fatal` is 60. */
const LEVEL_ERROR = 50;

/** The error-level entry of one output line, or null (other levels, or not a JSON log line). */
export function errorLogOf(line: string): { msg: string; detail: string } | null {
  if (!line.startsWith('{')) return null;
  let entry: { level?: unknown; msg?: unknown; err?: { message?: unknown } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return null;
  }
  if (typeof entry.level !== 'number' || entry.level < LEVEL_ERROR) return null;
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  const errMessage = typeof entry.err?.message === 'string' ? entry.err.message : '';
  return { msg, detail: errMessage === '' ? msg : `${msg}: ${errMessage}` };
}

/** Resolves true if something accepts TCP connections on 127.0.0.1:port. */
export function portAccepts(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `promise`'s value, or null after `ms`; the timer is cleared either way (no lingering handle). */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

export class BrokerProcess {
  readonly port: number;
  readonly dataDir: string;
  readonly name: string;
  private readonly ownsDataDir: boolean;
  private readonly overrides: Record<string, string>;
  private readonly startTimeoutMs: number;
  private child: ChildProcess | null = null;
  private exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
  private exited = false;
  private expectingExit = false;
  private output = '';
  private generation = 0;
  private partialLine = '';
  private readonly allowErrorLogs: readonly RegExp[];
  private readonly openFilesLimit: number | undefined;
  /** Unexpected exits (crashes) seen so far, as "code=.. signal=..". */
  readonly crashes: string[] = [];
  /** Error-level log lines not on the allow-list. */
  readonly errorLogs: string[] = [];
  /** Graceful stops that ended with a non-zero code. */
  readonly badExits: string[] = [];

  constructor(port: number, options: BrokerOptions = {}) {
    this.port = port;
    this.name = options.name ?? 'broker';
    this.ownsDataDir = options.dataDir === undefined;
    this.dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `tributary-${this.name}-`));
    this.overrides = options.overrides ?? {};
    this.startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    this.allowErrorLogs = options.allowErrorLogs ?? [];
    this.openFilesLimit = options.openFilesLimit;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True while the child process runs. */
  isAlive(): boolean {
    return this.child !== null && !this.exited;
  }

  args(): string[] {
    const settings: Record<string, string> = {
      listeners: `PLAINTEXT://127.0.0.1:${this.port}`,
      'log.dirs': this.dataDir,
      ...this.overrides,
    };
    const args = [brokerMain, 'start'];
    for (const [key, value] of Object.entries(settings)) args.push('--override', `${key}=${value}`);
    return args;
  }

  /** Starts the process and waits (bounded) until the port accepts connections. */
  async start(): Promise<void> {
    if (this.isAlive()) throw new Error(`${this.name} already running (pid ${this.child?.pid})`);
    if (!existsSync(brokerMain)) throw new Error(`${brokerMain} missing: build first (npx tsc -p tsconfig.build.json)`);
    const generation = ++this.generation;
    this.output += `\n----- ${this.name} start #${generation}: node ${this.args().join(' ')}\n`;
    const [command, argv] = this.openFilesLimit === undefined
      ? [process.execPath, this.args()]
      // exec: the shell becomes node, so the pid (kill -9, stop) is the broker's.
      : ['bash', ['-c', `ulimit -n ${this.openFilesLimit} && exec "$0" "$@"`, process.execPath, ...this.args()]];
    const child = spawn(command, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = false;
    this.expectingExit = false;
    live.add(child);
    const append = (chunk: Buffer): void => {
      this.output += chunk.toString('utf8');
      this.scanForErrors(chunk.toString('utf8'));
      if (this.output.length > OUTPUT_BYTES_MAX) this.output = this.output.slice(-OUTPUT_BYTES_MAX);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    this.exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        if (this.child === child) this.exited = true;
        this.output += `----- ${this.name} #${generation} exited code=${code} signal=${signal}\n`;
        if (!this.expectingExit) {
          this.crashes.push(`code=${code} signal=${signal}`);
          process.stderr.write(`[${this.name}] exited unexpectedly (code=${code} signal=${signal}); last output:\n${this.tail()}\n`);
        }
        resolve({ code, signal });
      });
    });
    child.once('error', (err) => {
      this.output += `----- spawn error: ${err.message}\n`;
    });

    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`${this.name} exited during start-up; output:\n${this.tail()}`);
      if (await portAccepts(this.port, 500)) return;
      await sleep(POLL_INTERVAL_MS);
    }
    const tail = this.tail();
    await this.forceKill();
    throw new Error(`${this.name} did not accept connections on ${this.bootstrap} within ${this.startTimeoutMs} ms; output:\n${tail}`);
  }

  /** SIGTERM, wait (bounded) for exit, then SIGKILL. Returns how it ended. */
  async stop(timeoutMs = STOP_TIMEOUT_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }> {
    const child = this.child;
    if (child === null || this.exited || this.exit === null) return { code: null, signal: null, killed: false };
    this.expectingExit = true;
    child.kill('SIGTERM');
    const result = await withTimeout(this.exit, timeoutMs);
    if (result !== null) {
      if (result.code !== 0) this.badExits.push(`stop ended with code=${result.code} signal=${result.signal}`);
      if (result.code !== 0 || process.env['TRIBUTARY_TEST_LOGS'] === '1') {
        process.stderr.write(`[${this.name}] stopped with code=${result.code} signal=${result.signal}; last output:\n${this.tail()}\n`);
      }
      return { ...result, killed: false };
    }
    process.stderr.write(`[${this.name}] did not exit within ${timeoutMs} ms of SIGTERM, sending SIGKILL; last output:\n${this.tail()}\n`);
    const killed = await this.forceKill();
    return { ...killed, killed: true };
  }

  /** kill -9: no graceful shutdown, page cache survives (the process dies, not the machine). */
  async kill9(): Promise<void> {
    await this.forceKill();
  }

  /** Stops (gracefully unless `hard`) and starts again on the same port and data dir. */
  async restart(options: { hard?: boolean } = {}): Promise<void> {
    if (options.hard === true) await this.kill9();
    else await this.stop();
    await this.start();
  }

  /**
   * Stops the process and removes the data dir if this helper created it.
   * Safe to call twice. Then throws if the broker logged an error that is not
   * allowed, crashed, or stopped with a non-zero code (healthProblems()).
   */
  async cleanup(): Promise<void> {
    try {
      await this.stop();
    } finally {
      if (process.env['TRIBUTARY_TEST_LOGS'] === '1') process.stderr.write(`[${this.name}] output:\n${this.tail(400)}\n`);
      if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
    }
    const problems = this.healthProblems();
    if (problems.length > 0) {
      // Reported once: a second cleanup() (after + explicit) does not repeat it.
      this.errorLogs.length = 0;
      this.crashes.length = 0;
      this.badExits.length = 0;
      throw new Error(`${this.name}: ${problems.join('; ')}\n--- last output:\n${this.tail(60)}`);
    }
  }

  /** What would make cleanup() fail: unexpected error logs, crashes, non-zero exits. */
  healthProblems(): string[] {
    const out: string[] = [];
    if (this.errorLogs.length > 0) out.push(`logged ${this.errorLogs.length} error(s): ${this.errorLogs.slice(0, 5).join(' | ')}`);
    if (this.crashes.length > 0) out.push(`exited unexpectedly: ${this.crashes.join(', ')}`);
    if (this.badExits.length > 0) out.push(this.badExits.join(', '));
    return out;
  }

  private scanForErrors(text: string): void {
    const lines = (this.partialLine + text).split('\n');
    this.partialLine = lines.pop() ?? '';
    for (const line of lines) {
      const entry = errorLogOf(line);
      if (entry === null) continue;
      if (this.allowErrorLogs.some((re) => re.test(entry.detail))) continue;
      this.errorLogs.push(entry.detail);
    }
  }

  /** The last `lines` lines of the child's output (all starts). */
  tail(lines = 80): string {
    return this.output.split('\n').slice(-lines).join('\n');
  }

  /** Runs `fn`; if it throws, the error message gets the broker's state and last output appended. */
  async explain<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const state = this.isAlive() ? `alive (pid ${this.pid})` : 'NOT RUNNING';
      const note = `\n--- ${this.name} is ${state}; last output:\n${this.tail(60)}`;
      if (err instanceof Error) {
        err.message += note;
        throw err;
      }
      throw new Error(String(err) + note);
    }
  }

  private async forceKill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (child === null || this.exited || this.exit === null) return { code: null, signal: null };
    this.expectingExit = true;
    child.kill('SIGKILL');
    const result = await withTimeout(this.exit, STOP_TIMEOUT_MS);
    if (result === null) throw new Error(`${this.name} pid ${child.pid} survived SIGKILL for ${STOP_TIMEOUT_MS} ms`);
    return result;
  }
}

/** Starts a broker on a free port (retrying once with another port if the first was taken meanwhile). */
export async function startBroker(options: BrokerOptions = {}): Promise<BrokerProcess> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 2; attempt++) {
    const broker = new BrokerProcess(await freePort(), options);
    try {
      await broker.start();
      return broker;
    } catch (err) {
      lastError = err;
      await broker.cleanup();
      const message = err instanceof Error ? err.message : String(err);
      if (!/EADDRINUSE/.test(message)) break;
    }
  }
  throw lastError;
}
