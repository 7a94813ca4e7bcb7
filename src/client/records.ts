/**
 * Minimal produce and fetch helpers on top of `Cluster`, used by the CLI.
 * They are correct but simple: no linger, no idempotence, no consumer group
 * (the full Producer and Consumer build on the same pieces).
 *
 * Produce: one request per leader carrying one batch per partition. Retries
 * only when the broker says the records were not appended (stale metadata
 * errors) or the connection could not be opened; a connection that closes
 * after the request was written is not retried, since the records may have
 * been appended (no idempotence here).
 *
 * Fetch: one request per leader; batches are decoded (decompressed), control
 * batches skipped, records before the requested offset dropped (a compressed
 * batch may start earlier), and for read_committed the records of aborted
 * transactions are filtered out with the response's abortedTransactions.
 */
import { ErrorCode } from '../protocol/errors.js';
import { buildRecordBatch, parseControlRecord, ControlRecordType, type RecordInput } from '../protocol/record-batch/builder.js';
import { isControlBatch, isTransactionalBatch } from '../protocol/record-batch/header.js';
import { decodeRecordBatch, recordOffset, recordTimestamp, splitBatches } from '../protocol/record-batch/reader.js';
import type { RecordHeader } from '../protocol/record-batch/record.js';
import { Apis, request, versionFor } from './apis.js';
import type { Cluster } from './cluster.js';
import { listOffsetsKey, sendListOffsets } from './list-offsets.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../protocol/messages/02-list-offsets.js';
import type { Connection } from '../net/connection.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';

/** 0: no response; 1: the leader appended; -1: every in-sync replica has it. */
export type Acks = 0 | 1 | -1;
/** Record batch compression codecs. */
export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Kafka's codec ids (record batch attributes bits 0-2). */
export const COMPRESSION_CODECS: Readonly<Record<CompressionName, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

export const PRODUCE_TIMEOUT_MS_DEFAULT = 30_000;
export const FETCH_MAX_WAIT_MS_DEFAULT = 500;
export const FETCH_MAX_BYTES_DEFAULT = 50 * 1024 * 1024;
export const FETCH_PARTITION_MAX_BYTES_DEFAULT = 1024 * 1024;

/** Options of `produce` / `produceMany`. */
export interface ProduceOptions {
  /** 0: no response; 1: leader appended; -1: all in-sync replicas (default -1, as the Java client). */
  acks?: Acks;
  compression?: CompressionName;
  /** Broker-side wait for acks=-1 (default 30000). */
  timeoutMs?: number;
}

/** Records for one partition (one batch). */
export interface PartitionRecords {
  topic: string;
  partition: number;
  records: readonly RecordInput[];
}

/** The answer for one batch of `produce` / `produceMany`. */
export interface ProduceResult {
  topic: string;
  partition: number;
  /** Offset of the first record; -1n with acks=0. */
  baseOffset: bigint;
  /** Broker time under LogAppendTime, else -1n. */
  logAppendTimeMs: bigint;
  recordCount: number;
}

/** Produces records to one partition (one batch). */
export async function produce(
  cluster: Cluster,
  topic: string,
  partition: number,
  records: readonly RecordInput[],
  options: ProduceOptions = {},
): Promise<ProduceResult> {
  const [result] = await produceMany(cluster, [{ topic, partition, records }], options);
  return result as ProduceResult;
}

/** Produces one batch per entry, one request per leader, leaders in parallel. Results are in input order. */
export async function produceMany(cluster: Cluster, batches: readonly PartitionRecords[], options: ProduceOptions = {}): Promise<ProduceResult[]> {
  const acks = options.acks ?? -1;
  if (acks !== 0 && acks !== 1 && acks !== -1) throw invalidArgument(`acks must be 0, 1 or -1, got ${String(acks)}`);
  const codec = COMPRESSION_CODECS[options.compression ?? 'none'];
  if (codec === undefined) throw invalidArgument(`unknown compression '${String(options.compression)}'`);
  const keys = new Set(batches.map((b) => `${b.topic}\u0000${b.partition}`));
  if (keys.size !== batches.length) throw invalidArgument('produceMany takes at most one batch per partition (concatenate the records)');
  const encoded = await Promise.all(
    batches.map(async (b) => ({ ...b, batch: await buildRecordBatch({ records: b.records, compression: codec }) })),
  );
  const items = encoded.map((e, index) => ({ ...e, index }));
  return perLeader(cluster, items, false, async (conn, group) => {
    const out = await sendProduce(conn, group, acks, options.timeoutMs ?? PRODUCE_TIMEOUT_MS_DEFAULT);
    return group.map((item, i) => {
      const r = out[i] as ProduceOutcome;
      if (r.errorCode !== 0) {
        return new KafkaProtocolError(r.errorCode, { api: 'Produce', topic: item.topic, partition: item.partition, serverMessage: r.errorMessage });
      }
      return { topic: item.topic, partition: item.partition, baseOffset: r.baseOffset, logAppendTimeMs: r.logAppendTimeMs, recordCount: item.records.length };
    });
  });
}

