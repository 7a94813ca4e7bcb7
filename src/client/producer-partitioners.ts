/**
 * Partition choice for the Producer.
 *
 * - `default`: a keyed record goes to `toPositive(murmur2(key)) % n`, exactly
 *   as the Java client (partitioner.ts); a record without a key uses the
 *   sticky partitioner (KIP-480): it sticks to one partition until the batch
 *   it is filling there is closed (full or sent), then picks another one at
 *   random. Sticky batching makes fewer, larger batches than round-robin.
 * - `round-robin`: every record, keyed or not, goes to the next partition of
 *   its topic (Java's RoundRobinPartitioner).
 * - a custom function: `({ topic, key, value, partitionCount }) => partition`.
 *
 * The sticky state (which batch is being filled) lives in the accumulator,
 * which calls `partition()` with `sticky = -1` to ask for a new partition.
 */
import { invalidArgument } from '../net/errors.js';
import { partitionForKey } from './partitioner.js';

/** What a partitioner sees of a record: topic, serialized key and value, and the topic's partition count. */
export interface PartitionerArgs {
  readonly topic: string;
  /** The serialized key (null when none). */
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly partitionCount: number;
}

/** A custom partitioner: returns a partition in [0, partitionCount). */
export type PartitionerFunction = (args: PartitionerArgs) => number;

/** The producer's `partitioner`: 'default' (murmur2 of the key, sticky without a key), 'round-robin', or a function. */
export type PartitionerOption = 'default' | 'round-robin' | PartitionerFunction;

/** What the accumulator needs: `null` means "keyless under sticky: use the sticky partition". */
export interface ProducerPartitioner {
  /** The partition for a record, or null for a sticky (keyless, default) choice. */
  partition(args: PartitionerArgs): number | null;
  /** A new sticky partition for `topic`, different from `previous` when there is a choice. */
  nextSticky(topic: string, partitionCount: number, previous: number): number;
}

/** `random()` in [0, 1); injectable so tests are deterministic. */
export type RandomSource = () => number;

/** Builds the partitioner for a `partitioner` option (`random` picks sticky partitions; injectable for tests). */
export function createPartitioner(option: PartitionerOption = 'default', random: RandomSource = Math.random): ProducerPartitioner {
  const nextSticky = (_topic: string, partitionCount: number, previous: number): number => {
    if (partitionCount <= 1) return 0;
    if (previous < 0 || previous >= partitionCount) return Math.floor(random() * partitionCount);
    // Uniform over the other partitions.
    const pick = Math.floor(random() * (partitionCount - 1));
    return pick >= previous ? pick + 1 : pick;
  };
  if (option === 'default') {
    return {
      partition: (a) => (a.key === null ? null : partitionForKey(a.key, a.partitionCount)),
      nextSticky,
    };
  }
  if (option === 'round-robin') {
    const counters = new Map<string, number>();
    return {
      partition: (a) => {
        const next = counters.get(a.topic) ?? 0;
        counters.set(a.topic, (next + 1) & 0x7fffffff);
        return next % a.partitionCount;
      },
      nextSticky,
    };
  }
  if (typeof option === 'function') return { partition: option, nextSticky };
  throw invalidArgument(`unknown partitioner '${String(option)}' (expected 'default', 'round-robin' or a function)`);
}
