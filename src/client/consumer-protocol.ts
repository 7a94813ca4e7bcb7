/**
 * The "consumer" embedded protocol: what consumers put in JoinGroup
 * `protocols[].metadata` (ConsumerProtocolSubscription) and what the leader
 * puts in SyncGroup `assignments[].assignment` (ConsumerProtocolAssignment),
 * as Kafka's ConsumerProtocol does. The broker never reads these bytes; every
 * client (Java, librdkafka, kafkajs, kafka-python) does, so the format must
 * match Kafka's message JSON files exactly.
 *
 * Wire form: an int16 version, then the struct at that version (never
 * flexible). A version above the highest known is read as the highest known
 * and trailing bytes are ignored (Java `checkSubscriptionVersion`), so newer
 * members do not break older leaders.
 *
 * Subscription: v0 topics + userData; v1 ownedPartitions (KIP-429);
 * v2 generationId (KIP-792); v3 rackId (KIP-881).
 * Assignment: v0 assignedPartitions + userData; v1-v3 have the same fields
 * (the version bumps follow the subscription's for cooperative rebalancing).
 */
import { compile } from '../protocol/codec.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { invalidArgument } from '../net/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import { array, data, field, struct, type Infer } from '../protocol/schema.js';

/** The JoinGroup protocolType of consumers. */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

const topicPartition = struct([field('topic', 'string'), field('partitions', array('int32'))]);

export const ConsumerProtocolSubscription = data({ name: 'ConsumerProtocolSubscription', versions: '0-3', flexible: 'none' }, [
  field('topics', array('string')),
  field('userData', 'nullableBytes', { default: null }),
  field('ownedPartitions', array(topicPartition), { versions: '1+', default: [] }),
  field('generationId', 'int32', { versions: '2+', default: -1 }),
  field('rackId', 'nullableString', { versions: '3+', default: null }),
]);

export const ConsumerProtocolAssignment = data({ name: 'ConsumerProtocolAssignment', versions: '0-3', flexible: 'none' }, [
  field('assignedPartitions', array(topicPartition)),
  field('userData', 'nullableBytes', { default: null }),
]);

/** The version this client writes (Kafka's Java client writes its highest). */
export const SUBSCRIPTION_VERSION_DEFAULT = 3;
export const ASSIGNMENT_VERSION_DEFAULT = 3;

/** Partitions of one topic. */
export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

/** A consumer group member's subscription (JoinGroup metadata of the "consumer" protocol). */
export interface Subscription {
  /** The version read (after clamping to the highest known); written as given or the default. */
  version: number;
  topics: string[];
  userData: Buffer | null;
  ownedPartitions: TopicPartitions[];
  generationId: number;
  rackId: string | null;
}

/** A member's assignment (SyncGroup bytes of the "consumer" protocol). */
export interface Assignment {
  version: number;
  assignedPartitions: TopicPartitions[];
  userData: Buffer | null;
}

type SubscriptionInput = Partial<Omit<Subscription, 'topics'>> & { topics: readonly string[] };
type AssignmentInput = Partial<Omit<Assignment, 'assignedPartitions'>> & { assignedPartitions: readonly TopicPartitions[] };

/** Encodes a subscription (v3 by default, as the Java client). */
export function encodeSubscription(s: SubscriptionInput): Buffer {
  const version = s.version ?? SUBSCRIPTION_VERSION_DEFAULT;
  const value: Infer<typeof ConsumerProtocolSubscription> = {
    topics: [...s.topics],
    userData: s.userData ?? null,
    ownedPartitions: s.ownedPartitions ?? [],
    generationId: s.generationId ?? -1,
    rackId: s.rackId ?? null,
  };
  return encodeVersioned(ConsumerProtocolSubscription, version, value);
}

/** Decodes subscription bytes of any version; bad bytes throw DecodeError (ERR_TRIB_DECODE). */
export function decodeSubscription(bytes: Buffer): Subscription {
  const { version, value } = decodeVersioned(ConsumerProtocolSubscription, bytes);
  return { version, ...value };
}

/** Encodes an assignment (v3 by default). */
export function encodeAssignment(a: AssignmentInput): Buffer {
  const version = a.version ?? ASSIGNMENT_VERSION_DEFAULT;
  return encodeVersioned(ConsumerProtocolAssignment, version, { assignedPartitions: [...a.assignedPartitions], userData: a.userData ?? null });
}

/**
 * Decodes an assignment. An empty buffer is an empty assignment: the broker
 * sends one to members the leader left out, and on some errors.
 */
export function decodeAssignment(bytes: Buffer): Assignment {
  if (bytes.length === 0) return { version: 0, assignedPartitions: [], userData: null };
  const { version, value } = decodeVersioned(ConsumerProtocolAssignment, bytes);
  return { version, ...value };
}

type VersionedSchema = typeof ConsumerProtocolSubscription | typeof ConsumerProtocolAssignment;

function encodeVersioned<S extends VersionedSchema>(schema: S, version: number, value: Infer<S>): Buffer {
  if (!Number.isInteger(version) || version < schema.minVersion || version > schema.maxVersion) {
    throw invalidArgument(`${schema.name} has no version ${version} (${schema.minVersion}-${schema.maxVersion})`);
  }
  const w = new Writer();
  w.writeInt16(version);
  compile(schema, version).write(w, value as never);
  return w.toBuffer();
}

function decodeVersioned<S extends VersionedSchema>(schema: S, bytes: Buffer): { version: number; value: Infer<S> } {
  const r = new Reader(bytes);
  const wireVersion = r.readInt16();
  if (wireVersion < schema.minVersion) throw new DecodeError(`${schema.name}: bad version ${wireVersion}`);
  const version = Math.min(wireVersion, schema.maxVersion);
  // Trailing bytes are allowed: a newer version carries fields we do not know.
  const value = compile(schema, version).read(r) as Infer<S>;
  return { version, value };
}

/** Sorted, merged `topic -> partitions` lists; the canonical form used in assignments and output. */
export function groupByTopic(pairs: Iterable<{ topic: string; partition: number }>): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of pairs) {
    const list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, [partition]);
    else list.push(partition);
  }
  return [...byTopic.keys()]
    .sort(compareStrings)
    .map((topic) => ({ topic, partitions: [...new Set(byTopic.get(topic))].sort((a, b) => a - b) }));
}

/** Flattens `topic -> partitions` into pairs, in order. */
export function flatten(list: readonly TopicPartitions[]): { topic: string; partition: number }[] {
  return list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
}

/** Java's String.compareTo (UTF-16 code units), which JavaScript's `<` also uses; never localeCompare. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
