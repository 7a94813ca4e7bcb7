// 0 Produce, v0-7. Every client sends v7; the range starts at 0 because
// librdkafka 2.0.2 only compresses with gzip/snappy/lz4 when Produce v0 is in
// range (rdkafka_msgset_writer.c compr_req[]), needs 3 for MSGVER2 and 7 for
// zstd. v0-v2 requests are decoded and answered, but their legacy message
// sets (magic 0/1) are refused with UNSUPPORTED_FOR_MESSAGE_FORMAT, as Kafka 4
// refuses them; only record batch v2 is stored. No flexible version in range.
//
// Per partition: the batch is validated from its headers only (size, magic,
// CRC-32C, counts, timestamps) and appended as the bytes the client sent, with
// the base offset and leader epoch written into the header (DESIGN.md
// principle 2). LogAppendTime topics also get maxTimestamp stamped (and the
// CRC recomputed). All appends happen synchronously before the first await,
// so pipelined produce requests on a connection land in request order.
//
// acks=0 sends no response. acks=1 answers once the leader appended. acks=-1
// waits until the high watermark covers the batch (immediate with one
// replica) and refuses with NOT_ENOUGH_REPLICAS when the ISR is smaller than
// min.insync.replicas.
//
// Compacted topics (cleanup.policy=compact) refuse records without a key
// (INVALID_RECORD), which means decompressing the batch; topics whose
// compression.type names a codec get batches in another codec rebuilt in
// theirs (configs/recompress.ts; the size limits apply to the result too).
// Those appends go through a per-partition queue, and while it holds work
// every append to that partition joins it, so they still land in request
// order.
//
// Idempotent batches (producerId >= 0, not transactional) are checked
// against the partition's producer state in the same synchronous call that
// appends them (Partition.appendClientBatch; rules in
// src/storage/producer-state/README.md): a retry of one of the producer's
// last 5 batches answers NONE with the ORIGINAL base offset and appends
// nothing (Kafka does not send DUPLICATE_SEQUENCE_NUMBER to clients); a
// sequence gap answers OUT_OF_ORDER_SEQUENCE_NUMBER, an old epoch
// INVALID_PRODUCER_EPOCH, a negative epoch or sequence INVALID_RECORD. The
// batch stays opaque: only header fields are read.
//
// Simplification until the transactions issue: transactional batches
// answer INVALID_TXN_STATE (InitProducerId refuses transactional ids, so a
// correct client never sends one).
import { ProduceRequest, ProduceResponse } from '../../protocol/messages/00-produce.js';
import { ErrorCode } from '../../protocol/errors.js';
import { validateProducedBatch, type BatchValidationError } from '../../protocol/record-batch/validate.js';
import { Offsets, setLogAppendTime, setPartitionLeaderEpoch, isTransactionalBatch, BATCH_LOG_OVERHEAD } from '../../protocol/record-batch/header.js';
import { defineHandler, NO_RESPONSE } from '../handler.js';
import type { RequestContext } from '../request-context.js';
import type { Partition } from '../../replication/partition.js';
import type { BatchHeader } from '../../protocol/record-batch/header.js';
import type { TopicRules } from '../services.js';
import { batchHasNullKey } from '../../storage/cleaner/keys.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import type { Compression } from '../../protocol/record-batch/header.js';
import { needsRecompression, recompressBatch, topicCodec } from '../configs/recompress.js';
import type { ProducerBatchHeader, ProducerCheckError } from '../../storage/producer-state/producer-state.js';

/** Each partition's queue of appends that await (key checks, recompression): its tail and how many wait. */
const appendQueues = new WeakMap<Partition, { tail: Promise<unknown>; pending: number }>();

function serially<T>(p: Partition, work: () => Promise<T>): Promise<T> {
  let queue = appendQueues.get(p);
  if (queue === undefined) {
    queue = { tail: Promise.resolve(), pending: 0 };
    appendQueues.set(p, queue);
  }
  const q = queue;
  q.pending++;
  const next = q.tail.then(work, work).finally(() => {
    q.pending--;
  });
  q.tail = next.catch(() => undefined);
  return next;
}

/** True while earlier appends to `p` are still queued: a later one must queue behind them. */
function hasQueuedAppends(p: Partition): boolean {
  return (appendQueues.get(p)?.pending ?? 0) > 0;
}

