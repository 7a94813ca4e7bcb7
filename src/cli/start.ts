/**
 * `tributary start`: load the broker config, then run a broker until SIGTERM
 * or SIGINT.
 *
 *   tributary start [--config FILE] [--override key=value ...]
 *   tributary start FILE [--override key=value ...]      (kafka-server-start form)
 *
 * Exit codes: 0 after a graceful shutdown, 2 for a usage or configuration
 * error (reported before anything is bound or written), 1 for a runtime
 * failure. A second signal during shutdown exits at once (128 + signal).
 *
 * The broker module is imported only after the config is valid: a config
 * error never loads (or binds) anything, and the client commands that share
 * this binary do not pay for loading the broker.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { loadBrokerConfig, type BrokerConfig } from '../config/broker.js';
import { createLogger, type Logger } from '../util/log.js';
import { formatEndpoint } from '../config/listeners.js';

export const EXIT_OK = 0;
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

interface StartOptions {
  config?: string;
  override?: Record<string, string>;
  check?: boolean;
  logFormat?: LogFormat;
}

/** How `start` writes its log: readable lines (`pretty`) or one JSON object per line (`json`, for log shippers). */
export type LogFormat = 'json' | 'pretty';

/** commander argParser for `--log-format`. */
export function parseLogFormat(value: string): LogFormat {
  if (value === 'json' || value === 'pretty') return value;
  throw new InvalidArgumentError(`--log-format must be json or pretty, got "${value}"`);
}

/** The format to log in: the flag when given, else pretty on a terminal and JSON otherwise (a pipe, a file, a service manager). */
export function logFormatFor(flag: LogFormat | undefined, stdoutIsTTY: boolean): LogFormat {
  return flag ?? (stdoutIsTTY ? 'pretty' : 'json');
}

/** commander argParser for repeatable `--override key=value`. */
export function collectOverride(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value (for example --override log.retention.hours=24), got "${value}".`);
  return { ...(previous ?? {}), [value.slice(0, eq).trim()]: value.slice(eq + 1) };
}

/** What start needs from the broker module (`startBroker` in src/broker/broker.ts). */
export type StartBrokerFn = (config: BrokerConfig, options: { logger: Logger }) => Promise<{
  stop(reason?: string): Promise<void>;
  boundAddresses: readonly { name: string; host: string; port: number }[];
  /** metrics.listeners as bound; absent or empty when metrics are off. */
  metricsAddresses?: readonly { url: string }[];
}>;

/** Loads the broker module lazily, after the config is known to be valid. */
async function loadStartBroker(): Promise<StartBrokerFn> {
  const { startBroker } = await import('../broker/broker.js');
  return startBroker;
}

/** Called by `start` (the bin writes the start-up bundle's code cache then: bundle-loader.ts). */
export interface StartHooks {
  /** Once the broker serves and the startup line is logged. */
  readonly onStarted?: () => void;
}

export interface StartDeps extends StartHooks {
  /** Replaces the real broker (tests of signal handling and the startup line). */
  readonly startBroker?: StartBrokerFn;
}

export function registerStartCommand(program: Command, deps: StartDeps = {}): void {
  program
    .command('start')
    .description('run a broker (a one-node cluster by default: broker + controller)')
    .argument('[config-file]', 'a server.properties file (same as --config; the kafka-server-start form)')
    .option('-c, --config <file>', 'a Java-properties file with Kafka broker configs')
    .option('-o, --override <key=value>', 'set a config key, over the file (repeatable)', collectOverride)
    .option('--check', 'validate the configuration, print the effective values and exit')
    .option('--log-format <format>', 'json or pretty (default: pretty on a terminal, JSON otherwise)', parseLogFormat)
    .showHelpAfterError('(run "tributary start --help" for usage)')
    .addHelpText('after', `
Examples:
  tributary start                                   one broker on 127.0.0.1:9092, data in ./data
  tributary start --config config/server.properties
  tributary start config/server.properties --override log.retention.hours=24
  tributary start --override listeners=PLAINTEXT://:9092 --override advertised.listeners=PLAINTEXT://myhost:9092
  tributary start --config my.properties --check    validate only

Config keys are Kafka's (log.retention.ms, num.partitions, auto.create.topics.enable...);
see config/server.properties for every supported key with its default.`)
    .action(async (file: string | undefined, options: StartOptions, cmd: Command) => {
      if (file !== undefined && options.config !== undefined && file !== options.config) {
        cmd.error(`error: give the config file once: either "${file}" or --config ${options.config}`, { exitCode: EXIT_USAGE, code: 'tributary.usage' });
      }
      const configFile = options.config ?? file;
      const config = loadOrExit(configFile, options.override ?? {});
      if (options.check === true) {
        printConfig(config);
        return;
      }
      const startBroker: StartBrokerFn = deps.startBroker ?? (async (c, o) => (await loadStartBroker())(c, o));
      await runUntilSignalled(config, startBroker, logFormatFor(options.logFormat, process.stdout.isTTY === true));
      deps.onStarted?.();
    });
}

/** Loads the config; on failure prints every problem and exits 2 (nothing bound yet). */
function loadOrExit(file: string | undefined, overrides: Record<string, string>): BrokerConfig {
  try {
    return loadBrokerConfig({ ...(file === undefined ? {} : { file }), overrides });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`tributary start: ${err.message}\n`);
    process.exit(EXIT_USAGE);
  }
}

function printConfig(config: BrokerConfig): void {
  const lines = config.describe().map((e) => {
    const from = config.sourceOf(e.name).key;
    const note = e.source === 'DEFAULT_CONFIG' ? '' : from === e.name ? '   # set' : `   # from ${from}`;
    return `${e.name}=${e.value ?? ''}${note}`;
  });
  for (const w of config.warnings) lines.push(`# warning: ${w}`);
  process.stdout.write(`# configuration is valid\n${lines.join('\n')}\n`);
}

