/** Serdes write the byte layouts of Java's serializers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, StreamsErrorCode } from '../../../src/streams/index.js';

test('Long is 8-byte big-endian two\'s complement, as Java LongSerializer', () => {
  assert.deepEqual(Serdes.Long().serialize('t', 2n), Buffer.from([0, 0, 0, 0, 0, 0, 0, 2]));
  assert.deepEqual(Serdes.Long().serialize('t', -1n), Buffer.alloc(8, 0xff));
  assert.equal(Serdes.Long().deserialize('t', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), 2n ** 63n - 1n);
  assert.throws(() => Serdes.Long().serialize('t', 2n ** 63n), (e: { code?: string }) => e.code === StreamsErrorCode.SERDE);
  assert.throws(() => Serdes.Long().serialize('t', 5 as unknown as bigint), /cannot serialize number 5/);
  assert.throws(() => Serdes.Long().deserialize('t', Buffer.alloc(4)), /expects 8 bytes, got 4/);
});

test('Integer, Double, String, ByteArray, Json and custom serdes round-trip; null stays null', () => {
  assert.deepEqual(Serdes.Integer().serialize('t', -2), Buffer.from([0xff, 0xff, 0xff, 0xfe]));
  assert.throws(() => Serdes.Integer().serialize('t', 2 ** 31));
  assert.deepEqual(Serdes.Double().serialize('t', 1.5), Buffer.from([0x3f, 0xf8, 0, 0, 0, 0, 0, 0]));
  assert.equal(Serdes.Double().deserialize('t', Serdes.Double().serialize('t', Math.PI)), Math.PI);
  assert.equal(Serdes.String().deserialize('t', Serdes.String().serialize('t', 'héllo')), 'héllo');
  const bytes = Buffer.from([1, 2, 3]);
  const copy = Serdes.ByteArray().deserialize('t', bytes) as Buffer;
  bytes[0] = 9;
  assert.deepEqual(copy, Buffer.from([1, 2, 3]), 'ByteArray copies what it reads');
  const json = Serdes.Json<{ n: number }>();
  assert.deepEqual(json.deserialize('t', json.serialize('t', { n: 1 })), { n: 1 });
  assert.throws(() => json.deserialize('t', Buffer.from('{')), (e: { code?: string }) => e.code === StreamsErrorCode.SERDE);
  const upper = Serdes.from<string>((s) => Buffer.from(s.toUpperCase()), (b) => b.toString().toLowerCase());
  assert.deepEqual(upper.serialize('t', 'ab'), Buffer.from('AB'));
  for (const serde of [Serdes.Long(), Serdes.Integer(), Serdes.Double(), Serdes.String(), Serdes.ByteArray(), json, upper]) {
    assert.equal(serde.serialize('t', null), null);
    assert.equal(serde.deserialize('t', null), null);
  }
});
