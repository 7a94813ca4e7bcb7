/**
 * Client quotas (KIP-546) for Admin: DescribeClientQuotas (48) and
 * AlterClientQuotas (49). An entity is written with Kafka's entity types
 * as keys: `{ user: 'alice', 'client-id': null }` is "alice with any client
 * id without its own quota" (null = the default entity of that type; a
 * missing key = that type is not part of the entity).
 */
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../protocol/messages/49-alter-client-quotas.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../protocol/messages/48-describe-client-quotas.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';
import { request, type ClientApi } from './apis.js';
import type { Cluster } from './cluster.js';

/** Kafka's quota entity types. */
export type QuotaEntityType = 'user' | 'client-id' | 'ip';
/** A quota entity: each type present is part of it, with a name or null for that type's default entity. */
export type ClientQuotaEntity = { readonly [T in QuotaEntityType]?: string | null };

/** One component of a DescribeClientQuotas filter. */
export interface ClientQuotaFilterComponent {
  readonly entityType: QuotaEntityType;
  /** exact: the entity named `match`; default: the default entity; specified: any named entity. */
  readonly matchType: 'exact' | 'default' | 'specified';
  readonly match?: string;
}

/** Which quota entities `Admin.describeClientQuotas` lists (no components: all). */
export interface ClientQuotaFilter {
  readonly components?: readonly ClientQuotaFilterComponent[];
  /** Only entities with exactly the components' types. */
  readonly strict?: boolean;
}

/** One quota entity and its values, as DescribeClientQuotas lists it. */
export interface ClientQuotaEntry {
  readonly entity: ClientQuotaEntity;
  /** Quota keys (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate, connection_creation_rate) and values. */
  readonly values: Readonly<Record<string, number>>;
}

/** Changes to one entity's quotas (`Admin.alterClientQuotas`). */
export interface ClientQuotaAlteration {
  readonly entity: ClientQuotaEntity;
  /** A value sets the key; `remove: true` removes it. */
  readonly ops: readonly ({ readonly key: string; readonly value: number } | { readonly key: string; readonly remove: true })[];
}

/** The outcome of one alteration: error null on success (INVALID_REQUEST with Kafka's message otherwise). */
export interface ClientQuotaAlterResult {
  readonly entity: ClientQuotaEntity;
  readonly error: KafkaProtocolError | null;
}

const MATCH_TYPES = { exact: 0, default: 1, specified: 2 } as const;

const Describe: ClientApi<typeof DescribeClientQuotasRequest, typeof DescribeClientQuotasResponse> = {
  request: DescribeClientQuotasRequest, response: DescribeClientQuotasResponse, minVersion: 0, maxVersion: 1,
};
const Alter: ClientApi<typeof AlterClientQuotasRequest, typeof AlterClientQuotasResponse> = {
  request: AlterClientQuotasRequest, response: AlterClientQuotasResponse, minVersion: 0, maxVersion: 1,
};

function toWire(entity: ClientQuotaEntity): { entityType: string; entityName: string | null }[] {
  const parts = (Object.keys(entity) as QuotaEntityType[]).filter((t) => entity[t] !== undefined).map((t) => ({ entityType: t, entityName: entity[t] ?? null }));
  if (parts.length === 0) throw invalidArgument('a quota entity names at least one of user, client-id, ip');
  return parts;
}

function fromWire(parts: readonly { entityType: string; entityName: string | null }[]): ClientQuotaEntity {
  return Object.fromEntries(parts.map((p) => [p.entityType, p.entityName])) as ClientQuotaEntity;
}

/** The quota entities the filter selects, with their values (no filter: every entity). */
export async function describeClientQuotas(cluster: Cluster, filter: ClientQuotaFilter = {}): Promise<ClientQuotaEntry[]> {
  const components = (filter.components ?? []).map((c) => {
    if (c.matchType === 'exact' && c.match === undefined) throw invalidArgument(`an exact ${c.entityType} filter needs a match`);
    return { entityType: c.entityType, matchType: MATCH_TYPES[c.matchType], match: c.matchType === 'exact' ? (c.match ?? null) : null };
  });
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), Describe, () => ({ components, strict: filter.strict ?? false })));
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'DescribeClientQuotas', serverMessage: response.errorMessage });
  return (response.entries ?? []).map((e) => ({ entity: fromWire(e.entity), values: Object.fromEntries(e.values.map((v) => [v.key, v.value])) }));
}

/** Sets or removes quota keys; one result per entry (entries succeed or fail one by one). */
export async function alterClientQuotas(cluster: Cluster, alterations: readonly ClientQuotaAlteration[], options: { validateOnly?: boolean } = {}): Promise<ClientQuotaAlterResult[]> {
  const entries = alterations.map((a) => ({
    entity: toWire(a.entity),
    ops: a.ops.map((op) => ('remove' in op ? { key: op.key, value: 0, remove: true } : { key: op.key, value: op.value, remove: false })),
  }));
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), Alter, () => ({ entries, validateOnly: options.validateOnly ?? false })));
  return response.entries.map((r) => ({
    entity: fromWire(r.entity),
    error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'AlterClientQuotas', serverMessage: r.errorMessage }),
  }));
}
