/**
 * Unsigned varints (compact lengths, tag numbers and sizes in flexible
 * versions) at every step where the encoding grows a byte, with the bytes
 * spelled out (least significant seven bits first, protobuf style), and the
 * limits of the 32-bit and 64-bit readers. The zig-zag forms have their
 * golden vectors in test/unit/record-batch/record.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../../src/protocol/primitives/decode-error.js';
import { readUVarint, readVarlong, uvarintSize, varlongSize, writeUVarint, writeVarlong } from '../../../src/protocol/primitives/varint.js';

const UVARINTS: [number, string][] = [
  [0, '00'],
  [1, '01'],
  [127, '7f'],
  [128, '8001'],
  [201, 'c901'],
  [16_383, 'ff7f'],
  [16_384, '808001'],
  [16_401, '918001'],
  [2_097_151, 'ffff7f'],
  [2_097_152, '80808001'],
  [268_435_455, 'ffffff7f'],
  [268_435_456, '8080808001'],
  [0x7fffffff, 'ffffffff07'],
  [0xffffffff, 'ffffffff0f'],
];

describe('unsigned varints', () => {
  it('encode to the known bytes, with the size they announce, and decode back', () => {
    for (const [value, hex] of UVARINTS) {
      assert.equal(uvarintSize(value), hex.length / 2, `size of ${value}`);
      const buf = Buffer.alloc(uvarintSize(value) + 2, 0xaa);
      assert.equal(writeUVarint(buf, 1, value), 1 + hex.length / 2, `end of ${value}`);
      assert.equal(buf.subarray(1, 1 + hex.length / 2).toString('hex'), hex, `bytes of ${value}`);
      assert.equal(buf[0], 0xaa, 'nothing written before the position');
      assert.equal(buf[buf.length - 1], 0xaa, 'nothing written after the varint');
      const out = readUVarint(buf, 1, { value: -1, position: -1 });
      assert.deepEqual(out, { value, position: 1 + hex.length / 2 }, `read ${hex}`);
    }
  });

  it('a fifth byte above 0x0f does not fit in 32 bits; a truncated varint is a DecodeError', () => {
    assert.equal(readUVarint(Buffer.from('ffffffff0f', 'hex'), 0, { value: 0, position: 0 }).value, 0xffffffff);
    assert.throws(() => readUVarint(Buffer.from('ffffffff10', 'hex'), 0, { value: 0, position: 0 }), DecodeError);
    assert.throws(() => readUVarint(Buffer.from('8080808080', 'hex'), 0, { value: 0, position: 0 }), DecodeError);
    for (const hex of ['', '80', 'ff80', '808080', 'ffffffff']) {
      assert.throws(() => readUVarint(Buffer.from(hex, 'hex'), 0, { value: 0, position: 0 }), DecodeError, hex);
    }
    // Reading starts at the position, not at 0.
    assert.equal(readUVarint(Buffer.from('ff8001', 'hex'), 1, { value: 0, position: 0 }).value, 0x80);
  });
});

describe('varlongs at their limits', () => {
  it('the extreme int64 values take ten bytes and come back', () => {
    for (const value of [-(1n << 63n), (1n << 63n) - 1n, -1n, 0n, 63n, -64n, 64n, -65n]) {
      const buf = Buffer.alloc(varlongSize(value));
      assert.equal(writeVarlong(buf, 0, value), buf.length);
      assert.deepEqual(readVarlong(buf, 0, { value: 0n, position: 0 }), { value, position: buf.length }, String(value));
    }
    assert.equal(varlongSize(-(1n << 63n)), 10);
    assert.equal(varlongSize(63n), 1);
    assert.equal(varlongSize(64n), 2);
  });

  it('an eleventh byte or a truncated varlong is a DecodeError', () => {
    assert.throws(() => readVarlong(Buffer.from('ffffffffffffffffff8001', 'hex'), 0, { value: 0n, position: 0 }), DecodeError);
    assert.throws(() => readVarlong(Buffer.from('ffff', 'hex'), 0, { value: 0n, position: 0 }), DecodeError);
  });
});
