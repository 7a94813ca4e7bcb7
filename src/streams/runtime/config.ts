/**
 * The KafkaStreams config (Kafka's StreamsConfig names in camelCase) and
 * its check, with Kafka's defaults (commit.interval.ms is 100 under
 * exactly_once_v2, 30000 otherwise).
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import type { DeserializationExceptionHandler } from './stream-task.js';

/** Kafka's processing guarantees. */
export type ProcessingGuarantee = 'at_least_once' | 'exactly_once_v2';

/** What a production exception handler decides (Kafka's ProductionExceptionHandlerResponse). */
export type ProductionHandlerResponse = 'CONTINUE' | 'FAIL';

/** Called when a record the topology wrote could not be produced. */
export type ProductionExceptionHandler = (error: unknown, record: { topic: string; key: Buffer | null; value: Buffer | null }) => ProductionHandlerResponse;

/** Log lines of the runtime (start-up, restoration progress, skipped records). */
export type StreamsLogger = (level: 'info' | 'warn' | 'error', message: string) => void;

/** The config of a KafkaStreams instance. */
export interface StreamsConfig {
  /** The consumer group, and the prefix of internal topics (`<applicationId>-...`). */
  applicationId: string;
  /** 'host:port[,host:port]'. */
  bootstrapServers: string;
  /**
   * Default 'at_least_once'. 'exactly_once_v2' (KIP-447): one transactional
   * producer per stream thread, input offsets committed in its transactions,
   * consumers and restoration read_committed.
   */
  processingGuarantee?: ProcessingGuarantee;
  /** Where persistent state lives (default ./streams-state); the built-in stores of this version are in memory. */
  stateDir?: string;
  /** How often offsets are committed after flushing output and stores (default 30000, or 100 under exactly_once_v2, as Kafka). */
  commitIntervalMs?: number;
  /** Record cache of the caching stores, per thread (Kafka's `statestore.cache.max.bytes`, default 10 MiB; 0 disables caching). */
  statestoreCacheMaxBytes?: number;
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
  /** Replication factor of the internal topics (default: the broker's default). */
  replicationFactor?: number;
  /** 'logAndFail' (default), 'logAndContinue', or your own handler. */
  deserializationExceptionHandler?: 'logAndFail' | 'logAndContinue' | DeserializationExceptionHandler;
  /** 'fail' (default) or 'continue' (log and drop the record), or your own handler. */
  productionExceptionHandler?: 'fail' | 'continue' | ProductionExceptionHandler;
  /** Consumer group session timeout (default the consumer's). */
  sessionTimeoutMs?: number;
  /** How often wall-clock punctuations are checked (default 100). */
  wallClockTickMs?: number;
  /** Where log lines go (default stderr). */
  logger?: StreamsLogger;
  /** Standby replicas per stateful task, on other instances (Kafka's num.standby.replicas; default 0). */
  numStandbyReplicas?: number;
  /** 'host:port' where this instance answers interactive queries (Kafka's application.server), shared through the assignment. */
  applicationServer?: string;
  /**
   * Kafka's num.stream.threads. Only 1 in this version: measured, a second
   * stream thread (a second consumer and producer in worker_threads) does not
   * pay off here; run more instances instead (docs/streams.md, "Threads").
   */
  numStreamThreads?: number;
}

/** The config with defaults applied (internal). */
export interface ResolvedConfig extends Required<Omit<StreamsConfig, 'defaultKeySerde' | 'defaultValueSerde' | 'replicationFactor' | 'sessionTimeoutMs' | 'deserializationExceptionHandler' | 'productionExceptionHandler' | 'applicationServer'>> {
  applicationServer: string | null;
  defaultKeySerde: Serde<unknown> | undefined;
  defaultValueSerde: Serde<unknown> | undefined;
  replicationFactor: number | undefined;
  sessionTimeoutMs: number | undefined;
  onDeserializationError: DeserializationExceptionHandler;
  onProductionError: ProductionExceptionHandler;
}

export const COMMIT_INTERVAL_MS_DEFAULT = 30_000;
/** Kafka Streams' commit.interval.ms under exactly-once: output becomes visible to read_committed readers at each commit. */
export const EOS_COMMIT_INTERVAL_MS_DEFAULT = 100;
/** Kafka's default `statestore.cache.max.bytes`. */
export const STATESTORE_CACHE_MAX_BYTES_DEFAULT = 10 * 1024 * 1024;
const WALL_CLOCK_TICK_MS_DEFAULT = 100;

const stderrLogger: StreamsLogger = (level, message) => void process.stderr.write(`[streams ${level}] ${message}\n`);

