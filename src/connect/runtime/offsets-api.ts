/**
 * KIP-875's offsets API, shared by both herders: reading, altering and
 * resetting sink connector offsets (the committed offsets of the consumer
 * group `connect-<name>`) and checking request bodies. Source offsets live
 * in each herder's offset store (a file, or the offset topic).
 *
 * Sink offsets are `{"partition": {"kafka_topic", "kafka_partition"},
 * "offset": {"kafka_offset"}}`; a null offset removes the partition's
 * committed offset. Resetting deletes the group, as Kafka does.
 */
import { Admin, type TopicPartitions } from '../../client/index.js';
import type { SourceOffset, SourcePartition } from '../spi.js';
import type { OffsetsBody } from './herder.js';
import type { OffsetEntry } from './offset-store.js';
import { badRequest, ConnectRestError } from './rest-errors.js';

export const ALTERED = 'The offsets for this connector have been altered successfully';
export const RESET = 'The offsets for this connector have been reset successfully';

export const stopFirst = (name: string): ConnectRestError =>
  badRequest(`Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`);

export const sinkGroup = (name: string): string => `connect-${name}`;

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The PATCH body's entries; throws 400 when it is not `{ "offsets": [ {partition, offset}, ... ] }` with at least one entry. */
export function offsetEntries(body: OffsetsBody): OffsetsBody['offsets'] {
  if (!isMap(body) || !Array.isArray(body.offsets) || body.offsets.length === 0) throw badRequest('The offsets to be modified must not be null or empty');
  for (const e of body.offsets) {
    if (!isMap(e) || !isMap(e.partition)) throw badRequest('Each offset entry must have a partition object');
    if (e.offset !== null && !isMap(e.offset)) throw badRequest('The offset of each entry must be an object or null');
  }
  return body.offsets;
}

/** Source entries: any JSON maps, as the connector defines them. */
export function sourceEntries(body: OffsetsBody): OffsetEntry[] {
  return offsetEntries(body).map((e) => ({ partition: e.partition as SourcePartition, offset: e.offset as SourceOffset | null }));
}

interface SinkEntry {
  topic: string;
  partition: number;
  offset: bigint | null;
}

/** Sink entries, checked as Kafka's SinkUtils does. */
export function sinkEntries(body: OffsetsBody): SinkEntry[] {
  return offsetEntries(body).map((e) => {
    const topic = e.partition.kafka_topic;
    const partition = e.partition.kafka_partition;
    if (typeof topic !== 'string' || topic === '') throw badRequest(`Kafka topic names must be valid strings and may not be null: ${JSON.stringify(e.partition)}`);
    const p = typeof partition === 'string' ? Number(partition) : partition;
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 0) throw badRequest(`Kafka partitions must be valid non-negative integers and may not be null: ${JSON.stringify(e.partition)}`);
    if (e.offset === null) return { topic, partition: p, offset: null };
    const raw = e.offset.kafka_offset;
    const o = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof o !== 'number' || !Number.isInteger(o) || o < 0) throw badRequest(`Kafka offsets must be valid non-negative integers: ${JSON.stringify(e.offset)}`);
    return { topic, partition: p, offset: BigInt(o) };
  });
}

async function withAdmin<T>(bootstrap: string, clientId: string, f: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = await Admin.connect({ bootstrap, clientId });
  try {
    return await f(admin);
  } finally {
    await admin.close();
  }
}

export function readSinkOffsets(bootstrap: string, clientId: string, name: string): Promise<OffsetsBody> {
  return withAdmin(bootstrap, clientId, async (admin) => {
    const committed = await admin.fetchGroupOffsets(sinkGroup(name));
    const sorted = committed.filter((c) => c.offset >= 0n).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    return { offsets: sorted.map((c) => ({ partition: { kafka_topic: c.topic, kafka_partition: c.partition }, offset: { kafka_offset: Number(c.offset) } })) };
  });
}

/** Commits (offset) and deletes (null) the group's offsets; the group must have no members (a stopped connector's). */
export function alterSinkOffsets(bootstrap: string, clientId: string, name: string, entries: readonly SinkEntry[]): Promise<void> {
  return withAdmin(bootstrap, clientId, async (admin) => {
    const commits = entries.flatMap((e) => (e.offset === null ? [] : [{ topic: e.topic, partition: e.partition, offset: e.offset }]));
    const failed = (await admin.commitGroupOffsets(sinkGroup(name), commits)).find((r) => r.error !== null);
    if (failed?.error) throw badRequest(`Failed to alter consumer group offsets for connector ${name}: ${failed.error.message}`);
    const deletes: TopicPartitions[] = entries.filter((e) => e.offset === null).map((e) => ({ topic: e.topic, partitions: [e.partition] }));
    if (deletes.length === 0) return;
    const bad = (await admin.deleteGroupOffsets(sinkGroup(name), deletes)).find((r) => r.error !== null);
    if (bad?.error) throw badRequest(`Failed to delete consumer group offsets for connector ${name}: ${bad.error.message}`);
  });
}

/** Deletes the group `connect-<name>` (nothing to do when it does not exist). */
export function resetSinkOffsets(bootstrap: string, clientId: string, name: string): Promise<void> {
  return withAdmin(bootstrap, clientId, async (admin) => {
    const [result] = await admin.deleteGroups([sinkGroup(name)]);
    const error = result?.error ?? null;
    if (error !== null && error.errorName !== 'GROUP_ID_NOT_FOUND') throw badRequest(`Failed to reset consumer group offsets for connector ${name}: ${error.message}`);
  });
}
