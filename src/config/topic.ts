/**
 * Topic-level configs: the keys `kafka-configs --entity-type topics` knows,
 * with Kafka 3.x defaults and validators, and the broker-level key that
 * supplies each one's default (Kafka's ServerTopicConfigSynonyms).
 *
 * A topic's effective config is, per key: its override (set at CreateTopics or
 * AlterConfigs) else the broker's value for the synonym, which is either set
 * in the broker config (STATIC_BROKER_CONFIG) or the broker default
 * (DEFAULT_CONFIG). Broker defaults for these keys equal Kafka's topic defaults.
 * The synonyms, validation and resolution against a broker are in
 * topic-broker.ts.
 */
import {
  bool, CONFIG_SOURCE_ID, CONFIG_TYPE_ID, defineConfigs, double, enumOf, int, listOf, long, LONG_MAX, str,
  type ConfigSource, type ConfigValues,
} from './def.js';

export const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const;
export type CompressionType = (typeof COMPRESSION_TYPES)[number];
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;
export type TimestampType = (typeof TIMESTAMP_TYPES)[number];
export const CLEANUP_POLICIES = ['delete', 'compact'] as const;
/** Tributary's own `mirror.state` (exact-mode geo-replication, docs/mirror.md). */
export const MIRROR_STATES = ['none', 'active', 'promoted'] as const;
export type MirrorState = (typeof MIRROR_STATES)[number];

