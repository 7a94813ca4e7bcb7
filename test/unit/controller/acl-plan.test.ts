// CreateAcls / DeleteAcls as the controller plans them (Kafka's
// AclControlManager): validation, duplicates, filters, records that
// round-trip and rebuild the image, snapshot diffs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { planCreateAcls, planDeleteAcls } from '../../../src/controller/acl-plan.js';
import { imageDiffRecords } from '../../../src/controller/metadata/image-records.js';
import { decodeMetadataRecord, encodeMetadataRecord, type MetadataRecord } from '../../../src/controller/metadata/records.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, AclPermissionType, PatternType, ResourceType, type AclBinding } from '../../../src/protocol/acl-types.js';
import { SeededRandom } from '../../../src/util/random.js';

const binding = (over: Partial<AclBinding> = {}): AclBinding => ({
  resourceType: ResourceType.TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: AclOperation.READ, permissionType: AclPermissionType.ALLOW, ...over,
});

let offset = 0n;
function apply(image: MetadataImage, records: MetadataRecord[]): void {
  if (records.length === 0) return;
  image.apply({ baseOffset: offset, lastOffset: offset + BigInt(records.length - 1), records } as never);
  offset += BigInt(records.length);
}

test('CreateAcls: Kafka\'s validation; an existing or repeated ACL succeeds once', () => {
  const image = new MetadataImage('c');
  const random = new SeededRandom(1);
  const plan = planCreateAcls(image, random, [
    binding(),
    binding(),
    binding({ resourceType: ResourceType.ANY }),
    binding({ patternType: PatternType.MATCH }),
    binding({ operation: AclOperation.ANY }),
    binding({ permissionType: AclPermissionType.ANY }),
    binding({ resourceName: '' }),
    binding({ resourceType: ResourceType.CLUSTER, resourceName: 'other' }),
    binding({ principal: 'alice' }),
    binding({ patternType: PatternType.PREFIXED, resourceName: 'team-' }),
  ]);
  assert.deepEqual(plan.results.map((r) => r.errorCode), [0, 0, 42, 42, 42, 42, 42, 42, 42, 0].map((c) => (c === 42 ? ErrorCode.INVALID_REQUEST : ErrorCode.NONE)));
  assert.equal(plan.records.length, 2);
  for (const r of plan.records) assert.deepEqual(decodeMetadataRecord(encodeMetadataRecord(r)).record, r);
  apply(image, plan.records);
  assert.equal(image.acls.size, 2);
  const again = planCreateAcls(image, random, [binding()]);
  assert.deepEqual(again.results.map((r) => r.errorCode), [ErrorCode.NONE]);
  assert.equal(again.records.length, 0, 'no second record for an existing ACL');
});

test('DeleteAcls: filters (ANY, MATCH, names) remove each matched ACL once; the image and its snapshot agree', () => {
  const image = new MetadataImage('c');
  const random = new SeededRandom(2);
  apply(image, planCreateAcls(image, random, [
    binding(),
    binding({ principal: 'User:bob' }),
    binding({ resourceName: '*' }),
    binding({ patternType: PatternType.PREFIXED, resourceName: 'ord' }),
    binding({ resourceType: ResourceType.GROUP, resourceName: 'g' }),
  ]).records);
  const before = new MetadataImage('c');
  apply(before, image.toRecords());
  const any = { resourceType: ResourceType.ANY, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: AclOperation.ANY, permissionType: AclPermissionType.ANY };
  const plan = planDeleteAcls(image, [
    { ...any, resourceType: ResourceType.TOPIC, resourceName: 'orders', patternType: PatternType.MATCH },
    { ...any, principal: 'User:bob' },
    { ...any, operation: AclOperation.UNKNOWN },
  ]);
  assert.deepEqual(plan.results.map((r) => [r.errorCode, r.matchingAcls.length]), [[ErrorCode.NONE, 4], [ErrorCode.NONE, 1], [ErrorCode.INVALID_REQUEST, 0]]);
  assert.equal(plan.records.length, 4, 'bob\'s ACL matched twice, removed once');
  apply(image, plan.records);
  assert.deepEqual([...image.acls.all()].map((a) => a.resourceName), ['g']);
  const diff = imageDiffRecords(before, image);
  assert.equal(diff.filter((r) => r.type === 'RemoveAccessControlEntryRecord').length, 4);
});
