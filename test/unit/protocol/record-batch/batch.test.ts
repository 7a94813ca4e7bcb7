import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../../../src/protocol/primitives/decode-error.js';
import {
  ATTR_CONTROL,
  ATTR_TRANSACTIONAL,
  BATCH_HEADER_BYTES,
  ControlRecordType,
  Offsets,
  SyncCodecUnsupportedError,
  buildControlBatch,
  buildRecordBatch,
  buildRecordBatchSync,
  computeBatchCrc,
  decodeRecordBatch,
  decodeRecordBatchSync,
  parseControlRecord,
  recordOffset,
  recordTimestamp,
  setLogAppendTime,
  splitBatches,
  iterateBatches,
  validateProducedBatch,
} from '../../../../src/protocol/record-batch/index.js';
import { CODECS, CODEC_NAMES, SAMPLE_RECORDS, batchOptions, expectedRecords, maxTimestampOf } from './arbitraries.js';

describe('build and decode round trip', () => {
  it('every codec, random records, keys, values, headers and timestamps (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(batchOptions(), async (opts) => {
        const batch = await buildRecordBatch(opts);
        const { header, records } = await decodeRecordBatch(batch);
        assert.deepEqual(records, expectedRecords(opts));
        assert.equal(header.baseOffset, opts.baseOffset);
        assert.equal(header.batchLength, batch.length - 12);
        assert.equal(header.magic, 2);
        assert.equal(header.attributes & 7, opts.compression);
        assert.equal((header.attributes & ATTR_TRANSACTIONAL) !== 0, opts.transactional);
        assert.equal(header.recordsCount, opts.records.length);
        assert.equal(header.lastOffsetDelta, opts.records.length - 1);
        assert.equal(header.baseTimestamp, BigInt(opts.records[0]?.timestamp ?? opts.timestampMs ?? 0));
        assert.equal(header.maxTimestamp, maxTimestampOf(opts));
        assert.equal(header.producerId, opts.producerId);
        assert.equal(header.producerEpoch, opts.producerEpoch);
        assert.equal(header.baseSequence, opts.baseSequence);
        assert.equal(header.partitionLeaderEpoch, opts.partitionLeaderEpoch);
        assert.equal(header.crc, computeBatchCrc(batch));
        const validation = validateProducedBatch(batch);
        assert.ok(validation.ok, validation.ok ? '' : validation.message);
        assert.equal(validation.recordCount, opts.records.length);
        if (opts.compression !== 4) assert.deepEqual(decodeRecordBatchSync(batch).records, records);
      }),
      { numRuns: 250 },
    );
  });

  it('sync and async builders produce the same bytes (except zstd, which sync refuses)', async () => {
    for (const compression of CODECS) {
      const opts = { records: SAMPLE_RECORDS, compression, producerId: 9n, producerEpoch: 2, baseSequence: 40 };
      if (compression === 4) {
        assert.throws(() => buildRecordBatchSync(opts), SyncCodecUnsupportedError);
        assert.throws(() => decodeRecordBatchSync(Buffer.alloc(0)), DecodeError);
        continue;
      }
      assert.deepEqual(buildRecordBatchSync(opts), await buildRecordBatch(opts), CODEC_NAMES[compression]);
    }
  });

  it('defaults: baseOffset 0, producerId -1, epoch -1, sequence -1, leader epoch -1', () => {
    const batch = buildRecordBatchSync({ records: [{ value: 'v' }], timestampMs: 5 });
    const h = decodeRecordBatchSync(batch).header;
    assert.deepEqual(
      [h.baseOffset, h.producerId, h.producerEpoch, h.baseSequence, h.partitionLeaderEpoch, h.attributes, h.baseTimestamp, h.maxTimestamp],
      [0n, -1n, -1, -1, -1, 0, 5n, 5n],
    );
  });

  it('derives absolute offsets and timestamps, LogAppendTime included', () => {
    const batch = buildRecordBatchSync({ records: SAMPLE_RECORDS, baseOffset: 100n });
    const { header, records } = decodeRecordBatchSync(batch);
    assert.deepEqual(records.map((r) => recordOffset(header, r)), [100n, 101n, 102n, 103n]);
    assert.deepEqual(
      records.map((r) => recordTimestamp(header, r)),
      SAMPLE_RECORDS.map((r) => BigInt(r.timestamp ?? 0)),
    );
    setLogAppendTime(batch, 1_800_000_000_000n);
    const appended = decodeRecordBatchSync(batch);
    assert.deepEqual(appended.records.map((r) => recordTimestamp(appended.header, r)), Array(4).fill(1_800_000_000_000n));
  });

  it('rejects empty record lists and bad arguments', () => {
    assert.throws(() => buildRecordBatchSync({ records: [] }), RangeError);
    assert.throws(() => buildRecordBatchSync({ records: [{ value: 'x' }], compression: 6 }), RangeError);
    assert.throws(() => buildRecordBatchSync({ records: [{ value: 'x' }], producerEpoch: 40_000 }), RangeError);
    assert.throws(() => buildRecordBatchSync({ records: [{ value: 'x', timestamp: 1.5 }] }), RangeError);
  });
});

