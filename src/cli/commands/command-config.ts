/**
 * `--command-config FILE`: Kafka client properties for the CLI's connections,
 * as Kafka's tools take them (kafka-topics.sh --command-config):
 *
 *   security.protocol=SASL_PLAINTEXT
 *   sasl.mechanism=SCRAM-SHA-512
 *   sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";
 *
 * PLAIN and SCRAM logins come from the JAAS line's username/password (or,
 * ours, `sasl.username`/`sasl.password` as librdkafka writes them). Other
 * client keys (timeouts, client.id, ...) are accepted and ignored; SSL and
 * SASL_SSL are refused until TLS exists (docs/security.md).
 */
import { readFileSync } from 'node:fs';
import { parseJaasConfig } from '../../config/jaas.js';
import { parseProperties } from '../../config/properties.js';
import { invalidArgument } from '../../net/errors.js';
import type { SaslMechanismName, SaslOptions } from '../../net/sasl-client.js';

const MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** The connection options a command config asks for: `{}` for PLAINTEXT, `{ sasl }` for SASL_PLAINTEXT. */
export function securityFromProperties(props: ReadonlyMap<string, string>, origin: string): { sasl?: SaslOptions } {
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (protocol === 'PLAINTEXT') return {};
  if (protocol !== 'SASL_PLAINTEXT') throw invalidArgument(`${origin}: security.protocol=${protocol} is not supported (PLAINTEXT or SASL_PLAINTEXT; TLS is not implemented yet)`);
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
  return { sasl: { mechanism: known, username, password } };
}

/** Reads and interprets a command-config file; undefined path = PLAINTEXT. */
export function loadCommandConfig(path: string | undefined): { sasl?: SaslOptions } {
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
