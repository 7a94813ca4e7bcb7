/**
 * Admin's partition-offset queries over `Cluster`: ListOffsets (earliest,
 * latest, max-timestamp, by timestamp) and OffsetForLeaderEpoch, for many
 * partitions at once, with one result per partition.
 *
 * Routing: each partition goes to its leader, one request per leader
 * (leaders in parallel). Partitions answered with a stale-metadata error
 * (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, FENCED_LEADER_EPOCH, ...)
 * or whose leader cannot be reached are retried after a metadata refresh,
 * `cluster.retries` times with the cluster's backoff. What is left comes
 * back as that partition's `error` (never thrown: one bad partition does not
 * fail the others); only a connection failure that outlives the retries
 * throws.
 */
import { ErrorCode } from '../protocol/errors.js';
import { AdminApis } from './admin-apis.js';
import { Apis, request, type ClientApi } from './apis.js';
import { listOffsetsKey, sendListOffsets } from './list-offsets.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '../protocol/messages/02-list-offsets.js';
import { REFRESH_METADATA_ERRORS, type Cluster, type TopicMetadata } from './cluster.js';
import type { Connection } from '../net/connection.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';

/**
 * Which offset ListOffsets looks up: 'earliest' (the log start offset),
 * 'latest' (the high watermark; the last stable offset with read_committed),
 * 'max-timestamp' (the record with the largest timestamp, KIP-734,
 * ListOffsets v7+), or a timestamp in ms (the first record at or after it).
 */
export type AdminOffsetSpec = 'earliest' | 'latest' | 'max-timestamp' | bigint | number;

/** A partition to look an offset up in. */
export interface ListOffsetsQuery {
  topic: string;
  partition: number;
  spec: AdminOffsetSpec;
}

/** Options of `Admin.listOffsets` for many partitions. */
export interface ListOffsetsOptions {
  /** 'read_committed' makes 'latest' the last stable offset. Default 'read_uncommitted'. */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
}

/** The answer for one partition of `Admin.listOffsets`. */
export interface ListOffsetsResult {
  topic: string;
  partition: number;
  /** The offset found; -1n when no record matches a timestamp (or `error` is set). */
  offset: bigint;
  /** The timestamp of that record for timestamp/max-timestamp lookups; -1n otherwise. */
  timestamp: bigint;
  /** The leader epoch of that record (ListOffsets v4+), -1 when unknown. */
  leaderEpoch: number;
  error: KafkaProtocolError | null;
}

/** A partition and leader epoch to ask OffsetForLeaderEpoch about. */
export interface LeaderEpochQuery {
  topic: string;
  partition: number;
  /** The epoch whose end offset is wanted. */
  leaderEpoch: number;
  /** The caller's view of the current leader epoch (fencing, KIP-320); -1 (the default) skips the check. */
  currentLeaderEpoch?: number;
}

/** The answer for one partition of `Admin.offsetsForLeaderEpoch`. */
export interface LeaderEpochResult {
  topic: string;
  partition: number;
  /** The largest epoch <= the one asked for that the leader knows; -1 when `error` is set. */
  leaderEpoch: number;
  /** The offset at which that epoch ended (the log end offset for the current epoch); -1n when `error` is set. */
  endOffset: bigint;
  error: KafkaProtocolError | null;
}

/** ListOffsets v7 makes max-timestamp lookups official (KIP-734). */
const MAX_TIMESTAMP_MIN_VERSION = 7;
/** OffsetForLeaderEpoch replicaId of a consumer (v3+). */
const CONSUMER_REPLICA_ID = -1;

/** The wire timestamp of a spec; invalid specs throw ERR_TRIB_INVALID_ARGUMENT. */
export function specTimestamp(spec: AdminOffsetSpec): bigint {
  if (spec === 'earliest') return EARLIEST_TIMESTAMP;
  if (spec === 'latest') return LATEST_TIMESTAMP;
  if (spec === 'max-timestamp') return MAX_TIMESTAMP;
  if (typeof spec === 'number' && !Number.isSafeInteger(spec)) throw invalidArgument(`an offset spec must be earliest, latest, max-timestamp or an integer timestamp, got ${spec}`);
  if (typeof spec !== 'number' && typeof spec !== 'bigint') throw invalidArgument(`an offset spec must be earliest, latest, max-timestamp or a timestamp, got '${String(spec)}'`);
  const ts = BigInt(spec);
  if (ts < 0n) throw invalidArgument(`a timestamp must be >= 0, got ${ts}`);
  return ts;
}

