/**
 * remoteTopicAcl: MirrorMaker 2's rules for copying a topic ACL to the
 * remote topic (MirrorSourceConnector.shouldReplicateAcl and
 * targetAclBinding): remote topics are read-only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { remoteTopicAcl } from '../../../src/mirror/acl-sync.js';
import type { Acl } from '../../../src/client/index.js';

const remote = (t: string): string => `A.${t}`;
const acl = (over: Partial<Acl>): Acl => ({ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW', ...over });

const cases: { name: string; source: Acl; remote: Partial<Acl> | null }[] = [
  { name: 'ALLOW READ is copied, renamed', source: acl({}), remote: { resourceName: 'A.orders', operation: 'READ' } },
  { name: 'ALLOW DESCRIBE is copied', source: acl({ operation: 'DESCRIBE' }), remote: { resourceName: 'A.orders', operation: 'DESCRIBE' } },
  { name: 'ALLOW WRITE is not copied (remote topics are read-only)', source: acl({ operation: 'WRITE' }), remote: null },
  { name: 'ALLOW ALL becomes ALLOW READ', source: acl({ operation: 'ALL' }), remote: { resourceName: 'A.orders', operation: 'READ', permissionType: 'ALLOW' } },
  { name: 'DENY WRITE is copied as it is', source: acl({ operation: 'WRITE', permissionType: 'DENY' }), remote: { resourceName: 'A.orders', operation: 'WRITE', permissionType: 'DENY' } },
  { name: 'DENY ALL is copied as it is', source: acl({ operation: 'ALL', permissionType: 'DENY' }), remote: { operation: 'ALL', permissionType: 'DENY' } },
  { name: 'the wildcard topic is not copied', source: acl({ resourceName: '*' }), remote: null },
  { name: 'PREFIXED patterns are not copied', source: acl({ patternType: 'PREFIXED' }), remote: null },
  { name: 'group ACLs are not topic ACLs', source: acl({ resourceType: 'GROUP' }), remote: null },
];

for (const c of cases) {
  test(`topic ACL sync: ${c.name}`, () => {
    const got = remoteTopicAcl(c.source, remote);
    if (c.remote === null) return assert.equal(got, null);
    assert.ok(got !== null);
    assert.deepEqual(got, { ...c.source, resourceName: 'A.orders', ...c.remote });
  });
}
