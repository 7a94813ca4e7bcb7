/**
 * Connecting to PostgreSQL: the connection settings of the JDBC-style
 * connectors (`connection.url` as `jdbc:postgresql://host:port/db?user=..`
 * or `postgres://user:pw@host:port/db`, with `connection.user` and
 * `connection.password` taking precedence), which errors mean the server
 * went away (worth a retry) rather than a bad statement, and a retry budget
 * bounded by the connector's `errors.retry.timeout.ms` with backoff capped
 * by `errors.retry.delay.max.ms`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { invalidValue } from '../config-def.js';
import { ConnectError } from '../spi.js';

/** Where and as whom to connect. */
export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string | undefined;
  password: string | undefined;
}

/** Reads `connection.url` (jdbc:postgresql:// or postgres[ql]://) with user/password overrides; throws ConfigException on a bad URL. */
export function parseConnectionUrl(url: string, user: string | null, password: string | null, key = 'connection.url'): PgTarget {
  const text = url.startsWith('jdbc:') ? url.slice('jdbc:'.length) : url;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw invalidValue(key, url, 'expected jdbc:postgresql://host:port/database or postgres://user:password@host:port/database');
  }
  if (!['postgresql:', 'postgres:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw invalidValue(key, url, 'expected jdbc:postgresql://host:port/database or postgres://user:password@host:port/database');
  }
  const q = parsed.searchParams;
  const pick = (override: string | null, fromUrl: string, param: string | null): string | undefined => (override !== null && override !== '' ? override : fromUrl !== '' ? decodeURIComponent(fromUrl) : (param ?? undefined));
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres',
    user: pick(user, parsed.username, q.get('user')),
    password: pick(password, parsed.password, q.get('password')),
  };
}

/** The pg client config for a target: UTC session time zone, ISO dates, hex bytea, every value as text (our own decoder reads it). */
export function clientConfig(t: PgTarget, extra: Partial<pg.ClientConfig> = {}): pg.ClientConfig {
  const config: pg.ClientConfig = {
    host: t.host,
    port: t.port,
    database: t.database,
    connectionTimeoutMillis: 10_000,
    options: '-c TimeZone=UTC -c DateStyle=ISO -c bytea_output=hex -c extra_float_digits=3',
    types: { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig,
    ...extra,
  };
  if (t.user !== undefined) config.user = t.user;
  if (t.password !== undefined) config.password = t.password;
  return config;
}

/** Connects a new client; the caller ends it. An 'error' event (server gone) is kept off the process: the next query fails instead. */
export async function connect(t: PgTarget, extra: Partial<pg.ClientConfig> = {}): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(t, extra));
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** True when an error means the connection or server is gone (class 08, shutdown 57P0x, socket errors), not a bad statement. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
  }
  return /Connection terminated|Client has encountered a connection error|not queryable|timeout expired|Connection ended/i.test(err.message);
}

/** `host:port/database` for messages. */
export function describeTarget(t: PgTarget): string {
  return `${t.host}:${t.port}/${t.database}`;
}

/** Retries an operation that fails with a connection error until `errors.retry.timeout.ms` runs out, then throws a ConnectError naming the server. */
export class ConnectionRetry {
  readonly timeoutMs: number;
  readonly delayMaxMs: number;

  constructor(
    props: Readonly<Record<string, string>>,
    private readonly target: PgTarget,
    private readonly stopped: () => boolean,
    private readonly log: (m: string) => void = () => undefined,
  ) {
    this.timeoutMs = Number(props['errors.retry.timeout.ms'] ?? '0');
    this.delayMaxMs = Number(props['errors.retry.delay.max.ms'] ?? '60000');
  }

  /** Runs op; on a connection error calls `reset` and tries again with a doubling backoff, while the budget lasts. */
  async run<T>(what: string, op: () => Promise<T>, reset: () => Promise<void>): Promise<T> {
    const deadline = this.timeoutMs < 0 ? Infinity : Date.now() + this.timeoutMs;
    let backoffMs = 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (!isConnectionError(err)) throw err;
        await reset().catch(() => undefined);
        const waitMs = Math.min(backoffMs, this.delayMaxMs, deadline - Date.now());
        if (waitMs <= 0 || this.stopped()) {
          throw new ConnectError(`PostgreSQL at ${describeTarget(this.target)} unavailable while trying to ${what}: gave up after ${attempt} attempt(s) (errors.retry.timeout.ms=${this.timeoutMs}): ${(err as Error).message}`, { cause: err });
        }
        this.log(`PostgreSQL at ${describeTarget(this.target)} unavailable while trying to ${what} (attempt ${attempt}): ${(err as Error).message}; retrying in ${waitMs} ms`);
        await sleep(waitMs);
        backoffMs *= 2;
      }
    }
  }
}

/** A SQL identifier, quoted ("a""b"); a dotted name is quoted part by part. */
export function quoteIdent(name: string): string {
  return name
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');
}

/** Splits `schema.table` (default schema public). */
export function splitTableName(name: string): { schema: string; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: 'public', table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}