/** ListOffsets for many partitions; one result per partition, in input order. */
export async function listOffsetsFor(cluster: Cluster, requests: readonly ListOffsetsQuery[], options: ListOffsetsOptions = {}): Promise<ListOffsetsResult[]> {
  const items = requests.map((r) => ({ topic: r.topic, partition: r.partition, timestamp: specTimestamp(r.spec) }));
  const isolationLevel = options.isolationLevel === 'read_committed' ? 1 : 0;
  const api: ClientApi<typeof Apis.ListOffsets.request, typeof Apis.ListOffsets.response> = items.some((i) => i.timestamp === MAX_TIMESTAMP)
    ? { ...Apis.ListOffsets, minVersion: MAX_TIMESTAMP_MIN_VERSION, maxVersion: Math.max(Apis.ListOffsets.maxVersion, MAX_TIMESTAMP_MIN_VERSION) }
    : Apis.ListOffsets;
  return forEachLeader(cluster, 'ListOffsets', items, async (conn, group) => {
    const byKey = await sendListOffsets(conn, api, isolationLevel, group);
    const answers = new Map<string, Answer<Omit<ListOffsetsResult, 'error'>>>();
    for (const item of group) {
      const p = byKey.get(listOffsetsKey(item.topic, item.partition));
      if (p !== undefined) {
        answers.set(key(item.topic, item.partition), {
          errorCode: p.errorCode,
          message: null,
          value: { topic: item.topic, partition: item.partition, offset: p.offset, timestamp: p.timestamp, leaderEpoch: p.leaderEpoch },
        });
      }
    }
    return answers;
  }).then((results) =>
    results.map((r, i) =>
      r instanceof KafkaProtocolError
        ? { topic: items[i]!.topic, partition: items[i]!.partition, offset: -1n, timestamp: -1n, leaderEpoch: -1, error: r }
        : { ...r, error: null },
    ),
  );
}

/** OffsetForLeaderEpoch for many partitions; one result per partition, in input order. */
export async function offsetsForLeaderEpochFor(cluster: Cluster, requests: readonly LeaderEpochQuery[]): Promise<LeaderEpochResult[]> {
  for (const r of requests) {
    if (!Number.isInteger(r.leaderEpoch) || r.leaderEpoch < 0) throw invalidArgument(`leader epoch of ${r.topic}-${r.partition} must be an integer >= 0, got ${r.leaderEpoch}`);
  }
  return forEachLeader(cluster, 'OffsetForLeaderEpoch', requests, async (conn, group) => {
    const { response } = await request(conn, AdminApis.OffsetForLeaderEpoch, () => ({
      replicaId: CONSUMER_REPLICA_ID,
      topics: byTopic(group).map(([topic, ps]) => ({
        topic,
        partitions: ps.map((p) => ({ partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch ?? -1, leaderEpoch: p.leaderEpoch })),
      })),
    }));
    const answers = new Map<string, Answer<Omit<LeaderEpochResult, 'error'>>>();
    for (const t of response.topics) {
      for (const p of t.partitions) {
        answers.set(key(t.topic, p.partition), {
          errorCode: p.errorCode,
          message: null,
          value: { topic: t.topic, partition: p.partition, leaderEpoch: p.leaderEpoch, endOffset: p.endOffset },
        });
      }
    }
    return answers;
  }).then((results) =>
    results.map((r, i) =>
      r instanceof KafkaProtocolError ? { topic: requests[i]!.topic, partition: requests[i]!.partition, leaderEpoch: -1, endOffset: -1n, error: r } : { ...r, error: null },
    ),
  );
}

// ----------------------------------------------------------------- routing

interface PartitionRef {
  topic: string;
  partition: number;
}

