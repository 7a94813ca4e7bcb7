/**
 * Where topic configs meet broker configs: the broker key that supplies each
 * topic key's default (Kafka's ServerTopicConfigSynonyms), validation of
 * topic overrides (with hints for broker keys sent as topic keys), and a
 * topic's effective config resolved against a broker's values.
 *
 * It is its own file so that the definitions stay acyclic: topic.ts defines
 * the topic keys, broker-defs.ts builds broker keys from them, and this file
 * depends on both (broker.ts on all three).
 */
import { LONG_MAX, parseConfigs } from './def.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import type { BrokerConfigKey, BrokerConfigValues, BrokerSourceInfo } from './broker-defs.js';
import { parseMirrorPromotedOffsets, TOPIC_CONFIG_KEYS, TOPIC_CONFIGS, type TopicConfig, type TopicConfigKey, type TopicConfigSourceInfo, type TopicConfigValues } from './topic.js';

/**
 * Broker keys that supply each topic key's default, in precedence order. The
 * first is the one whose resolved broker value is used (the broker resolves
 * the rest as its fallbacks, e.g. log.retention.ms <- minutes <- hours).
 */
export const TOPIC_BROKER_SYNONYMS: Readonly<Record<TopicConfigKey, readonly BrokerConfigKey[]>> = {
  'cleanup.policy': ['log.cleanup.policy'],
  'compression.type': ['compression.type'],
  'delete.retention.ms': ['log.cleaner.delete.retention.ms'],
  'file.delete.delay.ms': ['log.segment.delete.delay.ms'],
  'flush.messages': ['log.flush.interval.messages'],
  'flush.ms': ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
  'index.interval.bytes': ['log.index.interval.bytes'],
  'max.compaction.lag.ms': ['log.cleaner.max.compaction.lag.ms'],
  'max.message.bytes': ['message.max.bytes'],
  'message.downconversion.enable': ['log.message.downconversion.enable'],
  'message.timestamp.difference.max.ms': ['log.message.timestamp.difference.max.ms'],
  'message.timestamp.before.max.ms': ['log.message.timestamp.before.max.ms'],
  'message.timestamp.after.max.ms': ['log.message.timestamp.after.max.ms'],
  'message.timestamp.type': ['log.message.timestamp.type'],
  'min.cleanable.dirty.ratio': ['log.cleaner.min.cleanable.ratio'],
  'min.compaction.lag.ms': ['log.cleaner.min.compaction.lag.ms'],
  'min.insync.replicas': ['min.insync.replicas'],
  // No broker default: only a mirror (or an operator) sets it per topic.
  'mirror.state': [],
  'mirror.promoted.offsets': [],
  'preallocate': ['log.preallocate'],
  'retention.bytes': ['log.retention.bytes'],
  'retention.ms': ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  'segment.bytes': ['log.segment.bytes'],
  'segment.index.bytes': ['log.index.size.max.bytes'],
  'segment.jitter.ms': ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
  'segment.ms': ['log.roll.ms', 'log.roll.hours'],
  'unclean.leader.election.enable': ['unclean.leader.election.enable'],
};

/** Kafka's INVALID_CONFIG wire code (util cannot import protocol; the table there agrees). */
export const INVALID_CONFIG_ERROR_CODE = 40;

export interface TopicConfigError {
  readonly key: string;
  readonly errorCode: typeof INVALID_CONFIG_ERROR_CODE;
  /** Starts with the key: `retention.ms: expected an integer >= -1, got "abc"`. */
  readonly message: string;
}

/** For unknown keys that are really broker keys: point at the topic key. */
const TOPIC_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  TOPIC_CONFIG_KEYS.flatMap((topicKey) =>
    TOPIC_BROKER_SYNONYMS[topicKey]
      .filter((b) => b !== topicKey)
      .map((b) => [b, `"${b}" is a broker config; the topic config is "${topicKey}"`])),
);

/** Rules between keys, after each key parsed alone (Kafka's LogConfig.validate). */
function crossChecks(v: TopicConfigValues): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (v['min.compaction.lag.ms'] > v['max.compaction.lag.ms']) {
    problems.push({
      key: 'min.compaction.lag.ms',
      message: `min.compaction.lag.ms: ${v['min.compaction.lag.ms']} is greater than max.compaction.lag.ms ${v['max.compaction.lag.ms']}; lower it or raise max.compaction.lag.ms`,
    });
  }
  return problems;
}

/**
 * Validates topic config overrides as sent in CreateTopics/AlterConfigs.
 * Returns one INVALID_CONFIG error per bad key (empty when all are fine).
 * A null value is refused, as Kafka does for CreateTopics.
 */
