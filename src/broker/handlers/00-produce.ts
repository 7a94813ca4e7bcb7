// 0 Produce, v0-7. Every client sends v7; the range starts at 0 because
// librdkafka 2.0.2 only compresses with gzip/snappy/lz4 when Produce v0 is in
// range (rdkafka_msgset_writer.c compr_req[]), needs 3 for MSGVER2 and 7 for
// zstd. v0-v2 requests are decoded and answered, but their legacy message
// sets (magic 0/1) are refused with UNSUPPORTED_FOR_MESSAGE_FORMAT, as Kafka 4
// refuses them; only record batch v2 is stored. No flexible version in range.
//
// The handler decodes, hands every partition's batch to the ReplicaManager
// (src/replication/replica-manager.ts), which validates and stamps it
// (append-validator.ts: size, magic, CRC-32C, counts, timestamps, keys on
// compacted topics, recompression, LogAppendTime, leader epoch), checks the
// idempotent producer state, keeps per-partition append order, and for
// acks=-1 waits until the high watermark covers the batch (REQUEST_TIMED_OUT
// after timeoutMs; NOT_ENOUGH_REPLICAS when the ISR is smaller than
// min.insync.replicas). All appends that need not await happen inside the
// handle call, so pipelined produce requests land in request order; when
// none awaits (acks 0 or 1, no queued append) the response is built in the
// same call, without a promise.
//
// acks=0 sends no response. An idempotent retry of one of the producer's
// last 5 batches answers NONE with the ORIGINAL base offset (Kafka does not
// send DUPLICATE_SEQUENCE_NUMBER to clients; rules in
// src/storage/producer-state/README.md).
//
// Transactional batches (KIP-98) need the request's transactionalId
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise, as Kafka) and open or
// continue the producer's transaction on the partition, which holds the last
// stable offset back until the coordinator's marker (WriteTxnMarkers). With
// a TransactionVerifier set on the ReplicaManager, the first batch of a
// transaction on a partition is verified with the coordinator first
// (KIP-890 part 1; src/replication/txn-verification.ts).
//
// Authorization (src/security/authorizer/api-acls.ts): WRITE on the
// transactional id for the whole request (the connection's gate), WRITE on
// each topic here: a denied topic's partitions get TOPIC_AUTHORIZATION_FAILED
// and are not appended, the others are (one cached decision per topic).
import { AclOperation } from '../../protocol/acl-types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ProduceRequest, ProduceResponse } from '../../protocol/messages/00-produce.js';
import { defineHandler, NO_RESPONSE } from '../handler.js';
import type { RequestContext } from '../request-context.js';
import type { AppendEntry, PartitionAppendResult } from '../../replication/replica-manager.js';

type ProduceTopic = ProduceRequest['topicData'][number];

export const produceHandler = defineHandler({
  apiKey: 0,
  name: 'Produce',
  minVersion: 0,
  maxVersion: 7,
  request: ProduceRequest,
  response: ProduceResponse,
  // Not async: when every batch is appended inside the call (acks 0 or 1, no
  // queued append), the answer is built in the same turn, with no promise
  // per request (bench/README.md, "Per-request cost").
  handle(ctx, req) {
    const denied = ctx.authz.enabled ? req.topicData.map((t) => !ctx.authz.topic(AclOperation.WRITE, t.name)) : null;
    const allowedTopics = denied === null || !denied.includes(true) ? req.topicData : req.topicData.filter((_t, i) => denied[i] !== true);
    const results = ctx.services.replicaManager.appendRecordsNow({
      origin: 'client',
      acks: req.acks,
      timeoutMs: req.timeoutMs,
      produceVersion: ctx.apiVersion,
      clientId: ctx.clientId,
      transactionalId: req.transactionalId ?? null,
      entries: entriesOf(allowedTopics),
    });
    if (results instanceof Promise) return results.then((r) => answer(ctx, req, allowedTopics, denied, r));
    return answer(ctx, req, allowedTopics, denied, results);
  },
  errorResponse: (req, errorCode) => ({
    responses: req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1n })),
    })),
  }),
});

/** One entry per partition, in request order; the array made at its final size (a push-grown one starts with spare room). */
function entriesOf(topics: readonly ProduceTopic[]): AppendEntry[] {
  let count = 0;
  for (let i = 0; i < topics.length; i++) count += (topics[i] as ProduceTopic).partitionData.length;
  const entries = new Array<AppendEntry>(count);
  let at = 0;
  for (let i = 0; i < topics.length; i++) {
    const t = topics[i] as ProduceTopic;
    for (let j = 0; j < t.partitionData.length; j++) {
      const pd = t.partitionData[j] as ProduceTopic['partitionData'][number];
      entries[at++] = { topic: t.name, partition: pd.index, records: pd.records };
    }
  }
  return entries;
}

/** Counts the appends (traffic metrics) and builds the response from the results (entry order). */
function answer(ctx: RequestContext, req: ProduceRequest, allowedTopics: readonly ProduceTopic[], denied: readonly boolean[] | null, results: readonly PartitionAppendResult[]) {
  const { traffic } = ctx.services;
  // One pass, no wrapper for TrafficMetrics.produceAnswered: the same counts, with no array or object per request.
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as PartitionAppendResult;
    if (r.appendedBytes > 0) traffic.produced(r.topic, r.appendedBytes, r.appendedRecords);
    if (r.errorCode !== ErrorCode.NONE) traffic.partitionError(0, r.errorCode);
  }
  if (req.acks === 0) return NO_RESPONSE;
  if (allowedTopics !== req.topicData) return withDenied(req, regroup(results, allowedTopics), denied as boolean[]);
  let at = 0;
  const responses = new Array<{ name: string; partitionResponses: ReturnType<typeof partitionResponse>[] }>(req.topicData.length);
  for (let i = 0; i < req.topicData.length; i++) {
    const t = req.topicData[i] as ProduceTopic;
    const partitionResponses = new Array<ReturnType<typeof partitionResponse>>(t.partitionData.length);
    for (let j = 0; j < t.partitionData.length; j++) partitionResponses[j] = partitionResponse(results[at++] as PartitionAppendResult);
    responses[i] = { name: t.name, partitionResponses };
  }
  return { responses, throttleTimeMs: 0 };
}

function partitionResponse(r: PartitionAppendResult) {
  return { index: r.partition, errorCode: r.errorCode, baseOffset: r.baseOffset, logAppendTimeMs: r.logAppendTimeMs, logStartOffset: r.logStartOffset };
}

/** The response when some topics were denied: their partitions TOPIC_AUTHORIZATION_FAILED, the others' results in request order. */
function withDenied(req: ProduceRequest, allowedResults: PartitionAppendResult[][], denied: readonly boolean[]) {
  let next = 0;
  return {
    responses: req.topicData.map((t, i) => ({
      name: t.name,
      partitionResponses: denied[i] === true
        ? t.partitionData.map((p) => ({ index: p.index, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n }))
        : (allowedResults[next++] ?? []).map(partitionResponse),
    })),
    throttleTimeMs: 0,
  };
}

/** Splits the flat results (entry order) back into the allowed topics. */
function regroup(results: readonly PartitionAppendResult[], topics: readonly ProduceTopic[]): PartitionAppendResult[][] {
  let at = 0;
  return topics.map((t) => results.slice(at, (at += t.partitionData.length)));
}
