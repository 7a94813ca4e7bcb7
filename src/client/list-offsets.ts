/**
 * The client's one ListOffsets exchange: the request for a group of
 * partitions led by one broker, and the answers by topic-partition. Its two
 * callers route and report with their own policy: `listOffsetsMany`
 * (records.ts: throws, retries like produce and fetch) and `listOffsetsFor`
 * (admin-offsets.ts: one result or error per partition, as Admin returns
 * them). The sentinel timestamps are the protocol's (02-list-offsets.ts).
 */
import type { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js';
import type { Connection } from '../net/connection.js';
import { request, type ClientApi } from './apis.js';

/** One partition to look up: a timestamp, or a sentinel (EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP). */
export interface ListOffsetsItem {
  topic: string;
  partition: number;
  timestamp: bigint;
  /** The caller's leader epoch (v4+, KIP-320): a stale one gets FENCED_LEADER_EPOCH; -1 or absent skips the check. */
  currentLeaderEpoch?: number;
}

/** The broker's answer for one partition. */
export type ListOffsetsAnswer = ListOffsetsResponse['topics'][number]['partitions'][number];

/** The key of a topic-partition in the answers map. */
export function listOffsetsKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Sends one ListOffsets for `items` (all led by the connection's broker); answers by listOffsetsKey. */
export async function sendListOffsets(
  connection: Connection,
  api: ClientApi<typeof ListOffsetsRequest, typeof ListOffsetsResponse>,
  isolationLevel: 0 | 1,
  items: readonly ListOffsetsItem[],
): Promise<Map<string, ListOffsetsAnswer>> {
  const topics = new Map<string, ListOffsetsItem[]>();
  for (const item of items) topics.set(item.topic, [...(topics.get(item.topic) ?? []), item]);
  const { response } = await request(connection, api, () => ({
    replicaId: -1,
    isolationLevel,
    topics: [...topics].map(([name, ps]) => ({
      name,
      partitions: ps.map((p) => ({ partitionIndex: p.partition, currentLeaderEpoch: p.currentLeaderEpoch ?? -1, timestamp: p.timestamp })),
    })),
  }));
  const answers = new Map<string, ListOffsetsAnswer>();
  for (const t of response.topics) for (const p of t.partitions) answers.set(listOffsetsKey(t.name, p.partitionIndex), p);
  return answers;
}
