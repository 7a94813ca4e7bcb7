/**
 * Cross-checks against kafkajs 2.2.4's own JavaScript record batch codec, an
 * independent implementation (none and gzip are the codecs it has built in).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import {
  buildRecordBatch,
  computeBatchCrc,
  decodeRecordBatch,
  type RecordHeaderInput,
} from '../../../../src/protocol/record-batch/index.js';

const require = createRequire(import.meta.url);

interface KjsEncoder {
  buffer: Buffer;
}
interface KjsRecordOptions {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { [key: string]: Buffer | Buffer[] };
}
interface KjsDecodedRecord {
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: { [key: string]: Buffer | Buffer[] };
}
interface KjsDecodedBatch {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  lastOffsetDelta: number;
  inTransaction: boolean;
  records: KjsDecodedRecord[];
}

const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as {
  RecordBatch: (opts: object) => Promise<KjsEncoder>;
};
const KjsRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (o: KjsRecordOptions) => KjsEncoder;
const kjsDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (d: unknown) => Promise<KjsDecodedBatch>;
const KjsDecoder = require('kafkajs/src/protocol/decoder.js') as new (buf: Buffer) => unknown;
const Long = require('kafkajs/src/utils/long.js') as { fromValue: (v: string | number) => unknown };

const buf = (maxLength: number): fc.Arbitrary<Buffer> => fc.uint8Array({ maxLength }).map((a) => Buffer.from(a));

/** kafkajs keeps headers in an object: keys must not look like array indexes (they would be reordered). */
const headersObject = fc.dictionary(
  fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => `h-${s}`),
  fc.oneof(buf(12), fc.array(buf(12), { minLength: 1, maxLength: 3 })),
  { maxKeys: 3 },
);

const kjsRecord = fc.record({
  key: fc.option(buf(30), { nil: null }),
  value: fc.option(buf(100), { nil: null }),
  headers: headersObject,
  timestampDelta: fc.integer({ min: -100_000, max: 100_000 }),
});

/** Our header list for a kafkajs header object, in kafkajs' own order. */
function flatten(headers: { [key: string]: Buffer | Buffer[] }): RecordHeaderInput[] {
  return Object.keys(headers).flatMap((key) => {
    const v = headers[key] as Buffer | Buffer[];
    return (Array.isArray(v) ? v : [v]).map((value) => ({ key, value }));
  });
}

function group(headers: { key: string; value: Buffer | null }[]): { [key: string]: Buffer | Buffer[] } {
  const out: { [key: string]: Buffer | Buffer[] } = {};
  for (const { key, value } of headers) {
    const v = value ?? Buffer.alloc(0);
    const prev = out[key];
    out[key] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

const batchArb = fc.record({
  records: fc.array(kjsRecord, { minLength: 1, maxLength: 10 }),
  firstTimestamp: fc.integer({ min: 1_000_000, max: 2 ** 42 }),
  firstOffset: fc.integer({ min: 0, max: 2 ** 40 }),
  producerId: fc.integer({ min: -1, max: 2 ** 40 }),
  producerEpoch: fc.integer({ min: 0, max: 0x7fff }),
  firstSequence: fc.integer({ min: 0, max: 0x7fffffff }),
  partitionLeaderEpoch: fc.integer({ min: 0, max: 1000 }),
  transactional: fc.boolean(),
  compression: fc.constantFrom(0, 1),
});

describe('kafkajs cross-check', () => {
  it('a batch built by kafkajs decodes with ours to the same records; uncompressed bytes are identical', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb, async (b) => {
        // kafkajs takes the first record's timestamp as the base, as we do: force delta 0 first.
        const records = b.records.map((r, i) => ({ ...r, timestampDelta: i === 0 ? 0 : r.timestampDelta }));
        const timestamps = records.map((r) => b.firstTimestamp + r.timestampDelta);
        const kjs = (
          await RecordBatch({
            compression: b.compression,
            firstOffset: Long.fromValue(b.firstOffset),
            firstTimestamp: b.firstTimestamp,
            maxTimestamp: Math.max(...timestamps),
            partitionLeaderEpoch: b.partitionLeaderEpoch,
            lastOffsetDelta: records.length - 1,
            transactional: b.transactional,
            producerId: Long.fromValue(b.producerId),
            producerEpoch: b.producerEpoch,
            firstSequence: b.firstSequence,
            records: records.map((r, i) => KjsRecord({ ...r, offsetDelta: i })),
          })
        ).buffer;

        const ours = await decodeRecordBatch(kjs);
        assert.equal(ours.header.crc, computeBatchCrc(kjs));
        assert.equal(ours.header.baseOffset, BigInt(b.firstOffset));
        assert.equal(ours.header.producerId, BigInt(b.producerId));
        assert.equal(ours.header.recordsCount, records.length);
        assert.deepEqual(
          ours.records.map((r) => [r.offsetDelta, r.timestampDelta, r.key, r.value, r.headers]),
          records.map((r, i) => [i, BigInt(r.timestampDelta), r.key, r.value, flatten(r.headers)]),
        );

        const rebuilt = await buildRecordBatch({
          records: records.map((r, i) => ({
            key: r.key,
            value: r.value,
            headers: flatten(r.headers),
            timestamp: timestamps[i] as number,
          })),
          baseOffset: BigInt(b.firstOffset),
          compression: b.compression,
          producerId: BigInt(b.producerId),
          producerEpoch: b.producerEpoch,
          baseSequence: b.firstSequence,
          transactional: b.transactional,
          partitionLeaderEpoch: b.partitionLeaderEpoch,
        });
        if (b.compression === 0) assert.deepEqual(rebuilt, kjs);
      }),
      { numRuns: 200 },
    );
  });

  it('a batch built by ours decodes with kafkajs to the same records', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb, async (b) => {
        const timestamps = b.records.map((r) => b.firstTimestamp + r.timestampDelta);
        const inputs = b.records.map((r, i) => ({
          key: r.key,
          value: r.value,
          headers: flatten(r.headers),
          timestamp: timestamps[i] as number,
        }));
        const ours = await buildRecordBatch({
          records: inputs,
          baseOffset: BigInt(b.firstOffset),
          compression: b.compression,
          producerId: BigInt(b.producerId),
          producerEpoch: b.producerEpoch,
          baseSequence: b.firstSequence,
          transactional: b.transactional,
        });
        const kjs = await kjsDecodeBatch(new KjsDecoder(ours));
        assert.equal(kjs.firstOffset, String(b.firstOffset));
        assert.equal(kjs.firstTimestamp, String(timestamps[0]));
        assert.equal(kjs.maxTimestamp, String(Math.max(...timestamps)));
        assert.equal(kjs.producerId, String(b.producerId));
        assert.deepEqual([kjs.producerEpoch, kjs.firstSequence, kjs.inTransaction], [b.producerEpoch, b.firstSequence, b.transactional]);
        assert.equal(kjs.lastOffsetDelta, inputs.length - 1);
        assert.deepEqual(
          kjs.records.map((r) => [r.offset, r.timestamp, r.key, r.value, r.headers]),
          inputs.map((r, i) => [
            String(b.firstOffset + i),
            String(r.timestamp),
            r.key,
            r.value,
            group(r.headers.map((h) => ({ key: h.key, value: h.value as Buffer }))),
          ]),
        );
      }),
      { numRuns: 200 },
    );
  });
});
