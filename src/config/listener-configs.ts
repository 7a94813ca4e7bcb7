/**
 * Listener-scoped broker keys, as Kafka writes them:
 *
 *   listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN
 *   listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache...PlainLoginModule required user_alice="alice-secret";
 *
 * `splitListenerKeys` takes them out of the raw map (the generic parser
 * knows only plain keys) and checks each: the key after the listener name
 * must be one of LISTENER_SCOPED_KEYS (or `<mechanism>.sasl.jaas.config`),
 * and the value must parse as that key's value. The listener name must be
 * one of `listeners` (checked later, with the listeners known).
 */
import { parseValue, type ConfigKey } from './def.js';
import type { ConfigProblem } from './errors.js';
import { parseJaasConfig } from './jaas.js';
import { LISTENER_SCOPED_KEYS, SASL_MECHANISM_NAMES, securityConfigs } from './security-defs.js';
import { defineConfigs } from './def.js';
import { QUOTA_LISTENER_SCOPED_KEYS, quotaConfigs } from './quota-defs.js';
import { SSL_LISTENER_SCOPED_KEYS, sslConfigs } from './ssl-defs.js';

const SCOPED_RE = /^listener\.name\.([^.]+)\.(.+)$/;
const DEFS = defineConfigs({ ...securityConfigs, ...sslConfigs, ...quotaConfigs }) as unknown as Readonly<Record<string, ConfigKey<unknown>>>;

/** Listener name (upper case) -> key -> raw value. */
export type ListenerOverrides = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The definition a listener-scoped key is parsed with; undefined when the key cannot be scoped. */
function scopedDef(key: string): ConfigKey<unknown> | undefined {
  if (LISTENER_SCOPED_KEYS.has(key) || QUOTA_LISTENER_SCOPED_KEYS.has(key) || SSL_LISTENER_SCOPED_KEYS.includes(key)) return DEFS[key];
  const m = /^([a-z0-9-]+)\.sasl\.jaas\.config$/.exec(key);
  if (m !== null && SASL_MECHANISM_NAMES.some((n) => n.toLowerCase() === m[1])) return DEFS['sasl.jaas.config'];
  return undefined;
}

/** A JAAS problem of a value (the value itself is never shown: it holds passwords). */
export function jaasProblem(key: string, raw: string): string | undefined {
  const parsed = parseJaasConfig(raw);
  return typeof parsed === 'string' ? `${key}: not a valid JAAS config (${parsed})` : undefined;
}

export function splitListenerKeys(raw: Readonly<Record<string, string>>, problems: ConfigProblem[], origins?: ReadonlyMap<string, string>): { rest: Record<string, string>; overrides: ListenerOverrides } {
  const rest: Record<string, string> = {};
  const overrides = new Map<string, Map<string, string>>();
  for (const [key, value] of Object.entries(raw)) {
    const m = SCOPED_RE.exec(key);
    if (m === null) {
      rest[key] = value;
      continue;
    }
    const origin = origins?.get(key);
    const at = origin === undefined ? {} : { origin };
    const [, listener = '', scoped = ''] = m;
    const def = scopedDef(scoped);
    if (def === undefined) {
      problems.push({ key, message: `${key}: ${scoped} cannot be set per listener; listener.name.<listener>. takes ${[...LISTENER_SCOPED_KEYS, ...QUOTA_LISTENER_SCOPED_KEYS].join(', ')}, ssl.* or <mechanism>.sasl.jaas.config`, ...at });
      continue;
    }
    const parsed = parseValue(def, value);
    const problem = !parsed.ok ? parsed.message.replace(def.name, key) : def.name === 'sasl.jaas.config' ? jaasProblem(key, value) : undefined;
    if (problem !== undefined) {
      problems.push({ key, message: problem, ...at });
      continue;
    }
    const name = listener.toUpperCase();
    if (!overrides.has(name)) overrides.set(name, new Map());
    (overrides.get(name) as Map<string, string>).set(scoped, value.trim());
  }
  return { rest, overrides };
}
