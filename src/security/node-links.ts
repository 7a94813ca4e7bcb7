/**
 * How this node connects to other nodes (Kafka's client side of
 * `inter.broker.listener.name` and `controller.listener.names`): over the
 * listener they are configured for, with TLS when its protocol is SSL or
 * SASL_SSL (this node's key and trust stores, tls/tls-settings.ts) and SASL
 * when it is SASL_PLAINTEXT or SASL_SSL, logging in with
 * `sasl.mechanism.inter.broker.protocol` / `sasl.mechanism.controller.protocol`
 * and the `username`/`password` of that listener's JAAS config, as Kafka
 * does. Every inter-node connection (replica fetchers, transaction traffic,
 * broker-to-controller calls, Raft) is opened with the result, so they all
 * speak the same security.
 */
import type { BrokerConfig } from '../config/broker.js';
import { parseJaasConfig } from '../config/jaas.js';
import { ConfigError } from '../config/errors.js';
import { SECURITY_PROTOCOLS, type SecurityProtocol } from '../config/listeners.js';
import type { ConnectionSecurity } from '../net/connection-options.js';
import { tlsClientOptions } from './tls/tls-settings.js';
import { TlsConfigError } from './tls/pem-stores.js';

export type NodeLink = 'inter.broker' | 'controller';

/** The protocol of a listener name, as this node's config maps it (the listener need not be one of this node's). */
export function listenerProtocol(config: BrokerConfig, listener: string): SecurityProtocol {
  const name = listener.toUpperCase();
  const own = config.listeners.find((l) => l.name === name);
  if (own !== undefined) return own.securityProtocol;
  for (const entry of config.get('listener.security.protocol.map')) {
    const [n, p] = entry.split(':');
    if (n?.toUpperCase() === name && SECURITY_PROTOCOLS.includes(p?.toUpperCase() as SecurityProtocol)) return p?.toUpperCase() as SecurityProtocol;
  }
  return SECURITY_PROTOCOLS.find((p) => p === name) ?? 'PLAINTEXT';
}

/** The listener name a link goes over. */
export function linkListener(config: BrokerConfig, link: NodeLink): string {
  return link === 'inter.broker' ? config.interBrokerListenerName : (config.get('controller.listener.names')[0] ?? 'CONTROLLER').toUpperCase();
}

function saslCredentials(config: BrokerConfig, listener: string, link: NodeLink): NonNullable<ConnectionSecurity['sasl']> {
  const key = link === 'inter.broker' ? 'sasl.mechanism.inter.broker.protocol' : 'sasl.mechanism.controller.protocol';
  const mechanism = config.get(key);
  const raw = config.listenerOverride(listener, `${mechanism.toLowerCase()}.sasl.jaas.config`) ?? config.listenerOverride(listener, 'sasl.jaas.config') ?? config.get('sasl.jaas.config')?.value;
  const module = raw === undefined ? undefined : parseJaasConfig(raw);
  const username = typeof module === 'object' ? module.options.get('username') : undefined;
  const password = typeof module === 'object' ? module.options.get('password') : undefined;
  // The config loader checks this for a node's own listeners; a listener only named in the map is checked here.
  if (username === undefined || password === undefined) {
    throw new ConfigError('ERR_TRIB_CONFIG_INVALID', [{ key, message: `${key}: the JAAS config of listener ${listener} needs username="..." password="..." for this node to log in to the others` }]);
  }
  return { mechanism, username, password };
}

/** What every connection of `link` is opened with: `{}` for PLAINTEXT. Throws ConfigError. */
export function nodeLinkSecurity(config: BrokerConfig, link: NodeLink): ConnectionSecurity {
  const listener = linkListener(config, link);
  const protocol = listenerProtocol(config, listener);
  let tls: ConnectionSecurity['tls'];
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    try {
      tls = tlsClientOptions(config, listener);
    } catch (err) {
      if (!(err instanceof TlsConfigError)) throw err;
      throw new ConfigError('ERR_TRIB_CONFIG_INVALID', [{ key: err.key, message: err.message }], { cause: err });
    }
  }
  const sasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL' ? saslCredentials(config, listener, link) : undefined;
  return { ...(tls === undefined ? {} : { tls }), ...(sasl === undefined ? {} : { sasl }) };
}

/**
 * What would make this node's own inter-node requests fail authorization:
 * with an authorizer on, the SASL users its links log in as must be super
 * users (or be granted CLUSTER_ACTION and the rest by ACLs, which are not
 * known at start). One line per user that is not in `super.users`; empty
 * without an authorizer or without SASL links. (A certificate's principal
 * over SSL depends on the mapping rules and is not checked here.)
 */
export function nodeLinkAuthorizationWarnings(links: { readonly interBroker: ConnectionSecurity; readonly controller: ConnectionSecurity } | undefined, superUsers: ReadonlySet<string> | null): string[] {
  if (links === undefined || superUsers === null) return [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const [name, link] of [['inter.broker', links.interBroker], ['controller', links.controller]] as const) {
    const user = link.sasl?.username;
    if (user === undefined || seen.has(user)) continue;
    seen.add(user);
    const principal = `User:${user}`;
    if (!superUsers.has(principal)) {
      warnings.push(`the ${name} link logs in as ${principal}, which is not in super.users: unless ACLs grant it CLUSTER_ACTION on the cluster (and what replication and transactions need), the other nodes will deny its requests`);
    }
  }
  return warnings;
}
