/**
 * Replica placement: which brokers hold each new partition. The algorithm is
 * Kafka's classic one (AdminUtils.assignReplicasToBrokers), so operators get
 * the spread they know:
 *
 *  - rack-unaware: the first replica of partition p goes to broker
 *    (p + startIndex) mod n; the others follow at a shift from it that grows
 *    by one every n partitions, so followers are spread too, not just leaders;
 *  - rack-aware (every broker has a rack): the same walk over a broker list
 *    that alternates racks (r1b1, r2b1, r3b1, r1b2, ...), skipping a broker
 *    while its rack, or the broker itself, already holds a replica of the
 *    partition and some rack (broker) still has none.
 *
 * A mix of brokers with and without racks falls back to rack-unaware (Kafka
 * refuses unless told to ignore racks; we prefer to place the topic).
 * Pure and deterministic: the start index and shift come from the caller.
 */
import { invariant } from '../util/assert.js';

export interface PlacementBroker {
  readonly brokerId: number;
  readonly rack: string | null;
}

export interface PlacementOptions {
  partitionCount: number;
  replicationFactor: number;
  /** Id of the first partition to place (existing partition count when adding). */
  firstPartitionId?: number;
  /** Where the walk starts, in [0, brokers); Kafka draws it at random. */
  startIndex: number;
  /** Initial follower shift, in [0, brokers); Kafka draws it at random too. */
  replicaShift: number;
}

function replicaIndex(first: number, shift: number, j: number, n: number): number {
  const s = 1 + ((shift + j) % (n - 1));
  return (first + s) % n;
}

/** Returns, per new partition, its replica list (leader first). */
export function assignReplicas(brokers: readonly PlacementBroker[], opts: PlacementOptions): number[][] {
  const n = brokers.length;
  invariant(n > 0, 'placement needs at least one broker');
  invariant(opts.replicationFactor >= 1 && opts.replicationFactor <= n, `replication factor ${opts.replicationFactor} with ${n} brokers`);
  invariant(opts.partitionCount >= 0, 'partition count is not negative');
  const sorted = [...brokers].sort((a, b) => a.brokerId - b.brokerId);
  const rackAware = sorted.every((b) => b.rack !== null) && new Set(sorted.map((b) => b.rack)).size > 1;
  return rackAware ? assignRackAware(sorted, opts) : assignRackUnaware(sorted.map((b) => b.brokerId), opts);
}

function assignRackUnaware(ids: readonly number[], opts: PlacementOptions): number[][] {
  const n = ids.length;
  const out: number[][] = [];
  let partitionId = Math.max(0, opts.firstPartitionId ?? 0);
  let shift = opts.replicaShift;
  for (let i = 0; i < opts.partitionCount; i++, partitionId++) {
    if (partitionId > 0 && partitionId % n === 0) shift++;
    const first = (partitionId + opts.startIndex) % n;
    const replicas = [ids[first] as number];
    for (let j = 0; j < opts.replicationFactor - 1; j++) replicas.push(ids[replicaIndex(first, shift, j, n)] as number);
    out.push(replicas);
  }
  return out;
}

/** Brokers ordered so that consecutive entries are on different racks where possible. */
export function rackAlternatedBrokers(brokers: readonly PlacementBroker[]): PlacementBroker[] {
  const byRack = new Map<string, PlacementBroker[]>();
  for (const b of [...brokers].sort((x, y) => x.brokerId - y.brokerId)) {
    const rack = b.rack ?? '';
    byRack.set(rack, [...(byRack.get(rack) ?? []), b]);
  }
  const racks = [...byRack.keys()].sort();
  const out: PlacementBroker[] = [];
  for (let round = 0; out.length < brokers.length; round++) {
    for (const rack of racks) {
      const b = (byRack.get(rack) as PlacementBroker[])[round];
      if (b !== undefined) out.push(b);
    }
  }
  return out;
}

function assignRackAware(brokers: readonly PlacementBroker[], opts: PlacementOptions): number[][] {
  const arranged = rackAlternatedBrokers(brokers);
  const n = arranged.length;
  const rackCount = new Set(arranged.map((b) => b.rack)).size;
  const out: number[][] = [];
  let partitionId = Math.max(0, opts.firstPartitionId ?? 0);
  let shift = opts.replicaShift;
  for (let i = 0; i < opts.partitionCount; i++, partitionId++) {
    if (partitionId > 0 && partitionId % n === 0) shift++;
    const first = (partitionId + opts.startIndex) % n;
    const leader = arranged[first] as PlacementBroker;
    const replicas = [leader.brokerId];
    const racks = new Set([leader.rack]);
    const used = new Set([leader.brokerId]);
    let k = 0;
    for (let j = 0; j < opts.replicationFactor - 1; j++) {
      for (;;) {
        const b = arranged[replicaIndex(first, shift * rackCount, k, n)] as PlacementBroker;
        k++;
        if ((!racks.has(b.rack) || racks.size === rackCount) && (!used.has(b.brokerId) || used.size === n)) {
          replicas.push(b.brokerId);
          racks.add(b.rack);
          used.add(b.brokerId);
          break;
        }
      }
    }
    out.push(replicas);
  }
  return out;
}
