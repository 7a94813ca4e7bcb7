/**
 * The client quotas part of the MetadataImage (KIP-546): quota values per
 * entity, set and removed by ClientQuotaRecord. An entity is a set of
 * (type, name) pairs with type `user`, `client-id` or `ip`; a null name is
 * that type's default entity (Kafka's `<default>`), so
 * `{user: alice, client-id: null}` is "alice with any client id without its
 * own entry". Brokers resolve the quota that applies to a request from here
 * (src/security/quota/entity.ts, Kafka's precedence) and
 * DescribeClientQuotas lists it.
 */
import { invariant } from '../../util/assert.js';
import type { MetadataRecord, RecordOf } from './records.js';

export const QUOTA_ENTITY_TYPES = ['user', 'client-id', 'ip'] as const;
export type QuotaEntityType = (typeof QUOTA_ENTITY_TYPES)[number];

/** One component of an entity; name null = the default entity of that type. */
export interface QuotaEntityPart {
  readonly entityType: string;
  readonly entityName: string | null;
}

export interface ClientQuotaEntry {
  /** Components sorted by type, so equal entities compare equal. */
  readonly entity: readonly QuotaEntityPart[];
  readonly values: ReadonlyMap<string, number>;
}

/** A canonical string for an entity (its components sorted by type; \u0000 cannot occur in names on the wire we accept). */
export function quotaEntityKey(entity: readonly QuotaEntityPart[]): string {
  return sortedEntity(entity)
    .map((p) => `${p.entityType}=${p.entityName === null ? '\u0000' : p.entityName}`)
    .join('\u0001');
}

export function sortedEntity(entity: readonly QuotaEntityPart[]): QuotaEntityPart[] {
  return [...entity].sort((a, b) => (a.entityType < b.entityType ? -1 : a.entityType > b.entityType ? 1 : 0)).map((p) => ({ entityType: p.entityType, entityName: p.entityName }));
}

interface MutableEntry {
  readonly entity: readonly QuotaEntityPart[];
  readonly values: Map<string, number>;
}

export class ClientQuotas {
  private readonly byKey = new Map<string, MutableEntry>();

  /** The values of exactly this entity (empty when it has none). */
  valuesOf(entity: readonly QuotaEntityPart[]): ReadonlyMap<string, number> {
    return this.byKey.get(quotaEntityKey(entity))?.values ?? new Map();
  }

  /** One quota key of exactly this entity. */
  value(entity: readonly QuotaEntityPart[], key: string): number | undefined {
    return this.byKey.get(quotaEntityKey(entity))?.values.get(key);
  }

  entries(): ClientQuotaEntry[] {
    return [...this.byKey.values()];
  }

  get size(): number {
    return this.byKey.size;
  }

  apply(record: RecordOf<'ClientQuotaRecord'>): void {
    const { entity, key, value, remove } = record.data;
    invariant(entity.length > 0, `ClientQuotaRecord for ${key} without an entity`);
    const k = quotaEntityKey(entity);
    if (remove) {
      const entry = this.byKey.get(k);
      entry?.values.delete(key);
      if (entry !== undefined && entry.values.size === 0) this.byKey.delete(k);
      return;
    }
    invariant(Number.isFinite(value), `ClientQuotaRecord ${key}=${value} is not a finite number`);
    let entry = this.byKey.get(k);
    if (entry === undefined) {
      entry = { entity: sortedEntity(entity), values: new Map() };
      this.byKey.set(k, entry);
    }
    entry.values.set(key, value);
  }

  toRecords(): MetadataRecord[] {
    return [...this.byKey.values()].flatMap((e) =>
      [...e.values].map(([key, value]): MetadataRecord => ({ type: 'ClientQuotaRecord', data: { entity: e.entity.map((p) => ({ ...p })), key, value, remove: false } })),
    );
  }

  /** Removal records for the keys this store has and `to` lacks (snapshot jumps, image-records.ts). */
  removalsTowards(to: ClientQuotas): MetadataRecord[] {
    return [...this.byKey.values()].flatMap((e) =>
      [...e.values.keys()]
        .filter((key) => to.value(e.entity, key) === undefined)
        .map((key): MetadataRecord => ({ type: 'ClientQuotaRecord', data: { entity: e.entity.map((p) => ({ ...p })), key, value: 0, remove: true } })),
    );
  }
}
