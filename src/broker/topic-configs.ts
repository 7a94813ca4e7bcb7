/**
 * The broker's view of per-topic configuration: each topic's overrides
 * (kept current by the metadata layer), and what Produce and the logs
 * resolve from them, cached per overrides map.
 */
import type { LogConfig } from '../storage/config.js';
import type { TopicRules } from '../replication/topic-rules.js';
import { parseBrokerConfig } from '../config/broker.js';
import { DynamicBrokerConfig } from './configs/dynamic-broker-config.js';
import type { BrokerSettings } from './settings.js';

const NO_OVERRIDES: ReadonlyMap<string, string> = new Map();

/** Topic config overrides (kept current by the metadata layer) and the TopicRules Produce resolves from them. */
export interface TopicConfigs {
  readonly topicOverrides: Map<string, ReadonlyMap<string, string>>;
  readonly overridesOf: (topic: string) => ReadonlyMap<string, string>;
  readonly topicRules: (topic: string) => TopicRules;
  /** The topic's log config (shared by its partitions: a log never modifies it). */
  readonly logConfigFor: (topic: string) => LogConfig;
  readonly dynamicConfig: DynamicBrokerConfig;
}

/** `compute` of an overrides map, computed once per map (a WeakMap: a replaced map drops its entry); clear() forgets all. */
function perOverrides<T>(compute: (overrides: ReadonlyMap<string, string>) => T): { get(overrides: ReadonlyMap<string, string>): T; clear(): void } {
  let cache = new WeakMap<ReadonlyMap<string, string>, T>();
  return {
    get(overrides) {
      let value = cache.get(overrides);
      if (value === undefined) {
        value = compute(overrides);
        cache.set(overrides, value);
      }
      return value;
    },
    clear() {
      cache = new WeakMap();
    },
  };
}

export function topicConfigs(settings: BrokerSettings): TopicConfigs {
  const topicOverrides = new Map<string, ReadonlyMap<string, string>>();
  const overridesOf = (topic: string): ReadonlyMap<string, string> => topicOverrides.get(topic) ?? NO_OVERRIDES;
  // Resolving a topic's config parses every key; Produce needs the rules per
  // partition, and opening 10,000 partitions needed a log config each (issue
  // 17), so both are cached per overrides map (a config change replaces the
  // topic's map, which drops the cached entries with it).
  const rules = perOverrides((o) => settings.topicRulesFor(o));
  const logConfigs = perOverrides((o) => settings.logConfigFor(o));
  // Dynamic broker defaults (AlterConfigs on a broker resource) change every topic's rules.
  const dynamicConfig = settings.dynamicConfig ?? new DynamicBrokerConfig(parseBrokerConfig({}));
  dynamicConfig.onChange(() => {
    rules.clear();
    logConfigs.clear();
  });
  const logConfigFor = (topic: string): LogConfig => logConfigs.get(overridesOf(topic));
  const topicRules = (topic: string): TopicRules => rules.get(overridesOf(topic));
  return { topicOverrides, overridesOf, topicRules, logConfigFor, dynamicConfig };
}
