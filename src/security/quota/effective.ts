/**
 * The quotas that apply to a principal and client id, key by key, with the
 * entity level each came from (entity.ts's precedence): what `tributary
 * tenant describe` shows. Works on any list of quota entries (the metadata
 * image, or what DescribeClientQuotas returned to a client).
 */
import { quotaEntityKey, type QuotaEntityPart } from '../../controller/metadata/client-quotas.js';
import { quotaUserOf, resolveClientQuota } from './entity.js';
import { QUOTA_KEY_OF, QUOTA_TYPES } from './client-quota-manager.js';

export interface QuotaEntryView {
  readonly entity: readonly QuotaEntityPart[];
  readonly values: ReadonlyMap<string, number>;
}

export interface EffectiveQuota {
  readonly key: string;
  /** Undefined: no quota of this key applies (unlimited). */
  readonly value: number | undefined;
  /** Kafka's path of the entity that applied, e.g. `/config/users/<default>`. */
  readonly from: string | undefined;
}

/** Each client quota key for (principal, clientId); clientId '' = a client id without its own quota. */
export function effectiveClientQuotas(entries: readonly QuotaEntryView[], principal: string, clientId: string): EffectiveQuota[] {
  const byEntity = new Map(entries.map((e) => [quotaEntityKey(e.entity), e.values]));
  const lookup = (entity: readonly QuotaEntityPart[], key: string): number | undefined => byEntity.get(quotaEntityKey(entity))?.get(key);
  return QUOTA_TYPES.map((type) => {
    const key = QUOTA_KEY_OF[type];
    const resolved = resolveClientQuota(lookup, key, quotaUserOf(principal), clientId);
    return { key, value: resolved?.bound, from: resolved?.path };
  });
}
