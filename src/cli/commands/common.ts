/**
 * Shared pieces of the client commands (topic, produce, consume, group,
 * config, cluster, records): the --bootstrap option (also from
 * TRIBUTARY_BOOTSTRAP), argument parsing with usage errors, examples in
 * --help, error reporting with hints, tables, progress lines, and the exit
 * codes of main.ts:
 *   0 success, 1 runtime failure (broker errors, unreachable broker),
 *   2 usage error (bad option value, missing argument, unknown option).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Admin } from '../../client/admin.js';
import { Cluster, DEFAULT_BOOTSTRAP, parseBootstrap } from '../../client/cluster.js';
import { ClientErrorCode, KafkaProtocolError, TributaryClientError } from '../../net/errors.js';
import type { ConnectionSecurity } from '../../net/connection-options.js';
import { loadCommandConfig } from './command-config.js';

export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
/** Environment variable giving the default of --bootstrap. */
export const BOOTSTRAP_ENV = 'TRIBUTARY_BOOTSTRAP';

export interface CommonOptions {
  bootstrap: string;
  requestTimeoutMs: number;
  /** --command-config: Kafka client properties (security.protocol, sasl.*); command-config.ts. */
  commandConfig?: string | undefined;
}

/**
 * Adds --bootstrap (default: $TRIBUTARY_BOOTSTRAP, else 127.0.0.1:9092) and
 * --request-timeout-ms. Usage errors follow the program's policy (main.ts:
 * exitOverride, commander.* codes exit 2); errors raised here use
 * `usageError(cmd, message)`.
 */
export function withClientOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-b, --bootstrap <host:port[,host:port]>', 'brokers to bootstrap from').env(BOOTSTRAP_ENV).default(DEFAULT_BOOTSTRAP))
    .option('--request-timeout-ms <ms>', 'timeout of each request', positiveInt('--request-timeout-ms'), 30_000)
    .option('--command-config <file>', 'Kafka client properties: security.protocol, sasl.mechanism, sasl.jaas.config, ssl.* (docs/security.md)');
}

/** The connection security the command's --command-config asks for (`{ sasl }`, `{ tls }`, both, or nothing). */
export function clientSecurity(options: CommonOptions): ConnectionSecurity {
  return loadCommandConfig(options.commandConfig);
}

/** Appends an "Examples:" section to the command's --help (one example per line, `$ ` omitted). */
export function withExamples(cmd: Command, examples: readonly string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
}

/** Raises a usage error (exit 2) with the program's policy; never returns. */
export function usageError(cmd: Command, message: string): never {
  cmd.error(`error: ${message}`, { exitCode: EXIT_USAGE, code: 'tributary.usage' });
}

/** commander argParser for repeatable options. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** commander argParser: a positive integer. */
export function positiveInt(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer.`);
    return n;
  };
}

/** commander argParser: an integer >= 0. */
export function nonNegativeInt(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${flag} must be an integer >= 0.`);
    return n;
  };
}

/** commander argParser: one of the given choices. */
export function choice<T extends string>(flag: string, choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`${flag} must be one of ${choices.join(', ')}.`);
    return value as T;
  };
}

