/**
 * AlterClientQuotas (49, KIP-546) as the controller decides it: Kafka's
 * ClientQuotaControlManager rules, a pure function of the image.
 *
 * - An entity is one or more of `user`, `client-id`, `ip`, each at most once;
 *   `ip` stands alone; an empty entity or an unknown type: INVALID_REQUEST.
 * - An `ip` entity's name is an IP address (or null, the default IP).
 * - Keys per entity: user/client-id entities take producer_byte_rate,
 *   consumer_byte_rate, request_percentage, controller_mutation_rate; ip
 *   entities take connection_creation_rate. Any other key: INVALID_REQUEST.
 * - producer_byte_rate and consumer_byte_rate are Kafka LONGs and
 *   connection_creation_rate an INT: a fractional value is refused. Every
 *   value must be a positive finite number (a zero rate would throttle for
 *   ever).
 * - A key named twice in one entry: INVALID_REQUEST.
 *
 * One result per entry, in request order; entries succeed or fail one by
 * one. Removing a key the entity does not have is a no-op, as in Kafka.
 */
import { isIP } from 'node:net';
import { ErrorCode } from '../protocol/errors.js';
import { QUOTA_ENTITY_TYPES, type QuotaEntityPart } from './metadata/client-quotas.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import type { Plan } from './plans.js';

/** Quota keys and their Kafka value types (QuotaConfigs). */
export const CLIENT_QUOTA_KEYS = {
  producer_byte_rate: 'long',
  consumer_byte_rate: 'long',
  request_percentage: 'double',
  controller_mutation_rate: 'double',
} as const;
export const IP_QUOTA_KEYS = { connection_creation_rate: 'int' } as const;

export interface QuotaOp {
  readonly key: string;
  readonly value: number;
  readonly remove: boolean;
}

export interface QuotaAlteration {
  readonly entity: readonly QuotaEntityPart[];
  readonly ops: readonly QuotaOp[];
}

export interface QuotaAlterResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
  entity: QuotaEntityPart[];
}

const INT32_MAX = 0x7fffffff;

/** Why an entity cannot carry quotas; null when it can. */
export function quotaEntityProblem(entity: readonly QuotaEntityPart[]): string | null {
  if (entity.length === 0) return 'Invalid empty client quota entity';
  const types = new Set<string>();
  for (const part of entity) {
    if (!(QUOTA_ENTITY_TYPES as readonly string[]).includes(part.entityType)) return `Unhandled client quota entity type: ${part.entityType}`;
    if (types.has(part.entityType)) return `Duplicate ${part.entityType} entity type in the client quota entity`;
    types.add(part.entityType);
    if (part.entityName === '') return `Empty ${part.entityType} name in the client quota entity; use null for the default`;
  }
  if (types.has('ip') && types.size > 1) return 'Invalid quota entity combination, IP entity should not be used with user/client ID entity.';
  const ip = entity.find((p) => p.entityType === 'ip');
  if (ip !== undefined && ip.entityName !== null && isIP(ip.entityName) === 0) return `${ip.entityName} is not a valid IP or resolvable host.`;
  return null;
}

function opProblem(isIpEntity: boolean, op: QuotaOp): string | null {
  const keys: Readonly<Record<string, string>> = isIpEntity ? IP_QUOTA_KEYS : CLIENT_QUOTA_KEYS;
  const type = keys[op.key];
  if (type === undefined) return `Invalid configuration key ${op.key}`;
  if (op.remove) return null;
  if (!Number.isFinite(op.value) || op.value <= 0) return `Configuration ${op.key} must be a positive number, got ${op.value}`;
  if (type === 'long' && !Number.isSafeInteger(op.value)) return `Configuration ${op.key} must be a Long value`;
  if (type === 'int' && (!Number.isInteger(op.value) || op.value > INT32_MAX)) return `Configuration ${op.key} must be an Integer value`;
  return null;
}

function entryProblem(alteration: QuotaAlteration): string | null {
  const entityProblem = quotaEntityProblem(alteration.entity);
  if (entityProblem !== null) return entityProblem;
  const isIpEntity = alteration.entity.some((p) => p.entityType === 'ip');
  const seen = new Set<string>();
  for (const op of alteration.ops) {
    if (seen.has(op.key)) return `Duplicate quota key ${op.key} in one entity`;
    seen.add(op.key);
    const problem = opProblem(isIpEntity, op);
    if (problem !== null) return problem;
  }
  return null;
}

function recordsOf(image: MetadataImage, alteration: QuotaAlteration): MetadataRecord[] {
  const entity = alteration.entity.map((p) => ({ entityType: p.entityType, entityName: p.entityName }));
  return alteration.ops
    .filter((op) => !op.remove || image.clientQuotas.value(entity, op.key) !== undefined)
    .map((op): MetadataRecord => ({ type: 'ClientQuotaRecord', data: { entity, key: op.key, value: op.remove ? 0 : op.value, remove: op.remove } }));
}

export function planAlterClientQuotas(image: MetadataImage, alterations: readonly QuotaAlteration[], validateOnly: boolean): Plan<QuotaAlterResult> {
  const results: QuotaAlterResult[] = [];
  const records: MetadataRecord[] = [];
  for (const alteration of alterations) {
    const entity = alteration.entity.map((p) => ({ entityType: p.entityType, entityName: p.entityName }));
    const problem = entryProblem(alteration);
    if (problem !== null) {
      results.push({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, entity });
      continue;
    }
    results.push({ errorCode: ErrorCode.NONE, errorMessage: null, entity });
    if (!validateOnly) records.push(...recordsOf(image, alteration));
  }
  return { results, records };
}
