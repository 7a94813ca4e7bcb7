/**
 * The consumer embedded protocol: golden bytes written by hand from Kafka's
 * ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json (int16
 * version, then the struct; classic encodings), round trips for every
 * version, forward compatibility (newer versions and trailing bytes), and
 * interop with kafkajs' AssignerProtocol (v0).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import kafkajs from 'kafkajs';
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  groupByTopic,
  flatten,
} from '../../../src/client/consumer-protocol.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// int16 version | int32 array count | int16 string length + utf8 | int32 bytes length (-1 null).
const GOLDEN = {
  subV0: hex('0000' + '00000001' + '0001' + '74' + 'ffffffff'),
  subV1: hex('0001' + '00000001' + '0001' + '74' + '00000002' + '0102' + '00000001' + '0001' + '74' + '00000002' + '00000000' + '00000001'),
  subV2: hex('0002' + '00000002' + '0001' + '61' + '0001' + '62' + 'ffffffff' + '00000000' + '00000007'),
  subV3: hex('0003' + '00000001' + '0001' + '74' + 'ffffffff' + '00000000' + 'ffffffff' + '0002' + '7231'),
  subV3NullRack: hex('0003' + '00000000' + 'ffffffff' + '00000000' + 'ffffffff' + 'ffff'),
  asgV0: hex('0000' + '00000001' + '0001' + '74' + '00000002' + '00000000' + '00000002' + 'ffffffff'),
  asgV3: hex('0003' + '00000002' + '0001' + '61' + '00000001' + '00000003' + '0001' + '62' + '00000000' + '00000003' + '616263'),
};

test('subscription v0 golden bytes', () => {
  assert.deepEqual(encodeSubscription({ version: 0, topics: ['t'] }), GOLDEN.subV0);
  assert.deepEqual(decodeSubscription(GOLDEN.subV0), { version: 0, topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
});

test('subscription v1 golden bytes: ownedPartitions', () => {
  const s = { version: 1, topics: ['t'], userData: Buffer.from([1, 2]), ownedPartitions: [{ topic: 't', partitions: [0, 1] }] };
  assert.deepEqual(encodeSubscription(s), GOLDEN.subV1);
  assert.deepEqual(decodeSubscription(GOLDEN.subV1), { ...s, generationId: -1, rackId: null });
});

test('subscription v2 golden bytes: generationId', () => {
  const s = { version: 2, topics: ['a', 'b'], userData: null, ownedPartitions: [], generationId: 7 };
  assert.deepEqual(encodeSubscription(s), GOLDEN.subV2);
  assert.deepEqual(decodeSubscription(GOLDEN.subV2), { ...s, rackId: null });
});

test('subscription v3 golden bytes: rackId (and null rack)', () => {
  assert.deepEqual(encodeSubscription({ version: 3, topics: ['t'], rackId: 'r1' }), GOLDEN.subV3);
  assert.deepEqual(decodeSubscription(GOLDEN.subV3), { version: 3, topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: 'r1' });
  assert.deepEqual(encodeSubscription({ topics: [] }), GOLDEN.subV3NullRack, 'v3 is the default version');
});

test('assignment v0 and v3 golden bytes', () => {
  assert.deepEqual(encodeAssignment({ version: 0, assignedPartitions: [{ topic: 't', partitions: [0, 2] }] }), GOLDEN.asgV0);
  assert.deepEqual(decodeAssignment(GOLDEN.asgV0), { version: 0, assignedPartitions: [{ topic: 't', partitions: [0, 2] }], userData: null });
  const v3 = { version: 3, assignedPartitions: [{ topic: 'a', partitions: [3] }, { topic: 'b', partitions: [] }], userData: Buffer.from('abc') };
  assert.deepEqual(encodeAssignment(v3), GOLDEN.asgV3);
  assert.deepEqual(decodeAssignment(GOLDEN.asgV3), v3);
});

test('an empty assignment buffer is an empty assignment (the broker sends it to members left out)', () => {
  assert.deepEqual(decodeAssignment(Buffer.alloc(0)), { version: 0, assignedPartitions: [], userData: null });
});

test('a newer version is read as the highest known and its extra bytes are ignored', () => {
  const v9 = Buffer.concat([hex('0009'), GOLDEN.subV3.subarray(2), hex('deadbeef')]);
  assert.deepEqual(decodeSubscription(v9), { version: 3, topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: 'r1' });
  const a9 = Buffer.concat([hex('0009'), GOLDEN.asgV0.subarray(2), hex('00')]);
  assert.deepEqual(decodeAssignment(a9).assignedPartitions, [{ topic: 't', partitions: [0, 2] }]);
});

test('bad bytes throw a DecodeError, never hang', () => {
  assert.throws(() => decodeSubscription(hex('ffff')), { code: 'ERR_TRIB_DECODE' });
  assert.throws(() => decodeSubscription(hex('0000 0000')), { code: 'ERR_TRIB_DECODE' });
  assert.throws(() => decodeAssignment(hex('0000 7fffffff')), { code: 'ERR_TRIB_DECODE' });
  assert.throws(() => encodeSubscription({ version: 4, topics: [] }), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      for (const decode of [decodeSubscription, decodeAssignment]) {
        try {
          decode(Buffer.from(bytes));
        } catch (err) {
          assert.equal((err as { code?: string }).code, 'ERR_TRIB_DECODE', String(err));
        }
      }
    }),
  );
});

test('round trip of every version (fast-check)', () => {
  const tps = fc.array(fc.record({ topic: fc.string({ maxLength: 10 }), partitions: fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 5 }) }, { noNullPrototype: true }), { maxLength: 4 });
  const userData = fc.option(fc.uint8Array({ maxLength: 8 }).map((u) => Buffer.from(u)), { nil: null });
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 3 }),
      fc.array(fc.string({ maxLength: 10 }), { maxLength: 5 }),
      userData,
      tps,
      fc.integer({ min: -1, max: 1 << 30 }),
      fc.option(fc.string({ maxLength: 5 }), { nil: null }),
      (version, topics, ud, owned, generationId, rackId) => {
        const s = decodeSubscription(encodeSubscription({ version, topics, userData: ud, ownedPartitions: owned, generationId, rackId }));
        assert.equal(s.version, version);
        assert.deepEqual(s.topics, topics);
        assert.deepEqual(s.userData, ud);
        assert.deepEqual(s.ownedPartitions, version >= 1 ? owned : []);
        assert.equal(s.generationId, version >= 2 ? generationId : -1);
        assert.equal(s.rackId, version >= 3 ? rackId : null);
        const a = decodeAssignment(encodeAssignment({ version, assignedPartitions: owned, userData: ud }));
        assert.deepEqual(a, { version, assignedPartitions: owned, userData: ud });
      },
    ),
  );
});

test('kafkajs (v0 AssignerProtocol) and we read each other', () => {
  const { AssignerProtocol } = kafkajs;
  const theirs = AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['orders', 'audit'], userData: Buffer.alloc(0) });
  assert.deepEqual(decodeSubscription(theirs), { version: 0, topics: ['orders', 'audit'], userData: Buffer.alloc(0), ownedPartitions: [], generationId: -1, rackId: null });
  const ours = encodeSubscription({ topics: ['orders'], ownedPartitions: [{ topic: 'orders', partitions: [1] }], generationId: 4 });
  assert.deepEqual(AssignerProtocol.MemberMetadata.decode(ours)?.topics, ['orders']);

  const theirAssignment = AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: { orders: [0, 2] }, userData: Buffer.alloc(0) });
  assert.deepEqual(decodeAssignment(theirAssignment).assignedPartitions, [{ topic: 'orders', partitions: [0, 2] }]);
  const ourAssignment = encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [1, 3] }] });
  assert.deepEqual(AssignerProtocol.MemberAssignment.decode(ourAssignment)?.assignment, { orders: [1, 3] });
});

test('groupByTopic sorts and merges; flatten undoes it', () => {
  const pairs = [
    { topic: 'b', partition: 1 },
    { topic: 'a', partition: 2 },
    { topic: 'b', partition: 0 },
    { topic: 'a', partition: 2 },
  ];
  const grouped = groupByTopic(pairs);
  assert.deepEqual(grouped, [
    { topic: 'a', partitions: [2] },
    { topic: 'b', partitions: [0, 1] },
  ]);
  assert.deepEqual(flatten(grouped), [
    { topic: 'a', partition: 2 },
    { topic: 'b', partition: 0 },
    { topic: 'b', partition: 1 },
  ]);
});