/** `mirror.promoted.offsets` ("0:120,1:98": partition:offset pairs) as a map; null when malformed. */
export function parseMirrorPromotedOffsets(text: string): Map<number, bigint> | null {
  const out = new Map<number, bigint>();
  for (const part of text.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    const m = /^(\d{1,9}):(\d{1,19})$/.exec(part);
    if (m === null || out.has(Number(m[1]))) return null;
    out.set(Number(m[1]), BigInt(m[2] as string));
  }
  return out;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The smallest segment Kafka allows (LegacyRecord.RECORD_OVERHEAD_V0). */
export const SEGMENT_BYTES_MIN = 14;
/**
 * Kafka allows segment.index.bytes >= 4; our storage needs room for at least
 * four 12-byte time-index entries, so we refuse less than 48.
 */
export const SEGMENT_INDEX_BYTES_MIN = 48;

const dyn = { dynamic: 'cluster-wide' } as const;

/** Topic config specs. Broker-level synonyms reuse these parsers (see broker.ts). */
export const TOPIC_CONFIGS = defineConfigs({
  'cleanup.policy': listOf({ ...dyn, values: CLEANUP_POLICIES, default: ['delete'], importance: 'medium',
    doc: '"delete" removes old segments by retention.ms/retention.bytes; "compact" keeps the latest record per key; both may be given. An empty list keeps everything.' }),
  'compression.type': enumOf({ ...dyn, values: COMPRESSION_TYPES, default: 'producer', importance: 'medium',
    doc: 'Compression of stored batches; "producer" keeps what the producer sent.' }),
  'delete.retention.ms': long({ ...dyn, default: DAY_MS, min: 0, importance: 'medium',
    doc: 'How long tombstones are kept in a compacted topic.' }),
  'file.delete.delay.ms': long({ ...dyn, default: 60_000, min: 0, importance: 'medium',
    doc: 'Wait before deleting a segment file removed from the log.' }),
  'flush.messages': long({ ...dyn, default: LONG_MAX, min: 1, importance: 'medium',
    doc: 'fsync after this many records. Default: never (Long.MAX_VALUE, held as 2^53-1); durability comes from replication.' }),
  'flush.ms': long({ ...dyn, default: LONG_MAX, min: 0, importance: 'medium',
    doc: 'fsync when data has been unflushed this long. Default: never.' }),
  'index.interval.bytes': int({ ...dyn, default: 4096, min: 0, importance: 'medium',
    doc: 'Log bytes between two sparse offset-index entries.' }),
  'max.compaction.lag.ms': long({ ...dyn, default: LONG_MAX, min: 1, importance: 'medium',
    doc: 'Longest time a record stays uncompacted.' }),
  'max.message.bytes': int({ ...dyn, default: 1_048_588, min: 0, importance: 'medium',
    doc: 'Largest record batch (after compression) the topic accepts.' }),
  'message.downconversion.enable': bool({ ...dyn, default: true, importance: 'low',
    doc: 'Whether old fetch versions get down-converted batches (Kafka 3.x; we only store magic v2).' }),
  'message.timestamp.difference.max.ms': long({ ...dyn, default: LONG_MAX, min: 0, importance: 'medium',
    doc: 'Deprecated: used for before/after.max.ms when those are not set.' }),
  'message.timestamp.before.max.ms': long({ ...dyn, default: LONG_MAX, min: 0, importance: 'medium',
    doc: 'With CreateTime, refuse batches whose timestamp is further than this in the past.' }),
  'message.timestamp.after.max.ms': long({ ...dyn, default: LONG_MAX, min: 0, importance: 'medium',
    doc: 'With CreateTime, refuse batches whose timestamp is further than this in the future. Kafka 3.x default (Kafka 4.0 uses 1 hour).' }),
  'message.timestamp.type': enumOf({ ...dyn, values: TIMESTAMP_TYPES, default: 'CreateTime', importance: 'medium',
    doc: 'CreateTime keeps the producer timestamp; LogAppendTime stamps the broker time.' }),
  // Tributary's own key, not Kafka's: a mirror topic of `tributary mirror` exact mode.
  'mirror.state': enumOf({ ...dyn, values: MIRROR_STATES, default: 'none', importance: 'low',
    doc: 'Tributary exact-mode mirroring (docs/mirror.md): "active" makes the topic a read-only mirror that only the mirror writes (Produce answers POLICY_VIOLATION); "promoted" is a former mirror topic that takes writes again; "none" is an ordinary topic.' }),
  'mirror.promoted.offsets': str({ ...dyn, default: '', importance: 'low', expected: 'partition:offset pairs, comma-separated',
    validate: (v) => (parseMirrorPromotedOffsets(v) === null ? 'expected partition:offset pairs such as 0:120,1:98' : undefined),
    doc: 'Tributary exact-mode mirroring (docs/mirror.md): where each partition\'s copied log ended when `tributary mirror promote` made the topic writable; producers known only from below it were the source cluster\'s.' }),
  'min.cleanable.dirty.ratio': double({ ...dyn, default: 0.5, min: 0, max: 1, importance: 'medium',
    doc: 'Compact a log when this fraction of it is uncompacted.' }),
  'min.compaction.lag.ms': long({ ...dyn, default: 0, min: 0, importance: 'medium',
    doc: 'Shortest time a record stays uncompacted.' }),
  'min.insync.replicas': int({ ...dyn, default: 1, min: 1, importance: 'medium',
    doc: 'With acks=all, the number of in-sync replicas that must have a write.' }),
  'preallocate': bool({ ...dyn, default: false, importance: 'medium',
    doc: 'Preallocate segment files.' }),
  'retention.bytes': long({ ...dyn, default: -1, min: -1, importance: 'medium',
    doc: 'Largest size of a partition before old segments are deleted; -1 = unlimited.' }),
  'retention.ms': long({ ...dyn, default: 7 * DAY_MS, min: -1, importance: 'medium',
    doc: 'How long segments are kept; -1 = forever.' }),
  'segment.bytes': int({ ...dyn, default: 1024 * 1024 * 1024, min: SEGMENT_BYTES_MIN, importance: 'medium',
    doc: 'Roll a new segment file at this size.' }),
  'segment.index.bytes': int({ ...dyn, default: 10 * 1024 * 1024, min: SEGMENT_INDEX_BYTES_MIN, importance: 'medium',
    doc: 'Size of an offset index file; a full index rolls the segment. Kafka allows >= 4; we need >= 48.' }),
  'segment.jitter.ms': long({ ...dyn, default: 0, min: 0, importance: 'medium',
    doc: 'Random jitter subtracted from segment.ms.' }),
  'segment.ms': long({ ...dyn, default: 7 * DAY_MS, min: 1, importance: 'medium',
    doc: 'Roll a new segment after this time even if not full.' }),
  'unclean.leader.election.enable': bool({ ...dyn, default: false, importance: 'medium',
    doc: 'Allow an out-of-sync replica to become leader (may lose data).' }),
});

export type TopicConfigKey = keyof typeof TOPIC_CONFIGS;
export type TopicConfigValues = ConfigValues<typeof TOPIC_CONFIGS>;
export const TOPIC_CONFIG_KEYS = Object.keys(TOPIC_CONFIGS) as TopicConfigKey[];


/** Where a topic config value came from, for DescribeConfigs. */
export interface TopicConfigSourceInfo {
  readonly source: ConfigSource;
  /** The key that supplied the value: the topic key itself, or a broker key such as log.retention.hours. */
  readonly key: string;
}

/** A topic's fully resolved configuration. */
export interface TopicConfig {
  readonly cleanupPolicy: { readonly delete: boolean; readonly compact: boolean };
  readonly compressionType: CompressionType;
  readonly deleteRetentionMs: number;
  readonly fileDeleteDelayMs: number;
  readonly flushIntervalMessages: number;
  readonly flushIntervalMs: number;
  readonly indexIntervalBytes: number;
  readonly maxCompactionLagMs: number;
  readonly maxMessageBytes: number;
  readonly messageDownconversionEnable: boolean;
  readonly messageTimestampType: TimestampType;
  /** message.timestamp.before.max.ms, or difference.max.ms when before is not set (Kafka's rule). */
  readonly timestampBeforeMaxMs: number;
  /** message.timestamp.after.max.ms, or difference.max.ms when after is not set. */
  readonly timestampAfterMaxMs: number;
  readonly minCleanableDirtyRatio: number;
  readonly minCompactionLagMs: number;
  readonly minInsyncReplicas: number;
  readonly mirrorState: MirrorState;
  readonly mirrorPromotedOffsets: ReadonlyMap<number, bigint>;
  readonly preallocate: boolean;
  readonly retentionBytes: number;
  readonly retentionMs: number;
  readonly segmentBytes: number;
  readonly segmentIndexBytes: number;
  readonly segmentJitterMs: number;
  readonly segmentMs: number;
  readonly uncleanLeaderElectionEnable: boolean;
  /** Every key's value by Kafka name (what DescribeConfigs shows). */
  readonly values: TopicConfigValues;
  /** Where each key's value came from. */
  readonly source: Readonly<Record<TopicConfigKey, TopicConfigSourceInfo>>;
}


/** One row of DescribeConfigs for a topic. */
export interface TopicConfigEntry {
  readonly name: TopicConfigKey;
  readonly value: string;
  readonly source: ConfigSource;
  readonly sourceId: number;
  readonly sourceKey: string;
  readonly readOnly: false;
  readonly isSensitive: false;
  readonly type: string;
  /** DescribeConfigs configType (Kafka's ConfigDef.Type id). */
  readonly typeId: number;
  readonly documentation: string;
}

/** The rows DescribeConfigs returns for a topic, in key order. */
export function describeTopicConfig(config: TopicConfig): TopicConfigEntry[] {
  return TOPIC_CONFIG_KEYS.map((name) => {
    const def = TOPIC_CONFIGS[name];
    const info = config.source[name];
    return {
      name,
      value: (def.encode as (v: unknown) => string)(config.values[name]),
      source: info.source,
      sourceId: CONFIG_SOURCE_ID[info.source],
      sourceKey: info.key,
      readOnly: false,
      isSensitive: false,
      type: def.type,
      typeId: CONFIG_TYPE_ID[def.type],
      documentation: def.doc,
    };
  });
}
