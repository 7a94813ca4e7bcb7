/** A value each config definition refuses, for "every key: a bad value is refused" tests. */
import type { ConfigKey } from '../../../../src/config/def.js';
import { BROKER_CONFIGS } from '../../../../src/config/broker.js';
import { isDynamicBrokerKey } from '../../../../src/broker/configs/dynamic-broker-config.js';

export function badValueFor(def: ConfigKey<unknown>): string {
  switch (def.type) {
    case 'int':
    case 'long':
    case 'double':
      return 'not-a-number';
    case 'boolean':
      return 'maybe';
    case 'enum':
    case 'list':
      if (def.allowed !== undefined) return 'no-such-value';
      break;
    case 'string':
      // Tributary's partition:offset list (src/config/topic.ts).
      if (def.name === 'mirror.promoted.offsets') return '0=12';
      break;
    default:
      break;
  }
  throw new Error(`no bad value known for ${def.name} (${def.type})`);
}

export const DYNAMIC_BROKER_KEYS: readonly string[] = Object.keys(BROKER_CONFIGS).filter(isDynamicBrokerKey);
