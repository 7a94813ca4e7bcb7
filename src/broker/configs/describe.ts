/**
 * DescribeConfigs rows for topics and brokers, as Kafka's ConfigHelper
 * builds them: each key's effective value, its source (the first synonym's),
 * and its synonyms in Kafka's order — the topic override first, then for
 * each level (dynamic per-broker, dynamic cluster default, static, default)
 * every broker synonym key set at that level, in precedence order
 * (log.retention.ms, log.retention.minutes, log.retention.hours).
 *
 * Differences from Kafka, on purpose: Kafka drops a synonym list that does
 * not contain the primary key (so `retention.ms` with only
 * `log.retention.hours` set shows no synonyms); we keep it, since it says
 * where the value came from. Passwords show a null value and isSensitive.
 */
import { BROKER_CONFIGS, type BrokerConfigKey } from '../../config/broker.js';
import { CONFIG_SOURCE_ID, CONFIG_TYPE_ID, type ConfigKey, type ConfigSource } from '../../config/def.js';
import { describeTopicConfig, TOPIC_CONFIGS, type TopicConfig, type TopicConfigKey } from '../../config/topic.js';
import { TOPIC_BROKER_SYNONYMS } from '../../config/topic-broker.js';
import { isDynamicBrokerKey, type DynamicBrokerConfig } from './dynamic-broker-config.js';

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string | null;
  readonly source: number;
}

/** One DescribeConfigs entry (every version's fields; the codec writes those of the version). */
export interface DescribedConfig {
  readonly name: string;
  readonly value: string | null;
  readonly readOnly: boolean;
  /** v0 only: the value is the default. */
  readonly isDefault: boolean;
  readonly configSource: number;
  readonly isSensitive: boolean;
  readonly synonyms: ConfigSynonym[];
  readonly configType: number;
  readonly documentation: string | null;
}

export interface DescribeOptions {
  readonly includeSynonyms: boolean;
  readonly includeDocumentation: boolean;
}

const LEVELS: readonly ConfigSource[] = ['DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG'];

function brokerDef(key: string): ConfigKey<unknown> {
  return (BROKER_CONFIGS as unknown as Record<string, ConfigKey<unknown>>)[key] as ConfigKey<unknown>;
}

function encode(def: ConfigKey<unknown>, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return def.sensitive ? null : def.encode(value);
}

/** A broker key and the keys it falls back to (log.retention.ms, .minutes, .hours). */
export function brokerSynonymKeys(key: BrokerConfigKey): string[] {
  return [key, ...(brokerDef(key).fallback ?? []).map((f) => f.key)];
}

/** The value a broker key has at one level, as a string, or undefined when that level does not set it. */
function valueAtLevel(config: DynamicBrokerConfig, key: string, level: ConfigSource): { value: string | null } | undefined {
  const def = brokerDef(key);
  const hidden = (text: string): string | null => (def.sensitive ? null : text);
  switch (level) {
    case 'DYNAMIC_BROKER_CONFIG':
    case 'DYNAMIC_DEFAULT_BROKER_CONFIG': {
      const raw = config.dynamicConfigs(level === 'DYNAMIC_BROKER_CONFIG' ? 'broker' : 'cluster').get(key);
      return raw === undefined ? undefined : { value: hidden(raw) };
    }
    case 'STATIC_BROKER_CONFIG':
      return config.staticConfig.isExplicit(key as BrokerConfigKey) ? { value: encode(def, config.staticConfig.get(key as BrokerConfigKey)) } : undefined;
    case 'DEFAULT_CONFIG':
      return def.default === null ? undefined : { value: encode(def, def.default) };
    default:
      return undefined;
  }
}

/** Kafka's configSynonyms(): level-major, then the synonym keys in order. */
function brokerSynonyms(config: DynamicBrokerConfig, keys: readonly string[], levels: readonly ConfigSource[] = LEVELS): ConfigSynonym[] {
  const out: ConfigSynonym[] = [];
  for (const level of levels) {
    for (const key of keys) {
      const v = valueAtLevel(config, key, level);
      if (v !== undefined) out.push({ name: key, value: v.value, source: CONFIG_SOURCE_ID[level] });
    }
  }
  return out;
}

function entry(
  base: { name: string; value: string | null; readOnly: boolean; isSensitive: boolean; type: keyof typeof CONFIG_TYPE_ID; doc: string },
  synonyms: ConfigSynonym[],
  options: DescribeOptions,
): DescribedConfig {
  const configSource = synonyms[0]?.source ?? CONFIG_SOURCE_ID.DEFAULT_CONFIG;
  return {
    name: base.name,
    value: base.value,
    readOnly: base.readOnly,
    isDefault: configSource === CONFIG_SOURCE_ID.DEFAULT_CONFIG,
    configSource,
    isSensitive: base.isSensitive,
    synonyms: options.includeSynonyms ? synonyms : [],
    configType: CONFIG_TYPE_ID[base.type],
    documentation: options.includeDocumentation ? base.doc : null,
  };
}

/** Every topic key (or those in `keys`) of a topic with these overrides. */
export function describeTopic(
  config: DynamicBrokerConfig,
  overrides: ReadonlyMap<string, string>,
  keys: readonly string[] | null,
  options: DescribeOptions,
): DescribedConfig[] {
  const resolved: TopicConfig = config.topicConfig(Object.fromEntries(overrides));
  const wanted = keys === null ? null : new Set(keys);
  return describeTopicConfig(resolved)
    .filter((row) => wanted === null || wanted.has(row.name))
    .map((row) => {
      const name: TopicConfigKey = row.name;
      const synonyms: ConfigSynonym[] = [];
      if (overrides.has(name)) synonyms.push({ name, value: row.value, source: CONFIG_SOURCE_ID.DYNAMIC_TOPIC_CONFIG });
      synonyms.push(...brokerSynonyms(config, TOPIC_BROKER_SYNONYMS[name]));
      const def = TOPIC_CONFIGS[name];
      return entry({ name, value: row.value, readOnly: false, isSensitive: false, type: def.type, doc: def.doc }, synonyms, options);
    });
}

/**
 * A broker resource. This node (`perBroker`): every broker key with its
 * effective value. The cluster default (resource name ''): as Kafka, only the
 * keys set as dynamic cluster defaults, with only those synonyms.
 */
export function describeBroker(config: DynamicBrokerConfig, perBroker: boolean, keys: readonly string[] | null, options: DescribeOptions): DescribedConfig[] {
  const wanted = keys === null ? null : new Set(keys);
  const names = perBroker
    ? (Object.keys(BROKER_CONFIGS) as BrokerConfigKey[])
    : ([...config.dynamicConfigs('cluster').keys()].filter((k) => Object.hasOwn(BROKER_CONFIGS, k)) as BrokerConfigKey[]);
  return names
    .filter((name) => wanted === null || wanted.has(name))
    .map((name) => {
      const def = brokerDef(name);
      const levels: readonly ConfigSource[] = perBroker ? LEVELS : ['DYNAMIC_DEFAULT_BROKER_CONFIG'];
      const synonyms = brokerSynonyms(config, brokerSynonymKeys(name), levels);
      const value = perBroker ? encode(def, config.get(name)) : (synonyms[0]?.value ?? null);
      return entry({ name, value, readOnly: !isDynamicBrokerKey(name), isSensitive: def.sensitive, type: def.type, doc: def.doc }, synonyms, options);
    });
}
