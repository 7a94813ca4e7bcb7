/**
 * The controller's view of config keys (controller/config-plan.ts
 * ConfigSchema): which keys are lists (IncrementalAlterConfigs APPEND and
 * SUBTRACT apply only to them) and the value a resource inherits for a key
 * it does not set, which APPEND/SUBTRACT start from. Kafka starts from the
 * key's static default; we start from the effective inherited value (what
 * DescribeConfigs shows), so appending `compact` to a topic under a broker
 * default of `log.cleanup.policy=compact,delete` keeps both.
 */
import type { ConfigSchema } from '../../controller/config-plan.js';
import { BROKER_CONFIGS, type BrokerConfigKey } from '../../config/broker.js';
import type { ConfigKey } from '../../config/def.js';
import { TOPIC_CONFIGS, type TopicConfigKey } from '../../config/topic.js';
import { ConfigResourceKind } from './config-service.js';
import type { DynamicBrokerConfig } from './dynamic-broker-config.js';

function defIn(defs: object, name: string): ConfigKey<unknown> | undefined {
  return Object.hasOwn(defs, name) ? (defs as Record<string, ConfigKey<unknown>>)[name] : undefined;
}

export function configSchemaFor(config: DynamicBrokerConfig): ConfigSchema {
  return {
    isList(resourceType, name) {
      const def = resourceType === ConfigResourceKind.Topic ? defIn(TOPIC_CONFIGS, name) : resourceType === ConfigResourceKind.Broker ? defIn(BROKER_CONFIGS, name) : undefined;
      return def === undefined ? undefined : def.type === 'list';
    },
    inheritedValue(resourceType, resourceName, name) {
      if (resourceType === ConfigResourceKind.Topic) {
        const def = defIn(TOPIC_CONFIGS, name);
        if (def === undefined) return null;
        // The topic's value without an override: the broker's (dynamic or static) default.
        return def.encode(config.topicConfig().values[name as TopicConfigKey]);
      }
      const def = defIn(BROKER_CONFIGS, name);
      if (resourceType !== ConfigResourceKind.Broker || def === undefined) return null;
      const key = name as BrokerConfigKey;
      const cluster = config.dynamicConfigs('cluster').get(key);
      const value = resourceName !== '' && cluster !== undefined ? cluster : def.encode(config.staticConfig.get(key));
      return value;
    },
  };
}