interface ProduceOutcome {
  errorCode: number;
  errorMessage: string | null;
  baseOffset: bigint;
  logAppendTimeMs: bigint;
}

async function sendProduce(
  conn: Connection,
  items: readonly { topic: string; partition: number; batch: Buffer }[],
  acks: Acks,
  timeoutMs: number,
): Promise<ProduceOutcome[]> {
  const topics = new Map<string, { index: number; records: Buffer }[]>();
  for (const item of items) {
    const list = topics.get(item.topic) ?? [];
    list.push({ index: item.partition, records: item.batch });
    topics.set(item.topic, list);
  }
  const body = {
    transactionalId: null,
    acks,
    timeoutMs,
    topicData: [...topics].map(([name, partitionData]) => ({ name, partitionData })),
  };
  const version = versionFor(conn, Apis.Produce);
  if (acks === 0) {
    await conn.sendOneWay(Apis.Produce.request, version, body);
    return items.map(() => ({ errorCode: 0, errorMessage: null, baseOffset: -1n, logAppendTimeMs: -1n }));
  }
  // The broker may wait up to timeoutMs for replicas; give the request that long on top.
  const response = await conn.send(Apis.Produce, version, body, { timeoutMs: timeoutMs + 30_000 });
  const byKey = new Map<string, ProduceOutcome>();
  for (const t of response.responses) {
    for (const p of t.partitionResponses) {
      const message = (p as { errorMessage?: unknown }).errorMessage;
      byKey.set(`${t.name}\u0000${p.index}`, {
        errorCode: p.errorCode,
        errorMessage: typeof message === 'string' ? message : null,
        baseOffset: p.baseOffset,
        logAppendTimeMs: p.logAppendTimeMs,
      });
    }
  }
  return items.map(
    (item) =>
      byKey.get(`${item.topic}\u0000${item.partition}`) ?? {
        errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
        errorMessage: 'the broker did not answer for this partition',
        baseOffset: -1n,
        logAppendTimeMs: -1n,
      },
  );
}

// ------------------------------------------------------------------ fetch

/** Where to fetch from: topic, partition, offset. */
export interface FetchPosition {
  topic: string;
  partition: number;
  /** Next offset to read. */
  offset: bigint;
  /** The caller's leader epoch (Fetch v9+, KIP-320): a stale one gets FENCED_LEADER_EPOCH; -1 (default) skips the check. */
  currentLeaderEpoch?: number;
}

/** Options of `fetch` / `fetchMany`. */
export interface FetchOptions {
  maxWaitMs?: number;
  minBytes?: number;
  maxBytes?: number;
  partitionMaxBytes?: number;
  /** 0 read_uncommitted (default), 1 read_committed. */
  isolationLevel?: 0 | 1;
}

/** A record read by `fetch`: offset, timestamp, key, value, headers. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** The answer for one partition of `fetch` / `fetchMany`: records and where to continue. */
export interface FetchResult {
  topic: string;
  partition: number;
  records: ConsumedRecord[];
  /** Where the next fetch should start (past skipped control records too). */
  nextOffset: bigint;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
}

/** Fetches several partitions, one request per leader. Partition errors throw KafkaProtocolError. */
export async function fetchMany(cluster: Cluster, positions: readonly FetchPosition[], options: FetchOptions = {}): Promise<FetchResult[]> {
  const items = positions.map((p, index) => ({ ...p, index }));
  return perLeader(cluster, items, true, (conn, group) => sendFetch(conn, group, options));
}

/** Fetches one partition. */
export async function fetch(cluster: Cluster, position: FetchPosition, options: FetchOptions = {}): Promise<FetchResult> {
  const [result] = await fetchMany(cluster, [position], options);
  return result as FetchResult;
}

/** The per-request settings of a sessionless Fetch. */
export interface FetchBodySettings {
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: 0 | 1;
  partitionMaxBytes: number;
  /** The consumer's rack (Fetch v11+, KIP-392); '' for none. */
  rackId?: string;
}

/** A fetch session's part of a Fetch (KIP-227, v7+; from a FetchSessionHandler): absent = sessionless. */
export interface FetchBodySession {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  /** By topic name (Fetch v12 and below). */
  readonly forgotten: readonly { topicKey: string; partitions: number[] }[];
}

/**
 * The body of a Fetch (v4-12) of `positions`, grouped by topic: full and
 * sessionless (sessionId 0, epoch -1) without `session`.
 */
