// Kafka's StandardAuthorizer semantics, table by table: deny beats allow,
// literal / wildcard / prefixed patterns, implied operations (ALLOW only),
// principal and host wildcards, super users, allow.everyone.if.no.acl.found,
// authorizeByResourceType (KIP-679), and the per-connection decision cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AclOperation as Op, AclPermissionType, PatternType, ResourceType, type AclBinding } from '../../../../src/protocol/acl-types.js';
import { StandardAuthorizer, type AclSource } from '../../../../src/security/authorizer/standard-authorizer.js';
import { DecisionCache } from '../../../../src/security/authorizer/decision-cache.js';

type Spec = [perm: 'ALLOW' | 'DENY', principal: string, op: keyof typeof Op, type: keyof typeof ResourceType, name: string, pattern?: 'LITERAL' | 'PREFIXED', host?: string];

function acl([perm, principal, op, type, name, pattern = 'LITERAL', host = '*']: Spec): AclBinding {
  return { resourceType: ResourceType[type], resourceName: name, patternType: PatternType[pattern], principal, host, operation: Op[op], permissionType: AclPermissionType[perm] };
}

class Source implements AclSource {
  generation = 0;
  acls: AclBinding[];
  constructor(specs: Spec[]) {
    this.acls = specs.map(acl);
  }
  all(): Iterable<AclBinding> {
    return this.acls;
  }
  add(spec: Spec): void {
    this.acls.push(acl(spec));
    this.generation++;
  }
}

function authorizer(specs: Spec[], opts: { superUsers?: string[]; allowEveryone?: boolean } = {}) {
  const source = new Source(specs);
  return { source, a: new StandardAuthorizer({ superUsers: new Set(opts.superUsers ?? []), allowEveryoneIfNoAclFound: opts.allowEveryone ?? false }, () => source) };
}

type Case = [what: string, specs: Spec[], principal: string, op: keyof typeof Op, type: keyof typeof ResourceType, name: string, expected: boolean, host?: string];

