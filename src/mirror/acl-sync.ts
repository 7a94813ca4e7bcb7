/**
 * Topic ACL sync (`sync.topic.acls.enabled`, MirrorMaker 2's
 * MirrorSourceConnector.syncTopicAcls): the source cluster's LITERAL topic
 * ACLs of replicated topics are copied onto their remote topics, with MM2's
 * rules: a remote topic is read-only, so ALLOW WRITE ACLs are not copied and
 * ALLOW ALL becomes ALLOW READ; DENY ACLs are copied as they are. Wildcard
 * (`*`) and PREFIXED ACLs are not copied (their names do not map to one
 * remote topic). ACLs are only added, never removed, as MM2 does.
 *
 * A source or target without an authorizer answers SECURITY_DISABLED: that
 * is not an error, there is nothing to sync (reported once).
 */
import type { Acl, Admin } from '../client/index.js';

/** The remote topic's ACL for a source ACL, or null when MM2 does not copy it. */
export function remoteTopicAcl(acl: Acl, remoteTopic: (topic: string) => string): Acl | null {
  if (acl.resourceType !== 'TOPIC' || acl.patternType !== 'LITERAL' || acl.resourceName === '*') return null;
  if (acl.permissionType === 'ALLOW' && acl.operation === 'WRITE') return null;
  const operation = acl.permissionType === 'ALLOW' && acl.operation === 'ALL' ? 'READ' : acl.operation;
  return { ...acl, resourceName: remoteTopic(acl.resourceName), operation };
}

export interface AclSyncOptions {
  /** Whether a source topic is replicated (the flow's topic filter). */
  readonly replicated: (topic: string) => boolean;
  readonly remoteTopic: (topic: string) => string;
  readonly log: (message: string) => void;
}

const key = (a: Acl): string => [a.resourceType, a.resourceName, a.patternType, a.principal, a.host, a.operation, a.permissionType].join('\u0000');

const isSecurityDisabled = (err: unknown): boolean => (err as { kafkaErrorName?: string }).kafkaErrorName === 'SECURITY_DISABLED';

/**
 * One sync: creates on the target the remote ACLs it lacks. Returns how many
 * were created, or null when a cluster has no authorizer.
 */
export async function syncTopicAcls(sourceAdmin: Admin, targetAdmin: Admin, o: AclSyncOptions): Promise<number | null> {
  let source: Acl[];
  let target: Acl[];
  try {
    source = await sourceAdmin.describeAcls({ resourceType: 'TOPIC', patternType: 'LITERAL' });
    target = await targetAdmin.describeAcls({ resourceType: 'TOPIC', patternType: 'LITERAL' });
  } catch (err) {
    if (isSecurityDisabled(err)) return null;
    throw err;
  }
  const have = new Set(target.map(key));
  const missing = new Map<string, Acl>();
  for (const acl of source) {
    if (!o.replicated(acl.resourceName)) continue;
    const remote = remoteTopicAcl(acl, o.remoteTopic);
    if (remote !== null && !have.has(key(remote))) missing.set(key(remote), remote);
  }
  if (missing.size === 0) return 0;
  const results = await targetAdmin.createAcls([...missing.values()]);
  const failed = results.filter((r) => r.error !== null);
  for (const f of failed) o.log(`could not create ACL ${JSON.stringify(f.acl)} on the target: ${f.error?.message ?? ''}`);
  const created = results.length - failed.length;
  if (created > 0) o.log(`synced ${created} topic ACL(s) to the target`);
  return created;
}
