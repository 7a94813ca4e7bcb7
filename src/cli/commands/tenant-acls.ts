/**
 * The ACL part of `tributary tenant describe`: what a principal may do
 * (its effective ACLs after wildcards and prefixes). The authorizer and
 * DescribeAcls are not in this build yet, so this section says so instead
 * of printing an empty list that would read as "may do nothing". This is
 * the one place to fill in once Admin.describeAcls exists: return the
 * bindings that match the principal (its own and `User:*`).
 */
import type { Admin } from '../../client/admin.js';

export interface TenantAclSection {
  /** False while the broker has no authorizer to ask. */
  readonly available: boolean;
  readonly note: string;
  readonly acls: readonly { resourceType: string; patternType: string; resourceName: string; operation: string; permission: string; host: string }[];
}

export function describeTenantAcls(_admin: Admin, principal: string): Promise<TenantAclSection> {
  return Promise.resolve({
    available: false,
    note: `ACLs are not implemented in this build: every authenticated principal, ${principal} included, may do everything (docs/security.md)`,
    acls: [],
  });
}
