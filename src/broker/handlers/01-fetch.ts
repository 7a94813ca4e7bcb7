// 1 Fetch, v4-12 (4 is the first with record batch v2 and the oldest any of
// our clients sends: kafka-python pins it; librdkafka needs 4 in range for
// MSGVER2 and 10 for zstd). v12 is flexible, with diverging epoch, current
// leader and snapshot id as tagged fields.
//
// Records are returned as the stored bytes (no copy between the file read and
// the socket), read into the broker's recycled buffers (services.ioBuffers),
// which go back to the pool once the response is written. The
// read stops at the high watermark (read_uncommitted) or the last stable
// offset (read_committed; equal to the high watermark until transactions
// exist, and aborted_transactions is then empty). The response's total
// maxBytes and each partition's partitionMaxBytes bound the data, except that
// the first partition with data returns at least one whole batch so a large
// batch cannot stall a consumer (KIP-74).
//
// Long poll: with fewer than minBytes available the request waits (up to
// maxWaitMs) for appends, in DelayedFetches, without blocking the connection.
//
// Simplifications: fetch sessions (KIP-227) are not kept; every request is a
// full fetch and sessionId 0 is answered (clients accept that). Follower
// fetches (replicaId >= 0) arrive with the replication issue. A fetch of
// __cluster_metadata-0 on a node with a metadata quorum is Raft's
// (src/controller/quorum/wire.ts) and is answered by it.
import { FetchRequest, FetchResponse } from '../../protocol/messages/01-fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Input, RecordChunks } from '../../protocol/schema.js';
import { defineHandler } from '../handler.js';
import { isRaftFetch } from '../../controller/quorum/wire.js';
import type { RequestContext } from '../request-context.js';
import type { Partition } from '../../replication/partition.js';

type Req = FetchRequest;
type PartitionResponse = Input<typeof FetchResponse>['responses'][number]['partitions'][number];

/** Largest wait a client may ask for; bounds a timer per request. */
const FETCH_WAIT_MS_MAX = 60_000;
const EMPTY = Buffer.alloc(0);

function leaderEpochError(p: Partition, requested: number): number {
  if (requested < 0 || requested === p.leaderEpoch) return ErrorCode.NONE;
  return requested < p.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

interface Collected {
  responses: { topic: string; partitions: PartitionResponse[] }[];
  bytes: number;
  hasError: boolean;
  partitions: Partition[];
  /** The pooled read buffers the responses point into. */
  pooled: Buffer[];
}

function collect(ctx: RequestContext, req: Req): Collected {
  const rm = ctx.services.replicaManager;
  const readCommitted = req.isolationLevel === 1;
  let budget = req.maxBytes > 0 ? req.maxBytes : 0;
  let bytes = 0;
  let hasError = false;
  let minOneBatch = true;
  const partitions: Partition[] = [];
  const pooled: Buffer[] = [];
  const responses = req.topics.map((t) => ({
    topic: t.topic,
    partitions: t.partitions.map((fp): PartitionResponse => {
      const p = rm.get(t.topic, fp.partition);
      const error = (errorCode: number): PartitionResponse => {
        hasError = true;
        return { partitionIndex: fp.partition, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, abortedTransactions: null, records: EMPTY };
      };
      if (!p) return error(ctx.services.metadata.topicExists(t.topic) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      if (!p.isLeader) return error(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      const epochError = leaderEpochError(p, fp.currentLeaderEpoch);
      if (epochError !== ErrorCode.NONE) return error(epochError);
      partitions.push(p);
      const maxBytes = Math.min(fp.partitionMaxBytes, budget);
      const r = rm.read(p, fp.fetchOffset, maxBytes, readCommitted, minOneBatch, ctx.services.ioBuffers.allocate);
      for (const c of r.chunks) pooled.push(c);
      if (r.errorCode !== ErrorCode.NONE) hasError = true;
      if (r.bytes > 0) {
        minOneBatch = false;
        bytes += r.bytes;
        budget = Math.max(0, budget - r.bytes);
      }
      const records: RecordChunks | Buffer = r.chunks.length === 1 ? (r.chunks[0] as Buffer) : { chunks: r.chunks, byteLength: r.bytes };
      return {
        partitionIndex: fp.partition,
        errorCode: r.errorCode,
        highWatermark: r.highWatermark,
        lastStableOffset: r.lastStableOffset,
        logStartOffset: r.logStartOffset,
        abortedTransactions: readCommitted ? [] : null,
        records: r.bytes > 0 ? records : EMPTY,
      };
    }),
  }));
  return { responses, bytes, hasError, partitions, pooled };
}

function release(ctx: RequestContext, buffers: readonly Buffer[]): void {
  for (const b of buffers) ctx.services.ioBuffers.release(b);
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 12,
  request: FetchRequest,
  response: FetchResponse,
  async handle(ctx, req) {
    // A controller fetching the metadata log (KRaft replication) goes to the node's Raft.
    if (ctx.services.raft !== undefined && isRaftFetch(req)) return ctx.services.raft.fetch(req, ctx.apiVersion);
    if (req.replicaId >= 0) {
      // Follower fetching arrives with replication; until then no broker replicates from us.
      return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, responses: [], sessionId: 0 };
    }
    let result = collect(ctx, req);
    const maxWaitMs = Math.min(Math.max(req.maxWaitMs, 0), FETCH_WAIT_MS_MAX);
    if (!result.hasError && result.bytes < req.minBytes && maxWaitMs > 0 && result.partitions.length > 0) {
      // The first read is not sent: its buffers are free again at once.
      release(ctx, result.pooled);
      await ctx.services.replicaManager.delayedFetches.wait(result.partitions, result.bytes, req.minBytes, maxWaitMs);
      result = collect(ctx, req);
    }
    ctx.services.traffic.fetchAnswered(result.responses);
    const { pooled } = result;
    if (pooled.length > 0) ctx.afterResponseWritten(() => release(ctx, pooled));
    return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: result.responses };
  },
  errorResponse: (req, errorCode) => ({
    errorCode,
    responses: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode, highWatermark: -1n, records: EMPTY })),
    })),
  }),
});