/** commander argParser for repeatable `k=v` options. */
export function collectKeyValue(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${value}'.`);
  return { ...(previous ?? {}), [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** Validates --bootstrap early so that a typo is a usage error, not a connection error. */
export function checkBootstrap(cmd: Command, bootstrap: string): void {
  try {
    parseBootstrap(bootstrap);
  } catch (err) {
    usageError(cmd, (err as Error).message);
  }
}

export async function connectCluster(options: CommonOptions): Promise<Cluster> {
  return Cluster.connect({ bootstrap: options.bootstrap, requestTimeoutMs: options.requestTimeoutMs, clientId: 'tributary-cli', ...clientSecurity(options) });
}

/** Runs `body` with an Admin client (closed afterwards) under `run`'s error policy. */
export async function withAdmin(options: CommonOptions, body: (admin: Admin) => Promise<void>): Promise<void> {
  await run(
    async () => {
      const admin = new Admin(await connectCluster(options));
      try {
        await body(admin);
      } finally {
        await admin.close();
      }
    },
    { bootstrap: options.bootstrap },
  );
}

/**
 * Runs a command body: runtime errors are printed with a hint and set exit
 * code 1. Never calls process.exit, so stdout is flushed.
 */
export async function run(body: () => Promise<void>, context: { bootstrap?: string } = {}): Promise<void> {
  try {
    await body();
  } catch (err) {
    reportError(err, context);
    process.exitCode = EXIT_RUNTIME;
  }
}

export function reportError(err: unknown, context: { bootstrap?: string } = {}): void {
  process.stderr.write(`${formatError(err, context)}\n`);
}

export function formatError(err: unknown, context: { bootstrap?: string } = {}): string {
  if (err instanceof KafkaProtocolError) {
    const hint = KAFKA_HINTS[err.errorName];
    return `error: ${err.message}${hint === undefined ? '' : `\n  hint: ${hint}`}`;
  }
  if (err instanceof TributaryClientError) {
    const hint = clientHint(err.code, context.bootstrap);
    return `error: ${err.message}${hint === undefined ? '' : `\n  hint: ${hint}`}`;
  }
  if (err instanceof Error) return `error: ${err.message}`;
  return `error: ${String(err)}`;
}

const KAFKA_HINTS: Readonly<Record<string, string>> = {
  TOPIC_ALREADY_EXISTS: 'choose another name, or delete the topic first with `tributary topic delete NAME`',
  UNKNOWN_TOPIC_OR_PARTITION: 'check the topic and partition with `tributary topic describe NAME`; create topics with `tributary topic create NAME`',
  UNKNOWN_TOPIC_ID: 'the topic was deleted or recreated; check with `tributary topic list`',
  LEADER_NOT_AVAILABLE: 'the partition has no leader yet (the topic may still be being created); retry in a moment',
  NOT_LEADER_OR_FOLLOWER: 'leadership moved and retries ran out; retry in a moment',
  INVALID_PARTITIONS: 'use --partitions with a value of 1 or more (and more than the current count when adding partitions)',
  INVALID_REPLICATION_FACTOR: 'use a --replication-factor no larger than the number of live brokers (`tributary cluster status` lists them)',
  INVALID_CONFIG: 'check the key and value named above; `tributary config describe --topic T --all` (or --broker ID) lists the keys with their current values',
  INVALID_TOPIC_EXCEPTION: 'topic names use 1-249 characters from [a-zA-Z0-9._-]',
  TOPIC_DELETION_DISABLED: 'set delete.topic.enable=true on the broker',
  OFFSET_OUT_OF_RANGE: 'use an offset between the partition\'s log start and its high watermark (consume: --offset earliest or latest; records delete: --all)',
  MESSAGE_TOO_LARGE: 'lower --batch-size or raise max.message.bytes on the topic',
  RECORD_LIST_TOO_LARGE: 'lower --batch-size or raise max.message.bytes on the topic',
  UNSUPPORTED_COMPRESSION_TYPE: 'choose another --compression',
  NOT_ENOUGH_REPLICAS: 'fewer in-sync replicas than min.insync.replicas; use --acks 1 or bring brokers back',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'fewer in-sync replicas than min.insync.replicas; use --acks 1 or bring brokers back',
  INVALID_REQUIRED_ACKS: 'use --acks 0, 1 or -1',
  REQUEST_TIMED_OUT: 'the broker did not finish in time; check its logs and retry',
  POLICY_VIOLATION: 'the broker policy rejected the request; see its message above',
  TOPIC_AUTHORIZATION_FAILED: 'the principal is not allowed to use this topic (ACLs)',
  CLUSTER_AUTHORIZATION_FAILED: 'the principal is not allowed to do this on the cluster (ACLs)',
  UNSUPPORTED_VERSION: 'the broker does not support this request version; upgrade the broker',
  NON_EMPTY_GROUP: 'the group has active members: stop the consumers first',
  GROUP_ID_NOT_FOUND: 'check the group id with `tributary group list`',
  UNKNOWN_MEMBER_ID: 'the group has active members (or this member was removed): stop the consumers first, or rejoin',
  COORDINATOR_NOT_AVAILABLE: 'the group coordinator is not available yet; retry in a moment',
  NOT_COORDINATOR: 'the group coordinator moved and retries ran out; retry in a moment',
  COORDINATOR_LOAD_IN_PROGRESS: 'the broker is still loading its groups; retry in a moment',
  INCONSISTENT_GROUP_PROTOCOL: 'the members of the group use different assignors or protocol types; use the same assignor in every member',
  GROUP_SUBSCRIBED_TO_TOPIC: 'the group still consumes this topic: stop the consumers first',
  GROUP_AUTHORIZATION_FAILED: 'the principal is not allowed to use this group (ACLs)',
  INVALID_REQUEST: 'the broker refused the request as malformed; see its message above',
  ELECTION_NOT_NEEDED: 'the preferred leader already leads the partition',
  PREFERRED_LEADER_NOT_AVAILABLE: 'the preferred replica is not alive or not in sync; bring it back and retry',
  ELIGIBLE_LEADERS_NOT_AVAILABLE: 'no replica can lead the partition; bring a replica back and retry',
  INVALID_REPLICA_ASSIGNMENT: 'check the replica list: registered brokers, none twice (`tributary cluster describe` lists them)',
  NO_REASSIGNMENT_IN_PROGRESS: 'there is no reassignment of this partition to cancel',
};

function clientHint(code: string, bootstrap: string | undefined): string | undefined {
  const where = bootstrap === undefined ? '' : ` at ${bootstrap}`;
  switch (code) {
    case ClientErrorCode.NO_BROKERS:
    case ClientErrorCode.CONNECTION:
    case ClientErrorCode.CONNECTION_TIMEOUT:
      return `is a broker running${where}? Start one with \`tributary start\`, or pass --bootstrap host:port`;
    case ClientErrorCode.CONNECTION_CLOSED:
      return 'the broker closed the connection; check its logs and retry';
    case ClientErrorCode.REQUEST_TIMEOUT:
      return 'the broker did not answer in time; check its logs, or raise --request-timeout-ms';
    case ClientErrorCode.UNSUPPORTED_VERSION:
      return 'the broker is too old (or too new) for this client';
    case ClientErrorCode.PROTOCOL:
    case ClientErrorCode.RESPONSE_TOO_LARGE:
      return `is${where} really a Kafka broker? the response did not parse`;
    default:
      return undefined;
  }
}

/** Left-aligned columns separated by two spaces; the header is uppercase. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** JSON.stringify that writes bigints as numbers when safe, else strings. */
export function toJson(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
      if (v instanceof KafkaProtocolError) return v.errorName;
      return v;
    },
    space,
  );
}

/** Writes to stdout, waiting for drain when the pipe is full. */
export async function writeOut(text: string): Promise<void> {
  if (!process.stdout.write(text)) {
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        process.stdout.off('error', onError);
        resolve();
      };
      const onError = (err: Error): void => {
        process.stdout.off('drain', onDrain);
        reject(err);
      };
      process.stdout.once('drain', onDrain);
      process.stdout.once('error', onError);
    });
  }
}


/** A progress line on stderr: refreshed in place on a TTY, one line per update otherwise. */
export class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private shown = false;

  constructor(private readonly enabled: boolean) {}

  show(text: string): void {
    if (!this.enabled) return;
    this.shown = true;
    if (this.tty) process.stderr.write(`\r${text}\u001b[K`);
    else process.stderr.write(`${text}\n`);
  }

  done(): void {
    if (this.tty && this.shown) process.stderr.write('\r\u001b[K');
  }
}
