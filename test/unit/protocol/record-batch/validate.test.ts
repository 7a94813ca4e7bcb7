import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Offsets,
  buildRecordBatch,
  buildRecordBatchSync,
  computeBatchCrc,
  validateProducedBatch,
  type BatchValidation,
} from '../../../../src/protocol/record-batch/index.js';
import { isBatchHeader, validateSingleProducedBatch } from '../../../../src/protocol/record-batch/validate.js';
import { SAMPLE_RECORDS } from './arbitraries.js';

function batch(compression = 0): Buffer {
  return buildRecordBatchSync({ records: SAMPLE_RECORDS, compression, producerId: 1n, producerEpoch: 0, baseSequence: 0 });
}

/** Applies `edit` to a copy of a valid batch and fixes the CRC afterwards. */
function edited(edit: (b: Buffer) => void, compression = 0): Buffer {
  const b = batch(compression);
  edit(b);
  b.writeUInt32BE(computeBatchCrc(b), Offsets.crc);
  return b;
}

function errorOf(v: BatchValidation): string {
  return v.ok ? 'ok' : v.error;
}

describe('validateProducedBatch', () => {
  it('accepts one batch and several complete ones, summing the records', async () => {
    const one = validateProducedBatch(batch());
    assert.ok(one.ok);
    assert.equal(one.recordCount, 4);
    assert.equal(one.batches.length, 1);
    const zstd = await buildRecordBatch({ records: SAMPLE_RECORDS, compression: 4 });
    const many = validateProducedBatch(Buffer.concat([batch(), batch(1), zstd, batch(3)]));
    assert.ok(many.ok);
    assert.equal(many.recordCount, 16);
    assert.deepEqual(many.batches.map((h) => h.attributes & 7), [0, 1, 4, 3]);
  });

  it('rejects trailing bytes, truncation, empty input and short sizes as corrupt_message', () => {
    const b = batch();
    assert.equal(errorOf(validateProducedBatch(Buffer.concat([b, Buffer.alloc(1)]))), 'corrupt_message');
    assert.equal(errorOf(validateProducedBatch(Buffer.concat([b, b.subarray(0, 70)]))), 'corrupt_message');
    assert.equal(errorOf(validateProducedBatch(Buffer.alloc(0))), 'corrupt_message');
    assert.equal(errorOf(validateProducedBatch(b.subarray(0, 60))), 'corrupt_message');
    const short = Buffer.from(b);
    short.writeInt32BE(40, Offsets.batchLength);
    assert.equal(errorOf(validateProducedBatch(short)), 'corrupt_message');
    const negative = Buffer.from(b);
    negative.writeInt32BE(-100, Offsets.batchLength);
    assert.equal(errorOf(validateProducedBatch(negative)), 'corrupt_message');
  });

  it('reports the position of the failing batch', () => {
    const b = batch();
    const bad = Buffer.from(b);
    bad[70] = (bad[70] as number) ^ 0xff;
    const v = validateProducedBatch(Buffer.concat([b, bad]));
    assert.ok(!v.ok);
    assert.equal(v.position, b.length);
    assert.match(v.message, /CRC/);
  });

  it('legacy magic 0/1 is unsupported_magic, even with a small legacy size', () => {
    const legacy = Buffer.alloc(12 + 26);
    legacy.writeInt32BE(26, 8);
    legacy[16] = 1;
    assert.equal(errorOf(validateProducedBatch(legacy)), 'unsupported_magic');
    assert.equal(errorOf(validateProducedBatch(edited((x) => x.writeInt8(0, Offsets.magic)))), 'unsupported_magic');
  });

  it('rule violations under a valid CRC are invalid_record', () => {
    const cases: [string, (b: Buffer) => void][] = [
      ['zero records', (b) => b.writeInt32BE(0, Offsets.recordsCount)],
      ['negative records', (b) => b.writeInt32BE(-1, Offsets.recordsCount)],
      ['lastOffsetDelta', (b) => b.writeInt32BE(2, Offsets.lastOffsetDelta)],
      ['timestamps', (b) => b.writeBigInt64BE(1_600_000_000_000n, Offsets.maxTimestamp)],
      ['control', (b) => b.writeInt16BE(0x20, Offsets.attributes)],
    ];
    for (const [name, edit] of cases) assert.equal(errorOf(validateProducedBatch(edited(edit))), 'invalid_record', name);
    // maxTimestamp -1 is allowed whatever the base
    assert.equal(errorOf(validateProducedBatch(edited((b) => b.writeBigInt64BE(-1n, Offsets.maxTimestamp)))), 'ok');
  });

  it('unknown codecs and impossible counts are corrupt_message', () => {
    assert.equal(errorOf(validateProducedBatch(edited((b) => b.writeInt16BE(5, Offsets.attributes)))), 'corrupt_message');
    const crowded = edited((b) => {
      b.writeInt32BE(1000, Offsets.recordsCount);
      b.writeInt32BE(999, Offsets.lastOffsetDelta);
    });
    assert.equal(errorOf(validateProducedBatch(crowded)), 'corrupt_message');
  });

  it('options: zstd for old Produce versions, one batch per partition', async () => {
    const zstd = await buildRecordBatch({ records: SAMPLE_RECORDS, compression: 4 });
    assert.equal(errorOf(validateProducedBatch(zstd, { zstdAllowed: false })), 'unsupported_compression_type');
    assert.equal(errorOf(validateProducedBatch(batch(1), { zstdAllowed: false })), 'ok');
    assert.equal(errorOf(validateProducedBatch(Buffer.concat([batch(), batch()]), { singleBatch: true })), 'invalid_record');
    assert.equal(errorOf(validateProducedBatch(batch(), { singleBatch: true })), 'ok');
  });

  it('does not decompress: a compressed batch with a garbage body but a valid CRC passes', () => {
    const b = batch(1);
    const garbage = Buffer.concat([b.subarray(0, 61), Buffer.from('not gzip at all')]);
    garbage.writeInt32BE(garbage.length - 12, Offsets.batchLength);
    garbage.writeUInt32BE(computeBatchCrc(garbage), Offsets.crc);
    assert.equal(errorOf(validateProducedBatch(garbage)), 'ok');
  });
});

