/**
 * DescribeClientQuotas' filter (KIP-546), as Kafka's ClientQuotasImage
 * applies it. Each component names an entity type and how its name must
 * match: 0 EXACT (the name given in `match`), 1 DEFAULT (the default
 * entity), 2 SPECIFIED (any named entity). An entity matches when it has
 * every component's type with a matching name; with `strict` it must have
 * no other type either. No components (not strict) = every entity.
 */
import type { ClientQuotaEntry, ClientQuotas, QuotaEntityPart } from '../../controller/metadata/client-quotas.js';
import { QUOTA_ENTITY_TYPES } from '../../controller/metadata/client-quotas.js';

export const MatchType = { EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const;

export interface QuotaFilterComponent {
  readonly entityType: string;
  readonly matchType: number;
  readonly match: string | null;
}

/** Why the filter is invalid (Kafka's INVALID_REQUEST messages); null when it is fine. */
export function quotaFilterProblem(components: readonly QuotaFilterComponent[]): string | null {
  const types = new Set<string>();
  for (const c of components) {
    if (!(QUOTA_ENTITY_TYPES as readonly string[]).includes(c.entityType)) return `Unknown entity type: ${c.entityType}`;
    if (types.has(c.entityType)) return `Entity type ${c.entityType} cannot appear more than once in the filter.`;
    types.add(c.entityType);
    if (c.matchType === MatchType.EXACT && c.match === null) return 'Request specified MATCH_TYPE_EXACT, but set match string to null.';
    if (c.matchType === MatchType.DEFAULT && c.match !== null) return 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.';
    if (c.matchType === MatchType.SPECIFIED && c.match !== null) return 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.';
    if (c.matchType < 0 || c.matchType > 2) return `Unknown match type: ${c.matchType}`;
  }
  if (types.has('ip') && (types.has('user') || types.has('client-id'))) {
    return 'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.';
  }
  return null;
}

function componentMatches(entity: readonly QuotaEntityPart[], c: QuotaFilterComponent): boolean {
  const part = entity.find((p) => p.entityType === c.entityType);
  if (part === undefined) return false;
  if (c.matchType === MatchType.EXACT) return part.entityName === c.match;
  if (c.matchType === MatchType.DEFAULT) return part.entityName === null;
  return part.entityName !== null;
}

/** The entries the (valid) filter selects. */
export function filterClientQuotas(quotas: ClientQuotas, components: readonly QuotaFilterComponent[], strict: boolean): ClientQuotaEntry[] {
  return quotas.entries().filter((e) => components.every((c) => componentMatches(e.entity, c)) && (!strict || e.entity.length === components.length));
}
