/**
 * The TLS side of a listener (server) and of this node's own connections to
 * other nodes (client), from the broker's `ssl.*` keys with Kafka's
 * precedence: `listener.name.<listener>.ssl.<key>` over `ssl.<key>`.
 *
 * Server: the node's key store (required), its trust store for client
 * certificates, `ssl.client.auth`, `ssl.enabled.protocols`,
 * `ssl.cipher.suites` and the principal mapping rules. Client: the same key
 * store (presented when the other node asks), the trust store its server
 * certificates are checked against, and the host name check
 * (`ssl.endpoint.identification.algorithm`).
 */
import type { ConnectionOptions as TlsConnectionOptions, SecureContextOptions } from 'node:tls';
import { nodeTls } from '../../util/lazy-builtins.js';
import type { BrokerConfig } from '../../config/broker.js';
import type { SslClientAuth } from '../../config/ssl-defs.js';
import { PrincipalMapper, PrincipalMappingError } from './principal-mapper.js';
import { readPemStores, TlsConfigError, type PemStores, type SslKeyLookup } from './pem-stores.js';

export interface TlsListenerSettings {
  /** For tls.createServer: key, cert, ca, passphrase, versions, ciphers, requestCert, rejectUnauthorized. */
  readonly serverOptions: SecureContextOptions & { readonly requestCert: boolean; readonly rejectUnauthorized: boolean };
  readonly clientAuth: SslClientAuth;
  /** ssl.principal.mapping.rules of the listener. */
  readonly principalMapper: PrincipalMapper;
}

/** A listener's value of an ssl key (its own override, else the broker-wide one); secrets unwrapped. */
export function sslLookup(config: BrokerConfig, listener: string): SslKeyLookup {
  return (key) => {
    const scoped = config.listenerOverride(listener, key);
    if (scoped !== undefined) return scoped;
    const value: unknown = config.get(key as Parameters<BrokerConfig['get']>[0]);
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value)) return value.join(',');
    return typeof value === 'object' && 'value' in value ? String((value as { value: string }).value) : String(value);
  };
}

function listOf(raw: string | undefined): string[] {
  return raw === undefined ? [] : raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** minVersion/maxVersion/ciphers from ssl.enabled.protocols and ssl.cipher.suites. */
function protocolOptions(get: SslKeyLookup, origin: string): SecureContextOptions {
  const protocols = listOf(get('ssl.enabled.protocols'));
  const known = protocols.filter((p) => p === 'TLSv1.2' || p === 'TLSv1.3') as ('TLSv1.2' | 'TLSv1.3')[];
  if (known.length === 0 || known.length !== protocols.length) throw new TlsConfigError('ssl.enabled.protocols', `${origin}ssl.enabled.protocols must list TLSv1.2 and/or TLSv1.3, got ${protocols.join(',') || 'nothing'}`);
  const suites = listOf(get('ssl.cipher.suites'));
  const available = new Set(nodeTls().getCiphers().map((c) => c.toLowerCase()));
  const unknown = suites.filter((s) => !available.has(s.toLowerCase()));
  if (unknown.length > 0) throw new TlsConfigError('ssl.cipher.suites', `${origin}ssl.cipher.suites: ${unknown.join(', ')} unknown to this node's OpenSSL (names as \`openssl ciphers\` prints them, or TLS_AES_128_GCM_SHA256-style TLS 1.3 suites)`);
  return {
    minVersion: known.includes('TLSv1.2') ? 'TLSv1.2' : 'TLSv1.3',
    maxVersion: known.includes('TLSv1.3') ? 'TLSv1.3' : 'TLSv1.2',
    ...(suites.length === 0 ? {} : { ciphers: suites.join(':') }),
  };
}

function checkContext(options: SecureContextOptions, origin: string): void {
  try {
    nodeTls().createSecureContext(options);
  } catch (err) {
    throw new TlsConfigError('ssl.keystore.location', `${origin}the key store cannot be used (${(err as Error).message}; does the key belong to the first certificate?)`, { cause: err });
  }
}

function storeOptions(stores: PemStores): SecureContextOptions {
  return {
    ...(stores.key === undefined ? {} : { key: stores.key }),
    ...(stores.cert === undefined ? {} : { cert: stores.cert }),
    ...(stores.passphrase === undefined ? {} : { passphrase: stores.passphrase }),
    ...(stores.ca === undefined ? {} : { ca: stores.ca }),
  };
}

/** The server side of an SSL or SASL_SSL listener. Throws TlsConfigError. */
export function tlsListenerSettings(config: BrokerConfig, listener: string): TlsListenerSettings {
  const origin = `listener ${listener}: `;
  const get = sslLookup(config, listener);
  const stores = readPemStores(get, origin);
  if (stores.key === undefined) throw new TlsConfigError('ssl.keystore.location', `${origin}a TLS listener needs a key store: ssl.keystore.location (PEM key + certificate chain) or ssl.keystore.key with ssl.keystore.certificate.chain`);
  const clientAuth = (get('ssl.client.auth') ?? 'none') as SslClientAuth;
  let principalMapper: PrincipalMapper;
  try {
    principalMapper = PrincipalMapper.parse(get('ssl.principal.mapping.rules') ?? 'DEFAULT');
  } catch (err) {
    if (!(err instanceof PrincipalMappingError)) throw err;
    throw new TlsConfigError('ssl.principal.mapping.rules', `${origin}ssl.principal.mapping.rules: ${err.message}`);
  }
  const options = { ...storeOptions(stores), ...protocolOptions(get, origin) };
  checkContext(options, origin);
  return { serverOptions: { ...options, requestCert: clientAuth !== 'none', rejectUnauthorized: clientAuth === 'required' }, clientAuth, principalMapper };
}

/**
 * This node's TLS options for connecting to another node's listener
 * `listener` (its inter-broker or controller listener): the same key and
 * trust stores, protocols and suites. Throws TlsConfigError.
 */
export function tlsClientOptions(config: BrokerConfig, listener: string): TlsConnectionOptions {
  const origin = `listener ${listener} (connections to other nodes): `;
  const get = sslLookup(config, listener);
  const options: TlsConnectionOptions = { ...storeOptions(readPemStores(get, origin)), ...protocolOptions(get, origin) };
  checkContext(options, origin);
  if ((get('ssl.endpoint.identification.algorithm') ?? 'https') === '') options.checkServerIdentity = () => undefined;
  return options;
}
