/**
 * A real PostgreSQL server for tests, from the Debian `postgresql` package
 * (binaries under /usr/lib/postgresql/<version>/bin; PG_BIN overrides).
 *
 *   const pg = await startPostgres();   // free loopback port, fresh temp dir, wal_level=logical
 *   t.after(() => pg.cleanup());         // stops the server by PID, removes the dir
 *   await pg.stop(); await pg.start();   // same port, same data: a server that goes away and comes back
 *
 * PostgreSQL refuses to run as root, and CI runs as root: the server then
 * runs as `nobody` (or a `tributary-pg` user created when `nobody` is
 * missing) through spawn's uid/gid, in a temp dir owned by that user. The
 * superuser is `postgres` with password `secret` over TCP (scram-sha-256),
 * so connectors' user/password settings are really exercised.
 *
 * Without the binaries this throws: a test that needs PostgreSQL fails
 * loudly instead of skipping (the package is in .ci/run's apt list).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/embedded/probe.js';

export const PG_USER = 'postgres';
export const PG_PASSWORD = 'secret';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_MAX = 64 * 1024;

/** A running (or stopped) test PostgreSQL server. */
export interface PostgresServer {
  readonly host: string;
  readonly port: number;
  /** `postgres://postgres:secret@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** `jdbc:postgresql://127.0.0.1:<port>/postgres` */
  readonly jdbcUrl: string;
  /** A new connected client (the caller ends it). */
  client(database?: string): Promise<pg.Client>;
  /** Runs one SQL text on a short-lived connection. */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
  start(): Promise<void>;
  cleanup(): Promise<void>;
}

/** The bin directory of the newest installed PostgreSQL, or throws saying how to install it. */
export function postgresBinDir(): string {
  const env = process.env.PG_BIN;
  if (env !== undefined && env !== '') return env;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error('PostgreSQL is not installed: these tests need the Debian postgresql package (apt-get install -y postgresql) or PG_BIN set to its bin directory');
  return join(root, versions[0], 'bin');
}

/** uid/gid to run the server as: ourselves when not root, else nobody (or a created tributary-pg user). */
function serverIdentity(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const lookup = (name: string): { uid: number; gid: number } | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
      const gid = Number(execFileSync('id', ['-g', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup('nobody') ?? lookup('tributary-pg');
  if (found !== null) return found;
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'tributary-pg']);
  const created = lookup('tributary-pg');
  if (created === null) throw new Error('cannot find or create a non-root user to run PostgreSQL');
  return created;
}

/** Runs a PostgreSQL binary as the server user in cwd (a directory it owns), to completion; throws with its output on failure. */
function runAs(id: { uid: number; gid: number } | null, bin: string, args: string[], cwd: string): void {
  try {
    execFileSync(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(id ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`${bin} failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  }
}

/** The server process on one data dir and port: started, stopped by PID, started again. */
class PostgresProcess implements PostgresServer {
  readonly host = '127.0.0.1';
  private child: ChildProcess | null = null;
  private output = '';

  constructor(
    private readonly bin: string,
    private readonly id: { uid: number; gid: number } | null,
    private readonly dir: string,
    readonly port: number,
  ) {
    process.once('exit', () => {
      const proc = this.child;
      if (proc?.pid !== undefined && proc.exitCode === null) process.kill(proc.pid, 'SIGKILL');
    });
  }

  get url(): string {
    return `postgres://${PG_USER}:${PG_PASSWORD}@${this.host}:${this.port}/postgres`;
  }

  get jdbcUrl(): string {
    return `jdbc:postgresql://${this.host}:${this.port}/postgres`;
  }

  async client(database = 'postgres'): Promise<pg.Client> {
    const c = new pg.Client({ host: this.host, port: this.port, user: PG_USER, password: PG_PASSWORD, database });
    try {
      await c.connect();
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    return c;
  }

  async sql(text: string, params?: unknown[]): Promise<pg.QueryResult> {
    const c = await this.client();
    try {
      return await c.query(text, params);
    } finally {
      await c.end();
    }
  }

  /** Starts the server (a no-op while it runs) and waits until it accepts connections. */
  async start(): Promise<void> {
    if (this.child !== null && this.child.exitCode === null) return;
    const settings = [`listen_addresses=${this.host}`, 'wal_level=logical', 'max_wal_senders=10', 'max_replication_slots=10', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
    const args = ['-D', join(this.dir, 'data'), '-p', String(this.port), '-k', this.dir, ...settings.flatMap((x) => ['-c', x])];
    // cwd: the server user may not enter the caller's directory (CI clones under /root).
    const proc = spawn(join(this.bin, 'postgres'), args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'], ...(this.id ?? {}) });
    this.child = proc;
    const keep = (b: Buffer): void => {
      this.output = (this.output + b.toString()).slice(-OUTPUT_MAX);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode} on start:\n${this.output}`);
      const ok = await this.client().then(
        (c) => c.end().then(() => true),
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Fast shutdown (SIGINT to its PID: clients are disconnected, as when a server goes away); SIGKILL after STOP_TIMEOUT_MS. */
  async stop(): Promise<void> {
    const proc = this.child;
    this.child = null;
    if (proc === null || proc.exitCode !== null || proc.pid === undefined) return;
    const pid = proc.pid;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    process.kill(pid, 'SIGINT');
    const timer = setTimeout(() => proc.exitCode === null && process.kill(pid, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  async cleanup(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** initdb in a fresh temp dir and starts the server on a free loopback port with wal_level=logical. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const id = serverIdentity();
  const dir = mkdtempSync(join(tmpdir(), 'tributary-pg-'));
  chmodSync(dir, 0o700);
  if (id !== null) chownSync(dir, id.uid, id.gid);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, PG_PASSWORD + '\n');
  if (id !== null) chownSync(pwfile, id.uid, id.gid);
  runAs(id, join(bin, 'initdb'), ['-D', data, '-U', PG_USER, '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync'], dir);
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost replication all 127.0.0.1/32 scram-sha-256\n');
  const server = new PostgresProcess(bin, id, dir, await freePort());
  try {
    await server.start();
  } catch (err) {
    await server.cleanup();
    throw err;
  }
  return server;
}
