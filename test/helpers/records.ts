/**
 * Record comparison for compat tests: "all records come back exactly, in order
 * per partition". Values are unique per test, so a consumed record is matched to
 * the produced one by value.
 */
import assert from 'node:assert/strict';

export interface TestRecord {
  key: string | null;
  value: string;
  headers: [string, string | null][];
  /** The partition the record was sent to, when the producer chose it explicitly. */
  partition?: number;
}

export interface ConsumedRecord {
  partition: number;
  offset: bigint;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
  timestamp?: bigint;
}

/**
 * Checks that `consumed` holds every record of `expected` exactly once, with the
 * same key, value and headers; that each partition's offsets increase without
 * gaps from `firstOffset` (a fresh, non-transactional topic); that records sent
 * to one partition come back in send order; and that records with one key stay
 * in one partition.
 */
export function assertSameRecordsInOrder(expected: readonly TestRecord[], consumed: readonly ConsumedRecord[], firstOffset = 0n): void {
  const indexByValue = new Map<string, number>();
  expected.forEach((r, i) => {
    assert.ok(!indexByValue.has(r.value), `test bug: duplicate value ${r.value}`);
    indexByValue.set(r.value, i);
  });

  const byPartition = new Map<number, ConsumedRecord[]>();
  for (const r of consumed) {
    const list = byPartition.get(r.partition) ?? [];
    list.push(r);
    byPartition.set(r.partition, list);
  }

  const seen = new Set<number>();
  const keyPartition = new Map<string, number>();
  for (const [partition, list] of [...byPartition].sort((a, b) => a[0] - b[0])) {
    let lastIndex = -1;
    list.forEach((r, n) => {
      assert.equal(r.offset, firstOffset + BigInt(n), `partition ${partition}: offset #${n} is ${r.offset}, expected ${firstOffset + BigInt(n)} (gap, duplicate or reordering)`);
      assert.ok(r.value !== null, `partition ${partition} offset ${r.offset}: null value, expected one of the produced values`);
      const index = indexByValue.get(r.value);
      assert.ok(index !== undefined, `partition ${partition} offset ${r.offset}: unexpected value ${JSON.stringify(r.value)}`);
      assert.ok(!seen.has(index), `partition ${partition} offset ${r.offset}: value ${JSON.stringify(r.value)} consumed twice`);
      seen.add(index);
      const want = expected[index];
      assert.ok(want !== undefined);
      if (want.partition !== undefined) assert.equal(partition, want.partition, `value ${want.value}: partition`);
      assert.ok(index > lastIndex, `partition ${partition}: ${JSON.stringify(r.value)} at offset ${r.offset} comes after a record sent later (send order broken)`);
      lastIndex = index;
      assert.deepEqual(r.key, want.key, `partition ${partition} offset ${r.offset}: key`);
      assert.deepEqual(r.headers, want.headers, `partition ${partition} offset ${r.offset} (${want.value}): headers`);
      if (want.key !== null) {
        const previous = keyPartition.get(want.key);
        if (previous !== undefined) assert.equal(partition, previous, `key ${want.key} went to partitions ${previous} and ${partition}`);
        keyPartition.set(want.key, partition);
      }
    });
  }
  const missing = expected.filter((_, i) => !seen.has(i)).map((r) => r.value);
  assert.deepEqual(missing, [], `${missing.length} of ${expected.length} produced records never came back`);
  assert.equal(consumed.length, expected.length, 'record count');
}

/** A short random suffix for unique topic names. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A record as the Python drivers take it: bytes as hex, null as null. */
export interface HexRecord {
  k: string | null;
  v: string | null;
  h: [string, string | null][];
  p?: number;
  ts?: number;
}

/** A record as the Python drivers print it. */
export interface HexConsumed {
  p: number;
  o: number;
  k: string | null;
  v: string | null;
  h: [string, string | null][];
  ts?: number;
}

const hex = (s: string | null): string | null => (s === null ? null : Buffer.from(s, 'utf8').toString('hex'));
const unhex = (s: string | null): string | null => (s === null ? null : Buffer.from(s, 'hex').toString('utf8'));

export function toHexRecord(r: TestRecord, timestampMs?: number): HexRecord {
  const out: HexRecord = { k: hex(r.key), v: hex(r.value), h: r.headers.map(([k, v]) => [k, hex(v)]) };
  if (r.partition !== undefined) out.p = r.partition;
  if (timestampMs !== undefined) out.ts = timestampMs;
  return out;
}

export function fromHexConsumed(c: HexConsumed): ConsumedRecord {
  const out: ConsumedRecord = { partition: c.p, offset: BigInt(c.o), key: unhex(c.k), value: unhex(c.v), headers: c.h.map(([k, v]) => [k, unhex(v)]) };
  if (c.ts !== undefined) out.timestamp = BigInt(c.ts);
  return out;
}

/**
 * `count` records tagged `tag` (values unique): varied keys (some null), some
 * sent to an explicit partition, headers including a null value and a repeated
 * name, control characters, unicode, one 20 KB value.
 */
export function sampleRecords(tag: string, count: number, partitions: number, options: { nullHeaderValues?: boolean; duplicateHeaders?: boolean } = {}): TestRecord[] {
  const records: TestRecord[] = [];
  for (let i = 0; i < count; i++) {
    // Keys that are pinned to a partition are unique, so "one key, one partition" still holds.
    const pinned = i % 10 === 0;
    const key = i % 9 === 4 ? null : pinned ? `${tag}-pinned-${i}` : `${tag}-k${i % 6}`;
    let value = `${tag}-${i}`;
    if (i % 7 === 1) value += '-\u0000\u0001\u007f-ctl';
    if (i % 10 === 2) value += '-é✓日本';
    if (i === 3) value += '-' + 'y'.repeat(20_000);
    const headers: [string, string | null][] = [];
    if (i % 3 === 0) headers.push(['h-index', String(i)]);
    if (i % 4 === 1) headers.push(['dup', 'first']);
    if (options.duplicateHeaders !== false && i % 4 === 1) headers.push(['dup', 'second']);
    if (i % 5 === 2) headers.push(['empty', '']);
    if (options.nullHeaderValues !== false && i % 8 === 3) headers.push(['nullv', null]);
    const record: TestRecord = { key, value, headers };
    // Keyless records and every 10th go to an explicit partition; the rest by key hash.
    if (key === null || pinned) record.partition = i % partitions;
    records.push(record);
  }
  return records;
}
