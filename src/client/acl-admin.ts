/**
 * ACLs for Admin: CreateAcls (30), DescribeAcls (29), DeleteAcls (31), with
 * Kafka's names for resource types, pattern types, operations and
 * permissions (docs/security.md). Filters leave out what they do not
 * constrain: an omitted field matches anything (Kafka's ANY / null).
 */
import { CreateAclsRequest, CreateAclsResponse } from '../protocol/messages/30-create-acls.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../protocol/messages/29-describe-acls.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../protocol/messages/31-delete-acls.js';
import {
  AclOperation, AclPermissionType, PatternType, ResourceType, operationName, patternTypeName, permissionTypeName, resourceTypeName,
  type AclOperationName, type AclPermissionTypeName, type PatternTypeName, type ResourceTypeName,
} from '../protocol/acl-types.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';
import { request, type ClientApi } from './apis.js';
import type { Cluster } from './cluster.js';

/** v1: prefixed patterns (KIP-290); every client and broker we know speaks it. */
const CreateAcls: ClientApi<typeof CreateAclsRequest, typeof CreateAclsResponse> = { request: CreateAclsRequest, response: CreateAclsResponse, minVersion: 1, maxVersion: 3 };
const DescribeAcls: ClientApi<typeof DescribeAclsRequest, typeof DescribeAclsResponse> = { request: DescribeAclsRequest, response: DescribeAclsResponse, minVersion: 1, maxVersion: 3 };
const DeleteAcls: ClientApi<typeof DeleteAclsRequest, typeof DeleteAclsResponse> = { request: DeleteAclsRequest, response: DeleteAclsResponse, minVersion: 1, maxVersion: 3 };

/** One ACL, e.g. `{ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'ALLOW' }`. */
export interface Acl {
  readonly resourceType: Exclude<ResourceTypeName, 'ANY' | 'UNKNOWN'>;
  readonly resourceName: string;
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly principal: string;
  readonly host: string;
  readonly operation: Exclude<AclOperationName, 'ANY' | 'UNKNOWN'>;
  readonly permissionType: 'ALLOW' | 'DENY';
}

/** Which ACLs: omitted fields match anything; patternType MATCH finds the ACLs that apply to a resource name. */
export interface AclFilter {
  readonly resourceType?: ResourceTypeName;
  readonly resourceName?: string | null;
  readonly patternType?: PatternTypeName;
  readonly principal?: string | null;
  readonly host?: string | null;
  readonly operation?: AclOperationName;
  readonly permissionType?: AclPermissionTypeName;
}

/** The outcome of one ACL of `Admin.createAcls` (`error` null: created, or it existed already). */
export interface AclCreateResult {
  readonly acl: Acl;
  readonly error: KafkaProtocolError | null;
}

/** The outcome of one filter of `Admin.deleteAcls`: the ACLs it matched and removed. */
export interface AclDeleteResult {
  readonly filter: AclFilter;
  readonly deleted: readonly Acl[];
  readonly error: KafkaProtocolError | null;
}

function idOf<T extends Record<string, number>>(table: T, what: string, name: string): number {
  const id = table[name];
  if (id === undefined) throw invalidArgument(`${what} must be one of ${Object.keys(table).join(', ')}, got ${name}`);
  return id;
}

function filterIds(f: AclFilter) {
  return {
    resourceTypeFilter: idOf(ResourceType, 'resourceType', f.resourceType ?? 'ANY'),
    resourceNameFilter: f.resourceName ?? null,
    patternTypeFilter: idOf(PatternType, 'patternType', f.patternType ?? 'ANY'),
    principalFilter: f.principal ?? null,
    hostFilter: f.host ?? null,
    operation: idOf(AclOperation, 'operation', f.operation ?? 'ANY'),
    permissionType: idOf(AclPermissionType, 'permissionType', f.permissionType ?? 'ANY'),
  };
}

function aclOf(a: { resourceType: number; resourceName: string; patternType: number; principal: string; host: string; operation: number; permissionType: number }): Acl {
  return {
    resourceType: (resourceTypeName(a.resourceType) ?? 'UNKNOWN') as Acl['resourceType'],
    resourceName: a.resourceName,
    patternType: (patternTypeName(a.patternType) ?? 'UNKNOWN') as Acl['patternType'],
    principal: a.principal,
    host: a.host,
    operation: (operationName(a.operation) ?? 'UNKNOWN') as Acl['operation'],
    permissionType: (permissionTypeName(a.permissionType) ?? 'UNKNOWN') as Acl['permissionType'],
  };
}

const errorOf = (api: string, code: number, message: string | null): KafkaProtocolError | null => (code === 0 ? null : new KafkaProtocolError(code, { api, serverMessage: message }));

export async function createAcls(cluster: Cluster, acls: readonly Acl[]): Promise<AclCreateResult[]> {
  const creations = acls.map((a) => ({
    resourceType: idOf(ResourceType, 'resourceType', a.resourceType),
    resourceName: a.resourceName,
    resourcePatternType: idOf(PatternType, 'patternType', a.patternType),
    principal: a.principal,
    host: a.host,
    operation: idOf(AclOperation, 'operation', a.operation),
    permissionType: idOf(AclPermissionType, 'permissionType', a.permissionType),
  }));
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), CreateAcls, () => ({ creations })));
  return acls.map((acl, i) => {
    const r = response.results[i];
    return { acl, error: r === undefined ? new KafkaProtocolError(-1, { api: 'CreateAcls', serverMessage: 'no result' }) : errorOf('CreateAcls', r.errorCode, r.errorMessage) };
  });
}

/** The ACLs matching the filter; throws the broker's error (SECURITY_DISABLED without an authorizer, CLUSTER_AUTHORIZATION_FAILED, ...). */
export async function describeAcls(cluster: Cluster, filter: AclFilter = {}): Promise<Acl[]> {
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), DescribeAcls, () => filterIds(filter)));
  const error = errorOf('DescribeAcls', response.errorCode, response.errorMessage);
  if (error !== null) throw error;
  return response.resources.flatMap((r) => r.acls.map((a) => aclOf({ ...a, resourceType: r.resourceType, resourceName: r.resourceName, patternType: r.patternType })));
}

export async function deleteAcls(cluster: Cluster, filters: readonly AclFilter[]): Promise<AclDeleteResult[]> {
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), DeleteAcls, () => ({ filters: filters.map(filterIds) })));
  return filters.map((filter, i) => {
    const r = response.filterResults[i];
    if (r === undefined) return { filter, deleted: [], error: new KafkaProtocolError(-1, { api: 'DeleteAcls', serverMessage: 'no result' }) };
    return { filter, deleted: r.matchingAcls.map(aclOf), error: errorOf('DeleteAcls', r.errorCode, r.errorMessage) };
  });
}
