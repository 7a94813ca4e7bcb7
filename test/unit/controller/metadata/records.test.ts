import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../../../src/protocol/primitives/decode-error.js';
import {
  MetadataRecordTypes,
  decodeMetadataRecord,
  encodeMetadataRecord,
  type MetadataRecord,
} from '../../../../src/controller/metadata/records.js';
import { decodeMetadataBatch, encodeMetadataBatch } from '../../../../src/controller/metadata/batch.js';
import { registerBroker } from '../fixtures.js';

const TOPIC_ID = 'x7Yb2mXtQ0a5Zc1oPqRsTg';

/** One full-valued sample of every record type. */
const samples: MetadataRecord[] = [
  registerBroker(3, 17n, 'rack-a'),
  { type: 'UnregisterBrokerRecord', data: { brokerId: 3, brokerEpoch: 17n } },
  { type: 'TopicRecord', data: { name: 'orders', topicId: TOPIC_ID } },
  {
    type: 'PartitionRecord',
    data: { partitionId: 2, topicId: TOPIC_ID, replicas: [1, 2, 3], isr: [1, 2], removingReplicas: [3], addingReplicas: [], leader: 1, leaderRecoveryState: 1, leaderEpoch: 4, partitionEpoch: 9, eligibleLeaderReplicas: [], lastKnownElr: [] },
  },
  { type: 'ConfigRecord', data: { resourceType: 2, resourceName: 'orders', name: 'retention.ms', value: '1000' } },
  { type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: 'log.retention.ms', value: null } },
  {
    type: 'PartitionChangeRecord',
    data: { partitionId: 2, topicId: TOPIC_ID, isr: [1], leader: 2, replicas: null, removingReplicas: null, addingReplicas: [4], leaderRecoveryState: -1, eligibleLeaderReplicas: null, lastKnownElr: null },
  },
  { type: 'FenceBrokerRecord', data: { id: 3, epoch: 17n } },
  { type: 'UnfenceBrokerRecord', data: { id: 3, epoch: 17n } },
  { type: 'BrokerRegistrationChangeRecord', data: { brokerId: 3, brokerEpoch: 17n, fenced: 1, inControlledShutdown: 1 } },
  { type: 'ProducerIdsRecord', data: { brokerId: 3, brokerEpoch: 17n, nextProducerId: 5000n } },
  { type: 'RemoveTopicRecord', data: { topicId: TOPIC_ID } },
  { type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 7 } },
  { type: 'NoOpRecord', data: {} },
  { type: 'UserScramCredentialRecord', data: { name: 'alice', mechanism: 2, salt: Buffer.from('salt'), storedKey: Buffer.alloc(64, 1), serverKey: Buffer.alloc(64, 2), iterations: 8192 } },
  { type: 'RemoveUserScramCredentialRecord', data: { name: 'alice', mechanism: 2 } },
  { type: 'AccessControlEntryRecord', data: { id: 'c3RhbmRhcmRBY2xJZDAwMQ', resourceType: 2, resourceName: 'orders', patternType: 4, principal: 'User:alice', host: '*', operation: 4, permissionType: 3 } },
  { type: 'RemoveAccessControlEntryRecord', data: { id: 'c3RhbmRhcmRBY2xJZDAwMQ' } },
  { type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: null }], key: 'request_percentage', value: 12.5, remove: false } },
];

test('every record type has a sample', () => {
  assert.deepEqual(new Set(samples.map((s) => s.type)), new Set(Object.keys(MetadataRecordTypes)));
});

test('every record type round-trips through its frame', () => {
  for (const record of samples) {
    const bytes = encodeMetadataRecord(record);
    const back = decodeMetadataRecord(bytes);
    assert.equal(back.version, 0, record.type);
    assert.deepEqual(back.record, record, record.type);
  }
});

