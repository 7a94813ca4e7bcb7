import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { planAlterScramCredentials } from '../../../src/controller/scram-plan.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { imageDiffRecords } from '../../../src/controller/metadata/image-records.js';
import { decodeMetadataRecord, encodeMetadataRecord } from '../../../src/controller/metadata/records.js';
import { saltedPassword, storedKey } from '../../../src/util/scram.js';

const up = (name: string, mechanism = 1, iterations = 4096) => ({ name, mechanism, iterations, salt: Buffer.from('salt'), saltedPassword: saltedPassword('sha256', 'pw', Buffer.from('salt'), 4096) });

function apply(image: MetadataImage, records: ReturnType<typeof planAlterScramCredentials>['records'], at: bigint): void {
  image.apply({ baseOffset: at, lastOffset: at + BigInt(Math.max(records.length, 1) - 1), records } as never);
}

test('Kafka\'s rules: iterations bounds, mechanism, duplicates, missing deletions; a user\'s changes fail together', () => {
  const image = new MetadataImage('c');
  const plan = planAlterScramCredentials(image, [{ name: 'gone', mechanism: 1 }], [up('alice'), up('bob', 3), up('carol', 1, 4095), up('dave', 2, 16385), up('erin'), up('erin'), up(''), up('frank', 2, 16384)]);
  assert.deepEqual(plan.results.map((r) => [r.user, r.errorCode]), [
    ['gone', ErrorCode.RESOURCE_NOT_FOUND],
    ['alice', ErrorCode.NONE],
    ['bob', ErrorCode.UNSUPPORTED_SASL_MECHANISM],
    ['carol', ErrorCode.UNACCEPTABLE_CREDENTIAL],
    ['dave', ErrorCode.UNACCEPTABLE_CREDENTIAL],
    ['erin', ErrorCode.DUPLICATE_RESOURCE],
    ['', ErrorCode.UNACCEPTABLE_CREDENTIAL],
    ['frank', ErrorCode.NONE],
  ]);
  assert.deepEqual(plan.records.map((r) => r.type === 'UserScramCredentialRecord' && [r.data.name, r.data.mechanism]), [['alice', 1], ['frank', 2]]);
  const record = plan.records[0];
  assert.ok(record?.type === 'UserScramCredentialRecord');
  assert.deepEqual(record.data.storedKey, storedKey('sha256', up('alice').saltedPassword), 'the stored key, never the salted password');
  assert.ok(!JSON.stringify(record).includes(JSON.stringify(up('alice').saltedPassword)));
});

test('records round-trip, apply, delete, and snapshot diffs remove what the target lacks', () => {
  const image = new MetadataImage('c');
  const plan = planAlterScramCredentials(image, [], [up('alice', 1), up('alice', 2), up('bob')]);
  for (const r of plan.records) assert.deepEqual(decodeMetadataRecord(encodeMetadataRecord(r)).record, r);
  apply(image, plan.records, 0n);
  assert.deepEqual(image.scramCredentials.users(), ['alice', 'bob']);
  assert.deepEqual(image.scramCredentials.ofUser('alice').map((c) => c.mechanism), [1, 2]);
  const before = new MetadataImage('c');
  apply(before, image.toRecords(), 0n);
  const del = planAlterScramCredentials(image, [{ name: 'alice', mechanism: 1 }, { name: 'bob', mechanism: 1 }], []);
  apply(image, del.records, 10n);
  assert.deepEqual(image.scramCredentials.users(), ['alice']);
  const diff = imageDiffRecords(before, image);
  assert.deepEqual(diff.map((r) => r.type), ['RemoveUserScramCredentialRecord', 'RemoveUserScramCredentialRecord']);
  apply(before, diff, 20n);
  assert.deepEqual(before.scramCredentials.users(), ['alice']);
});
