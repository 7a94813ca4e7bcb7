/**
 * The ACL part of `tributary tenant describe`: what a principal may do, as
 * the ACLs that name it or every user (`User:*`), from DescribeAcls. A
 * cluster without an authorizer answers SECURITY_DISABLED: the section then
 * says every principal may do everything, rather than printing an empty
 * list that would read as "may do nothing". Super users (a broker config)
 * are not visible to a client and are not shown.
 */
import type { Admin } from '../../client/admin.js';
import type { Acl } from '../../client/acl-admin.js';

export interface TenantAclSection {
  /** False when the brokers have no authorizer to ask. */
  readonly available: boolean;
  readonly note: string;
  readonly acls: readonly { principal: string; resourceType: string; patternType: string; resourceName: string; operation: string; permission: string; host: string }[];
}

const isSecurityDisabled = (err: unknown): boolean => (err as { kafkaErrorName?: string }).kafkaErrorName === 'SECURITY_DISABLED';

export async function describeTenantAcls(admin: Admin, principal: string): Promise<TenantAclSection> {
  let own: Acl[];
  let everyone: Acl[];
  try {
    own = await admin.describeAcls({ principal });
    everyone = principal === 'User:*' ? [] : await admin.describeAcls({ principal: 'User:*' });
  } catch (err) {
    if (!isSecurityDisabled(err)) throw err;
    return { available: false, note: `the brokers run without an authorizer (authorizer.class.name unset): every authenticated principal, ${principal} included, may do everything`, acls: [] };
  }
  const acls = [...own, ...everyone].map((a) => ({
    principal: a.principal, resourceType: a.resourceType, patternType: a.patternType, resourceName: a.resourceName, operation: a.operation, permission: a.permissionType, host: a.host,
  }));
  const note = acls.length === 0 ? `no ACL names ${principal} or User:*: denied everything unless allow.everyone.if.no.acl.found or super.users says otherwise` : 'ACLs naming the principal or User:* (DENY wins; super.users are not shown)';
  return { available: true, note, acls };
}
