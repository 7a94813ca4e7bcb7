/**
 * The two calls an exact-mode mirror (src/mirror/exact-task.ts) makes per
 * partition, below the Consumer and Producer: a Fetch that hands back the
 * stored record batches as bytes (data, control batches and transaction
 * markers, read_uncommitted, nothing decoded), and MirrorAppend (Tributary's
 * own API, key 10000), which writes such bytes into a mirror topic at their
 * own offsets. Both go to the partition's leader and answer its error code
 * instead of throwing, since the caller decides per code (retry after a
 * metadata refresh, resume elsewhere, or stop the partition).
 */
import { ErrorCode } from '../protocol/errors.js';
import { Offsets } from '../protocol/record-batch/header.js';
import { splitBatches } from '../protocol/record-batch/reader.js';
import { Apis, request } from './apis.js';
import type { Cluster } from './cluster.js';
import { fetchRequestBody, FETCH_MAX_WAIT_MS_DEFAULT, FETCH_PARTITION_MAX_BYTES_DEFAULT } from './records.js';

/** One partition's answer to `fetchRawBatches`. */
export interface RawFetchResult {
  errorCode: number;
  /** Whole batches from the one holding the fetch offset on (a batch the byte limit cut is left out). */
  batches: Buffer[];
  highWatermark: bigint;
  logStartOffset: bigint;
}

export interface RawFetchOptions {
  maxWaitMs?: number;
  partitionMaxBytes?: number;
}

/** Fetches `topic`-`partition` from `offset` on its leader, as stored batches (read_uncommitted). */
export async function fetchRawBatches(cluster: Cluster, topic: string, partition: number, offset: bigint, options: RawFetchOptions = {}): Promise<RawFetchResult> {
  const partitionMaxBytes = options.partitionMaxBytes ?? FETCH_PARTITION_MAX_BYTES_DEFAULT;
  const maxWaitMs = options.maxWaitMs ?? FETCH_MAX_WAIT_MS_DEFAULT;
  const conn = await cluster.connectionTo(await cluster.leaderOf(topic, partition));
  const settings = { maxWaitMs, minBytes: 1, maxBytes: partitionMaxBytes, isolationLevel: 0 as const, partitionMaxBytes };
  const { response } = await request(conn, Apis.Fetch, () => fetchRequestBody([{ topic, partition, offset }], settings), conn.requestTimeoutMs + maxWaitMs);
  const p = response.responses.find((t) => t.topic === topic)?.partitions.find((x) => x.partitionIndex === partition);
  if (response.errorCode !== ErrorCode.NONE || p === undefined) return { errorCode: response.errorCode !== ErrorCode.NONE ? response.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, batches: [], highWatermark: -1n, logStartOffset: -1n };
  const data = Buffer.isBuffer(p.records) ? p.records : Buffer.alloc(0);
  const batches = p.errorCode === ErrorCode.NONE ? splitBatches(data) : [];
  // A batch wholly before the fetch offset can only come from a log that changed under us; leave it out.
  const from = batches.findIndex((b) => b.readBigInt64BE(Offsets.baseOffset) + BigInt(b.readInt32BE(Offsets.lastOffsetDelta)) >= offset);
  return { errorCode: p.errorCode, batches: from < 0 ? [] : batches.slice(from), highWatermark: p.highWatermark, logStartOffset: p.logStartOffset };
}

/** One partition's answer to `mirrorAppend`: the error, and where the partition stands after it. */
export interface MirrorAppendResult {
  errorCode: number;
  errorMessage: string | null;
  logEndOffset: bigint;
  highWatermark: bigint;
  logStartOffset: bigint;
}

export interface MirrorAppendOptions {
  /** 1 or -1 (default: -1, every in-sync replica). */
  acks?: 1 | -1;
  timeoutMs?: number;
}

const MIRROR_APPEND_TIMEOUT_MS_DEFAULT = 30_000;

/**
 * Appends copied batches (null: none, only ask where the partition stands)
 * to the leader of a mirror topic partition at their own offsets.
 */
export async function mirrorAppend(cluster: Cluster, topic: string, partition: number, records: Buffer | null, options: MirrorAppendOptions = {}): Promise<MirrorAppendResult> {
  const timeoutMs = options.timeoutMs ?? MIRROR_APPEND_TIMEOUT_MS_DEFAULT;
  const conn = await cluster.connectionTo(await cluster.leaderOf(topic, partition));
  const body = { acks: options.acks ?? -1, timeoutMs, topics: [{ name: topic, partitions: [{ index: partition, records }] }] };
  const { response } = await request(conn, Apis.MirrorAppend, () => body, conn.requestTimeoutMs + timeoutMs);
  const p = response.responses.find((t) => t.name === topic)?.partitions.find((x) => x.index === partition);
  if (p === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this partition', logEndOffset: -1n, highWatermark: -1n, logStartOffset: -1n };
  return { errorCode: p.errorCode, errorMessage: p.errorMessage, logEndOffset: p.logEndOffset, highWatermark: p.highWatermark, logStartOffset: p.logStartOffset };
}
