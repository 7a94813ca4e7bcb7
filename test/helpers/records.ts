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