export function validateTopicConfigs(configs: Readonly<Record<string, string | null>>): TopicConfigError[] {
  const raw: Record<string, string> = {};
  const errors: TopicConfigError[] = [];
  for (const [key, value] of Object.entries(configs)) {
    if (value === null) errors.push({ key, errorCode: INVALID_CONFIG_ERROR_CODE, message: `${key}: a value is required (null is not supported for topic configs)` });
    else raw[key] = value;
  }
  const parsed = parseConfigs(TOPIC_CONFIGS, raw, { hints: TOPIC_HINTS, what: 'topic config' });
  const problems = parsed.problems.length > 0 ? parsed.problems : crossChecks(parsed.values);
  for (const p of problems) errors.push({ key: p.key, errorCode: INVALID_CONFIG_ERROR_CODE, message: p.message });
  return errors;
}

/**
 * What topic resolution needs from the broker: typed values and where each
 * came from. A BrokerConfig (static) is one; the broker's dynamic overlay
 * (static + dynamic cluster default + dynamic per-broker values) is another.
 */
export interface BrokerConfigView {
  get<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K];
  sourceOf(key: BrokerConfigKey): BrokerSourceInfo;
}

function brokerSource(broker: BrokerConfigView, topicKey: TopicConfigKey): TopicConfigSourceInfo {
  for (const brokerKey of TOPIC_BROKER_SYNONYMS[topicKey]) {
    const info = broker.sourceOf(brokerKey);
    if (info.source !== 'DEFAULT_CONFIG') return info;
  }
  return { source: 'DEFAULT_CONFIG', key: topicKey };
}

/** Kafka: before/after.max.ms fall back to difference.max.ms when left at Long.MAX_VALUE. */
function timestampBound(value: number, difference: number): number {
  return value !== LONG_MAX ? value : difference;
}

/**
 * The effective config of a topic: each override, else the broker's value for
 * the synonym key. Throws ConfigError listing every bad override (overrides
 * come from validated metadata, so that means a bug or a corrupt record).
 */
export function effectiveTopicConfig(broker: BrokerConfigView, overrides: Readonly<Record<string, string>> = {}): TopicConfig {
  const parsed = parseConfigs(TOPIC_CONFIGS, overrides, { hints: TOPIC_HINTS, what: 'topic config' });
  if (parsed.problems.length > 0) throw new ConfigError('ERR_TRIB_CONFIG_INVALID', parsed.problems);
  const values: Record<string, unknown> = {};
  const source = {} as Record<TopicConfigKey, TopicConfigSourceInfo>;
  for (const key of TOPIC_CONFIG_KEYS) {
    if (parsed.explicit.has(key)) {
      values[key] = parsed.values[key];
      source[key] = { source: 'DYNAMIC_TOPIC_CONFIG', key };
    } else {
      const primary = TOPIC_BROKER_SYNONYMS[key][0];
      values[key] = primary === undefined ? TOPIC_CONFIGS[key].default : broker.get(primary);
      source[key] = brokerSource(broker, key);
    }
  }
  return toTopicConfig(values as TopicConfigValues, source);
}

function toTopicConfig(v: TopicConfigValues, source: Record<TopicConfigKey, TopicConfigSourceInfo>): TopicConfig {
  const difference = v['message.timestamp.difference.max.ms'];
  return {
    cleanupPolicy: { delete: v['cleanup.policy'].includes('delete'), compact: v['cleanup.policy'].includes('compact') },
    compressionType: v['compression.type'],
    deleteRetentionMs: v['delete.retention.ms'],
    fileDeleteDelayMs: v['file.delete.delay.ms'],
    flushIntervalMessages: v['flush.messages'],
    flushIntervalMs: v['flush.ms'],
    indexIntervalBytes: v['index.interval.bytes'],
    maxCompactionLagMs: v['max.compaction.lag.ms'],
    maxMessageBytes: v['max.message.bytes'],
    messageDownconversionEnable: v['message.downconversion.enable'],
    messageTimestampType: v['message.timestamp.type'],
    timestampBeforeMaxMs: timestampBound(v['message.timestamp.before.max.ms'], difference),
    timestampAfterMaxMs: timestampBound(v['message.timestamp.after.max.ms'], difference),
    minCleanableDirtyRatio: v['min.cleanable.dirty.ratio'],
    minCompactionLagMs: v['min.compaction.lag.ms'],
    minInsyncReplicas: v['min.insync.replicas'],
    mirrorState: v['mirror.state'],
    mirrorPromotedOffsets: parseMirrorPromotedOffsets(v['mirror.promoted.offsets']) ?? new Map(),
    preallocate: v['preallocate'],
    retentionBytes: v['retention.bytes'],
    retentionMs: v['retention.ms'],
    segmentBytes: v['segment.bytes'],
    segmentIndexBytes: v['segment.index.bytes'],
    segmentJitterMs: v['segment.jitter.ms'],
    segmentMs: v['segment.ms'],
    uncleanLeaderElectionEnable: v['unclean.leader.election.enable'],
    values: v,
    source,
  };
}
