import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../../../src/protocol/primitives/decode-error.js';
import {
  readVarint,
  readVarlong,
  varintSize,
  varlongSize,
  writeVarint,
  writeVarlong,
} from '../../../../src/protocol/primitives/varint.js';
import {
  encodeRecord,
  readRecord,
  readRecords,
  recordSize,
  type KafkaRecord,
} from '../../../../src/protocol/record-batch/record.js';
import { bytes } from './arbitraries.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/ /g, ''), 'hex');

// Zig-zag varint / varlong golden vectors (Kafka ByteUtils, protobuf sint32/sint64).
const VARINT_GOLDEN: [number, string][] = [
  [0, '00'],
  [-1, '01'],
  [1, '02'],
  [-2, '03'],
  [63, '7e'],
  [-64, '7f'],
  [64, '8001'],
  [-65, '8101'],
  [300, 'd804'],
  [8191, 'fe7f'],
  [-8192, 'ff7f'],
  [8192, '808001'],
  [0x7fffffff, 'feffffff0f'],
  [-0x80000000, 'ffffffff0f'],
];
const VARLONG_GOLDEN: [bigint, string][] = [
  ...VARINT_GOLDEN.map(([n, h]): [bigint, string] => [BigInt(n), h]),
  [0x80000000n, '8080808010'],
  [1_700_000_000_000n, '80a0abfef962'],
  [(1n << 63n) - 1n, 'feffffffffffffffff01'],
  [-(1n << 63n), 'ffffffffffffffffff01'],
];

function recordWith(timestampDelta: bigint): KafkaRecord {
  return { attributes: 0, timestampDelta, offsetDelta: 0, key: null, value: null, headers: [] };
}

describe('varint golden vectors', () => {
  it('zig-zag varints encode and decode to the known bytes', () => {
    for (const [value, expected] of VARINT_GOLDEN) {
      const buf = Buffer.alloc(varintSize(value));
      assert.equal(writeVarint(buf, 0, value), buf.length);
      assert.equal(buf.toString('hex'), expected, `varint ${value}`);
      const out = readVarint(buf, 0, { value: 0, position: 0 });
      assert.deepEqual([out.value, out.position], [value, buf.length]);
    }
  });

  it('zig-zag varlongs encode and decode to the known bytes', () => {
    for (const [value, expected] of VARLONG_GOLDEN) {
      const buf = Buffer.alloc(varlongSize(value));
      assert.equal(writeVarlong(buf, 0, value), buf.length);
      assert.equal(buf.toString('hex'), expected, `varlong ${value}`);
      const out = readVarlong(buf, 0, { value: 0n, position: 0 });
      assert.deepEqual([out.value, out.position], [value, buf.length]);
    }
  });

  it('a record timestampDelta uses the same bytes on its fast and slow paths', () => {
    for (const [value, expected] of VARLONG_GOLDEN) {
      const encoded = encodeRecord(recordWith(value));
      // length, attributes, then the varlong
      const tsBytes = encoded.subarray(2, 2 + expected.length / 2).toString('hex');
      assert.equal(tsBytes, expected, `timestampDelta ${value}`);
      assert.equal(readRecord(encoded, { position: 0 }, encoded.length).timestampDelta, value);
    }
  });

  it('truncated and over-long varints are DecodeErrors', () => {
    assert.throws(() => readVarint(hex('80'), 0, { value: 0, position: 0 }), DecodeError);
    assert.throws(() => readVarint(hex('ffffffff7f'), 0, { value: 0, position: 0 }), DecodeError);
    assert.throws(() => readVarlong(hex('ffffffffffffffffffff01'), 0, { value: 0n, position: 0 }), DecodeError);
  });
});

describe('record encoding', () => {
  it('matches Kafka bytes for a minimal record (null key, value "a")', () => {
    const record: KafkaRecord = { ...recordWith(0n), value: Buffer.from('a') };
    assert.equal(encodeRecord(record).toString('hex'), '0e00000001026100');
  });

  it('matches hand-computed bytes with headers and negative deltas', () => {
    const record: KafkaRecord = {
      attributes: 0,
      timestampDelta: -5n,
      offsetDelta: 3,
      key: Buffer.from('k'),
      value: null,
      headers: [{ key: 'h', value: Buffer.from('v') }, { key: '', value: null }],
    };
    // body: attrs 00, ts 09, off 06, key 02 6b, value 01, count 04, h: 02 68 02 76, '': 00 01
    assert.equal(encodeRecord(record).toString('hex'), '1a' + '00' + '09' + '06' + '026b' + '01' + '04' + '0268' + '0276' + '00' + '01');
  });

  // fast-check builds null-prototype objects; rebuild them as plain ones for deepEqual.
  const record: fc.Arbitrary<KafkaRecord> = fc.record({
    attributes: fc.integer({ min: -128, max: 127 }),
    timestampDelta: fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
    offsetDelta: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
    key: fc.option(bytes(), { nil: null }),
    value: fc.option(bytes(300), { nil: null }),
    headers: fc.array(
      fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 10 }), value: fc.option(bytes(), { nil: null }) }),
      { maxLength: 5 },
    ),
  }).map((r) => ({ ...r, headers: r.headers.map((h) => ({ ...h })) }));

  it('round-trips random records (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), (records) => {
        const size = records.reduce((n, r) => n + recordSize(r), 0);
        const buf = Buffer.alloc(size);
        let position = 0;
        for (const r of records) position = encodeRecord(r).copy(buf, position) + position;
        assert.equal(position, size);
        assert.deepEqual(readRecords(buf, 0, size, records.length), records);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every truncation and random mutations with DecodeError only', () => {
    fc.assert(
      fc.property(record, fc.nat(), fc.integer({ min: 0, max: 255 }), (r, at, byte) => {
        const buf = encodeRecord(r);
        for (let cut = 0; cut < buf.length; cut++) {
          assert.throws(() => readRecords(buf.subarray(0, cut), 0, cut, 1), DecodeError);
        }
        const mutated = Buffer.from(buf);
        mutated[at % mutated.length] = byte;
        try {
          readRecords(mutated, 0, mutated.length, 1);
        } catch (err) {
          assert.ok(err instanceof DecodeError, String(err));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('rejects lengths and counts that do not fit before allocating', () => {
    // header count 0x3fffffff in a tiny record
    const huge = hex('14' + '00' + '00' + '00' + '01' + '01' + 'feffffff07');
    assert.throws(() => readRecords(huge, 0, huge.length, 1), /header count/);
    // key length larger than the record
    const key = hex('0e' + '00' + '00' + '00' + 'c801' + '01' + '00');
    assert.throws(() => readRecords(key, 0, key.length, 1), /key length/);
    // a records count that cannot fit in the bytes
    assert.throws(() => readRecords(Buffer.alloc(20), 0, 20, 1_000_000), /cannot fit/);
    // trailing bytes after the records
    const extra = Buffer.concat([encodeRecord(recordWith(0n)), Buffer.from([0])]);
    assert.throws(() => readRecords(extra, 0, extra.length, 1), /left after/);
    // declared length longer than the fields use
    const loose = hex('1000000001010000' + '0000');
    assert.throws(() => readRecords(loose, 0, loose.length, 1), DecodeError);
  });
});
