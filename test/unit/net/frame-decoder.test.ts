import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameDecoder } from '../../../src/net/frame-decoder.js';
import { ClientErrorCode, ProtocolError } from '../../../src/net/errors.js';

function frame(payload: string): Buffer {
  const body = Buffer.from(payload);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length, 0);
  return Buffer.concat([size, body]);
}

test('splits coalesced frames', () => {
  const d = new FrameDecoder(1024);
  const frames = d.push(Buffer.concat([frame('aaaa'), frame('bbbbbb'), frame('cccc')]));
  assert.deepEqual(frames.map(String), ['aaaa', 'bbbbbb', 'cccc']);
  assert.equal(d.pendingBytes, 0);
});

test('reassembles frames split at every byte boundary', () => {
  const stream = Buffer.concat([frame('hello world'), frame('1234'), frame('x'.repeat(300))]);
  for (let cut = 1; cut < stream.length; cut++) {
    const d = new FrameDecoder(1024, 1);
    const out = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
    assert.deepEqual(out.map(String), ['hello world', '1234', 'x'.repeat(300)], `cut at ${cut}`);
  }
  const d = new FrameDecoder(1024, 1);
  const out: Buffer[] = [];
  for (const byte of stream) out.push(...d.push(Buffer.from([byte])));
  assert.equal(out.length, 3);
});

test('rejects frames above the maximum and below the minimum', () => {
  const big = Buffer.alloc(4);
  big.writeInt32BE(2000, 0);
  assert.throws(
    () => new FrameDecoder(1024).push(big),
    (err: ProtocolError) => err.code === ClientErrorCode.RESPONSE_TOO_LARGE,
  );
  const negative = Buffer.alloc(4);
  negative.writeInt32BE(-5, 0);
  assert.throws(
    () => new FrameDecoder(1024).push(negative),
    (err: ProtocolError) => err.code === ClientErrorCode.PROTOCOL,
  );
  assert.throws(() => new FrameDecoder(1024).push(frame('ab')), /below the minimum/);
});