test('the frame starts with frame version 1, the KRaft type id and the version', () => {
  const bytes = encodeMetadataRecord({ type: 'TopicRecord', data: { name: 't', topicId: TOPIC_ID } });
  assert.deepEqual([...bytes.subarray(0, 3)], [1, 2, 0]);
  const noop = encodeMetadataRecord({ type: 'NoOpRecord', data: {} });
  assert.deepEqual([...noop], [1, 20, 0, 0]); // empty tagged-field section
});

test('PartitionChangeRecord leaves absent fields at their "no change" defaults', () => {
  const bytes = encodeMetadataRecord({
    type: 'PartitionChangeRecord',
    data: { partitionId: 0, topicId: TOPIC_ID, isr: null, leader: -2, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, eligibleLeaderReplicas: null, lastKnownElr: null },
  });
  const back = decodeMetadataRecord(bytes).record;
  assert.equal(back.type, 'PartitionChangeRecord');
  if (back.type !== 'PartitionChangeRecord') return;
  assert.equal(back.data.isr, null);
  assert.equal(back.data.leader, -2);
  // partitionId int32 + uuid + tag count: nothing else is on the wire
  assert.equal(bytes.length, 3 + 4 + 16 + 1);
});

test('unknown frame versions, types and versions are DecodeErrors', () => {
  assert.throws(() => decodeMetadataRecord(Buffer.from([2, 2, 0])), (e: unknown) => e instanceof DecodeError && /frame version 2/.test(e.message));
  assert.throws(() => decodeMetadataRecord(Buffer.from([1, 99, 0])), (e: unknown) => e instanceof DecodeError && /unknown metadata record type 99/.test(e.message));
  assert.throws(() => decodeMetadataRecord(Buffer.from([1, 2, 5])), (e: unknown) => e instanceof DecodeError && /TopicRecord version 5/.test(e.message));
  assert.throws(() => decodeMetadataRecord(Buffer.from([])), DecodeError);
});

test('truncated or padded records are DecodeErrors', () => {
  for (const record of samples) {
    const bytes = encodeMetadataRecord(record);
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.throws(() => decodeMetadataRecord(bytes.subarray(0, cut)), DecodeError, `${record.type} cut at ${cut}`);
    }
    assert.throws(() => decodeMetadataRecord(Buffer.concat([bytes, Buffer.from([0])])), DecodeError, record.type);
  }
});

test('random bytes never crash the decoder', () => {
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) & 0xff;
  for (let i = 0; i < 2000; i++) {
    const buf = Buffer.from(Array.from({ length: 1 + (i % 40) }, next));
    buf[0] = 1;
    try {
      decodeMetadataRecord(buf);
    } catch (err) {
      assert.ok(err instanceof DecodeError, `unexpected ${String(err)}`);
    }
  }
});

test('a batch of records round-trips with offsets and epoch', () => {
  const buf = encodeMetadataBatch(samples, { baseOffset: 100n, epoch: 3, timestampMs: 1_700_000_000_000 });
  const batch = decodeMetadataBatch(buf);
  assert.equal(batch.baseOffset, 100n);
  assert.equal(batch.lastOffset, 100n + BigInt(samples.length - 1));
  assert.equal(batch.epoch, 3);
  assert.equal(batch.timestampMs, 1_700_000_000_000n);
  assert.deepEqual(batch.records, samples);
});

test('a corrupted batch is a DecodeError (CRC)', () => {
  const buf = encodeMetadataBatch(samples.slice(0, 2), { timestampMs: 0 });
  buf[buf.length - 3] = (buf[buf.length - 3] as number) ^ 0xff;
  assert.throws(() => decodeMetadataBatch(buf), DecodeError);
});

test('an empty or oversized batch is refused', () => {
  assert.throws(() => encodeMetadataBatch([], { timestampMs: 0 }), RangeError);
  const many = Array.from({ length: 10_001 }, (): MetadataRecord => ({ type: 'NoOpRecord', data: {} }));
  assert.throws(() => encodeMetadataBatch(many, { timestampMs: 0 }), RangeError);
});
