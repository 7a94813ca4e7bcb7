/**
 * Per-log configuration as plain data, named after Kafka's topic configs
 * (`segment.bytes` -> segmentBytes ...). A log can be given a new one at run
 * time (PartitionLog.updateConfig); changes apply from the next append/roll.
 */
import { StorageError } from './errors.js';

/** "Never" for the flush intervals (Kafka's default is Long.MAX_VALUE). */
export const FLUSH_NEVER = Number.MAX_SAFE_INTEGER;

export interface LogConfig {
  /** segment.bytes: roll when the active segment would exceed this. */
  segmentBytes: number;
  /** segment.ms: roll when the incoming batch's timestamp is this far past the segment's first. */
  segmentMs: number;
  /** retention.ms: delete rolled segments whose largest timestamp is older; -1 = forever. */
  retentionMs: number;
  /** retention.bytes: delete the oldest rolled segments while the log is bigger; -1 = unlimited. */
  retentionBytes: number;
  /** index.interval.bytes: log bytes between two sparse index entries. */
  indexIntervalBytes: number;
  /** segment.index.bytes: maximum size of one offset index file; a full index rolls the segment. */
  segmentIndexBytes: number;
  /** flush.messages: fsync after this many appended records. */
  flushIntervalMessages: number;
  /** flush.ms: fsync when data has been unflushed this long (checked by maybeFlush). */
  flushIntervalMs: number;
  // Compaction (cleaner/README in ../README.md). Optional so older callers
  // keep compiling; absent means Kafka's default (resolve with compactionConfigOf).
  /** cleanup.policy: `delete` (time/size retention), `compact` (log cleaner), or both. */
  cleanupPolicy?: CleanupPolicy;
  /** delete.retention.ms: a tombstone survives at least this long after its first cleaning. */
  deleteRetentionMs?: number;
  /** min.cleanable.dirty.ratio: clean when dirty bytes / (clean + dirty bytes) >= this. */
  minCleanableDirtyRatio?: number;
  /** min.compaction.lag.ms: records younger than this are not compacted. */
  minCompactionLagMs?: number;
  /** max.compaction.lag.ms: dirty records older than this force a cleaning whatever the ratio. */
  maxCompactionLagMs?: number;
}

export interface CleanupPolicy {
  delete: boolean;
  compact: boolean;
}

/** The compaction settings of a LogConfig with Kafka's defaults filled in. */
export interface CompactionConfig {
  cleanupPolicy: Readonly<CleanupPolicy>;
  deleteRetentionMs: number;
  minCleanableDirtyRatio: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
}

/** Kafka's defaults: delete only; 1 day; 0.5; 0; Long.MAX_VALUE. */
export const DEFAULT_COMPACTION_CONFIG: Readonly<CompactionConfig> = Object.freeze({
  cleanupPolicy: Object.freeze({ delete: true, compact: false }),
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
});

export function compactionConfigOf(cfg: Readonly<LogConfig>): CompactionConfig {
  const d = DEFAULT_COMPACTION_CONFIG;
  return {
    cleanupPolicy: cfg.cleanupPolicy ?? d.cleanupPolicy,
    deleteRetentionMs: cfg.deleteRetentionMs ?? d.deleteRetentionMs,
    minCleanableDirtyRatio: cfg.minCleanableDirtyRatio ?? d.minCleanableDirtyRatio,
    minCompactionLagMs: cfg.minCompactionLagMs ?? d.minCompactionLagMs,
    maxCompactionLagMs: cfg.maxCompactionLagMs ?? d.maxCompactionLagMs,
  };
}

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: -1,
  indexIntervalBytes: 4096,
  segmentIndexBytes: 10 * 1024 * 1024,
  flushIntervalMessages: FLUSH_NEVER,
  flushIntervalMs: FLUSH_NEVER,
  ...DEFAULT_COMPACTION_CONFIG,
});

/** Positions in a segment are int32 in the index, so a segment cannot be bigger. */
export const SEGMENT_BYTES_MAX = 0x7fffffff;

function check(ok: boolean, name: string, value: number, rule: string): void {
  if (!ok) throw new StorageError('ERR_TRIB_STORAGE_INVALID_CONFIG', `${name}=${value}: ${rule}`);
}

/** Returns a validated copy; throws StorageError(ERR_TRIB_STORAGE_INVALID_CONFIG). */
/**
 * Configs validateLogConfig returned: validated already, and never modified
 * (logs replace their config, they do not change it), so the thousands of
 * partitions of a topic share one object instead of one copy each.
 */
const validatedConfigs = new WeakSet<LogConfig>();

export function validateLogConfig(cfg: LogConfig): LogConfig {
  if (validatedConfigs.has(cfg)) return cfg;
  const int = (v: number): boolean => Number.isSafeInteger(v);
  check(int(cfg.segmentBytes) && cfg.segmentBytes >= 14 && cfg.segmentBytes <= SEGMENT_BYTES_MAX,
    'segmentBytes', cfg.segmentBytes, `must be an integer in [14, ${SEGMENT_BYTES_MAX}]`);
  check(int(cfg.segmentMs) && cfg.segmentMs >= 1, 'segmentMs', cfg.segmentMs, 'must be an integer >= 1');
  check(int(cfg.retentionMs) && cfg.retentionMs >= -1, 'retentionMs', cfg.retentionMs, 'must be -1 or >= 0');
  check(int(cfg.retentionBytes) && cfg.retentionBytes >= -1, 'retentionBytes', cfg.retentionBytes, 'must be -1 or >= 0');
  check(int(cfg.indexIntervalBytes) && cfg.indexIntervalBytes >= 0,
    'indexIntervalBytes', cfg.indexIntervalBytes, 'must be an integer >= 0');
  check(int(cfg.segmentIndexBytes) && cfg.segmentIndexBytes >= 48 && cfg.segmentIndexBytes <= SEGMENT_BYTES_MAX,
    'segmentIndexBytes', cfg.segmentIndexBytes, 'must be an integer >= 48');
  check(int(cfg.flushIntervalMessages) && cfg.flushIntervalMessages >= 1,
    'flushIntervalMessages', cfg.flushIntervalMessages, 'must be an integer >= 1');
  check(int(cfg.flushIntervalMs) && cfg.flushIntervalMs >= 0, 'flushIntervalMs', cfg.flushIntervalMs, 'must be >= 0');
  const c = compactionConfigOf(cfg);
  check(int(c.deleteRetentionMs) && c.deleteRetentionMs >= 0, 'deleteRetentionMs', c.deleteRetentionMs, 'must be an integer >= 0');
  check(Number.isFinite(c.minCleanableDirtyRatio) && c.minCleanableDirtyRatio >= 0 && c.minCleanableDirtyRatio <= 1,
    'minCleanableDirtyRatio', c.minCleanableDirtyRatio, 'must be in [0, 1]');
  check(int(c.minCompactionLagMs) && c.minCompactionLagMs >= 0, 'minCompactionLagMs', c.minCompactionLagMs, 'must be an integer >= 0');
  check(int(c.maxCompactionLagMs) && c.maxCompactionLagMs >= 1, 'maxCompactionLagMs', c.maxCompactionLagMs, 'must be an integer >= 1');
  check(c.minCompactionLagMs <= c.maxCompactionLagMs, 'minCompactionLagMs', c.minCompactionLagMs,
    `must not exceed maxCompactionLagMs ${c.maxCompactionLagMs}`);
  const copy = Object.freeze({ ...cfg });
  validatedConfigs.add(copy);
  return copy;
}
