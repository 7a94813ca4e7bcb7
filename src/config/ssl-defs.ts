/**
 * TLS keys of the broker (Kafka's names), for SSL and SASL_SSL listeners and
 * for this node's own connections to other nodes. Keystores and truststores
 * are PEM only: `ssl.keystore.type`/`ssl.truststore.type` accept PEM, and
 * JKS or PKCS12 are refused with a message saying how to convert. Each key
 * may be set per listener (`listener.name.<listener>.ssl.*`). The TLS code
 * itself is in src/security/tls; this file only defines and validates values.
 */
import { enumOf, list, password, str } from './def.js';

/** What the broker asks of a client's certificate (Kafka's ssl.client.auth). */
export const SSL_CLIENT_AUTH = ['none', 'requested', 'required'] as const;
export type SslClientAuth = (typeof SSL_CLIENT_AUTH)[number];

/** The TLS versions node:tls speaks; Kafka's names. */
export const TLS_PROTOCOLS = ['TLSv1.2', 'TLSv1.3'] as const;

/** Store types Kafka knows; only PEM is readable here (see ssl-defs header). */
const STORE_TYPES = ['PEM', 'JKS', 'PKCS12'] as const;

export const sslConfigs = {
  'ssl.keystore.type': enumOf({ values: STORE_TYPES, default: null, caseInsensitive: true, importance: 'medium', kafkaDefault: 'JKS',
    doc: 'Format of the keystore. Only PEM is supported (JKS and PKCS12 are refused: convert with keytool/openssl to PEM). Default: PEM.' }),
  'ssl.keystore.location': str({ default: null, importance: 'high',
    doc: 'PEM file holding this node\'s private key and its certificate chain (server side of SSL listeners, client side of connections to other nodes).' }),
  'ssl.keystore.password': password({ default: null, importance: 'high',
    doc: 'Not used with PEM keystores (Kafka ignores it too); the key is decrypted with ssl.key.password.' }),
  'ssl.key.password': password({ default: null, importance: 'high',
    doc: 'Passphrase of the encrypted private key in ssl.keystore.location or ssl.keystore.key.' }),
  'ssl.keystore.certificate.chain': password({ default: null, importance: 'high',
    doc: 'Certificate chain in PEM, inline (instead of ssl.keystore.location).' }),
  'ssl.keystore.key': password({ default: null, importance: 'high',
    doc: 'Private key in PEM (PKCS#8, optionally encrypted with ssl.key.password), inline (instead of ssl.keystore.location).' }),
  'ssl.truststore.type': enumOf({ values: STORE_TYPES, default: null, caseInsensitive: true, importance: 'medium', kafkaDefault: 'JKS',
    doc: 'Format of the truststore. Only PEM is supported. Default: PEM.' }),
  'ssl.truststore.location': str({ default: null, importance: 'high',
    doc: 'PEM file of the CA certificates trusted for client certificates (and for other nodes\' server certificates). Default: node\'s bundled CAs.' }),
  'ssl.truststore.password': password({ default: null, importance: 'high', doc: 'Not used with PEM truststores.' }),
  'ssl.truststore.certificates': password({ default: null, importance: 'high',
    doc: 'Trusted certificates in PEM, inline (instead of ssl.truststore.location).' }),
  'ssl.client.auth': enumOf({ values: SSL_CLIENT_AUTH, default: 'none', importance: 'medium',
    doc: 'none: no client certificate asked; requested: asked, a client without one is User:ANONYMOUS, an untrusted one is refused; required: a client without a trusted certificate cannot connect.' }),
  'ssl.enabled.protocols': list({ default: ['TLSv1.2', 'TLSv1.3'], importance: 'medium',
    validateItem: (p) => ((TLS_PROTOCOLS as readonly string[]).includes(p) ? undefined : `${p} is not supported (${TLS_PROTOCOLS.join(', ')})`),
    doc: 'TLS versions accepted.' }),
  'ssl.protocol': str({ default: 'TLSv1.3', importance: 'medium', doc: 'Accepted for Kafka compatibility; ssl.enabled.protocols decides.' }),
  'ssl.cipher.suites': list({ default: [], importance: 'low',
    doc: 'Cipher suites allowed, in OpenSSL or IANA names (TLS 1.3 suites are TLS_AES_*, TLS_CHACHA20_*). Empty: node\'s defaults.' }),
  'ssl.principal.mapping.rules': str({ default: 'DEFAULT', importance: 'low',
    doc: 'Rules mapping a client certificate\'s distinguished name (RFC 2253, e.g. CN=alice,OU=eng,O=Acme) to a principal name: RULE:pattern/replacement/[LU], ..., DEFAULT (the whole name).' }),
  'ssl.endpoint.identification.algorithm': str({ default: 'https', importance: 'low',
    doc: 'https: this node checks that another node\'s certificate names the host it connects to; empty: it does not.' }),
};

/** The TLS keys a listener may override as `listener.name.<listener>.<key>`. */
export const SSL_LISTENER_SCOPED_KEYS: readonly string[] = Object.keys(sslConfigs);
