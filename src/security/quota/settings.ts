/**
 * The quota settings of a broker, resolved from its config (Kafka's keys,
 * src/config/quota-defs.ts): the windows rates are measured over and the
 * connection limits checked on accept.
 */
import type { BrokerConfig } from '../../config/broker.js';
import { parseConnectionOverrides } from '../../config/quota-defs.js';
import type { ConnectionLimitSettings } from './connection-quotas.js';
import { DEFAULT_QUOTA_WINDOWS } from './client-quota-manager.js';
import type { RateConfig } from './rate.js';

export interface QuotaSettings {
  /** quota.window.num x quota.window.size.seconds. */
  readonly windows: RateConfig;
  readonly connections: ConnectionLimitSettings;
}

const INT_MAX = 2_147_483_647;

/** No limits, Kafka's default windows (tests and embedded brokers built without a config). */
export const DEFAULT_QUOTA_SETTINGS: QuotaSettings = {
  windows: DEFAULT_QUOTA_WINDOWS,
  connections: { maxConnections: INT_MAX, maxConnectionsPerListener: new Map(), maxConnectionsPerIp: INT_MAX, maxConnectionsPerIpOverrides: new Map(), interBrokerListener: null },
};

export function quotaSettingsFromConfig(config: BrokerConfig, interBrokerListener: string | null): QuotaSettings {
  const perListener = new Map<string, number>();
  for (const l of config.listeners) {
    const raw = config.listenerOverride(l.name, 'max.connections');
    // The config loader already refused values that do not parse as an int.
    if (raw !== undefined) perListener.set(l.name.toUpperCase(), Number(raw));
  }
  const overrides = parseConnectionOverrides(config.get('max.connections.per.ip.overrides'));
  return {
    windows: { samples: config.get('quota.window.num'), windowMs: config.get('quota.window.size.seconds') * 1000 },
    connections: {
      maxConnections: config.get('max.connections'),
      maxConnectionsPerListener: perListener,
      maxConnectionsPerIp: config.get('max.connections.per.ip'),
      // Validated by the config loader (quota-defs.ts), so never a message here.
      maxConnectionsPerIpOverrides: typeof overrides === 'string' ? new Map() : overrides,
      interBrokerListener,
    },
  };
}