export function resolveConfig(config: StreamsConfig): ResolvedConfig {
  if (typeof config.applicationId !== 'string' || !/^[A-Za-z0-9._-]+$/.test(config.applicationId)) {
    throw configError(`applicationId must be a non-empty topic-name-safe string (letters, digits, '.', '_', '-'), got '${String(config.applicationId)}'`);
  }
  if (typeof config.bootstrapServers !== 'string' || config.bootstrapServers === '') throw configError('bootstrapServers is required');
  const guarantee = config.processingGuarantee ?? 'at_least_once';
  if (guarantee !== 'at_least_once' && guarantee !== 'exactly_once_v2') throw configError(`processingGuarantee must be 'at_least_once' or 'exactly_once_v2', got '${String(guarantee)}'`);
  const commitIntervalMs = config.commitIntervalMs ?? (guarantee === 'exactly_once_v2' ? EOS_COMMIT_INTERVAL_MS_DEFAULT : COMMIT_INTERVAL_MS_DEFAULT);
  if (!Number.isInteger(commitIntervalMs) || commitIntervalMs < 1) throw configError(`commitIntervalMs must be a positive integer, got ${commitIntervalMs}`);
  const logger = config.logger ?? stderrLogger;
  const statestoreCacheMaxBytes = config.statestoreCacheMaxBytes ?? STATESTORE_CACHE_MAX_BYTES_DEFAULT;
  if (!Number.isInteger(statestoreCacheMaxBytes) || statestoreCacheMaxBytes < 0) throw configError(`statestoreCacheMaxBytes must be a non-negative integer, got ${statestoreCacheMaxBytes}`);
  const numStandbyReplicas = config.numStandbyReplicas ?? 0;
  if (!Number.isInteger(numStandbyReplicas) || numStandbyReplicas < 0) throw configError(`numStandbyReplicas must be a non-negative integer, got ${numStandbyReplicas}`);
  const applicationServer = config.applicationServer ?? null;
  if (applicationServer !== null && parseHostInfo(applicationServer) === null) throw configError(`applicationServer must be 'host:port', got '${applicationServer}'`);
  const numStreamThreads = config.numStreamThreads ?? 1;
  if (numStreamThreads !== 1) throw configError(`numStreamThreads must be 1 in this version, got ${numStreamThreads}: one stream thread per process measured as fast as two (docs/streams.md, "Threads"); run more instances instead`);
  return {
    statestoreCacheMaxBytes,
    numStandbyReplicas,
    applicationServer,
    numStreamThreads,
    applicationId: config.applicationId,
    bootstrapServers: config.bootstrapServers,
    processingGuarantee: guarantee,
    stateDir: config.stateDir ?? './streams-state',
    commitIntervalMs,
    wallClockTickMs: config.wallClockTickMs ?? WALL_CLOCK_TICK_MS_DEFAULT,
    defaultKeySerde: config.defaultKeySerde,
    defaultValueSerde: config.defaultValueSerde,
    replicationFactor: config.replicationFactor,
    sessionTimeoutMs: config.sessionTimeoutMs,
    logger,
    onDeserializationError: deserializationHandler(config.deserializationExceptionHandler, logger),
    onProductionError: productionHandler(config.productionExceptionHandler, logger),
  };
}

function deserializationHandler(option: StreamsConfig['deserializationExceptionHandler'], log: StreamsLogger): DeserializationExceptionHandler {
  if (typeof option === 'function') return option;
  const response = option === 'logAndContinue' ? 'CONTINUE' : 'FAIL';
  return (err, record) => {
    log(response === 'CONTINUE' ? 'warn' : 'error', `cannot deserialize the record at ${record.topic}-${record.partition}@${record.offset}: ${(err as Error)?.message ?? String(err)}${response === 'CONTINUE' ? ' (skipped)' : ''}`);
    return response;
  };
}

function productionHandler(option: StreamsConfig['productionExceptionHandler'], log: StreamsLogger): ProductionExceptionHandler {
  if (typeof option === 'function') return option;
  const response = option === 'continue' ? 'CONTINUE' : 'FAIL';
  return (err, record) => {
    log(response === 'CONTINUE' ? 'warn' : 'error', `cannot produce a record to '${record.topic}': ${(err as Error)?.message ?? String(err)}${response === 'CONTINUE' ? ' (dropped)' : ''}`);
    return response;
  };
}

/** Where an instance answers interactive queries (Kafka's HostInfo). */
export interface HostInfo {
  host: string;
  port: number;
}

/** 'host:port' (IPv6 as '[::1]:port'), or null when malformed. */
export function parseHostInfo(endpoint: string): HostInfo | null {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(endpoint);
  if (m === null) return null;
  const port = Number(m[2]);
  return port > 65535 ? null : { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}

function configError(message: string): StreamsError {
  return new StreamsError(StreamsErrorCode.CONFIG, message);
}
