/**
 * AlterPartition (56): golden bytes worked out by hand from Kafka's
 * AlterPartitionRequest/Response specs for v0 (topic names, plain ISR), v2
 * (topic ids, KIP-841) and v3 (ISR members with broker epochs, KIP-903), and
 * round trips over every version. Compact encodings throughout: the API is
 * flexible from v0.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, encode } from '../../../src/protocol/codec.js';
import type { Input, MessageSchema } from '../../../src/protocol/schema.js';
import { AlterPartitionRequest, AlterPartitionResponse, apiSchemas } from '../../../src/protocol/messages/index.js';

type Bytes = number[];
const i8 = (v: number): Bytes => [v & 0xff];
const i16 = (v: number): Bytes => [(v >> 8) & 0xff, v & 0xff];
function i32(v: number): Bytes {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return [...b];
}
function i64(v: bigint): Bytes {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return [...b];
}
/** Compact string (lengths below 127 here). */
const cstr = (s: string): Bytes => [Buffer.byteLength(s) + 1, ...Buffer.from(s, 'utf8')];
/** Compact array header (counts below 127 here). */
const carr = (n: number): Bytes => [n + 1];
const TAGS: Bytes = [0];
const ID_BYTES: Bytes = Array.from({ length: 16 }, (_, i) => 0xa0 + i);
const TOPIC_ID = Buffer.from(ID_BYTES).toString('base64url');

function check<S extends MessageSchema>(schema: S, version: number, value: Input<S>, expected: Bytes): void {
  assert.deepEqual([...encode(schema, version, value)], expected, `${schema.name} v${version} encode`);
  const decoded = decode(schema, version, Buffer.from(expected));
  assert.deepEqual([...encode(schema, version, decoded as unknown as Input<S>)], expected, `${schema.name} v${version} re-encode`);
}

describe('AlterPartition (56) schema', () => {
  test('is registered with versions 0-3, flexible from v0', () => {
    const api = apiSchemas.get(56);
    assert.equal(api?.name, 'AlterPartition');
    assert.equal(api?.request, AlterPartitionRequest);
    assert.equal(api?.response, AlterPartitionResponse);
  });

  test('v0 request: topic name, plain ISR, no leaderRecoveryState', () => {
    const value = {
      brokerId: 2,
      brokerEpoch: 7n,
      topics: [{ topicName: 'a', partitions: [{ partitionIndex: 1, leaderEpoch: 3, newIsr: [2, 1], partitionEpoch: 9 }] }],
    };
    check(AlterPartitionRequest, 0, value, [
      ...i32(2), ...i64(7n),
      ...carr(1), ...cstr('a'),
      ...carr(1), ...i32(1), ...i32(3), ...carr(2), ...i32(2), ...i32(1), ...i32(9), ...TAGS,
      ...TAGS,
      ...TAGS,
    ]);
  });

  test('v2 request: topic id, plain ISR, leaderRecoveryState', () => {
    const value = {
      brokerId: 1,
      brokerEpoch: 100n,
      topics: [{ topicId: TOPIC_ID, partitions: [{ partitionIndex: 0, leaderEpoch: 5, newIsr: [1], leaderRecoveryState: 1, partitionEpoch: 4 }] }],
    };
    check(AlterPartitionRequest, 2, value, [
      ...i32(1), ...i64(100n),
      ...carr(1), ...ID_BYTES,
      ...carr(1), ...i32(0), ...i32(5), ...carr(1), ...i32(1), ...i8(1), ...i32(4), ...TAGS,
      ...TAGS,
      ...TAGS,
    ]);
  });

  test('v3 request: ISR members carry broker epochs (KIP-903)', () => {
    const value = {
      brokerId: 1,
      brokerEpoch: 100n,
      topics: [
        {
          topicId: TOPIC_ID,
          partitions: [
            {
              partitionIndex: 0,
              leaderEpoch: 5,
              newIsrWithEpochs: [{ brokerId: 1, brokerEpoch: 100n }, { brokerId: 3, brokerEpoch: 42n }],
              leaderRecoveryState: 0,
              partitionEpoch: 4,
            },
          ],
        },
      ],
    };
    check(AlterPartitionRequest, 3, value, [
      ...i32(1), ...i64(100n),
      ...carr(1), ...ID_BYTES,
      ...carr(1), ...i32(0), ...i32(5),
      ...carr(2), ...i32(1), ...i64(100n), ...TAGS, ...i32(3), ...i64(42n), ...TAGS,
      ...i8(0), ...i32(4), ...TAGS,
      ...TAGS,
      ...TAGS,
    ]);
    // v3 has no newIsr: a decoded v3 request reads as the default (empty).
    const decoded = decode(AlterPartitionRequest, 3, encode(AlterPartitionRequest, 3, value));
    assert.deepEqual(decoded.topics[0]?.partitions[0]?.newIsr, []);
  });

  test('v1 response: per-partition state with leaderRecoveryState', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      topics: [
        {
          topicName: 't',
          partitions: [{ partitionIndex: 2, errorCode: 0, leaderId: 1, leaderEpoch: 3, isr: [1, 2], leaderRecoveryState: 0, partitionEpoch: 8 }],
        },
      ],
    };
    check(AlterPartitionResponse, 1, value, [
      ...i32(0), ...i16(0),
      ...carr(1), ...cstr('t'),
      ...carr(1), ...i32(2), ...i16(0), ...i32(1), ...i32(3), ...carr(2), ...i32(1), ...i32(2), ...i8(0), ...i32(8), ...TAGS,
      ...TAGS,
      ...TAGS,
    ]);
  });

  test('v3 response: topic id; leaderId defaults to -1', () => {
    const bytes = encode(AlterPartitionResponse, 3, {
      throttleTimeMs: 0,
      errorCode: 0,
      topics: [{ topicId: TOPIC_ID, partitions: [{ partitionIndex: 0, errorCode: 90, leaderEpoch: 0, isr: [], partitionEpoch: 0 }] }],
    });
    const back = decode(AlterPartitionResponse, 3, bytes);
    assert.equal(back.topics[0]?.topicId, TOPIC_ID);
    assert.equal(back.topics[0]?.partitions[0]?.leaderId, -1);
    assert.equal(back.topics[0]?.partitions[0]?.errorCode, 90);
  });
});
