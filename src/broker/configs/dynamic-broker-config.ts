/**
 * The broker's configuration as it is right now: the static config
 * (server.properties + --override) overlaid with the dynamic broker configs
 * stored in the metadata log (Kafka's DynamicBrokerConfig). Precedence, per
 * key, as in Kafka:
 *
 *   DYNAMIC_BROKER_CONFIG          ConfigRecord(broker, "<this node id>")
 *   DYNAMIC_DEFAULT_BROKER_CONFIG  ConfigRecord(broker, "")   (cluster-wide default)
 *   STATIC_BROKER_CONFIG           the file / --override (incl. fallbacks: log.retention.hours...)
 *   DEFAULT_CONFIG                 the definition's default
 *
 * Only keys whose definition is dynamic (`per-broker` or `cluster-wide`) may
 * be set, and `per-broker` ones only for a broker id. The metadata bridge
 * feeds every committed broker ConfigRecord through `apply`; consumers that
 * cached a resolved value (topic rules, log configs) re-resolve on `onChange`.
 * Values in the log were validated before they were written; one that no
 * longer parses (a record from a newer version) is ignored and reported.
 */
import { BROKER_CONFIGS, type BrokerConfig, type BrokerConfigKey, type BrokerConfigValues, type BrokerSourceInfo } from '../../config/broker.js';
import { parseConfigs, parseValue, type ConfigKey } from '../../config/def.js';
import { TOPIC_CONFIG_KEYS, type TopicConfig } from '../../config/topic.js';
import { effectiveTopicConfig, TOPIC_BROKER_SYNONYMS, type BrokerConfigView } from '../../config/topic-broker.js';

/** Where a dynamic broker config is stored: the cluster default or one broker. */
export type DynamicScope = 'cluster' | 'broker';

/**
 * Keys Kafka can change per broker at run time that Tributary only reads at
 * start-up (they change the listeners and the broker's registration).
 */
export const RESTART_REQUIRED_KEYS: ReadonlySet<string> = new Set(['advertised.listeners', 'listener.security.protocol.map']);

/** Advice for topic keys used at broker level (`retention.ms` -> `log.retention.ms`). */
const BROKER_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  TOPIC_CONFIG_KEYS.flatMap((topicKey) => {
    const brokerKey = TOPIC_BROKER_SYNONYMS[topicKey][0];
    if (brokerKey === undefined || brokerKey === topicKey) return [];
    return [[topicKey, `"${topicKey}" is a topic config; the broker-wide default is "${brokerKey}"`]];
  }),
);

export interface DynamicConfigProblem {
  readonly key: string;
  /** Starts with the key. */
  readonly message: string;
}

function defOf(key: string): ConfigKey<unknown> | undefined {
  return Object.hasOwn(BROKER_CONFIGS, key) ? (BROKER_CONFIGS as unknown as Record<string, ConfigKey<unknown>>)[key] : undefined;
}

/** Whether `key` can be changed at run time here (its definition is dynamic and we apply it). */
export function isDynamicBrokerKey(key: string): boolean {
  const def = defOf(key);
  return def !== undefined && def.dynamic !== 'read-only' && !RESTART_REQUIRED_KEYS.has(key);
}

/** Parses stored values, keeping the good ones (typed) and reporting the rest. */
function parseStored(raw: ReadonlyMap<string, string>, problems: DynamicConfigProblem[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [key, text] of raw) {
    const def = defOf(key);
    if (def === undefined || !isDynamicBrokerKey(key)) {
      problems.push({ key, message: `${key}: not a dynamic broker config; ignored` });
      continue;
    }
    const parsed = parseValue(def, text);
    if (parsed.ok) values.set(key, parsed.value);
    else problems.push({ key, message: `${parsed.message}; ignored` });
  }
  return values;
}

function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

export class DynamicBrokerConfig implements BrokerConfigView {
  private clusterRaw: ReadonlyMap<string, string> = new Map();
  private brokerRaw: ReadonlyMap<string, string> = new Map();
  private clusterValues = new Map<string, unknown>();
  private brokerValues = new Map<string, unknown>();
  private readonly listeners = new Set<() => void>();
  /** Bumped on every change of this node's effective config. */
  private generation = 0;

  constructor(readonly staticConfig: BrokerConfig) {}

  get nodeId(): number {
    return this.staticConfig.nodeId;
  }

  /** Changes so far (a cache key for resolved values). */
  get version(): number {
    return this.generation;
  }

