/** fast-check arbitraries and expectations shared by the record-batch tests. */
import fc from 'fast-check';
import type { BuildBatchOptions, KafkaRecord, RecordInput } from '../../../../src/protocol/record-batch/index.js';

export const CODECS = [0, 1, 2, 3, 4] as const;
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

export const bytes = (maxLength = 64): fc.Arbitrary<Buffer> =>
  fc.uint8Array({ maxLength }).map((a) => Buffer.from(a));

/** A key or value as a caller may give it: Buffer, string, null or absent. */
const field = fc.oneof(
  bytes(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constant(null),
);

const header = fc.record({
  key: fc.string({ unit: 'grapheme', maxLength: 12 }),
  value: fc.oneof(bytes(16), fc.string({ maxLength: 8 }), fc.constant(null)),
});

/** Epoch-ms numbers (fast path), bigints, and bigints far outside double range. */
const timestamp = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 42 }),
  fc.bigInt({ min: -1n, max: 1n << 42n }),
  fc.bigInt({ min: -(1n << 61n), max: 1n << 61n }),
);

export const recordInput: fc.Arbitrary<RecordInput> = fc
  .record(
    { key: field, value: field, headers: fc.array(header, { maxLength: 4 }), timestamp },
    { requiredKeys: ['value'] },
  )
  .map((r) => {
    const out: RecordInput = { value: r.value ?? null };
    if (r.key !== undefined) out.key = r.key;
    if (r.headers !== undefined) out.headers = r.headers;
    if (r.timestamp !== undefined) out.timestamp = r.timestamp;
    return out;
  });

export function batchOptions(codecs: readonly number[] = CODECS): fc.Arbitrary<BuildBatchOptions> {
  return fc.record({
    records: fc.array(recordInput, { minLength: 1, maxLength: 12 }),
    baseOffset: fc.bigInt({ min: 0n, max: (1n << 62n) }),
    compression: fc.constantFrom(...codecs),
    producerId: fc.bigInt({ min: -1n, max: (1n << 62n) }),
    producerEpoch: fc.integer({ min: -1, max: 0x7fff }),
    baseSequence: fc.integer({ min: -1, max: 0x7fffffff }),
    transactional: fc.boolean(),
    partitionLeaderEpoch: fc.integer({ min: -1, max: 0x7fffffff }),
    timestampMs: fc.integer({ min: 0, max: 2 ** 42 }),
  });
}

function asBuffer(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

/** What decoding a built batch must give back for its records. */
export function expectedRecords(opts: BuildBatchOptions): KafkaRecord[] {
  const fallback = opts.timestampMs ?? 0;
  const ts = opts.records.map((r) => BigInt(r.timestamp ?? fallback));
  const base = ts[0] ?? 0n;
  return opts.records.map((r, i) => ({
    attributes: 0,
    timestampDelta: (ts[i] ?? 0n) - base,
    offsetDelta: i,
    key: asBuffer(r.key),
    value: asBuffer(r.value),
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: asBuffer(h.value) })),
  }));
}

export function maxTimestampOf(opts: BuildBatchOptions): bigint {
  const fallback = opts.timestampMs ?? 0;
  return opts.records.map((r) => BigInt(r.timestamp ?? fallback)).reduce((a, b) => (b > a ? b : a));
}

/** A small fixed batch input used by the tamper/truncation tests. */
export const SAMPLE_RECORDS: RecordInput[] = [
  { key: 'user-1', value: '{"event":"click","n":1}', headers: [{ key: 'trace', value: 'abc' }], timestamp: 1_700_000_000_000 },
  { key: null, value: Buffer.from([0, 1, 2, 3, 255]), timestamp: 1_700_000_000_005 },
  { key: 'user-2', value: null, headers: [{ key: 'h', value: null }, { key: 'é', value: Buffer.alloc(0) }], timestamp: 1_699_999_999_990 },
  { value: 'x'.repeat(300), timestamp: 1_700_000_000_001 },
];
