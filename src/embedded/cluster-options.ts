/**
 * The options of `startCluster`, their defaults and their checks. Checked in
 * the caller's thread before anything starts: a wrong option rejects with
 * ERR_TRIB_EMBEDDED_INVALID_OPTIONS and leaves nothing behind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import type { LogLevel } from '../config/broker-defs.js';
import { NODES_MAX } from './cluster-plan.js';
import { EmbeddedError, EmbeddedErrorCode } from './errors.js';
import type { Isolation } from './host-process.js';

export const START_TIMEOUT_MS_DEFAULT = 30_000;
export const STOP_TIMEOUT_MS_DEFAULT = 15_000;
/** Quiet by default: tests print their own output; warnings and errors still show. */
export const LOG_LEVEL_DEFAULT: LogLevel = 'warn';
const TEMP_DIR_PREFIX = 'tributary-embedded-';
/** Keys the launcher sets per node in a multi-node cluster. */
const PLANNED_KEYS = ['listeners', 'node.id', 'process.roles', 'controller.quorum.voters', 'controller.listener.names', 'cluster.id'];

/** Options of `startCluster`. */
export interface StartClusterOptions {
  /** Number of brokers (1-9, default 1). More than one starts a real multi-node cluster (topics are replication factor 1 for now). */
  brokers?: number;
  /** How many of the brokers are also controllers (voters of the metadata quorum), the rest broker-only. Default: all of them; with several brokers, at least 2. */
  controllers?: number;
  /** server.properties overrides for every broker, by Kafka name: `{ 'num.partitions': '3' }`. Numbers and booleans are stringified. */
  config?: Readonly<Record<string, string | number | boolean>>;
  /** Use (and keep) this data directory. Default: a fresh temporary one, removed by stop(). With several brokers, node i keeps its data in `<dataDir>/node-<i>`. */
  dataDir?: string;
  /** Keep the temporary data directory after stop() (to inspect it). */
  keepData?: boolean;
  /** The broker's log level (pino), written to stderr. Default 'warn'; same as config['log.level']. */
  logLevel?: LogLevel;
  /** 'worker' (default): worker threads, fastest to start. 'process': child processes, which a crash, kill() or `restart({ hard: true })` ends alone. */
  isolation?: Isolation;
  /** Fail if the cluster is not ready within this long (default 30 s). */
  startTimeoutMs?: number;
  /** stop() waits this long for a graceful shutdown, then kills (default 15 s). */
  stopTimeoutMs?: number;
  /** Keep the caller's process alive while the brokers run (a dev script); default false (tests). */
  keepAlive?: boolean;
}

export interface ResolvedOptions {
  readonly brokers: number;
  readonly controllers: number;
  readonly isolation: Isolation;
  /** Every node's config over the planned keys (log.level, the caller's config). */
  readonly config: Record<string, string>;
  readonly dataDir: string;
  readonly removeDataDir: boolean;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly keepAlive: boolean;
}

function invalid(message: string): EmbeddedError {
  return new EmbeddedError(EmbeddedErrorCode.INVALID_OPTIONS, `startCluster: ${message}`);
}

function isPositiveTimeout(v: number): boolean {
  return Number.isFinite(v) && v > 0;
}

function count(name: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(`${name} must be an integer from 1 to ${max}, got ${String(value)}`);
  }
  return value;
}

function stringConfig(config: StartClusterOptions['config'], multiNode: boolean): Record<string, string> {
  const given: Record<string, string> = {};
  for (const [key, value] of Object.entries(config ?? {})) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`config["${key}"] must be a string, number or boolean, got ${value === null ? 'null' : typeof value}`);
    }
    given[key] = String(value);
  }
  for (const key of ['log.dirs', 'log.dir']) {
    if (key in given) throw invalid(`config["${key}"]: use the dataDir option instead (startCluster owns log.dirs)`);
  }
  if (multiNode) {
    for (const key of PLANNED_KEYS) if (key in given) throw invalid(`config["${key}"]: startCluster sets it for each node of a multi-broker cluster`);
  }
  return given;
}

export function resolveOptions(options: StartClusterOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const brokers = count('brokers', options.brokers ?? 1, NODES_MAX);
  const controllers = count('controllers', options.controllers ?? brokers, brokers);
  if (brokers > 1 && controllers === 1) {
    // A node that is the only voter runs its quorum in-process, without a controller listener, so other nodes could not register.
    throw invalid('controllers: 1 with more brokers is not supported: a lone controller serves no controller listener; use controllers: 2 or more');
  }
  const isolation = options.isolation ?? 'worker';
  if (isolation !== 'worker' && isolation !== 'process') throw invalid(`isolation must be 'worker' or 'process', got ${JSON.stringify(isolation)}`);
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS_DEFAULT;
  if (!isPositiveTimeout(startTimeoutMs)) throw invalid(`startTimeoutMs must be a positive number of milliseconds, got ${String(startTimeoutMs)}`);
  const stopTimeoutMs = options.stopTimeoutMs ?? STOP_TIMEOUT_MS_DEFAULT;
  if (!isPositiveTimeout(stopTimeoutMs)) throw invalid(`stopTimeoutMs must be a positive number of milliseconds, got ${String(stopTimeoutMs)}`);
  const given = stringConfig(options.config, brokers > 1);
  const removeDataDir = options.dataDir === undefined && options.keepData !== true;
  const dataDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), TEMP_DIR_PREFIX)) : resolvePath(options.dataDir);
  const config: Record<string, string> = {
    'log.level': LOG_LEVEL_DEFAULT,
    ...given,
    ...(options.logLevel === undefined ? {} : { 'log.level': options.logLevel }),
  };
  return { brokers, controllers, isolation, config, dataDir, removeDataDir, startTimeoutMs, stopTimeoutMs, keepAlive: options.keepAlive === true };
}