  get<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] {
    if (this.brokerValues.has(key)) return this.brokerValues.get(key) as BrokerConfigValues[K];
    if (this.clusterValues.has(key)) return this.clusterValues.get(key) as BrokerConfigValues[K];
    return this.staticConfig.get(key);
  }

  sourceOf(key: BrokerConfigKey): BrokerSourceInfo {
    if (this.brokerValues.has(key)) return { source: 'DYNAMIC_BROKER_CONFIG', key };
    if (this.clusterValues.has(key)) return { source: 'DYNAMIC_DEFAULT_BROKER_CONFIG', key };
    return this.staticConfig.sourceOf(key);
  }

  /** The explicit dynamic configs at one scope (raw strings, as stored). */
  dynamicConfigs(scope: DynamicScope): ReadonlyMap<string, string> {
    return scope === 'cluster' ? this.clusterRaw : this.brokerRaw;
  }

  /** The effective config of a topic with these overrides. */
  topicConfig(overrides: Readonly<Record<string, string>> = {}): TopicConfig {
    return effectiveTopicConfig(this, overrides);
  }

  /** Called on every change of this node's effective config; returns unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Takes the committed dynamic configs of broker resource `resourceName`
   * ('' = cluster default; other brokers' ids are not ours and are ignored).
   * Returns whether this node's effective config changed, and what was ignored.
   */
  apply(resourceName: string, configs: ReadonlyMap<string, string>): { changed: boolean; problems: DynamicConfigProblem[] } {
    const problems: DynamicConfigProblem[] = [];
    const scope = this.scopeOf(resourceName);
    if (scope === null) return { changed: false, problems };
    const current = scope === 'cluster' ? this.clusterRaw : this.brokerRaw;
    if (sameMap(current, configs)) return { changed: false, problems };
    const raw = new Map(configs);
    const values = parseStored(raw, problems);
    if (scope === 'cluster') {
      this.clusterRaw = raw;
      this.clusterValues = values;
    } else {
      this.brokerRaw = raw;
      this.brokerValues = values;
    }
    this.generation++;
    for (const listener of this.listeners) listener();
    return { changed: true, problems };
  }

  /**
   * Validates the complete set of dynamic configs proposed for a broker
   * resource (the controller's validator): unknown keys, keys that cannot
   * change at run time, per-broker keys at cluster level, values, and the
   * rules between keys on the result. One problem per bad key.
   */
  validate(resourceName: string, configs: ReadonlyMap<string, string>): DynamicConfigProblem[] {
    const raw = Object.fromEntries(configs);
    const parsed = parseConfigs(BROKER_CONFIGS, raw, { hints: BROKER_HINTS, what: 'broker config' });
    const problems: DynamicConfigProblem[] = parsed.problems.map((p) => ({ key: p.key, message: p.message }));
    const bad = new Set(problems.map((p) => p.key));
    for (const key of configs.keys()) {
      const def = defOf(key);
      if (def === undefined || bad.has(key)) continue;
      if (def.dynamic === 'read-only') {
        problems.push({ key, message: `${key}: cannot be changed at run time (read-only); set it in server.properties and restart the broker` });
      } else if (RESTART_REQUIRED_KEYS.has(key)) {
        problems.push({ key, message: `${key}: Tributary reads it only at start-up; set it in server.properties and restart the broker` });
      } else if (def.dynamic === 'per-broker' && resourceName === '') {
        problems.push({ key, message: `${key}: can only be set for one broker (resource name = its node id), not as the cluster-wide default` });
      }
    }
    if (problems.length === 0) problems.push(...this.crossChecks(resourceName, parsed.values, parsed.explicit));
    return problems;
  }

  /** Kafka's rules between keys, on the config this node would have. */
  private crossChecks(resourceName: string, proposed: BrokerConfigValues, explicit: ReadonlySet<string>): DynamicConfigProblem[] {
    const scope = this.scopeOf(resourceName) ?? 'broker';
    const value = <K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] => {
      if (explicit.has(key)) return proposed[key];
      if (scope === 'cluster' && this.brokerValues.has(key)) return this.brokerValues.get(key) as BrokerConfigValues[K];
      if (scope === 'broker' && this.clusterValues.has(key)) return this.clusterValues.get(key) as BrokerConfigValues[K];
      return this.staticConfig.get(key);
    };
    const min = value('log.cleaner.min.compaction.lag.ms');
    const max = value('log.cleaner.max.compaction.lag.ms');
    if (min > max) {
      const key = explicit.has('log.cleaner.min.compaction.lag.ms') ? 'log.cleaner.min.compaction.lag.ms' : 'log.cleaner.max.compaction.lag.ms';
      return [{ key, message: `${key}: log.cleaner.min.compaction.lag.ms ${min} would be greater than log.cleaner.max.compaction.lag.ms ${max}` }];
    }
    return [];
  }

  /** '' is the cluster default, this node's id is this broker; anything else is another broker's. */
  private scopeOf(resourceName: string): DynamicScope | null {
    if (resourceName === '') return 'cluster';
    return resourceName === String(this.nodeId) ? 'broker' : null;
  }
}