describe('control batches', () => {
  for (const [name, type] of [['ABORT', ControlRecordType.Abort], ['COMMIT', ControlRecordType.Commit]] as const) {
    it(`${name} marker round trip`, async () => {
      const batch = buildControlBatch({ type, producerId: 77n, producerEpoch: 3, coordinatorEpoch: 12, baseOffset: 500n, timestampMs: 1000 });
      const { header, records } = await decodeRecordBatch(batch);
      assert.equal(header.attributes, ATTR_CONTROL | ATTR_TRANSACTIONAL);
      assert.deepEqual([header.producerId, header.producerEpoch, header.baseSequence, header.recordsCount], [77n, 3, -1, 1]);
      assert.equal(records.length, 1);
      const record = records[0];
      assert.ok(record);
      assert.deepEqual(record.key, Buffer.from([0, 0, 0, type]));
      assert.deepEqual(record.value, Buffer.from([0, 0, 0, 0, 0, 12]));
      assert.deepEqual(parseControlRecord(record.key, record.value), { version: 0, type, coordinatorEpoch: 12 });
      const validation = validateProducedBatch(batch);
      assert.equal(validation.ok ? 'ok' : validation.error, 'invalid_record');
    });
  }

  it('short control keys and values are DecodeErrors', () => {
    assert.throws(() => parseControlRecord(null, null), DecodeError);
    assert.throws(() => parseControlRecord(Buffer.from([0, 0, 0]), null), DecodeError);
    assert.throws(() => parseControlRecord(Buffer.from([0, 0, 0, 1]), Buffer.from([0, 0])), DecodeError);
    assert.deepEqual(parseControlRecord(Buffer.from([0, 0, 0, 2]), null), { version: 0, type: 2, coordinatorEpoch: undefined });
  });
});

async function sampleBatches(): Promise<Buffer[]> {
  return Promise.all(CODECS.map((compression) => buildRecordBatch({ records: SAMPLE_RECORDS, compression, baseOffset: 7n })));
}

async function expectDecodeError(buf: Buffer, what: string): Promise<void> {
  await assert.rejects(decodeRecordBatch(buf), DecodeError, what);
}

