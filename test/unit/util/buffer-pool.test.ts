import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferPool, capacityFor } from '../../../src/util/buffer-pool.js';

const KiB = 1024;
const pool = (retainBytes = 8 * 1024 * KiB): BufferPool => new BufferPool({ minBytes: 64 * KiB, maxBytes: 2048 * KiB, retainBytes });

test('capacity classes are powers of two and their quarter steps', () => {
  assert.equal(capacityFor(64 * KiB), 64 * KiB);
  assert.equal(capacityFor(64 * KiB + 1), 80 * KiB);
  assert.equal(capacityFor(80 * KiB), 80 * KiB);
  assert.equal(capacityFor(100 * KiB), 112 * KiB);
  assert.equal(capacityFor(1_100_000), 1280 * KiB);
  assert.equal(capacityFor(2047 * KiB), 2048 * KiB);
  for (let n = 1; n < 5000; n++) {
    const c = capacityFor(n);
    assert.ok(c >= n && c <= Math.max(2, n * 1.5), `capacity ${c} for ${n}`);
  }
});

test('a released buffer is lent again, and holds exactly the asked length', () => {
  const p = pool();
  const a = p.acquire(100_000);
  assert.equal(a.length, 100_000);
  p.release(a);
  const b = p.acquire(110_000);
  assert.equal(b.buffer, a.buffer, 'same slab (same capacity class)');
  assert.equal(b.length, 110_000);
  assert.deepEqual(p.stats(), { reused: 1, allocated: 1, released: 1, retainedBytes: 0 });
});

test('a buffer lent twice at once never happens: a double release and foreign buffers are ignored', () => {
  const p = pool();
  const a = p.acquire(100_000);
  p.release(a);
  p.release(a);
  p.release(Buffer.alloc(100_000));
  p.release(Buffer.allocUnsafeSlow(112 * KiB));
  const b = p.acquire(100_000);
  const c = p.acquire(100_000);
  assert.notEqual(b.buffer, c.buffer);
  b.fill(1);
  c.fill(2);
  assert.equal(b[0], 1);
  assert.equal(p.stats().released, 1);
});

test('a view not starting at the slab start is not taken back', () => {
  const p = pool();
  const a = p.acquire(100_000);
  p.release(a.subarray(10));
  assert.equal(p.stats().released, 0);
  p.release(a.subarray(0, 10));
  assert.equal(p.stats().released, 1);
});

test('sizes outside the pooled range get plain buffers', () => {
  const p = pool();
  const small = p.acquire(100);
  const big = p.acquire(3000 * KiB);
  p.release(small);
  p.release(big);
  assert.deepEqual(p.stats(), { reused: 0, allocated: 0, released: 0, retainedBytes: 0 });
});

test('at most retainBytes of free slabs are kept', () => {
  const p = pool(256 * KiB);
  const lent = [p.acquire(128 * KiB), p.acquire(128 * KiB), p.acquire(128 * KiB)];
  for (const b of lent) p.release(b);
  assert.equal(p.stats().retainedBytes, 256 * KiB);
  assert.equal(p.stats().released, 2);
});

test('rejects a bad range', () => {
  assert.throws(() => new BufferPool({ minBytes: 0, maxBytes: 10, retainBytes: 0 }), RangeError);
  assert.throws(() => new BufferPool({ minBytes: 20, maxBytes: 10, retainBytes: 0 }), RangeError);
});