export function fetchRequestBody(positions: readonly FetchPosition[], settings: FetchBodySettings, session?: FetchBodySession) {
  const topics = new Map<string, FetchPosition[]>();
  for (const p of positions) {
    const list = topics.get(p.topic);
    if (list === undefined) topics.set(p.topic, [p]);
    else list.push(p);
  }
  return {
    replicaId: -1,
    maxWaitMs: settings.maxWaitMs,
    minBytes: settings.minBytes,
    maxBytes: settings.maxBytes,
    isolationLevel: settings.isolationLevel,
    sessionId: session?.sessionId ?? 0,
    sessionEpoch: session?.sessionEpoch ?? -1,
    topics: [...topics].map(([topic, ps]) => ({
      topic,
      partitions: ps.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
        fetchOffset: p.offset,
        lastFetchedEpoch: -1,
        logStartOffset: -1n,
        partitionMaxBytes: settings.partitionMaxBytes,
      })),
    })),
    forgottenTopicsData: (session?.forgotten ?? []).map((f) => ({ topic: f.topicKey, partitions: f.partitions })),
    rackId: settings.rackId ?? '',
  };
}

async function sendFetch(conn: Connection, items: readonly FetchPosition[], options: FetchOptions): Promise<(FetchResult | KafkaProtocolError)[]> {
  const settings: FetchBodySettings = {
    maxWaitMs: options.maxWaitMs ?? FETCH_MAX_WAIT_MS_DEFAULT,
    minBytes: options.minBytes ?? 1,
    maxBytes: options.maxBytes ?? FETCH_MAX_BYTES_DEFAULT,
    isolationLevel: options.isolationLevel ?? 0,
    partitionMaxBytes: options.partitionMaxBytes ?? FETCH_PARTITION_MAX_BYTES_DEFAULT,
  };
  const { response } = await request(conn, Apis.Fetch, () => fetchRequestBody(items, settings), conn.requestTimeoutMs + settings.maxWaitMs);
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'Fetch' });
  const byKey = new Map<string, (typeof response.responses)[number]['partitions'][number]>();
  for (const t of response.responses) for (const p of t.partitions) byKey.set(`${t.topic}\u0000${p.partitionIndex}`, p);
  return Promise.all(
    items.map(async (item) => {
      const p = byKey.get(`${item.topic}\u0000${item.partition}`);
      if (p === undefined) return new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: 'Fetch', topic: item.topic, partition: item.partition, serverMessage: 'no answer for this partition' });
      if (p.errorCode !== 0) return new KafkaProtocolError(p.errorCode, { api: 'Fetch', topic: item.topic, partition: item.partition });
      const records = Buffer.isBuffer(p.records) ? p.records : Buffer.alloc(0);
      const aborted = settings.isolationLevel === 1 ? (p.abortedTransactions ?? []) : [];
      const { out, nextOffset } = await decodeRecords(item, records, aborted);
      return {
        topic: item.topic,
        partition: item.partition,
        records: out,
        nextOffset,
        highWatermark: p.highWatermark,
        lastStableOffset: p.lastStableOffset,
        logStartOffset: p.logStartOffset,
      };
    }),
  );
}

/** Decodes a partition's record data; see the file comment for the rules. */
export async function decodeRecords(
  position: FetchPosition,
  data: Buffer,
  abortedTransactions: readonly { producerId: bigint; firstOffset: bigint }[],
): Promise<{ out: ConsumedRecord[]; nextOffset: bigint }> {
  const out: ConsumedRecord[] = [];
  let nextOffset = position.offset;
  const aborted = [...abortedTransactions].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const abortedProducers = new Set<bigint>();
  for (const batch of splitBatches(data)) {
    const { header, records } = await decodeRecordBatch(batch);
    const lastOffset = header.baseOffset + BigInt(header.lastOffsetDelta);
    if (lastOffset < position.offset) continue;
    // Transactions that started at or before this batch become "aborted" (Java's Fetcher).
    while (aborted.length > 0 && (aborted[0] as { firstOffset: bigint }).firstOffset <= lastOffset) {
      abortedProducers.add((aborted.shift() as { producerId: bigint }).producerId);
    }
    if (isControlBatch(header.attributes)) {
      const first = records[0];
      if (first !== undefined && parseControlRecord(first.key, first.value).type === ControlRecordType.Abort) {
        abortedProducers.delete(header.producerId);
      }
    } else if (!(isTransactionalBatch(header.attributes) && abortedProducers.has(header.producerId))) {
      for (const r of records) {
        const offset = recordOffset(header, r);
        if (offset < position.offset) continue;
        out.push({
          topic: position.topic,
          partition: position.partition,
          offset,
          timestamp: recordTimestamp(header, r),
          key: r.key,
          value: r.value,
          headers: r.headers,
        });
      }
    }
    if (lastOffset + 1n > nextOffset) nextOffset = lastOffset + 1n;
  }
  return { out, nextOffset };
}

// ------------------------------------------------------------ list offsets

