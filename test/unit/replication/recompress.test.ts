/**
 * Broker-side recompression (topic compression.type): every codec to every
 * other, records read back exactly (keys, values, headers, timestamps,
 * offset deltas), header fields kept, CRC valid; corrupt input is a DecodeError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordBatch } from '../../../src/protocol/record-batch/builder.js';
import { decodeRecordBatch } from '../../../src/protocol/record-batch/reader.js';
import { batchCrcIsValid, Compression, compressionOf, readBatchHeader, Offsets } from '../../../src/protocol/record-batch/header.js';
import { DecodeError } from '../../../src/protocol/primitives/decode-error.js';
import { needsRecompression, recompressBatch, topicCodec } from '../../../src/replication/recompress.js';

const CODECS = [Compression.None, Compression.Gzip, Compression.Snappy, Compression.Lz4, Compression.Zstd];

async function sample(codec: Compression): Promise<Buffer> {
  return buildRecordBatch({
    compression: codec,
    timestampMs: 1_700_000_000_000,
    records: Array.from({ length: 50 }, (_, i) => ({
      key: i % 7 === 0 ? null : `key-${i}`,
      value: i % 11 === 0 ? null : `value-${i}-${'x'.repeat(i * 3)}`,
      headers: [{ key: 'h', value: `v${i}` }, { key: 'h', value: null }],
      timestamp: 1_700_000_000_000 + (i % 5) * 1000 - 2000,
    })),
  });
}

test('topicCodec and needsRecompression', () => {
  assert.equal(topicCodec('producer'), null);
  assert.equal(topicCodec(undefined), null);
  assert.equal(topicCodec('gzip'), Compression.Gzip);
  assert.equal(topicCodec('uncompressed'), Compression.None);
  assert.equal(needsRecompression(Compression.Lz4, Compression.Gzip), true);
  assert.equal(needsRecompression(Compression.Gzip, Compression.Gzip), false);
  assert.equal(needsRecompression(Compression.Lz4 | 0x08, null), false);
});

test('every codec to every other keeps the records exactly', async () => {
  for (const from of CODECS) {
    const original = await sample(from);
    const want = await decodeRecordBatch(original);
    for (const to of CODECS) {
      if (to === from) continue;
      const { batch, header, records } = await recompressBatch(original, to);
      assert.equal(compressionOf(header.attributes), to, `${from} -> ${to}`);
      assert.ok(batchCrcIsValid(batch), `${from} -> ${to}: CRC`);
      assert.equal(records.length, 50);
      const got = await decodeRecordBatch(batch);
      assert.deepEqual(got.records, want.records, `${from} -> ${to}: records`);
      const before = readBatchHeader(original);
      for (const field of ['baseTimestamp', 'maxTimestamp', 'lastOffsetDelta', 'recordsCount', 'producerId', 'producerEpoch', 'baseSequence'] as const) {
        assert.equal(got.header[field], before[field], `${from} -> ${to}: ${field}`);
      }
    }
  }
});

test('a records section that does not hold its records is a DecodeError', async () => {
  const batch = Buffer.from(await sample(Compression.None));
  batch.writeInt32BE(51, Offsets.recordsCount);
  await assert.rejects(recompressBatch(batch, Compression.Gzip), DecodeError);
  const gz = Buffer.from(await sample(Compression.Gzip));
  gz.fill(0, 70, 90);
  await assert.rejects(recompressBatch(gz, Compression.Lz4), DecodeError);
});