describe('corruption and hostile input', () => {
  it('a changed byte anywhere under the CRC, or in the CRC, is detected', async () => {
    for (const batch of await sampleBatches()) {
      for (let i = Offsets.crc; i < batch.length; i++) {
        const tampered = Buffer.from(batch);
        tampered[i] = (tampered[i] as number) ^ 0x01;
        await expectDecodeError(tampered, `byte ${i}`);
        const validation = validateProducedBatch(tampered);
        assert.equal(validation.ok ? 'ok' : validation.error, 'corrupt_message', `byte ${i}`);
      }
    }
  });

  it('magic, length and uncovered fields', async () => {
    const [batch] = await sampleBatches();
    assert.ok(batch);
    const magic1 = Buffer.from(batch);
    magic1[Offsets.magic] = 1;
    await assert.rejects(decodeRecordBatch(magic1), /magic/);
    const v = validateProducedBatch(magic1);
    assert.equal(v.ok ? 'ok' : v.error, 'unsupported_magic');
    const longer = Buffer.from(batch);
    longer.writeInt32BE(batch.length, Offsets.batchLength);
    await expectDecodeError(longer, 'length');
    // baseOffset and partitionLeaderEpoch are outside the CRC: the broker rewrites them.
    const rewritten = Buffer.from(batch);
    rewritten.writeBigInt64BE(99n, 0);
    rewritten.writeInt32BE(4, Offsets.partitionLeaderEpoch);
    assert.equal((await decodeRecordBatch(rewritten)).header.baseOffset, 99n);
  });

  it('every truncation of a valid batch: decode throws DecodeError, validate fails, split drops it', async () => {
    for (const batch of await sampleBatches()) {
      for (let cut = 0; cut < batch.length; cut++) {
        const prefix = batch.subarray(0, cut);
        await expectDecodeError(prefix, `cut ${cut}`);
        assert.equal(validateProducedBatch(prefix).ok, false, `cut ${cut}`);
        assert.deepEqual(splitBatches(prefix), [], `cut ${cut}`);
      }
    }
  });

  it('random bytes never throw anything but DecodeError and never hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (a) => {
        const buf = Buffer.from(a);
        try {
          await decodeRecordBatch(buf);
        } catch (err) {
          assert.ok(err instanceof DecodeError, String(err));
        }
        assert.equal(typeof validateProducedBatch(buf).ok, 'boolean');
        try {
          splitBatches(buf);
        } catch (err) {
          assert.ok(err instanceof DecodeError, String(err));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('random records sections under a valid header and CRC give DecodeError or records', async () => {
    const [plain] = await sampleBatches();
    assert.ok(plain);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CODECS),
        fc.integer({ min: -1, max: 20 }),
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
          // mutations of a real records section reach deeper into the parser
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
            const section = Buffer.from(plain.subarray(BATCH_HEADER_BYTES));
            section[at % section.length] = byte;
            return section;
          }),
        ),
        async (codec, count, section) => {
          const batch = Buffer.concat([plain.subarray(0, BATCH_HEADER_BYTES), section]);
          batch.writeInt32BE(batch.length - 12, Offsets.batchLength);
          batch.writeInt16BE(codec, Offsets.attributes);
          batch.writeInt32BE(count, Offsets.recordsCount);
          batch.writeUInt32BE(computeBatchCrc(batch), Offsets.crc);
          try {
            const decoded = await decodeRecordBatch(batch);
            assert.equal(decoded.records.length, count);
          } catch (err) {
            assert.ok(err instanceof DecodeError, String(err));
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('splitBatches', () => {
  it('splits concatenated batches and stops silently at a truncated last one', async () => {
    const batches = await sampleBatches();
    const all = Buffer.concat(batches);
    assert.deepEqual(splitBatches(all), batches);
    assert.deepEqual([...iterateBatches(all)], batches);
    let start = 0;
    for (let i = 0; i < batches.length; i++) {
      const size = (batches[i] as Buffer).length;
      for (const cut of [start + 1, start + 11, start + 12, start + 61, start + size - 1]) {
        assert.deepEqual(splitBatches(all.subarray(0, cut)), batches.slice(0, i), `cut ${cut}`);
      }
      start += size;
    }
    assert.deepEqual(splitBatches(Buffer.alloc(0)), []);
  });

  it('a batch length too small for any format is a DecodeError', () => {
    const bad = Buffer.alloc(30);
    bad.writeInt32BE(3, 8);
    assert.throws(() => splitBatches(bad), DecodeError);
    bad.writeInt32BE(-5, 8);
    assert.throws(() => splitBatches(bad), DecodeError);
  });
});
