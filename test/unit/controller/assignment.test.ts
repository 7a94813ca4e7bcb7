import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignReplicas, rackAlternatedBrokers, type PlacementBroker } from '../../../src/controller/assignment.js';

function brokers(n: number, racks?: string[]): PlacementBroker[] {
  return Array.from({ length: n }, (_, i) => ({ brokerId: i + 1, rack: racks ? (racks[i] as string) : null }));
}

function counts(assignment: number[][], pick: (replicas: number[]) => number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of assignment) for (const b of pick(r)) m.set(b, (m.get(b) ?? 0) + 1);
  return m;
}

test('one broker: every partition on it', () => {
  assert.deepEqual(assignReplicas(brokers(1), { partitionCount: 3, replicationFactor: 1, startIndex: 0, replicaShift: 0 }), [[1], [1], [1]]);
});

test('rack-unaware matches Kafka\'s classic layout for 5 brokers, 10 partitions, rf 3', () => {
  // Kafka's AdminUtils example (brokers 0-4 there, 1-5 here), start index 0, shift 0.
  const a = assignReplicas(brokers(5), { partitionCount: 10, replicationFactor: 3, startIndex: 0, replicaShift: 0 });
  assert.deepEqual(a.slice(0, 5), [[1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 1], [5, 1, 2]]);
  assert.deepEqual(a.slice(5), [[1, 3, 4], [2, 4, 5], [3, 5, 1], [4, 1, 2], [5, 2, 3]]);
});

test('rack-unaware spreads leaders and replicas evenly (3-6 brokers)', () => {
  for (let n = 3; n <= 6; n++) {
    for (let start = 0; start < n; start++) {
      const a = assignReplicas(brokers(n), { partitionCount: n * 4, replicationFactor: 3, startIndex: start, replicaShift: start });
      for (const r of a) assert.equal(new Set(r).size, 3, 'replicas are distinct');
      const leaders = counts(a, (r) => [r[0] as number]);
      assert.deepEqual([...leaders.values()], Array(n).fill(4), `leaders with ${n} brokers`);
      const all = counts(a, (r) => r);
      assert.deepEqual([...all.values()], Array(n).fill(12), `replicas with ${n} brokers`);
    }
  }
});

test('the start index rotates the first leader; firstPartitionId continues an existing layout', () => {
  const full = assignReplicas(brokers(4), { partitionCount: 8, replicationFactor: 2, startIndex: 1, replicaShift: 2 });
  assert.equal(full[0]?.[0], 2);
  // As in Kafka, the shift only grows at multiples of n inside one call: pass the grown shift to continue exactly.
  const tail = assignReplicas(brokers(4), { partitionCount: 3, replicationFactor: 2, firstPartitionId: 5, startIndex: 1, replicaShift: 3 });
  assert.deepEqual(tail, full.slice(5));
  assert.deepEqual(tail.map((r) => r[0]), [3, 4, 1], 'leaders continue round-robin');
});

test('rack alternation interleaves racks', () => {
  const list = rackAlternatedBrokers(brokers(6, ['a', 'a', 'a', 'b', 'b', 'c']));
  assert.deepEqual(list.map((b) => b.brokerId), [1, 4, 6, 2, 5, 3]);
});

test('rack-aware puts each partition\'s replicas on distinct racks and balances leaders', () => {
  const racks = ['a', 'a', 'b', 'b', 'c', 'c'];
  const bs = brokers(6, racks);
  const rackOf = (id: number): string => racks[id - 1] as string;
  for (let start = 0; start < 6; start++) {
    const a = assignReplicas(bs, { partitionCount: 12, replicationFactor: 3, startIndex: start, replicaShift: start });
    for (const r of a) {
      assert.equal(new Set(r).size, 3);
      assert.equal(new Set(r.map(rackOf)).size, 3, `replicas ${r.join(',')} span three racks`);
    }
    assert.deepEqual([...counts(a, (r) => [r[0] as number]).values()], Array(6).fill(2));
    assert.deepEqual([...counts(a, (r) => r).values()], Array(6).fill(6));
  }
});

test('rack-aware with more replicas than racks still uses every rack first', () => {
  const racks = ['a', 'a', 'b', 'b'];
  const a = assignReplicas(brokers(4, racks), { partitionCount: 8, replicationFactor: 3, startIndex: 0, replicaShift: 0 });
  for (const r of a) {
    assert.equal(new Set(r).size, 3);
    assert.equal(new Set(r.map((id) => racks[id - 1])).size, 2);
  }
});

test('brokers without racks make the placement rack-unaware', () => {
  const mixed = brokers(3, ['a', 'b', 'x']).map((b, i) => (i === 2 ? { ...b, rack: null } : b));
  assert.deepEqual(
    assignReplicas(mixed, { partitionCount: 3, replicationFactor: 2, startIndex: 0, replicaShift: 0 }),
    assignReplicas(brokers(3), { partitionCount: 3, replicationFactor: 2, startIndex: 0, replicaShift: 0 }),
  );
});
