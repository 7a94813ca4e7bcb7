/**
 * The ACL vocabulary of the Kafka protocol (CreateAcls, DescribeAcls,
 * DeleteAcls and the AccessControlEntryRecord): resource types, pattern
 * types, operations and permission types with Kafka's wire ids
 * (org.apache.kafka.common.resource.ResourceType, PatternType,
 * org.apache.kafka.common.acl.AclOperation, AclPermissionType), and the
 * binding and filter shapes with Kafka's filter matching
 * (ResourcePatternFilter.matches, AccessControlEntryFilter.matches).
 * Shared by the controller (validation, DeleteAcls), the authorizer and the
 * clients.
 */

export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
export type ResourceTypeName = keyof typeof ResourceType;

export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export type PatternTypeName = keyof typeof PatternType;

export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
export type AclOperationName = keyof typeof AclOperation;

export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;
export type AclPermissionTypeName = keyof typeof AclPermissionType;

/** The one name a CLUSTER resource has (Kafka's CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** A LITERAL resource name, a principal name or a host matching every one. */
export const WILDCARD = '*';
export const WILDCARD_PRINCIPAL = 'User:*';

function nameOf<T extends Record<string, number>>(table: T, id: number): keyof T | undefined {
  for (const [name, value] of Object.entries(table)) if (value === id) return name as keyof T;
  return undefined;
}

export const resourceTypeName = (id: number): ResourceTypeName | undefined => nameOf(ResourceType, id);
export const patternTypeName = (id: number): PatternTypeName | undefined => nameOf(PatternType, id);
export const operationName = (id: number): AclOperationName | undefined => nameOf(AclOperation, id);
export const permissionTypeName = (id: number): AclPermissionTypeName | undefined => nameOf(AclPermissionType, id);

/** An ACL: a resource pattern and an access control entry (Kafka's AclBinding), as ids. */
export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** Kafka's AclBindingFilter: null names, principal and host match anything; ANY ids match anything; MATCH patterns match as the authorizer would. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly resourceName: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

/** Kafka's ResourcePatternFilter.matches. */
function patternMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== acl.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== acl.patternType) return false;
  if (f.resourceName === null) return true;
  if (f.patternType === PatternType.ANY || f.patternType === acl.patternType) return f.resourceName === acl.resourceName;
  // MATCH: the ACLs that would apply to a resource of that name.
  if (acl.patternType === PatternType.LITERAL) return f.resourceName === acl.resourceName || acl.resourceName === WILDCARD;
  if (acl.patternType === PatternType.PREFIXED) return f.resourceName.startsWith(acl.resourceName);
  return false;
}

/** Kafka's AclBindingFilter.matches. */
export function filterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (!patternMatches(f, acl)) return false;
  if (f.principal !== null && f.principal !== acl.principal) return false;
  if (f.host !== null && f.host !== acl.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== acl.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === acl.permissionType;
}

/** Why a filter cannot be used (Kafka: a filter with an UNKNOWN field), or null. */
export function filterProblem(f: AclBindingFilter): string | null {
  if (resourceTypeName(f.resourceType) === undefined || f.resourceType === ResourceType.UNKNOWN) return 'Unknown patternFilter.';
  if (patternTypeName(f.patternType) === undefined || f.patternType === PatternType.UNKNOWN) return 'Unknown patternFilter.';
  if (operationName(f.operation) === undefined || f.operation === AclOperation.UNKNOWN) return 'Unknown entryFilter.';
  if (permissionTypeName(f.permissionType) === undefined || f.permissionType === AclPermissionType.UNKNOWN) return 'Unknown entryFilter.';
  return null;
}

/**
 * Why an ACL cannot be created, or null: Kafka's rules (CreateAclsRequest,
 * AclControlManager.validateNewAcl, AclApis): a concrete resource type, a
 * LITERAL or PREFIXED pattern, a concrete operation and permission, a
 * non-empty name, `kafka-cluster` for CLUSTER, a `Type:name` principal.
 */
export function newAclProblem(acl: AclBinding): string | null {
  const type = resourceTypeName(acl.resourceType);
  if (type === undefined || type === 'UNKNOWN' || type === 'ANY') return `Invalid resourceType ${acl.resourceType}`;
  if (acl.patternType !== PatternType.LITERAL && acl.patternType !== PatternType.PREFIXED) return `Invalid patternType ${patternTypeName(acl.patternType) ?? acl.patternType}`;
  const op = operationName(acl.operation);
  if (op === undefined || op === 'UNKNOWN' || op === 'ANY') return `Invalid operation ${op ?? acl.operation}`;
  if (acl.permissionType !== AclPermissionType.ALLOW && acl.permissionType !== AclPermissionType.DENY) return `Invalid permissionType ${permissionTypeName(acl.permissionType) ?? acl.permissionType}`;
  if (acl.resourceName === '') return 'Resource name should not be empty';
  if (acl.resourceType === ResourceType.CLUSTER && acl.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (!acl.principal.includes(':')) return `Could not parse principal from \`${acl.principal}\` (no colon is present separating the principal type from the principal name)`;
  return null;
}

/** `User:alice` -> { type: 'User', name: 'alice' } (Kafka's SecurityUtils.parseKafkaPrincipal). */
export function parsePrincipal(principal: string): { type: string; name: string } | null {
  const i = principal.indexOf(':');
  return i <= 0 ? null : { type: principal.slice(0, i), name: principal.slice(i + 1) };
}
