/**
 * `--command-config FILE`: Kafka client properties for the CLI's connections,
 * as Kafka's tools take them (kafka-topics.sh --command-config):
 *
 *   security.protocol=SASL_PLAINTEXT
 *   sasl.mechanism=SCRAM-SHA-512
 *   sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";
 *
 * PLAIN and SCRAM logins come from the JAAS line's username/password (or,
 * ours, `sasl.username`/`sasl.password` as librdkafka writes them). SSL and
 * SASL_SSL read Kafka's PEM stores (`ssl.truststore.location`,
 * `ssl.truststore.certificates`, `ssl.keystore.location` + `ssl.key.password`,
 * `ssl.keystore.key` + `ssl.keystore.certificate.chain`; src/security/tls/pem-stores.ts);
 * librdkafka's `ssl.ca.location`, `ssl.certificate.location` and
 * `ssl.key.location` work too. `ssl.endpoint.identification.algorithm=`
 * (empty) skips the host name check, as in Kafka. Other client keys
 * (timeouts, client.id, ...) are accepted and ignored (docs/security.md).
 */
import { readFileSync } from 'node:fs';
import { parseJaasConfig } from '../../config/jaas.js';
import { parseProperties } from '../../config/properties.js';
import { invalidArgument } from '../../net/errors.js';
import type { SaslMechanismName, SaslOptions } from '../../net/sasl-client.js';
import type { ConnectionSecurity, TlsOptions } from '../../net/connection-options.js';
import { readPemStores, TlsConfigError } from '../../security/tls/pem-stores.js';

const MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/** librdkafka's file keys, read as the Kafka key of the same store. */
function readFile(origin: string, key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw invalidArgument(`${origin}: ${key}: cannot read ${path} (${(err as Error).message})`);
  }
}

/** node:tls options from the ssl.* keys (Kafka's PEM stores, or librdkafka's file keys). */
function tlsFromProperties(props: ReadonlyMap<string, string>, origin: string): TlsOptions {
  const librdkafka = new Map<string, string>();
  const ca = props.get('ssl.ca.location');
  if (ca !== undefined) librdkafka.set('ssl.truststore.certificates', readFile(origin, 'ssl.ca.location', ca));
  const cert = props.get('ssl.certificate.location');
  const key = props.get('ssl.key.location');
  if (cert !== undefined) librdkafka.set('ssl.keystore.certificate.chain', readFile(origin, 'ssl.certificate.location', cert));
  if (key !== undefined) librdkafka.set('ssl.keystore.key', readFile(origin, 'ssl.key.location', key));
  try {
    const stores = readPemStores((k) => props.get(k) ?? librdkafka.get(k), `${origin}: `);
    const options: TlsOptions = { ...stores };
    if (props.get('ssl.endpoint.identification.algorithm') === '') options.checkServerIdentity = () => undefined;
    return options;
  } catch (err) {
    if (err instanceof TlsConfigError) throw invalidArgument(err.message);
    throw err;
  }
}

/** The connection options a command config asks for: `{}` for PLAINTEXT, `{ tls }` for SSL, `{ sasl }` for SASL_PLAINTEXT, both for SASL_SSL. */
export function securityFromProperties(props: ReadonlyMap<string, string>, origin: string): ConnectionSecurity {
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!PROTOCOLS.includes(protocol)) throw invalidArgument(`${origin}: security.protocol=${protocol} is not one of ${PROTOCOLS.join(', ')}`);
  const tls = protocol.endsWith('SSL') ? { tls: tlsFromProperties(props, origin) } : {};
  if (!protocol.startsWith('SASL_')) return tls;
  return { ...tls, sasl: saslFromProperties(props, origin) };
}

function saslFromProperties(props: ReadonlyMap<string, string>, origin: string): SaslOptions {
  const mechanism = (props.get('sasl.mechanism') ?? 'GSSAPI').toUpperCase();
  const known = MECHANISMS.find((m) => m === mechanism);
  if (known === undefined) throw invalidArgument(`${origin}: sasl.mechanism=${mechanism} is not supported (${MECHANISMS.join(', ')})`);
  let username = props.get('sasl.username');
  let password = props.get('sasl.password');
  const jaas = props.get('sasl.jaas.config');
  if (jaas !== undefined) {
    const module = parseJaasConfig(jaas);
    if (typeof module === 'string') throw invalidArgument(`${origin}: sasl.jaas.config is not a valid JAAS config (${module})`);
    username = module.options.get('username') ?? username;
    password = module.options.get('password') ?? password;
  }
  if (username === undefined || password === undefined) throw invalidArgument(`${origin}: SASL needs a username and password (sasl.jaas.config=... username="..." password="...";)`);
  return { mechanism: known, username, password };
}

/** Reads and interprets a command-config file; undefined path = PLAINTEXT. */
export function loadCommandConfig(path: string | undefined): ConnectionSecurity {
  if (path === undefined) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalidArgument(`--command-config ${path}: cannot read the file (${(err as Error).message})`);
  }
  const parsed = parseProperties(text, path);
  if (parsed.problems.length > 0) throw invalidArgument(`--command-config ${path}: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return securityFromProperties(new Map(parsed.entries.map((e) => [e.key, e.value])), path);
}
