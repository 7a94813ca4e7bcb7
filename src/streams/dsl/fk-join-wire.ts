/**
 * What a foreign-key join (KIP-213) writes to its two internal topics and its
 * subscription store, and the hash that tells a current response from a stale
 * one.
 *
 * - Subscription (topic `...-SUBSCRIPTION-REGISTRATION-<n>-topic`, keyed by
 *   the foreign key): `[version 0][instruction][hash flag][16-byte hash if
 *   flag = 1][primary partition int32][primary key bytes]`.
 * - Subscription store key (`CombinedKey`): `[foreign key length int32]
 *   [foreign key bytes][primary key bytes]`, so one foreign key's
 *   subscribers are one key range; the value is the subscription.
 * - Response (topic `...-SUBSCRIPTION-RESPONSE-<n>-topic`, keyed by the
 *   primary key bytes): `[version 0][hash flag][hash][primary partition
 *   int32][foreign value length int32, -1 for null][foreign value bytes]`.
 *
 * The hash is MD5 (128 bits, as Kafka's murmur3-128) of the left value's
 * bytes when the subscription was sent; the response carries it back, and
 * the left side drops a response whose hash is not that of its current value
 * (the left row changed meanwhile, a newer response is on its way).
 */
import { createHash } from 'node:crypto';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';

/** What the right side does with a subscription (Kafka's SubscriptionWrapper.Instruction). */
export const Instruction = {
  /** Remove the subscription, send nothing (the left row moved to another foreign key). */
  DeleteKeyNoPropagate: 0,
  /** Remove the subscription and send a null foreign value (the left row was deleted). */
  DeleteKeyAndPropagate: 1,
  /** Store it and send the foreign value, null if there is none (unsets an earlier result). */
  PropagateNullIfNoFkValAvailable: 2,
  /** Store it and send the foreign value only if there is one (a new left row of an inner join). */
  PropagateOnlyIfFkValAvailable: 3,
} as const;
export type Instruction = (typeof Instruction)[keyof typeof Instruction];

/** A left row's registration with the foreign key it points to. */
export interface Subscription {
  instruction: Instruction;
  hash: Buffer | null;
  primaryPartition: number;
  primaryKey: Buffer;
}

/** The foreign value a subscriber gets, with the hash of the left value it answers. */
export interface SubscriptionResponse<VO> {
  hash: Buffer | null;
  primaryPartition: number;
  foreignValue: VO | null;
}

const HASH_BYTES = 16;

/** The hash of a left value's bytes (null for a deleted row). */
export function valueHash(bytes: Buffer | null): Buffer | null {
  return bytes === null ? null : createHash('md5').update(bytes).digest();
}

/** Whether two hashes (or two nulls) are equal. */
export function sameHash(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** `[length][foreign key][primary key]`. */
export function combinedKey(foreignKey: Buffer, primaryKey: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + foreignKey.length + primaryKey.length);
  out.writeInt32BE(foreignKey.length, 0);
  foreignKey.copy(out, 4);
  primaryKey.copy(out, 4 + foreignKey.length);
  return out;
}

/** The store key prefix shared by every subscriber of `foreignKey`. */
export function combinedKeyPrefix(foreignKey: Buffer): Buffer {
  return combinedKey(foreignKey, Buffer.alloc(0));
}

/** The primary key part of a combined key. */
export function primaryKeyOf(combined: Buffer): Buffer {
  return combined.subarray(4 + combined.readInt32BE(0));
}

function writeHash(hash: Buffer | null): Buffer {
  return hash === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), hash]);
}

function readHash(data: Buffer, at: number): [Buffer | null, number] {
  const flag = data[at];
  if (flag === 0) return [null, at + 1];
  if (flag !== 1 || data.length < at + 1 + HASH_BYTES) throw corrupt('hash');
  return [Buffer.from(data.subarray(at + 1, at + 1 + HASH_BYTES)), at + 1 + HASH_BYTES];
}

function corrupt(what: string): StreamsError {
  return new StreamsError(StreamsErrorCode.SERDE, `corrupt foreign-key join ${what}`);
}

function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n, 0);
  return b;
}

/** The serde of subscriptions (topic values and store values). */
export const subscriptionSerde: Serde<Subscription> = {
  serialize(_topic, s) {
    if (s === null) return null;
    return Buffer.concat([Buffer.from([0, s.instruction]), writeHash(s.hash), int32(s.primaryPartition), s.primaryKey]);
  },
  deserialize(_topic, data) {
    if (data === null) return null;
    if (data.length < 3 || data[0] !== 0 || (data[1] as number) > Instruction.PropagateOnlyIfFkValAvailable) throw corrupt('subscription');
    const [hash, at] = readHash(data, 2);
    if (data.length < at + 4) throw corrupt('subscription');
    return { instruction: data[1] as Instruction, hash, primaryPartition: data.readInt32BE(at), primaryKey: Buffer.from(data.subarray(at + 4)) };
  },
};

/** The serde of responses, the foreign value written with `valueSerde`. */
export function responseSerde<VO>(valueSerde: Serde<VO>): Serde<SubscriptionResponse<VO>> {
  return {
    serialize(topic, r) {
      if (r === null) return null;
      const value = r.foreignValue === null ? null : valueSerde.serialize(topic, r.foreignValue);
      return Buffer.concat([Buffer.from([0]), writeHash(r.hash), int32(r.primaryPartition), int32(value === null ? -1 : value.length), value ?? Buffer.alloc(0)]);
    },
    deserialize(topic, data) {
      if (data === null) return null;
      if (data.length < 2 || data[0] !== 0) throw corrupt('response');
      const [hash, at] = readHash(data, 1);
      if (data.length < at + 8) throw corrupt('response');
      const length = data.readInt32BE(at + 4);
      if (length < -1 || data.length !== at + 8 + Math.max(length, 0)) throw corrupt('response');
      const foreignValue = length < 0 ? null : valueSerde.deserialize(topic, data.subarray(at + 8));
      return { hash, primaryPartition: data.readInt32BE(at), foreignValue };
    },
  };
}
