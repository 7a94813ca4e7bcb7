/**
 * WriteTxnMarkers (27): golden bytes worked out by hand from Kafka's
 * WriteTxnMarkersRequest/Response specs for v0 (classic encodings) and v1
 * (flexible: compact arrays and strings, tag buffers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, encode } from '../../../src/protocol/codec.js';
import type { Input, MessageSchema } from '../../../src/protocol/schema.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../../src/protocol/messages/27-write-txn-markers.js';

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
const str = (s: string): Bytes => [...i16(Buffer.byteLength(s)), ...Buffer.from(s, 'utf8')];
const cstr = (s: string): Bytes => [Buffer.byteLength(s) + 1, ...Buffer.from(s, 'utf8')];
const arr = (n: number): Bytes => i32(n);
const carr = (n: number): Bytes => [n + 1];
const TAGS: Bytes = [0];

function check<S extends MessageSchema>(schema: S, version: number, value: Input<S>, expected: Bytes): void {
  assert.deepEqual([...encode(schema, version, value)], expected, `${schema.name} v${version} encode`);
  const decoded = decode(schema, version, Buffer.from(expected));
  assert.deepEqual([...encode(schema, version, decoded as unknown as Input<S>)], expected, `${schema.name} v${version} re-encode`);
}

const request = {
  markers: [{ producerId: 4242n, producerEpoch: 3, transactionResult: true, topics: [{ name: 'orders', partitionIndexes: [0, 2] }], coordinatorEpoch: 7 }],
};
const response = {
  markers: [{ producerId: 4242n, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 2, errorCode: 52 }] }] }],
};

test('WriteTxnMarkers v0 request and response bytes', () => {
  check(WriteTxnMarkersRequest, 0, request, [
    ...arr(1), ...i64(4242n), ...i16(3), ...i8(1), ...arr(1), ...str('orders'), ...arr(2), ...i32(0), ...i32(2), ...i32(7),
  ]);
  check(WriteTxnMarkersResponse, 0, response, [
    ...arr(1), ...i64(4242n), ...arr(1), ...str('orders'), ...arr(2), ...i32(0), ...i16(0), ...i32(2), ...i16(52),
  ]);
});

test('WriteTxnMarkers v1 (flexible) request and response bytes', () => {
  check(WriteTxnMarkersRequest, 1, request, [
    ...carr(1), ...i64(4242n), ...i16(3), ...i8(1), ...carr(1), ...cstr('orders'), ...carr(2), ...i32(0), ...i32(2), ...TAGS, ...i32(7), ...TAGS,
    ...TAGS,
  ]);
  check(WriteTxnMarkersResponse, 1, response, [
    ...carr(1), ...i64(4242n), ...carr(1), ...cstr('orders'), ...carr(2), ...i32(0), ...i16(0), ...TAGS, ...i32(2), ...i16(52), ...TAGS, ...TAGS, ...TAGS,
    ...TAGS,
  ]);
});
