import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameReader } from '../../../src/net/frame-reader.js';
import { ClientErrorCode, ProtocolError } from '../../../src/net/errors.js';
import { SeededRandom } from '../../../src/util/random.js';

function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length, 0);
  return Buffer.concat([size, body]);
}

/** A body of `n` bytes whose content says which frame it is (so a frame overwritten later is caught). */
function body(i: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let j = 0; j < n; j++) b[j] = (i * 31 + j) & 0xff;
  return b;
}

/**
 * Feeds `stream` through the reader as a socket would: each read fills a
 * prefix of readBuffer() of a length `readSize` picks (at most the buffer).
 */
function feed(reader: FrameReader, stream: Buffer, readSize: (room: number) => number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    const target = reader.readBuffer();
    assert.ok(target.length > 0, 'the reader always offers room');
    const n = Math.min(readSize(target.length), target.length, stream.length - at);
    stream.copy(target, 0, at, at + n);
    at += n;
    out.push(...reader.onRead(n));
  }
  return out;
}

test('small frames come back as views of one scratch read', () => {
  const reader = new FrameReader(1024);
  const frames = feed(reader, Buffer.concat([frame(Buffer.from('aaaa')), frame(Buffer.from('bbbbbb')), frame(Buffer.from('cccc'))]), (room) => room);
  assert.deepEqual(frames.map(String), ['aaaa', 'bbbbbb', 'cccc']);
  assert.equal(reader.pendingBytes, 0);
  assert.equal(frames[0]?.buffer, frames[2]?.buffer, 'views of the same scratch');
});

test('a frame bigger than the scratch is read into a buffer of exactly its size', () => {
  const reader = new FrameReader(4 * 1024 * 1024);
  const big = body(1, 1_000_000);
  const frames = feed(reader, Buffer.concat([frame(big), frame(body(2, 10))]), (room) => Math.min(room, 100_000));
  assert.equal(frames.length, 2);
  assert.ok(frames[0]?.equals(big));
  assert.equal(frames[0]?.byteOffset, 0);
  assert.equal(frames[0]?.buffer.byteLength, 1_000_000, 'its own allocation, no slack');
  assert.ok(frames[1]?.equals(body(2, 10)));
});

test('every split of a stream of mixed frames, byte by byte and at random, yields the same frames unchanged', () => {
  const sizes = [4, 11, 300, 70_000, 5, 64 * 1024 - 4, 64 * 1024, 130_000, 7, 4000];
  const bodies = sizes.map((n, i) => body(i, n));
  const stream = Buffer.concat(bodies.map(frame));
  const check = (frames: Buffer[], label: string): void => {
    assert.equal(frames.length, bodies.length, label);
    // Compared after the whole stream went through: a view overwritten by a later read fails here.
    frames.forEach((f, i) => assert.ok(f.equals(bodies[i] as Buffer), `${label}: frame ${i}`));
  };
  check(feed(new FrameReader(1 << 20), stream, () => 1), 'one byte per read');
  check(feed(new FrameReader(1 << 20), stream, (room) => room), 'whole room per read');
  for (let seed = 1; seed <= 200; seed++) {
    const rng = new SeededRandom(seed);
    const reader = new FrameReader(1 << 20);
    check(feed(reader, stream, (room) => 1 + rng.int(Math.min(room, rng.int(4) === 0 ? 10 : 80_000))), `seed ${seed}`);
    assert.equal(reader.pendingBytes, 0);
  }
});

test('pendingBytes counts the body bytes of a partial frame, wherever it is', () => {
  const reader = new FrameReader(1 << 20);
  const stream = frame(body(3, 200_000));
  assert.deepEqual(feed(reader, stream.subarray(0, 2), (room) => room), []);
  assert.equal(reader.pendingBytes, 2, 'half a size field');
  assert.deepEqual(feed(reader, stream.subarray(2, 1000), (room) => room), []);
  assert.equal(reader.pendingBytes, 1000 - 4, 'in the scratch');
  assert.deepEqual(feed(reader, stream.subarray(1000, 50_000), (room) => room), []);
  assert.equal(reader.pendingBytes, 50_000 - 4, 'in its own buffer');
  assert.deepEqual(feed(reader, stream.subarray(50_000, 150_000), (room) => room), []);
  assert.equal(reader.pendingBytes, 150_000 - 4);
});

test('rejects frames above the maximum and below the minimum', () => {
  const sizeOnly = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n, 0);
    return b;
  };
  assert.throws(
    () => feed(new FrameReader(1024), sizeOnly(2000), (room) => room),
    (err: ProtocolError) => err.code === ClientErrorCode.RESPONSE_TOO_LARGE,
  );
  assert.throws(
    () => feed(new FrameReader(1024), sizeOnly(-5), (room) => room),
    (err: ProtocolError) => err.code === ClientErrorCode.PROTOCOL,
  );
  assert.throws(() => feed(new FrameReader(1024), frame(Buffer.from('ab')), (room) => room), /below the minimum/);
});
