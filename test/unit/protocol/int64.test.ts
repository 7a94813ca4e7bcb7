/**
 * int64.ts reads and writes what Node's Buffer.readBigInt64BE and
 * writeBigInt64BE do, for every value: the edges of the fast path (±2^53)
 * and of int64, and seeded random bit patterns across the whole range.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readInt64BE, writeInt64BE } from '../../../src/protocol/primitives/int64.js';
import { SeededRandom } from '../../../src/util/random.js';

const EDGES: bigint[] = [];
for (const base of [0n, 1n << 21n, 1n << 31n, 1n << 32n, 1n << 52n, 1n << 53n, 1n << 63n]) {
  for (const d of [-2n, -1n, 0n, 1n, 2n]) {
    for (const sign of [1n, -1n]) {
      const v = sign * base + d;
      if (v >= -(1n << 63n) && v < 1n << 63n) EDGES.push(v);
    }
  }
}
EDGES.push(BigInt(Number.MAX_SAFE_INTEGER), -BigInt(Number.MAX_SAFE_INTEGER), BigInt(Date.UTC(2026, 11, 3)), -1n);

function randomInt64(r: SeededRandom): bigint {
  const hi = BigInt(r.int(0x100000000)) << 32n;
  return BigInt.asIntN(64, hi | BigInt(r.int(0x100000000)));
}

test('writeInt64BE writes the bytes writeBigInt64BE writes, and returns the offset after them', () => {
  const r = new SeededRandom(64);
  const values = [...EDGES, ...Array.from({ length: 5000 }, () => randomInt64(r))];
  for (const v of values) {
    const ours = Buffer.alloc(11, 0xaa);
    const node = Buffer.alloc(11, 0xaa);
    assert.equal(writeInt64BE(ours, v, 3), 11);
    node.writeBigInt64BE(v, 3);
    assert.deepEqual(ours, node, `value ${v}`);
  }
});

test('readInt64BE reads what readBigInt64BE reads', () => {
  const r = new SeededRandom(65);
  const buf = Buffer.alloc(9);
  for (const v of [...EDGES, ...Array.from({ length: 5000 }, () => randomInt64(r))]) {
    buf.writeBigInt64BE(v, 1);
    assert.equal(readInt64BE(buf, 1), v);
  }
  // Random bytes, not only values we wrote.
  for (let i = 0; i < 2000; i++) {
    for (let j = 0; j < 9; j++) buf[j] = r.int(256);
    assert.equal(readInt64BE(buf, 1), buf.readBigInt64BE(1));
  }
});

test('out of range reads and writes throw as Node does', () => {
  const buf = Buffer.alloc(8);
  assert.throws(() => readInt64BE(buf, 1), RangeError);
  assert.throws(() => writeInt64BE(buf, 1n, 1), RangeError);
  assert.throws(() => writeInt64BE(buf, 1n << 63n, 0), RangeError);
});
