/**
 * Runs external tools (kcat, /usr/bin/python3) as bounded child processes.
 * A run that exceeds its timeout is SIGKILLed (that child only) and rejects
 * with everything it printed, so a hung client never hangs the suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { repoRoot } from './broker-process.js';

export const KCAT = process.env['KCAT'] ?? '/usr/bin/kcat';
/** The Debian python that has python3-confluent-kafka and python3-kafka (not the pyenv one on PATH). */
export const PYTHON = process.env['TRIBUTARY_PYTHON'] ?? '/usr/bin/python3';
export const COMPAT_PY_DIR = join(repoRoot, 'test', 'compat', 'py');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface RunOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Resolve even when the exit code is not 0 (default: reject). */
  allowFailure?: boolean;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
});

export class RunError extends Error {
  constructor(
    message: string,
    readonly result: RunResult,
  ) {
    super(message);
  }
}

function describe(cmd: string, args: readonly string[]): string {
  return [cmd, ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))].join(' ');
}

export function run(cmd: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      running.delete(child);
      reject(new Error(`cannot run ${describe(cmd, args)}: ${e.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const stdoutBytes = Buffer.concat(out);
      const result: RunResult = { code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes };
      const shown = `\n$ ${describe(cmd, args)}\n--- stdout (tail):\n${result.stdout.slice(-4000)}\n--- stderr (tail):\n${result.stderr.slice(-6000)}`;
      if (timedOut) reject(new RunError(`timed out after ${timeoutMs} ms${shown}`, result));
      else if (code !== 0 && options.allowFailure !== true) reject(new RunError(`exit code=${code} signal=${signal}${shown}`, result));
      else resolve(result);
    });
    child.stdin.on('error', () => {
      // the tool may exit before reading all input; its exit status tells the story
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/**
 * Runs `script command` with /usr/bin/python3, the JSON args on stdin (argv has
 * a 128 KiB limit per argument), and parses the JSON it prints last. A relative
 * script path is taken from test/compat/py.
 */
export async function runPythonJson<T>(script: string, command: string, args: unknown, options: RunOptions = {}): Promise<T> {
  const path = isAbsolute(script) ? script : join(COMPAT_PY_DIR, script);
  const result = await run(PYTHON, [path, command], { ...options, input: JSON.stringify(args) });
  const lines = result.stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  try {
    return JSON.parse(last) as T;
  } catch {
    throw new Error(`python ${script} did not print JSON last:\n${result.stdout.slice(-4000)}\n--- stderr:\n${result.stderr.slice(-4000)}`);
  }
}
