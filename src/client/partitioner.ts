/**
 * Partition choice compatible with the Java client's default partitioner:
 * a keyed record goes to `toPositive(murmur2(keyBytes)) % numPartitions`
 * (org.apache.kafka.common.utils.Utils.murmur2 and BuiltInPartitioner
 * .partitionForKey), so records with the same key land in the same partition
 * whichever Kafka client wrote them (kafkajs' DefaultPartitioner, librdkafka's
 * `murmur2_random`, franz-go's StickyKeyPartitioner all agree).
 * Unkeyed records go round-robin (the later Producer may use sticky batches).
 */
import { invalidArgument } from '../net/errors.js';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/**
 * Kafka's 32-bit murmur2 (MurmurHash2 with seed 0x9747b28c), returning the
 * same signed int32 as Java's Utils.murmur2. Math.imul gives Java's
 * wrap-around int multiplication; `>>>` is Java's unsigned shift.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k =
      ((data[i4] as number) & 0xff) |
      (((data[i4 + 1] as number) & 0xff) << 8) |
      (((data[i4 + 2] as number) & 0xff) << 16) |
      (((data[i4 + 3] as number) & 0xff) << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = length & ~3;
  // Java's switch falls through 3 -> 2 -> 1 here.
  const rest = length % 4;
  if (rest >= 3) h ^= ((data[tail + 2] as number) & 0xff) << 16;
  if (rest >= 2) h ^= ((data[tail + 1] as number) & 0xff) << 8;
  if (rest >= 1) {
    h ^= (data[tail] as number) & 0xff;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Java's Utils.toPositive: clears the sign bit (not Math.abs, which fails on MIN_VALUE). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** The partition the Java client's default partitioner picks for a key. */
export function partitionForKey(key: Uint8Array | string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) throw invalidArgument(`numPartitions must be a positive integer, got ${numPartitions}`);
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return toPositive(murmur2(bytes)) % numPartitions;
}

/** Keyed records by murmur2; unkeyed ones round-robin over the partitions. */
export class DefaultPartitioner {
  private counter = 0;

  /** The partition of a record: murmur2 of the key, or round-robin without a key. */
  partition(key: Uint8Array | string | null | undefined, numPartitions: number): number {
    if (key === null || key === undefined) {
      if (!Number.isInteger(numPartitions) || numPartitions <= 0) throw invalidArgument(`numPartitions must be a positive integer, got ${numPartitions}`);
      const p = this.counter % numPartitions;
      this.counter = (this.counter + 1) & 0x7fffffff;
      return p;
    }
    return partitionForKey(key, numPartitions);
  }
}