/** 'earliest', 'latest', or a timestamp in ms (the first record at or after it). */
export type OffsetSpec = 'earliest' | 'latest' | bigint | number;

/** A partition offset found by ListOffsets. */
export interface ListedOffset {
  topic: string;
  partition: number;
  /** -1n when no record has a timestamp at or after the one asked for. */
  offset: bigint;
  timestamp: bigint;
  leaderEpoch: number;
}

function specTimestamp(spec: OffsetSpec): bigint {
  if (spec === 'earliest') return EARLIEST_TIMESTAMP;
  if (spec === 'latest') return LATEST_TIMESTAMP;
  const ts = BigInt(spec);
  if (ts < 0n) throw invalidArgument(`a timestamp must be >= 0, got ${ts}`);
  return ts;
}

/** ListOffsets for several partitions (one request per leader), in input order. */
export async function listOffsetsMany(
  cluster: Cluster,
  partitions: readonly { topic: string; partition: number; spec: OffsetSpec }[],
  isolationLevel: 0 | 1 = 0,
): Promise<ListedOffset[]> {
  const items = partitions.map((p, index) => ({ ...p, timestamp: specTimestamp(p.spec), index }));
  return perLeader(cluster, items, true, async (conn, group) => {
    // The leader epoch the metadata names now (each attempt after a refresh sends the new one).
    const withEpochs = group.map((item) => ({ ...item, currentLeaderEpoch: cachedLeaderEpoch(cluster, item.topic, item.partition) }));
    const byKey = await sendListOffsets(conn, Apis.ListOffsets, isolationLevel, withEpochs);
    return group.map((item) => {
      const p = byKey.get(listOffsetsKey(item.topic, item.partition));
      const code = p === undefined ? ErrorCode.UNKNOWN_SERVER_ERROR : p.errorCode;
      if (p === undefined || code !== 0) return new KafkaProtocolError(code, { api: 'ListOffsets', topic: item.topic, partition: item.partition });
      return { topic: item.topic, partition: item.partition, offset: p.offset, timestamp: p.timestamp, leaderEpoch: p.leaderEpoch };
    });
  });
}

// ----------------------------------------------------------------- helpers

/** A partition's leader epoch in the cluster's metadata cache, -1 when unknown. */
function cachedLeaderEpoch(cluster: Cluster, topic: string, partition: number): number {
  const ps = cluster.metadata.topics.get(topic)?.partitions;
  const p = ps?.[partition]?.partition === partition ? ps[partition] : ps?.find((x) => x.partition === partition);
  return p?.leaderEpoch ?? -1;
}

interface Routed {
  topic: string;
  partition: number;
  index: number;
}

/**
 * Groups items by partition leader, runs `send` once per leader (leaders in
 * parallel), and retries the items that failed with a refreshable error
 * after a metadata refresh and a backoff. Returns results in input order;
 * the first non-retriable (or last) error is thrown.
 */
async function perLeader<I extends Routed, R>(
  cluster: Cluster,
  items: readonly I[],
  retryOnClose: boolean,
  send: (connection: Connection, group: I[]) => Promise<(R | KafkaProtocolError)[]>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let pending = [...items];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await cluster.refreshMetadata([...new Set(pending.map((i) => i.topic))]).catch(() => undefined);
    const failures: { item: I; err: unknown }[] = [];
    const byLeader = new Map<number, I[]>();
    for (const item of pending) {
      try {
        const leader = await cluster.leaderOf(item.topic, item.partition);
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), item]);
      } catch (err) {
        failures.push({ item, err });
      }
    }
    await Promise.all(
      [...byLeader].map(async ([leaderId, group]) => {
        // A partition may appear once per request: duplicates go in later requests, in order.
        for (const layer of uniqueLayers(group)) {
          try {
            const out = await send(await cluster.connectionTo(leaderId), layer);
            layer.forEach((item, i) => {
              const r = out[i] as R | KafkaProtocolError;
              if (r instanceof KafkaProtocolError) failures.push({ item, err: r });
              else results[item.index] = r;
            });
          } catch (err) {
            for (const item of layer) failures.push({ item, err });
          }
        }
      }),
    );
    pending = [];
    for (const f of failures) {
      if (attempt >= cluster.retries || !cluster.isRetriable(f.err, retryOnClose)) throw f.err;
      pending.push(f.item);
    }
    if (pending.length > 0) await cluster.backoff(attempt);
  }
  return results;
}

/** Splits items into runs in which each topic-partition appears at most once, keeping order. */
function uniqueLayers<I extends Routed>(items: readonly I[]): I[][] {
  const layers: I[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const key = `${item.topic}\u0000${item.partition}`;
    const layer = seen.get(key) ?? 0;
    seen.set(key, layer + 1);
    (layers[layer] ??= []).push(item);
  }
  return layers;
}