/** A broker's answer for one partition: an error code, or (with 0) the value. */
interface Answer<R> {
  errorCode: number;
  message: string | null;
  value: R;
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

function byTopic<I extends PartitionRef>(items: readonly I[]): [string, I[]][] {
  const out = new Map<string, I[]>();
  for (const item of items) out.set(item.topic, [...(out.get(item.topic) ?? []), item]);
  return [...out];
}

/**
 * Sends `items` to their partition leaders (one `send` per leader per
 * attempt) and returns, in input order, each partition's value or its
 * KafkaProtocolError. Stale-metadata answers and unreachable leaders are
 * retried after a metadata refresh; the last connection error is thrown.
 */
async function forEachLeader<I extends PartitionRef, R>(
  cluster: Cluster,
  api: string,
  items: readonly I[],
  send: (connection: Connection, group: I[]) => Promise<Map<string, Answer<R>>>,
): Promise<(R | KafkaProtocolError)[]> {
  const seen = new Set<string>();
  for (const item of items) {
    if (!Number.isInteger(item.partition) || item.partition < 0) throw invalidArgument(`partition must be an integer >= 0, got ${item.partition}`);
    const k = key(item.topic, item.partition);
    if (seen.has(k)) throw invalidArgument(`${item.topic}-${item.partition} is named twice`);
    seen.add(k);
  }
  const results = new Array<R | KafkaProtocolError>(items.length);
  const fail = (index: number, code: number, message: string | null = null): void => {
    const item = items[index]!;
    results[index] = new KafkaProtocolError(code, { api, topic: item.topic, partition: item.partition, serverMessage: message });
  };
  let pending = items.map((_, index) => index);
  for (let attempt = 0; pending.length > 0; attempt++) {
    const last = attempt >= cluster.retries;
    const topics = await loadTopics(cluster, [...new Set(pending.map((i) => items[i]!.topic))], attempt > 0);
    const byLeader = new Map<number, number[]>();
    const retry: number[] = [];
    for (const index of pending) {
      const item = items[index]!;
      const t = topics.get(item.topic);
      const p = t?.partitions.find((x) => x.partition === item.partition);
      if (t === undefined || t.errorCode !== 0) fail(index, t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      else if (p === undefined) fail(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${item.topic} has ${t.partitions.length} partitions`);
      else if (p.leaderId < 0) (last ? fail(index, ErrorCode.LEADER_NOT_AVAILABLE) : retry.push(index));
      else byLeader.set(p.leaderId, [...(byLeader.get(p.leaderId) ?? []), index]);
    }
    await Promise.all(
      [...byLeader].map(async ([leaderId, indexes]) => {
        let answers: Map<string, Answer<R>>;
        try {
          answers = await send(
            await cluster.connectionTo(leaderId),
            indexes.map((i) => items[i]!),
          );
        } catch (err) {
          if (last || !cluster.isRetriable(err, true)) throw err;
          retry.push(...indexes);
          return;
        }
        for (const index of indexes) {
          const item = items[index]!;
          const a = answers.get(key(item.topic, item.partition));
          if (a === undefined) fail(index, ErrorCode.UNKNOWN_SERVER_ERROR, 'the broker did not answer for this partition');
          else if (a.errorCode === 0) results[index] = a.value;
          else if (REFRESH_METADATA_ERRORS.has(a.errorCode) && a.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && !last) retry.push(index);
          else fail(index, a.errorCode, a.message);
        }
      }),
    );
    if (retry.length > 0) await cluster.backoff(attempt);
    pending = retry;
  }
  return results;
}

/** Metadata of the topics (refreshed when asked); unknown topics carry their error code. */
async function loadTopics(cluster: Cluster, names: readonly string[], refresh: boolean): Promise<Map<string, TopicMetadata>> {
  const cached = names.map((n) => cluster.metadata.topics.get(n));
  if (refresh || cached.some((t) => t === undefined || t.errorCode !== 0)) {
    await cluster.withRetry(() => cluster.refreshMetadata(names));
  }
  const out = new Map<string, TopicMetadata>();
  for (const n of names) {
    const t = cluster.metadata.topics.get(n);
    if (t !== undefined) out.set(n, t);
  }
  return out;
}