const cases: Case[] = [
  ['no ACL at all: denied by default', [], 'User:alice', 'READ', 'TOPIC', 'orders', false],
  ['literal allow', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'READ', 'TOPIC', 'orders', true],
  ['literal allow is for its exact name only', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'READ', 'TOPIC', 'orders2', false],
  ['another principal gets nothing', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:bob', 'READ', 'TOPIC', 'orders', false],
  ['another operation gets nothing', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'WRITE', 'TOPIC', 'orders', false],
  ['another resource type gets nothing', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'READ', 'GROUP', 'orders', false],
  ['deny beats allow', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders'], ['DENY', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'READ', 'TOPIC', 'orders', false],
  ['deny on the wildcard beats a literal allow', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders'], ['DENY', 'User:alice', 'READ', 'TOPIC', '*']], 'User:alice', 'READ', 'TOPIC', 'orders', false],
  ['prefixed deny beats literal allow', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'orders'], ['DENY', 'User:alice', 'WRITE', 'TOPIC', 'ord', 'PREFIXED']], 'User:alice', 'WRITE', 'TOPIC', 'orders', false],
  ['deny for User:* beats allow for the user', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders'], ['DENY', 'User:*', 'READ', 'TOPIC', 'orders']], 'User:alice', 'READ', 'TOPIC', 'orders', false],
  ['deny ALL denies every operation', [['ALLOW', 'User:alice', 'ALL', 'TOPIC', 'orders'], ['DENY', 'User:alice', 'ALL', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', false],
  ['wildcard resource allows every name', [['ALLOW', 'User:alice', 'READ', 'TOPIC', '*']], 'User:alice', 'READ', 'TOPIC', 'anything', true],
  ['prefixed allow matches names with the prefix', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'team-a.', 'PREFIXED']], 'User:alice', 'WRITE', 'TOPIC', 'team-a.orders', true],
  ['prefixed allow matches the prefix itself', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'team-a.', 'PREFIXED']], 'User:alice', 'WRITE', 'TOPIC', 'team-a.', true],
  ['prefixed allow does not match other names', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'team-a.', 'PREFIXED']], 'User:alice', 'WRITE', 'TOPIC', 'team-b.orders', false],
  ['a literal name that is a prefix does not match', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'team']], 'User:alice', 'WRITE', 'TOPIC', 'team-a', false],
  ['principal wildcard User:*', [['ALLOW', 'User:*', 'READ', 'TOPIC', 'public']], 'User:anyone', 'READ', 'TOPIC', 'public', true],
  ['ALL allows every operation', [['ALLOW', 'User:alice', 'ALL', 'TOPIC', 'orders']], 'User:alice', 'ALTER_CONFIGS', 'TOPIC', 'orders', true],
  ['READ implies DESCRIBE', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', true],
  ['WRITE implies DESCRIBE', [['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', true],
  ['DELETE implies DESCRIBE', [['ALLOW', 'User:alice', 'DELETE', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', true],
  ['ALTER implies DESCRIBE', [['ALLOW', 'User:alice', 'ALTER', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', true],
  ['CREATE does not imply DESCRIBE', [['ALLOW', 'User:alice', 'CREATE', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', false],
  ['ALTER_CONFIGS implies DESCRIBE_CONFIGS', [['ALLOW', 'User:alice', 'ALTER_CONFIGS', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE_CONFIGS', 'TOPIC', 'orders', true],
  ['DESCRIBE does not imply READ', [['ALLOW', 'User:alice', 'DESCRIBE', 'TOPIC', 'orders']], 'User:alice', 'READ', 'TOPIC', 'orders', false],
  ['a DENY READ does not deny DESCRIBE (implication is for ALLOW only)', [['ALLOW', 'User:alice', 'DESCRIBE', 'TOPIC', 'orders'], ['DENY', 'User:alice', 'READ', 'TOPIC', 'orders']], 'User:alice', 'DESCRIBE', 'TOPIC', 'orders', true],
  ['host must match', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders', 'LITERAL', '10.0.0.1']], 'User:alice', 'READ', 'TOPIC', 'orders', false, '10.0.0.2'],
  ['host matches', [['ALLOW', 'User:alice', 'READ', 'TOPIC', 'orders', 'LITERAL', '10.0.0.1']], 'User:alice', 'READ', 'TOPIC', 'orders', true, '10.0.0.1'],
  ['cluster operations', [['ALLOW', 'User:ops', 'ALTER', 'CLUSTER', 'kafka-cluster']], 'User:ops', 'ALTER', 'CLUSTER', 'kafka-cluster', true],
  ['transactional ids', [['ALLOW', 'User:app', 'WRITE', 'TRANSACTIONAL_ID', 'app-', 'PREFIXED']], 'User:app', 'WRITE', 'TRANSACTIONAL_ID', 'app-1', true],
];

for (const [what, specs, principal, op, type, name, expected, host = '127.0.0.1'] of cases) {
  test(`authorize: ${what}`, () => {
    const { a } = authorizer(specs);
    assert.equal(a.authorize(principal, host, Op[op], ResourceType[type], name).allowed, expected);
  });
}

test('super users may do everything, DENY ACLs included', () => {
  const { a } = authorizer([['DENY', 'User:admin', 'ALL', 'TOPIC', '*']], { superUsers: ['User:admin'] });
  assert.equal(a.authorize('User:admin', '127.0.0.1', Op.DELETE, ResourceType.TOPIC, 'x').allowed, true);
  assert.equal(a.authorize('User:admin', '127.0.0.1', Op.CLUSTER_ACTION, ResourceType.CLUSTER, 'kafka-cluster').reason, 'super_user');
  assert.equal(a.authorize('User:other', '127.0.0.1', Op.DELETE, ResourceType.TOPIC, 'x').allowed, false);
});

test('allow.everyone.if.no.acl.found: only resources no ACL names at all (for anyone) are open', () => {
  const { a } = authorizer([['ALLOW', 'User:bob', 'READ', 'TOPIC', 'private'], ['ALLOW', 'User:bob', 'READ', 'TOPIC', 'team-', 'PREFIXED']], { allowEveryone: true });
  assert.equal(a.authorize('User:alice', '127.0.0.1', Op.WRITE, ResourceType.TOPIC, 'open').allowed, true);
  assert.equal(a.authorize('User:alice', '127.0.0.1', Op.WRITE, ResourceType.TOPIC, 'private').allowed, false, 'an ACL for someone else closes it');
  assert.equal(a.authorize('User:alice', '127.0.0.1', Op.WRITE, ResourceType.TOPIC, 'team-x').allowed, false, 'a prefixed ACL names it too');
  assert.equal(a.authorize('User:alice', '127.0.0.1', Op.READ, ResourceType.GROUP, 'g').allowed, true);
  const strict = authorizer([]).a;
  assert.equal(strict.authorize('User:alice', '127.0.0.1', Op.WRITE, ResourceType.TOPIC, 'open').allowed, false, 'default false');
});

test('authorizeByResourceType (InitProducerId without a transactional id): WRITE on some topic, unless a DENY dominates it', () => {
  const cases: [Spec[], boolean][] = [
    [[], false],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'orders']], true],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'team-', 'PREFIXED']], true],
    [[['ALLOW', 'User:p', 'READ', 'TOPIC', 'orders']], false],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'orders'], ['DENY', 'User:p', 'WRITE', 'TOPIC', 'orders']], false],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'orders'], ['DENY', 'User:p', 'WRITE', 'TOPIC', 'ord', 'PREFIXED']], false],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'orders'], ['DENY', 'User:p', 'WRITE', 'TOPIC', '*']], false],
    [[['ALLOW', 'User:p', 'WRITE', 'TOPIC', 'orders'], ['DENY', 'User:p', 'WRITE', 'TOPIC', 'other']], true],
    [[['ALLOW', 'User:*', 'ALL', 'TOPIC', '*']], true],
  ];
  for (const [specs, expected] of cases) {
    assert.equal(authorizer(specs).a.authorizeByResourceType('User:p', '127.0.0.1', Op.WRITE, ResourceType.TOPIC), expected, JSON.stringify(specs));
  }
  assert.equal(authorizer([], { superUsers: ['User:p'] }).a.authorizeByResourceType('User:p', '127.0.0.1', Op.WRITE, ResourceType.TOPIC), true);
});

