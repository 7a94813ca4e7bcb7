/**
 * What one listener demands of its connections, resolved from the broker
 * config: its security protocol, for SSL and SASL_SSL its TLS settings
 * (tls/tls-settings.ts) and, for SASL_PLAINTEXT and SASL_SSL, the
 * mechanisms it offers, the PLAIN users of its JAAS config, the session
 * lifetime (KIP-368) and the largest frame before authentication.
 *
 * Precedence (Kafka's): `listener.name.<listener>.<mechanism>.sasl.jaas.config`,
 * then `listener.name.<listener>.sasl.jaas.config`, then `sasl.jaas.config`;
 * `listener.name.<listener>.<key>` over `<key>` for the other keys.
 */
import type { BrokerConfig } from '../config/broker.js';
import { parseValue, type ConfigKey } from '../config/def.js';
import { parseJaasConfig, plainUsers } from '../config/jaas.js';
import type { SecurityProtocol } from '../config/listeners.js';
import { BROKER_CONFIGS } from '../config/broker.js';
import { ConfigError } from '../config/errors.js';
import type { SaslMechanism } from './sasl/mechanism.js';
import { tlsListenerSettings, type TlsListenerSettings } from './tls/tls-settings.js';
import { TlsConfigError } from './tls/pem-stores.js';

export interface SaslListenerSettings {
  readonly mechanisms: readonly SaslMechanism[];
  readonly plainUsers: ReadonlyMap<string, string>;
  /** connections.max.reauth.ms; 0 = sessions do not expire. */
  readonly reauthMs: number;
  /** sasl.server.max.receive.size */
  readonly receiveBytesMax: number;
}

export interface ListenerSecurity {
  readonly protocol: SecurityProtocol;
  /** Null unless the protocol is SASL_PLAINTEXT or SASL_SSL. */
  readonly sasl: SaslListenerSettings | null;
  /** Null unless the protocol is SSL or SASL_SSL (src/security/tls). */
  readonly tls: TlsListenerSettings | null;
}

export const PLAINTEXT_SECURITY: ListenerSecurity = Object.freeze({ protocol: 'PLAINTEXT', sasl: null, tls: null });

/** The listener's value of a key: its own `listener.name.` override, else the broker-wide one. */
function scoped<K extends 'sasl.enabled.mechanisms' | 'connections.max.reauth.ms' | 'sasl.server.max.receive.size'>(config: BrokerConfig, listener: string, key: K): ReturnType<BrokerConfig['get']> {
  const raw = config.listenerOverride(listener, key);
  if (raw === undefined) return config.get(key);
  const parsed = parseValue(BROKER_CONFIGS[key] as unknown as ConfigKey<unknown>, raw);
  // The config loader already refused values that do not parse.
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value as ReturnType<BrokerConfig['get']>;
}

function plainUsersOf(config: BrokerConfig, listener: string): Map<string, string> {
  const raw = config.listenerOverride(listener, 'plain.sasl.jaas.config') ?? config.listenerOverride(listener, 'sasl.jaas.config') ?? config.get('sasl.jaas.config')?.value;
  if (raw === undefined) return new Map();
  const module = parseJaasConfig(raw);
  if (typeof module === 'string') throw new Error(`the JAAS config of listener ${listener} does not parse: ${module}`);
  return plainUsers(module);
}

function tlsOf(config: BrokerConfig, listener: string): TlsListenerSettings {
  try {
    return tlsListenerSettings(config, listener);
  } catch (err) {
    if (!(err instanceof TlsConfigError)) throw err;
    throw new ConfigError('ERR_TRIB_CONFIG_INVALID', [{ key: err.key, message: err.message }], { cause: err });
  }
}

/**
 * Reads the listener's TLS key and trust stores (SSL, SASL_SSL) and SASL
 * settings (SASL_PLAINTEXT, SASL_SSL). Throws ConfigError when a store
 * cannot be read or used, so a listener that says TLS never serves plain TCP.
 */
export function listenerSecurityFromConfig(config: BrokerConfig, listener: string, protocol: SecurityProtocol): ListenerSecurity {
  const tls = protocol === 'SSL' || protocol === 'SASL_SSL' ? tlsOf(config, listener) : null;
  if (protocol === 'PLAINTEXT' || protocol === 'SSL') return { protocol, sasl: null, tls };
  return {
    protocol,
    tls,
    sasl: {
      mechanisms: scoped(config, listener, 'sasl.enabled.mechanisms') as readonly SaslMechanism[],
      plainUsers: plainUsersOf(config, listener),
      reauthMs: Number(scoped(config, listener, 'connections.max.reauth.ms')),
      receiveBytesMax: Number(scoped(config, listener, 'sasl.server.max.receive.size')),
    },
  };
}
