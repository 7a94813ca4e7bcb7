/**
 * Quota and connection-limit keys of the broker (Kafka's names): the
 * sampled windows client quotas are measured over, and the connection
 * limits checked when a connection is accepted. The enforcement is in
 * src/security/quota; this file only defines and validates values.
 */
import { int, str } from './def.js';

const INT_MAX = 2_147_483_647;

/**
 * `max.connections.per.ip.overrides`: `host:count` entries separated by
 * commas (Kafka's syntax, e.g. `127.0.0.1:200,10.0.0.7:5`). The count
 * follows the last colon, so IPv6 addresses work as written.
 */
export function parseConnectionOverrides(raw: string): Map<string, number> | string {
  const out = new Map<string, number>();
  for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const colon = entry.lastIndexOf(':');
    const host = colon <= 0 ? '' : entry.slice(0, colon).trim().replace(/^\[(.*)\]$/, '$1');
    const count = colon <= 0 ? NaN : Number(entry.slice(colon + 1).trim());
    if (host === '' || !Number.isInteger(count) || count < 0 || count > INT_MAX) return `"${entry}" is not host:count with a count from 0 to ${INT_MAX}`;
    out.set(host, count);
  }
  return out;
}

export const quotaConfigs = {
  'max.connections': int({ default: INT_MAX, min: 0, importance: 'medium',
    doc: 'Most open connections on this broker, over every listener but the inter-broker one; listener.name.<listener>.max.connections limits one listener. A connection over the limit is closed as soon as it is accepted (Kafka instead stops accepting until one closes).' }),
  'max.connections.per.ip': int({ default: INT_MAX, min: 0, importance: 'medium', doc: 'Most open connections from one IP address; the next one is closed as soon as it is accepted.' }),
  'max.connections.per.ip.overrides': str({ default: '', importance: 'medium', expected: 'host:count entries separated by commas',
    validate: (v) => { const parsed = parseConnectionOverrides(v); return typeof parsed === 'string' ? parsed : undefined; },
    doc: 'Per-IP exceptions to max.connections.per.ip, e.g. 127.0.0.1:200,10.0.0.7:5 (IP addresses; host names are not resolved).' }),
  'quota.window.num': int({ default: 11, min: 2, importance: 'low', doc: 'Number of sampled windows client quota rates are measured over.' }),
  'quota.window.size.seconds': int({ default: 1, min: 1, importance: 'low', doc: 'Length of each sampled window of client quota rates.' }),
};

/** Quota keys a listener may override as `listener.name.<listener>.<key>`. */
export const QUOTA_LISTENER_SCOPED_KEYS: ReadonlySet<string> = new Set(['max.connections']);
