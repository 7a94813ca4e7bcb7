/**
 * Which quota applies to a request: Kafka's precedence for (user, client-id)
 * quotas (docs "Quotas", DefaultQuotaCallback), most specific first:
 *
 *   1. /config/users/<user>/clients/<client-id>
 *   2. /config/users/<user>/clients/<default>
 *   3. /config/users/<user>
 *   4. /config/users/<default>/clients/<client-id>
 *   5. /config/users/<default>/clients/<default>
 *   6. /config/users/<default>
 *   7. /config/clients/<client-id>
 *   8. /config/clients/<default>
 *
 * Each quota key is resolved on its own (alice may have a user-level
 * producer_byte_rate and a default-client consumer_byte_rate). The user is
 * the principal's name (`User:alice` -> `alice`; `ANONYMOUS` on PLAINTEXT
 * listeners, so default-user quotas apply there too).
 *
 * The level also decides whom the rate is measured for (Kafka's metric
 * tags): a user-level quota is shared by all of that user's client ids, a
 * client-id-level quota by every user of that client id, and the
 * user+client levels by that pair only. `sensorKey` is that grouping.
 */
import type { QuotaEntityPart } from '../../controller/metadata/client-quotas.js';

/** Looks up one key of exactly one entity (the metadata image's ClientQuotas.value). */
export type QuotaLookup = (entity: readonly QuotaEntityPart[], key: string) => number | undefined;

export interface ResolvedQuota {
  readonly bound: number;
  /** The entity whose value applied, as stored (null names are defaults). */
  readonly entity: readonly QuotaEntityPart[];
  /** Kafka's path for that entity, e.g. `/config/users/alice/clients/<default>`. */
  readonly path: string;
  /** Who shares the measured rate: `<user>\u0000<client-id>` with '' for "any". */
  readonly sensorKey: string;
}

type Level = { user: 'name' | 'default' | 'none'; client: 'name' | 'default' | 'none' };

const LEVELS: readonly Level[] = [
  { user: 'name', client: 'name' },
  { user: 'name', client: 'default' },
  { user: 'name', client: 'none' },
  { user: 'default', client: 'name' },
  { user: 'default', client: 'default' },
  { user: 'default', client: 'none' },
  { user: 'none', client: 'name' },
  { user: 'none', client: 'default' },
];

/** The user name quotas use for a principal (`User:alice` -> `alice`). */
export function quotaUserOf(principal: string): string {
  const colon = principal.indexOf(':');
  return colon < 0 ? principal : principal.slice(colon + 1);
}

function entityOf(level: Level, user: string, clientId: string): QuotaEntityPart[] {
  const parts: QuotaEntityPart[] = [];
  if (level.client !== 'none') parts.push({ entityType: 'client-id', entityName: level.client === 'name' ? clientId : null });
  if (level.user !== 'none') parts.push({ entityType: 'user', entityName: level.user === 'name' ? user : null });
  return parts;
}

/** Kafka's ZooKeeper-style path of an entity, the way operators read it. */
export function quotaEntityPath(entity: readonly QuotaEntityPart[]): string {
  const name = (type: string): string | undefined => {
    const part = entity.find((p) => p.entityType === type);
    return part === undefined ? undefined : (part.entityName ?? '<default>');
  };
  const user = name('user');
  const client = name('client-id');
  const ip = name('ip');
  if (ip !== undefined) return `/config/ips/${ip}`;
  if (user !== undefined && client !== undefined) return `/config/users/${user}/clients/${client}`;
  if (user !== undefined) return `/config/users/${user}`;
  return `/config/clients/${client ?? '<default>'}`;
}

/** The quota of `key` that applies to (user, clientId), or undefined when none does. */
export function resolveClientQuota(lookup: QuotaLookup, key: string, user: string, clientId: string): ResolvedQuota | undefined {
  for (const level of LEVELS) {
    const entity = entityOf(level, user, clientId);
    const bound = lookup(entity, key);
    if (bound === undefined) continue;
    const sensorUser = level.user === 'none' ? '' : user;
    const sensorClient = level.client === 'none' ? '' : clientId;
    return { bound, entity, path: quotaEntityPath(entity), sensorKey: `${sensorUser}\u0000${sensorClient}` };
  }
  return undefined;
}

/** The connection_creation_rate of an IP: its own entity, else the default IP entity. */
export function resolveIpQuota(lookup: QuotaLookup, ip: string): ResolvedQuota | undefined {
  for (const name of [ip, null]) {
    const entity: QuotaEntityPart[] = [{ entityType: 'ip', entityName: name }];
    const bound = lookup(entity, 'connection_creation_rate');
    if (bound !== undefined) return { bound, entity, path: quotaEntityPath(entity), sensorKey: ip };
  }
  return undefined;
}