/** Starts the broker and installs the signal handlers; the broker's sockets keep the process alive until they exit it. */
async function runUntilSignalled(config: BrokerConfig, startBroker: StartBrokerFn, format: LogFormat): Promise<void> {
  const logger = createLogger(config.get('log.level'), { pretty: format === 'pretty' });
  for (const w of config.warnings) logger.warn(w);
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting');
    process.exit(EXIT_RUNTIME);
  });
  const startedMs = performance.now();
  let broker: Awaited<ReturnType<StartBrokerFn>>;
  try {
    broker = await startBroker(config, { logger });
  } catch (err) {
    logger.fatal({ err }, `broker failed to start: ${describeStartError(err)}`);
    process.exit(EXIT_RUNTIME);
  }
  installSignalHandlers(broker, logger);
  const addresses = broker.boundAddresses.map((a) => formatEndpoint(a)).join(', ');
  const metricsUrls = (broker.metricsAddresses ?? []).map((m) => `${m.url}/metrics`);
  const metricsNote = metricsUrls.length > 0 ? `; metrics on ${metricsUrls.join(', ')}` : '';
  logger.info(
    { listeners: broker.boundAddresses, metrics: metricsUrls, dataDir: config.logDirs[0], nodeId: config.nodeId, startupMs: Math.round(performance.now() - startedMs) },
    `Tributary broker ${config.nodeId} listening on ${addresses}; data in ${config.logDirs.join(', ')}${metricsNote}`,
  );
}

function describeStartError(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'EADDRINUSE') return `${message} (another process uses the port: stop it, or change listeners)`;
  if (code === 'EACCES' || code === 'EPERM') return `${message} (no permission: check the data directory and that ports below 1024 are not used)`;
  return message;
}

function installSignalHandlers(broker: { stop(reason?: string): Promise<void> }, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without finishing the shutdown`);
      process.exit(SIGNAL_EXIT[signal] ?? EXIT_RUNTIME);
    }
    stopping = true;
    logger.info(`${signal} received: shutting down (finishing in-flight requests, flushing logs); send it again to exit at once`);
    broker.stop(signal).then(
      () => {
        logger.info('shutdown complete');
        process.exit(EXIT_OK);
      },
      (err: unknown) => {
        logger.fatal({ err }, 'shutdown failed');
        process.exit(EXIT_RUNTIME);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
