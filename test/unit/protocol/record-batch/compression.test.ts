import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import snappy from 'snappy';
import { DecodeError } from '../../../../src/protocol/primitives/decode-error.js';
import {
  SyncCodecUnsupportedError,
  XERIAL_BLOCK_BYTES,
  XERIAL_MAGIC,
  compress,
  compressSync,
  decompress,
  decompressSync,
  isXerialFramed,
  xerialSnappyCompress,
} from '../../../../src/protocol/record-batch/compression.js';
import { CODECS, CODEC_NAMES, bytes } from './arbitraries.js';

/** Text-like data that compresses, sized to span several xerial / lz4 blocks. */
function sample(bytesWanted: number): Buffer {
  const parts: string[] = [];
  for (let i = 0, n = 0; n < bytesWanted; i++) {
    const line = `{"id":${i},"user":"u${i % 97}","ok":true}\n`;
    parts.push(line);
    n += line.length;
  }
  return Buffer.from(parts.join('')).subarray(0, bytesWanted);
}

describe('codecs round trip', () => {
  for (const codec of CODECS) {
    it(`${CODEC_NAMES[codec]}: async, and sync where the library allows (fast-check)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(bytes(2000), fc.integer({ min: 0, max: 200_000 }).map(sample)), async (data) => {
          const packed = await compress(codec, data);
          assert.deepEqual(await decompress(codec, packed), data);
          if (codec === 4) {
            assert.throws(() => compressSync(codec, data), SyncCodecUnsupportedError);
            assert.throws(() => decompressSync(codec, packed), SyncCodecUnsupportedError);
          } else {
            const packedSync = compressSync(codec, data);
            assert.deepEqual(decompressSync(codec, packedSync), data);
            assert.deepEqual(await decompress(codec, packedSync), data);
          }
        }),
        { numRuns: 40 },
      );
    });
  }

  it('unknown codec ids 5-7 are DecodeErrors on decompress', async () => {
    for (const codec of [5, 6, 7]) {
      await assert.rejects(decompress(codec, Buffer.from('x')), DecodeError);
      assert.throws(() => decompressSync(codec, Buffer.from('x')), DecodeError);
      assert.throws(() => compressSync(codec, Buffer.from('x')), RangeError);
    }
  });

  it('garbage and truncated input give DecodeError for every codec', async () => {
    const data = sample(100_000);
    for (const codec of [1, 2, 3, 4]) {
      const packed = await compress(codec, data);
      const inputs = [Buffer.alloc(0), randomBytes(1), randomBytes(64), randomBytes(5000), packed.subarray(0, packed.length >> 1)];
      for (const input of inputs) {
        try {
          const out = await decompress(codec, input);
          // lz4 may return the blocks before a cut: never more than the original
          assert.ok(out.length <= data.length);
        } catch (err) {
          assert.ok(err instanceof DecodeError, `${CODEC_NAMES[codec]}: ${String(err)}`);
        }
      }
    }
  });
});

describe('snappy xerial framing', () => {
  it('writes the xerial header, versions and 32 KiB blocks', () => {
    const data = sample(3 * XERIAL_BLOCK_BYTES + 100);
    const framed = xerialSnappyCompress(data);
    assert.deepEqual(framed.subarray(0, 8), XERIAL_MAGIC);
    assert.equal(framed.subarray(0, 8).toString('latin1'), '\x82SNAPPY\x00');
    assert.equal(framed.readInt32BE(8), 1);
    assert.equal(framed.readInt32BE(12), 1);
    // walk the blocks independently of our decoder
    const blocks: Buffer[] = [];
    for (let p = 16; p < framed.length; ) {
      const length = framed.readInt32BE(p);
      blocks.push(snappy.uncompressSync(framed.subarray(p + 4, p + 4 + length)) as Buffer);
      p += 4 + length;
    }
    assert.deepEqual(blocks.map((b) => b.length), [XERIAL_BLOCK_BYTES, XERIAL_BLOCK_BYTES, XERIAL_BLOCK_BYTES, 100]);
    assert.deepEqual(Buffer.concat(blocks), data);
    assert.deepEqual(decompressSync(2, framed), data);
  });

  it('encodes empty input as the bare header and decodes it back', () => {
    const framed = compressSync(2, Buffer.alloc(0));
    assert.equal(framed.length, 16);
    assert.equal(decompressSync(2, framed).length, 0);
  });

  it('decodes raw block snappy (what librdkafka sends)', () => {
    fc.assert(
      fc.property(bytes(5000), (data) => {
        const raw = snappy.compressSync(data);
        assert.equal(isXerialFramed(raw), false);
        assert.deepEqual(decompressSync(2, raw), data);
      }),
    );
    const big = sample(200_000);
    assert.deepEqual(decompressSync(2, snappy.compressSync(big)), big);
  });

  it('decodes concatenated xerial streams, as snappy-java does', () => {
    const a = sample(40_000);
    const b = Buffer.from('second stream');
    const joined = Buffer.concat([xerialSnappyCompress(a), xerialSnappyCompress(b)]);
    assert.deepEqual(decompressSync(2, joined), Buffer.concat([a, b]));
  });

  it('rejects a truncated header, block length or block', () => {
    const framed = xerialSnappyCompress(sample(1000));
    for (const cut of [10, 17, 19, framed.length - 1]) {
      assert.throws(() => decompressSync(2, framed.subarray(0, cut)), DecodeError, `cut ${cut}`);
    }
    const negative = Buffer.from(framed);
    negative.writeInt32BE(-1, 16);
    assert.throws(() => decompressSync(2, negative), /block length/);
  });
});

describe('decompression limits', () => {
  it('a snappy preamble claiming 4 GiB is rejected without allocating', () => {
    const bomb = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    assert.throws(() => decompressSync(2, bomb), /declares/);
    const framed = Buffer.concat([xerialSnappyCompress(Buffer.alloc(0)), Buffer.from([0, 0, 0, 6]), bomb]);
    assert.throws(() => decompressSync(2, framed), /declares/);
  });

  it('a snappy preamble beyond the format expansion ratio is rejected', () => {
    const lying = Buffer.from([0x80, 0x80, 0x04, 0x00]); // claims 64 KiB from 4 bytes
    assert.throws(() => decompressSync(2, lying), /declares/);
  });

  it('each codec enforces maxBytes', async () => {
    const data = Buffer.alloc(1_000_000, 7);
    for (const codec of [0, 1, 2, 3, 4]) {
      const packed = await compress(codec, data);
      await assert.rejects(decompress(codec, packed, 100_000), DecodeError, CODEC_NAMES[codec]);
      assert.equal((await decompress(codec, packed, 1_000_000)).length, 1_000_000);
      if (codec !== 4) assert.throws(() => decompressSync(codec, packed, 100_000), DecodeError);
    }
  });

  it('gzip stops inflating at the limit (bomb of 64 MiB of zeros)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    assert.ok(bomb.length < 200_000);
    await assert.rejects(decompress(1, bomb, 1024 * 1024), DecodeError);
  });
});