test('effectiveAcls lists the principal\'s ACLs and the User:* ones', () => {
  const { a } = authorizer([['ALLOW', 'User:alice', 'READ', 'TOPIC', 'a'], ['ALLOW', 'User:*', 'DESCRIBE', 'GROUP', 'g'], ['ALLOW', 'User:bob', 'READ', 'TOPIC', 'b']], { superUsers: ['User:root'] });
  const e = a.effectiveAcls('User:alice');
  assert.deepEqual(e.acls.map((x) => `${x.principal} ${x.resourceName}`), ['User:alice a', 'User:* g']);
  assert.equal(e.superUser, false);
  assert.equal(a.effectiveAcls('User:root').superUser, true);
});

test('the decision cache answers from memory until the ACLs change', () => {
  const { a, source } = authorizer([]);
  const cache = new DecisionCache(a, '127.0.0.1');
  let computed = 0;
  const denied = (): void => void computed++;
  assert.equal(cache.allowed('User:alice', Op.WRITE, ResourceType.TOPIC, 'orders', denied), false);
  assert.equal(cache.allowed('User:alice', Op.WRITE, ResourceType.TOPIC, 'orders', denied), false);
  assert.equal(computed, 2, 'every denial is reported (the audit log), cached or not');
  source.add(['ALLOW', 'User:alice', 'WRITE', 'TOPIC', 'orders']);
  assert.equal(cache.allowed('User:alice', Op.WRITE, ResourceType.TOPIC, 'orders'), true, 'a new ACL is seen at once');
  assert.equal(cache.allowed('User:alice', Op.DESCRIBE, ResourceType.TOPIC, 'orders'), true);
  assert.equal(cache.allowed('User:alice', Op.READ, ResourceType.TOPIC, 'orders'), false, 'operations are cached separately');
  assert.equal(cache.allowed('User:bob', Op.WRITE, ResourceType.TOPIC, 'orders'), false, 'another principal is not served alice\'s decisions');
});