describe('validateSingleProducedBatch', () => {
  /** Inputs across every check: framing, magic, CRC, codec, control, counts, timestamps, a second batch. */
  async function inputs(): Promise<[string, Buffer][]> {
    const zstd = await buildRecordBatch({ records: SAMPLE_RECORDS, compression: 4 });
    const badCrc = batch();
    badCrc.writeUInt32BE((badCrc.readUInt32BE(Offsets.crc) ^ 1) >>> 0, Offsets.crc);
    return [
      ['valid', batch()], ['valid gzip', batch(1)], ['zstd', zstd], ['empty', Buffer.alloc(0)], ['short', batch().subarray(0, 10)],
      ['truncated', batch().subarray(0, 70)], ['magic 1', edited((b) => b.writeInt8(1, Offsets.magic))], ['bad CRC', badCrc],
      ['codec 5', edited((b) => b.writeInt16BE(5, Offsets.attributes))], ['control', edited((b) => b.writeInt16BE(0x20, Offsets.attributes))],
      ['count 0', edited((b) => b.writeInt32BE(0, Offsets.recordsCount))], ['delta off', edited((b) => b.writeInt32BE(7, Offsets.lastOffsetDelta))],
      ['base after max', edited((b) => b.writeBigInt64BE(b.readBigInt64BE(Offsets.maxTimestamp) + 1n, Offsets.baseTimestamp))],
      ['two batches', Buffer.concat([batch(), batch()])],
    ];
  }

  it('answers as validateProducedBatch with singleBatch: the header of the one batch, or the same failure', async () => {
    for (const zstdAllowed of [true, false]) {
      for (const [name, buf] of await inputs()) {
        const single = validateSingleProducedBatch(buf, zstdAllowed);
        const general = validateProducedBatch(buf, { zstdAllowed, singleBatch: true });
        if (general.ok) {
          assert.ok(isBatchHeader(single), name);
          assert.deepEqual(single, general.batches[0], name);
        } else {
          assert.ok(!isBatchHeader(single), name);
          assert.deepEqual(single, general, name);
        }
      }
    }
  });
});