interface PartitionResult {
  index: number;
  errorCode: number;
  baseOffset: bigint;
  logAppendTimeMs: bigint;
  logStartOffset: bigint;
  /** For acks=-1: the high watermark that commits this append. */
  requiredOffset: bigint;
  partition: Partition | undefined;
}

const validationCodes: Record<BatchValidationError, number> = {
  corrupt_message: ErrorCode.CORRUPT_MESSAGE,
  invalid_record: ErrorCode.INVALID_RECORD,
  unsupported_magic: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
  unsupported_compression_type: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
};

const producerCodes: Record<ProducerCheckError, number> = {
  invalid_producer_epoch: ErrorCode.INVALID_PRODUCER_EPOCH,
  out_of_order_sequence: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  invalid_record: ErrorCode.INVALID_RECORD,
};

function failed(index: number, errorCode: number): PartitionResult {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, requiredOffset: -1n, partition: undefined };
}

function appendPartition(ctx: RequestContext, topic: string, index: number, records: unknown, acks: number): PartitionResult | Promise<PartitionResult> {
  const { services } = ctx;
  const p = services.replicaManager.get(topic, index);
  if (!p) {
    return failed(index, services.metadata.topicExists(topic) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  }
  if (!p.isLeader) return failed(index, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (!Buffer.isBuffer(records) || records.length === 0) return failed(index, ErrorCode.CORRUPT_MESSAGE);
  const rules = services.topicRules(topic);
  if (acks === -1 && p.isr.length < rules.minInsyncReplicas) return failed(index, ErrorCode.NOT_ENOUGH_REPLICAS);

  const validation = validateProducedBatch(records, { zstdAllowed: ctx.apiVersion >= 7, singleBatch: true });
  if (!validation.ok) {
    ctx.logger.debug({ topic, partition: index, reason: validation.message, clientId: ctx.clientId }, 'rejected produced batch');
    // Kafka: Produce v3+ may only carry magic 2 (InvalidRecordException);
    // older versions get the message-format error for legacy message sets.
    const code = validation.error === 'unsupported_magic' && ctx.apiVersion >= 3 ? ErrorCode.INVALID_RECORD : validationCodes[validation.error];
    return failed(index, code);
  }
  const header = validation.batches[0];
  if (!header) return failed(index, ErrorCode.CORRUPT_MESSAGE);
  if (header.producerId >= 0n && isTransactionalBatch(header.attributes)) return failed(index, ErrorCode.INVALID_TXN_STATE);
  const batchBytes = BATCH_LOG_OVERHEAD + header.batchLength;
  if (batchBytes > rules.maxMessageBytes) return failed(index, ErrorCode.MESSAGE_TOO_LARGE);
  if (batchBytes > rules.segmentBytes) return failed(index, ErrorCode.RECORD_LIST_TOO_LARGE);

  const codec = topicCodec(rules.compressionType);
  const recompress = needsRecompression(header.attributes, codec);
  if (rules.compacted || recompress || hasQueuedAppends(p)) {
    return serially(p, () => checkAndAppend(ctx, p, topic, records, header, rules, index, recompress ? codec : null));
  }
  return stampAndAppend(ctx, p, records, header, rules, index);
}

/** The queued path: recompress and/or check keys (both await), then append. */
async function checkAndAppend(
  ctx: RequestContext, p: Partition, topic: string, records: Buffer, header: BatchHeader, rules: TopicRules, index: number, codec: Compression | null,
): Promise<PartitionResult> {
  let batch = records;
  let batchHeader = header;
  try {
    if (codec !== null) {
      const rebuilt = await recompressBatch(records, codec);
      batch = rebuilt.batch;
      batchHeader = rebuilt.header;
      const batchBytes = batch.length;
      if (batchBytes > rules.maxMessageBytes) return failed(index, ErrorCode.MESSAGE_TOO_LARGE);
      if (batchBytes > rules.segmentBytes) return failed(index, ErrorCode.RECORD_LIST_TOO_LARGE);
      if (rules.compacted && rebuilt.records.some((r) => r.key === null)) return failed(index, ErrorCode.INVALID_RECORD);
    } else if (rules.compacted && (await batchHasNullKey(records))) {
      return failed(index, ErrorCode.INVALID_RECORD);
    }
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    ctx.logger.debug({ topic, partition: index, reason: err.message, clientId: ctx.clientId }, 'rejected produced batch');
    return failed(index, ErrorCode.CORRUPT_MESSAGE);
  }
  // Leadership may have moved (or the topic gone) while this append waited.
  if (ctx.services.replicaManager.get(topic, index) !== p || !p.isLeader) return failed(index, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  return stampAndAppend(ctx, p, batch, batchHeader, rules, index);
}

function stampAndAppend(ctx: RequestContext, p: Partition, records: Buffer, header: BatchHeader, rules: TopicRules, index: number): PartitionResult {
  const { services } = ctx;
  const nowMs = BigInt(services.clock.nowMs());
  let logAppendTimeMs = -1n;
  if (rules.messageTimestampType === 'LogAppendTime') {
    setLogAppendTime(records, nowMs);
    logAppendTimeMs = nowMs;
  } else {
    // CreateTime: the batch's first and largest timestamps must be within the
    // topic's allowed window (message.timestamp.before/after.max.ms).
    for (const ts of [header.baseTimestamp, records.readBigInt64BE(Offsets.maxTimestamp)]) {
      if (ts < 0n) continue;
      if (nowMs - ts > BigInt(rules.timestampBeforeMaxMs) || ts - nowMs > BigInt(rules.timestampAfterMaxMs)) {
        return failed(index, ErrorCode.INVALID_TIMESTAMP);
      }
    }
  }
  setPartitionLeaderEpoch(records, p.leaderEpoch);
  const producer: ProducerBatchHeader | null = header.producerId >= 0n
    ? { producerId: header.producerId, epoch: header.producerEpoch, baseSequence: header.baseSequence, lastOffsetDelta: header.lastOffsetDelta }
    : null;
  const appended = p.appendClientBatch(records, producer);
  if (appended.kind === 'rejected') {
    ctx.logger.debug({ topic: p.topic, partition: index, reason: appended.message, clientId: ctx.clientId }, 'rejected idempotent batch');
    return failed(index, producerCodes[appended.error]);
  }
  if (appended.kind === 'duplicate') {
    return {
      index,
      errorCode: ErrorCode.NONE,
      baseOffset: appended.baseOffset,
      logAppendTimeMs: rules.messageTimestampType === 'LogAppendTime' ? appended.timestampMs : -1n,
      logStartOffset: p.logStartOffset,
      requiredOffset: appended.lastOffset + 1n,
      partition: p,
    };
  }
  services.traffic.produced(p.topic, records.length, header.recordsCount);
  services.replicaManager.delayedFetches.onAppend(p);
  return {
    index,
    errorCode: ErrorCode.NONE,
    baseOffset: appended.baseOffset,
    logAppendTimeMs,
    logStartOffset: p.logStartOffset,
    requiredOffset: appended.lastOffset + 1n,
    partition: p,
  };
}

export const produceHandler = defineHandler({
  apiKey: 0,
  name: 'Produce',
  minVersion: 0,
  maxVersion: 7,
  request: ProduceRequest,
  response: ProduceResponse,
  async handle(ctx, req) {
    const acks = req.acks;
    // Every append starts here, in request order, before the first await.
    const pending = req.topicData.map((t) => ({
      name: t.name,
      partitions: t.partitionData.map((pd) =>
        acks === 0 || acks === 1 || acks === -1 ? appendPartition(ctx, t.name, pd.index, pd.records, acks) : failed(pd.index, ErrorCode.INVALID_REQUIRED_ACKS),
      ),
    }));
    const results = await Promise.all(pending.map(async (t) => ({ name: t.name, partitions: await Promise.all(t.partitions) })));
    ctx.services.traffic.produceAnswered(results);
    if (acks === 0) return NO_RESPONSE;
    if (acks === -1) {
      // The ISR is this broker alone until the replication issue adds
      // followers (and a delayed-produce wait here), so the high watermark
      // already covers the append; anything else is a broken invariant that
      // the client should retry rather than trust.
      for (const t of results) {
        for (const r of t.partitions) {
          if (r.partition && r.errorCode === ErrorCode.NONE && r.partition.highWatermark < r.requiredOffset) {
            r.errorCode = ErrorCode.REQUEST_TIMED_OUT;
          }
        }
      }
    }
    return {
      responses: results.map((t) => ({
        name: t.name,
        partitionResponses: t.partitions.map((r) => ({
          index: r.index,
          errorCode: r.errorCode,
          baseOffset: r.baseOffset,
          logAppendTimeMs: r.logAppendTimeMs,
          logStartOffset: r.logStartOffset,
        })),
      })),
      throttleTimeMs: 0,
    };
  },
  errorResponse: (req, errorCode) => ({
    responses: req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1n })),
    })),
  }),
});
