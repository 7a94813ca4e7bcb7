// What handlers see (ctx.authz) and the audit log: one line per request with
// denials, naming each denied action; nothing for allowed requests or
// without an authorizer; IPv4-mapped client addresses match IPv4 ACL hosts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { AclOperation, AclPermissionType, PatternType, ResourceType, type AclBinding } from '../../../../src/protocol/acl-types.js';
import { StandardAuthorizer } from '../../../../src/security/authorizer/standard-authorizer.js';
import { ALLOW_ALL, ConnectionAuthorization, auditDenials, normalizeHost } from '../../../../src/security/authorizer/request-authorizer.js';

function capture(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const acls: AclBinding[] = [{ resourceType: ResourceType.TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:alice', host: '10.0.0.1', operation: AclOperation.WRITE, permissionType: AclPermissionType.ALLOW }];
const authorizer = new StandardAuthorizer({ superUsers: new Set(), allowEveryoneIfNoAclFound: false }, () => ({ generation: 0, all: () => acls }));
const request = { apiName: 'Produce', apiVersion: 7, correlationId: 9, clientId: 'c', principal: 'User:alice', clientAddress: '10.0.0.1:5000', listenerName: 'SASL_PLAINTEXT' };

test('one audit line per request, with every denied action; none when allowed', async () => {
  const { logger, lines } = capture();
  const conn = new ConnectionAuthorization(authorizer, '::ffff:10.0.0.1');
  const denied = conn.forRequest('User:alice');
  assert.equal(denied.topic(AclOperation.WRITE, 'orders'), true);
  assert.equal(denied.topic(AclOperation.WRITE, 'payments'), false);
  assert.equal(denied.group(AclOperation.READ, 'g'), false);
  assert.equal(denied.topic(AclOperation.DESCRIBE, 'hidden', false), false, 'left out of a listing: not audited');
  auditDenials(denied, logger, request);
  const allowed = conn.forRequest('User:alice');
  assert.equal(allowed.topic(AclOperation.WRITE, 'orders'), true);
  auditDenials(allowed, logger, request);
  auditDenials(ALLOW_ALL, logger, request);
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 1);
  assert.deepEqual(lines[0]?.denied, [
    { operation: 'WRITE', resourceType: 'TOPIC', resourceName: 'payments', reason: 'no_acl_found' },
    { operation: 'READ', resourceType: 'GROUP', resourceName: 'g', reason: 'no_acl_found' },
  ]);
  assert.equal(lines[0]?.principal, 'User:alice');
  assert.match(String(lines[0]?.msg), /Principal = User:alice is Denied operation = WRITE/);
});

test('the ACL host is matched against the client address as IPv4', () => {
  assert.equal(normalizeHost('::ffff:10.0.0.1'), '10.0.0.1');
  assert.equal(normalizeHost('::1'), '::1');
  const other = new ConnectionAuthorization(authorizer, '10.0.0.2').forRequest('User:alice');
  assert.equal(other.topic(AclOperation.WRITE, 'orders'), false, 'another host');
});
