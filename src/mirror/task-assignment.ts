/**
 * How connectors hand work to their tasks through task configs, with
 * MirrorMaker 2's keys: `task.assigned.partitions` (comma-separated
 * `topic-partition`, as TopicPartition.toString) and
 * `task.assigned.groups` (comma-separated group ids).
 */
import type { TopicPartitionRef } from './topic-sync.js';

export const MIRROR_VERSION = '1.0.0';

export function encodePartitions(list: readonly TopicPartitionRef[]): string {
  return list.map((tp) => `${tp.topic}-${tp.partition}`).join(',');
}

/** Parses `task.assigned.partitions`; the partition is after the last '-', since topic names may hold dashes. */
export function decodePartitions(text: string | undefined): TopicPartitionRef[] {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((s) => {
    const at = s.lastIndexOf('-');
    const partition = Number(s.slice(at + 1));
    if (at <= 0 || !Number.isInteger(partition) || partition < 0) throw new Error(`bad task.assigned.partitions entry ${s}`);
    return { topic: s.slice(0, at), partition };
  });
}

export function encodeGroups(groups: readonly string[]): string {
  return groups.join(',');
}

export function decodeGroups(text: string | undefined): string[] {
  return text === undefined || text.trim() === '' ? [] : text.split(',');
}
