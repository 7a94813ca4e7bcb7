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

/** Runs a PostgreSQL binary as the server user, to completion; throws with its output on failure. */
function runAs(id: { uid: number; gid: number } | null, bin: string, args: string[]): void {
  try {
    execFileSync(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(id ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`${bin} failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
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
  runAs(id, join(bin, 'initdb'), ['-D', data, '-U', PG_USER, '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']);
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost replication all 127.0.0.1/32 scram-sha-256\n');
  const port = await freePort();
  const host = '127.0.0.1';
  let child: ChildProcess | null = null;
  let output = '';

  const start = async (): Promise<void> => {
    if (child !== null && child.exitCode === null) return; // already running
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', `listen_addresses=${host}`, '-c', 'wal_level=logical', '-c', 'max_wal_senders=10', '-c', 'max_replication_slots=10', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
    const proc = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...(id ?? {}) });
    child = proc;
    const keep = (b: Buffer): void => {
      output = (output + b.toString()).slice(-OUTPUT_MAX);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode} on start:\n${output}`);
      const c = new pg.Client({ host, port, user: PG_USER, password: PG_PASSWORD, database: 'postgres' });
      try {
        await c.connect();
        await c.end();
        return;
      } catch {
        await c.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (proc === null || proc.exitCode !== null || proc.pid === undefined) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    process.kill(proc.pid, 'SIGINT'); // fast shutdown: disconnects clients, as a server going away
    const timer = setTimeout(() => proc.pid !== undefined && proc.exitCode === null && process.kill(proc.pid, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  const url = `postgres://${PG_USER}:${PG_PASSWORD}@${host}:${port}/postgres`;
  const client = async (database = 'postgres'): Promise<pg.Client> => {
    const c = new pg.Client({ host, port, user: PG_USER, password: PG_PASSWORD, database });
    await c.connect();
    return c;
  };
  const server: PostgresServer = {
    host,
    port,
    url,
    jdbcUrl: `jdbc:postgresql://${host}:${port}/postgres`,
    client,
    sql: async (text, params) => {
      const c = await client();
      try {
        return await c.query(text, params);
      } finally {
        await c.end();
      }
    },
    stop,
    start,
    cleanup: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  process.once('exit', () => {
    const proc = child as ChildProcess | null;
    if (proc?.pid !== undefined && proc.exitCode === null) process.kill(proc.pid, 'SIGKILL');
  });
  await start();
  return server;
}
