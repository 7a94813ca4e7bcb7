/**
 * Which __consumer_offsets partition owns a group: Kafka's
 * `Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`, so clients
 * and tools that compute the coordinator partition themselves agree with us,
 * and a log written by Kafka keeps its groups in the same partitions.
 *
 * Java's String.hashCode runs over UTF-16 code units (a character outside the
 * BMP counts as its two surrogates), which is exactly what charCodeAt yields,
 * with int32 wrap-around: h = 31 * h + c. Kafka's Utils.abs is `n & 0x7fffffff`,
 * not Math.abs: for Integer.MIN_VALUE it gives 0 where Math.abs would overflow.
 */
import { invariant } from '../../../util/assert.js';

/** Java's String.hashCode: a signed int32. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs. */
export function kafkaAbs(n: number): number {
  return n & 0x7fffffff;
}

export function partitionForGroup(groupId: string, numPartitions: number): number {
  invariant(Number.isInteger(numPartitions) && numPartitions >= 1 && numPartitions <= 0x7fffffff,
    `numPartitions ${numPartitions} is a positive int32`);
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions;
}
