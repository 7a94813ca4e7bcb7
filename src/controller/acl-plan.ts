/**
 * CreateAcls (30) and DeleteAcls (31) as the controller decides them:
 * Kafka's AclControlManager rules, pure functions of the image.
 *
 * Create: each binding is validated (acl-types.ts newAclProblem:
 * INVALID_REQUEST with Kafka's message); a valid binding that already exists,
 * or that appears twice in the request, succeeds without a second record;
 * the others get a fresh random id. Delete: each filter (a filter with an
 * UNKNOWN field is INVALID_REQUEST) lists every ACL it matches, and every
 * matched ACL is removed once, however many filters match it. All records of
 * one request go in one batch (Kafka's atomic result).
 */
import { ErrorCode } from '../protocol/errors.js';
import { filterMatches, filterProblem, newAclProblem, type AclBinding, type AclBindingFilter } from '../protocol/acl-types.js';
import type { Random } from '../util/random.js';
import { aclKey, type StoredAcl } from './metadata/acls.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import type { Plan } from './plans.js';
import { randomUuid } from './uuid.js';

/** Kafka's MAX_RECORDS_PER_USER_OP: one request changes at most this many ACLs. */
export const ACL_CHANGES_PER_REQUEST_MAX = 10_000;

export interface AclCreateResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export interface AclDeleteResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
  matchingAcls: StoredAcl[];
}

export function planCreateAcls(image: MetadataImage, random: Random, bindings: readonly AclBinding[]): Plan<AclCreateResult> {
  const results: AclCreateResult[] = [];
  const records: MetadataRecord[] = [];
  const planned = new Set<string>();
  for (const binding of bindings) {
    const problem = newAclProblem(binding);
    if (problem !== null) {
      results.push({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem });
      continue;
    }
    const key = aclKey(binding);
    if (image.acls.find(binding) === undefined && !planned.has(key)) {
      if (records.length >= ACL_CHANGES_PER_REQUEST_MAX) {
        results.push({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Cannot create more than ${ACL_CHANGES_PER_REQUEST_MAX} ACLs in one request` });
        continue;
      }
      planned.add(key);
      records.push({ type: 'AccessControlEntryRecord', data: { id: freshId(image, random), ...pick(binding) } });
    }
    results.push({ errorCode: ErrorCode.NONE, errorMessage: null });
  }
  return { results, records };
}

export function planDeleteAcls(image: MetadataImage, filters: readonly AclBindingFilter[]): Plan<AclDeleteResult> {
  const removed = new Set<string>();
  const results = filters.map((filter): AclDeleteResult => {
    const problem = filterProblem(filter);
    if (problem !== null) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, matchingAcls: [] };
    const matchingAcls = [...image.acls.all()].filter((acl) => filterMatches(filter, acl));
    for (const acl of matchingAcls) removed.add(acl.id);
    return { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls };
  });
  if (removed.size > ACL_CHANGES_PER_REQUEST_MAX) {
    const errorMessage = `Cannot delete more than ${ACL_CHANGES_PER_REQUEST_MAX} ACLs in one request`;
    return { results: filters.map(() => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage, matchingAcls: [] })), records: [] };
  }
  return { results, records: [...removed].map((id): MetadataRecord => ({ type: 'RemoveAccessControlEntryRecord', data: { id } })) };
}

function pick(b: AclBinding): AclBinding {
  return { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permissionType };
}

function freshId(image: MetadataImage, random: Random): string {
  const taken = new Set([...image.acls.all()].map((a) => a.id));
  for (;;) {
    const id = randomUuid(random);
    if (!taken.has(id)) return id;
  }
}
