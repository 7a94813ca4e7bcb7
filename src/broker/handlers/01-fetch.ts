// 1 Fetch, v4-13 (4 is the first with record batch v2 and the oldest any of
// our clients sends: kafka-python pins it; librdkafka needs 4 in range for
// MSGVER2 and 10 for zstd). v12 is flexible, with diverging epoch, current
// leader and snapshot id as tagged fields. v13 (KIP-516) names topics by id in
// the request and the response (and in forgottenTopicsData): ids are mapped
// to names through the metadata image before the read, and an id the image
// does not know answers UNKNOWN_TOPIC_ID on each of its partitions, as Kafka
// does. Clients that learn ids from Metadata v10+ (platformatic) fetch with
// v13. Not advertised: v14 (tiered storage's error, harmless but untested),
// v15 (replicaId moves into the tagged replicaState, which consumers leave
// unset and followers need), v16 (nodeEndpoints for currentLeader hints) and
// v17 (replicaDirectoryId, KIP-853) until each is actually served.
//
// Records are returned as the stored bytes (no copy between the file read and
// the socket), read into the broker's recycled buffers (services.ioBuffers),
// which go back to the pool once the response is written. The
// read stops at the high watermark (read_uncommitted) or the last stable
// offset (read_committed, KIP-98), and a read_committed answer lists the
// aborted transactions (producerId, firstOffset) overlapping what it returns,
// from the segments' .txnindex (src/storage/txn-index.ts), so the consumer
// drops their records; the broker never looks inside the batches. The response's total
// maxBytes and each partition's partitionMaxBytes bound the data, except that
// the first partition with data returns at least one whole batch so a large
// batch cannot stall a consumer (KIP-74).
//
// Long poll: with fewer than minBytes available the request waits (up to
// maxWaitMs) for appends, without blocking the connection. Reading, leader
// epoch checks (KIP-320) and the wait live in ReplicaManager.fetchRecords
// (src/replication/replica-manager.ts); this handler decodes and shapes the
// response.
//
// Follower fetches (replicaId >= 0, from another broker's ReplicaFetcher)
// read up to the log end instead of the high watermark and report the
// follower's position (its fetch offset) to the partition, which moves the
// high watermark and the ISR. A fetch whose lastFetchedEpoch (v12+) diverges
// from this log gets DivergingEpoch and no records (KIP-320), follower or
// consumer.
//
// Fetch from follower (KIP-392): a v11+ consumer fetch may be served by a
// follower, up to the high watermark it learnt from its leader; with
// replica.selector.class set, a leader answers a consumer that gave its
// rackId with PreferredReadReplica (and no records) when an in-sync replica
// in that rack suits it better (src/replication/replica-selector.ts).
//
// Fetch sessions (KIP-227, v7+): src/broker/fetch-sessions.ts keeps them; an
// incremental fetch reads every partition of its session and answers only
// those with news. A fetch of
// __cluster_metadata-0 on a node with a metadata quorum is Raft's
// (src/controller/quorum/wire.ts) and is answered by it.
//
// Authorization (src/security/authorizer/api-acls.ts): READ on each topic
// for consumers, CLUSTER_ACTION on the cluster for followers (replicaId >=
// 0); a denied topic's partitions answer TOPIC_AUTHORIZATION_FAILED and are
// neither read nor kept in the fetch session. The metadata log needs
// CLUSTER_ACTION (CLUSTER_AUTHORIZATION_FAILED otherwise, as Kafka's
// controller).
import { AclOperation } from '../../protocol/acl-types.js';
import { FetchRequest, FetchResponse } from '../../protocol/messages/01-fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { RecordChunks } from '../../protocol/schema.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';
import { isRaftFetch } from '../../controller/quorum/wire.js';
import type { FetchPartitionResult, FetchResult } from '../../replication/replica-manager.js';
import { FINAL_EPOCH, INVALID_SESSION_ID, partitionKey, type FetchContext, type FetchSession, type RequestedPartition, type UnresolvedPartition } from '../fetch-sessions.js';

const EMPTY = Buffer.alloc(0);

/** First version with the consumer's rackId and PreferredReadReplica (KIP-392). */
const RACK_ID_VERSION = 11;
/** First version with fetch sessions (KIP-227). */
const SESSION_VERSION = 7;
/** First version whose topics are named by id (KIP-516). */
const TOPIC_ID_VERSION = 13;

type RequestTopic = FetchRequest['topics'][number];
/** A request topic with its name: given (v4-12) or resolved from its id (v13; undefined when unknown); `denied` when the principal may not read it. */
interface NamedTopic {
  readonly topic: string;
  readonly topicId: string;
  readonly partitions: RequestTopic['partitions'];
  readonly name: string | undefined;
  readonly denied: boolean;
}

// The shaping below is written as plain loops building objects of fixed
// fields (no spreads, no map/filter chains): it runs for every Fetch, and at
// linger 0 that is once per record (bench/README.md, "Per-request cost").
function named(ctx: RequestContext, req: FetchRequest): NamedTopic[] {
  const byId = ctx.apiVersion >= TOPIC_ID_VERSION;
  // Followers need CLUSTER_ACTION; consumers READ on each topic (Kafka's KafkaApis.handleFetchRequest).
  const checked = ctx.authz.enabled;
  const follower = req.replicaId >= 0;
  const clusterAction = checked && follower && ctx.authz.cluster(AclOperation.CLUSTER_ACTION);
  const out = new Array<NamedTopic>(req.topics.length);
  for (let i = 0; i < req.topics.length; i++) {
    const t = req.topics[i] as RequestTopic;
    const name = byId ? ctx.services.metadata.topicNameById(t.topicId) : t.topic;
    const denied = checked && name !== undefined && (follower ? !clusterAction : !ctx.authz.topic(AclOperation.READ, name));
    out[i] = { topic: t.topic, topicId: t.topicId, partitions: t.partitions, name, denied };
  }
  return out;
}

/** The partitions to read, named (unknown and denied topics left out). */
function requestedOf(topics: readonly NamedTopic[]): RequestedPartition[] {
  const out: RequestedPartition[] = [];
  for (const t of topics) {
    if (unanswerable(t)) continue;
    const topic = t.name as string;
    for (const p of t.partitions) {
      out.push({ topic, topicId: t.topicId, partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch });
    }
  }
  return out;
}

/** The partitions of topic ids not known here (v13): a session keeps them until their ids resolve (fetch-sessions.ts). */
function unresolvedOf(topics: readonly NamedTopic[]): UnresolvedPartition[] {
  const out: UnresolvedPartition[] = [];
  for (const t of topics) {
    if (t.name !== undefined || t.denied) continue;
    for (const p of t.partitions) {
      out.push({ topicId: t.topicId, partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch });
    }
  }
  return out;
}

/** A topic answered with one error on every partition: an unknown id (UNKNOWN_TOPIC_ID) or a denied topic. */
function unknownTopicId(t: NamedTopic) {
  return errorTopic(t.denied ? (t.name ?? '') : '', t.topicId, t.partitions.map((p) => p.partition), t.denied ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.UNKNOWN_TOPIC_ID);
}

function errorTopic(topic: string, topicId: string, partitions: readonly number[], errorCode: number) {
  return { topic, topicId, partitions: partitions.map((partitionIndex) => ({ partitionIndex, errorCode, highWatermark: -1n, records: EMPTY })) };
}

const unanswerable = (t: NamedTopic): boolean => t.name === undefined || t.denied;

const SESSIONLESS: FetchContext = { kind: 'sessionless' };

function recordsOf(r: FetchPartitionResult): RecordChunks | Buffer {
  if (r.bytes === 0) return EMPTY;
  return r.chunks.length === 1 ? (r.chunks[0] as Buffer) : { chunks: r.chunks, byteLength: r.bytes };
}

/** The fetch session of this request (KIP-227, Fetch v7+), closed, opened, checked or updated. */
function sessionContext(ctx: RequestContext, req: FetchRequest, topics: readonly NamedTopic[], requested: readonly RequestedPartition[]): FetchContext {
  if (ctx.apiVersion < SESSION_VERSION) return SESSIONLESS;
  // No session and none wanted (epoch -1: kafkajs, librdkafka): nothing to build.
  if (req.sessionId === INVALID_SESSION_ID && req.sessionEpoch === FINAL_EPOCH) return SESSIONLESS;
  const { metadata } = ctx.services;
  const forgotten: { topic: string; partition: number }[] = [];
  const forgottenIds: { topicId: string; partition: number }[] = [];
  for (const f of req.forgottenTopicsData) {
    const name = ctx.apiVersion >= TOPIC_ID_VERSION ? metadata.topicNameById(f.topicId) : f.topic;
    for (const partition of f.partitions) {
      if (name !== undefined) forgotten.push({ topic: name, partition });
      // The id may have been unresolved when the partition was added, whatever it is now.
      if (ctx.apiVersion >= TOPIC_ID_VERSION) forgottenIds.push({ topicId: f.topicId, partition });
    }
  }
  const unresolved = ctx.apiVersion >= TOPIC_ID_VERSION ? unresolvedOf(topics) : [];
  return ctx.services.fetchSessions.begin(req.sessionId, req.sessionEpoch, requested, forgotten, ctx.services.clock.nowMs(), {
    unresolved,
    forgotten: forgottenIds,
    nameOf: (topicId) => metadata.topicNameById(topicId),
  });
}

/** Partitions grouped by topic, topics in first-seen order. */
function groupByTopic<P extends RequestedPartition>(partitions: readonly P[]): { topic: string; topicId: string; partitions: P[] }[] {
  // One topic (the usual consumer's or follower's fetch): no map.
  const first = partitions[0];
  let oneTopic = first !== undefined;
  for (let i = 1; oneTopic && i < partitions.length; i++) oneTopic = (partitions[i] as P).topic === (first as P).topic;
  if (oneTopic) return [{ topic: (first as P).topic, topicId: (first as P).topicId, partitions: partitions as P[] }];
  const out = new Map<string, { topic: string; topicId: string; partitions: P[] }>();
  for (const p of partitions) {
    let t = out.get(p.topic);
    if (t === undefined) out.set(p.topic, (t = { topic: p.topic, topicId: p.topicId, partitions: [] }));
    t.partitions.push(p);
  }
  return [...out.values()];
}

/** A full answer has every partition (a session remembers what it said); an incremental one only the changed ones. */
function keepInAnswer(ctx: RequestContext, session: FetchContext, topic: string, r: FetchPartitionResult): boolean {
  if (session.kind === 'sessionless' || session.kind === 'error') return true;
  const cached = session.session.partitions.get(partitionKey(topic, r.partition));
  if (cached === undefined) return true;
  const mustRespond = ctx.services.fetchSessions.answered(cached, r);
  return session.kind === 'full' || mustRespond;
}

function partitionAnswer(r: FetchPartitionResult, readCommitted: boolean) {
  const answer = {
    partitionIndex: r.partition,
    errorCode: r.errorCode,
    highWatermark: r.highWatermark,
    lastStableOffset: r.lastStableOffset,
    logStartOffset: r.logStartOffset,
    // A partition that was not read (not led here, fenced epoch: no high watermark) carries none.
    abortedTransactions: readCommitted && r.highWatermark >= 0n ? abortedOf(r) : null,
    preferredReadReplica: r.preferredReadReplica ?? -1,
    records: recordsOf(r),
  };
  return r.divergingEpoch === undefined ? answer : { ...answer, divergingEpoch: r.divergingEpoch };
}

type AnsweredTopic = { topic: string; topicId: string; partitions: ReturnType<typeof partitionAnswer>[] };

/** The topics read, each with the partitions its answer keeps (an incremental answer drops topics left with none). */
function answeredTopics(ctx: RequestContext, session: FetchContext, fetched: FetchResult['topics'], byTopic: readonly { topicId: string }[], readCommitted: boolean): AnsweredTopic[] {
  const out: AnsweredTopic[] = [];
  for (let i = 0; i < fetched.length; i++) {
    const t = fetched[i] as FetchResult['topics'][number];
    const partitions: ReturnType<typeof partitionAnswer>[] = [];
    for (const r of t.partitions) if (keepInAnswer(ctx, session, t.topic, r)) partitions.push(partitionAnswer(r, readCommitted));
    if (session.kind === 'incremental' && partitions.length === 0) continue;
    out.push({ topic: t.topic, topicId: byTopic[i]?.topicId ?? '', partitions });
  }
  return out;
}

/**
 * An incremental answer: denied topics of the request and every partition of
 * the session whose topic id is still unknown here (UNKNOWN_TOPIC_ID, as
 * Kafka answers them until they resolve), then the topics with news.
 */
function incrementalOrder(topics: readonly NamedTopic[], session: FetchSession, answered: readonly AnsweredTopic[]): (AnsweredTopic | ReturnType<typeof unknownTopicId>)[] {
  const out: (AnsweredTopic | ReturnType<typeof unknownTopicId>)[] = [];
  for (const t of topics) if (t.denied) out.push(unknownTopicId(t));
  if (session.unresolved.size > 0) {
    const byId = new Map<string, number[]>();
    for (const u of session.unresolved.values()) {
      const list = byId.get(u.topicId);
      if (list === undefined) byId.set(u.topicId, [u.partition]);
      else list.push(u.partition);
    }
    for (const [topicId, partitions] of byId) out.push(errorTopic('', topicId, partitions, ErrorCode.UNKNOWN_TOPIC_ID));
  }
  for (const a of answered) out.push(a);
  return out;
}

/** The request's topics in its order: answered ones as read, unknown ids as UNKNOWN_TOPIC_ID. */
function inRequestOrder(topics: readonly NamedTopic[], answered: readonly AnsweredTopic[]): (AnsweredTopic | ReturnType<typeof unknownTopicId>)[] {
  // One topic read and named once (the common fetch): no map.
  if (topics.length === 1 && answered.length === 1 && !unanswerable(topics[0] as NamedTopic) && (answered[0] as AnsweredTopic).topic === (topics[0] as NamedTopic).name) return [answered[0] as AnsweredTopic];
  const byName = new Map(answered.map((t) => [t.topic, t]));
  const out: (AnsweredTopic | ReturnType<typeof unknownTopicId>)[] = [];
  for (const t of topics) {
    if (t.name === undefined || t.denied) {
      out.push(unknownTopicId(t));
      continue;
    }
    // A topic named twice in a request was read once, with all its partitions.
    const a = byName.get(t.name);
    if (a === undefined) continue;
    byName.delete(t.name);
    out.push(a);
  }
  return out;
}

/** The response's (producerId, firstOffset) pairs of the aborted transactions in range. */
function abortedOf(r: FetchPartitionResult): { producerId: bigint; firstOffset: bigint }[] {
  return (r.abortedTransactions ?? []).map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset }));
}

/** The response to the records read: answered partitions, session bookkeeping, and the read buffers released once it is written. */
function fetchResponse(ctx: RequestContext, session: Exclude<FetchContext, { kind: 'error' }>, topics: readonly NamedTopic[], byTopic: readonly { topicId: string }[], fetched: FetchResult, readCommitted: boolean) {
  const answered = answeredTopics(ctx, session, fetched.topics, byTopic, readCommitted);
  const responses = session.kind === 'incremental' ? incrementalOrder(topics, session.session, answered) : inRequestOrder(topics, answered);
  ctx.services.traffic.fetchAnswered(responses);
  const { buffers } = fetched;
  // The records point into pooled buffers: they go back once the response is on the socket.
  if (buffers.length > 0) {
    const { ioBuffers } = ctx.services;
    ctx.afterResponseWritten(() => { for (const b of buffers) ioBuffers.release(b); });
  }
  const sessionId = session.kind === 'sessionless' ? INVALID_SESSION_ID : session.session.id;
  return { throttleTimeMs: 0, errorCode: 0, sessionId, responses };
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 13,
  request: FetchRequest,
  response: FetchResponse,
  // Not async: when the records are there (a consumer that keeps up finds its record on most
  // fetches) the answer is made in this call, with no promise or suspended frame per request.
  handle(ctx, req) {
    // A controller fetching the metadata log (KRaft replication) goes to the node's Raft.
    if (ctx.services.raft !== undefined && isRaftFetch(req)) {
      if (!ctx.authz.cluster(AclOperation.CLUSTER_ACTION)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, sessionId: INVALID_SESSION_ID, responses: [] };
      return ctx.services.raft.fetch(req, ctx.apiVersion);
    }
    const { ioBuffers } = ctx.services;
    const readCommitted = req.isolationLevel === 1;
    const topics = named(ctx, req);
    const requested = requestedOf(topics);
    const session = sessionContext(ctx, req, topics, requested);
    if (session.kind === 'error') return { throttleTimeMs: 0, errorCode: session.errorCode, sessionId: INVALID_SESSION_ID, responses: [] };
    const toFetch = session.kind === 'incremental' ? [...session.session.partitions.values()] : requested;
    const byTopic = groupByTopic(toFetch);
    const fetched = ctx.services.replicaManager.readOrWait({
      replicaId: req.replicaId,
      // v11+ consumers may read from followers and be sent to one (KIP-392).
      clientRack: ctx.apiVersion >= RACK_ID_VERSION && req.replicaId < 0 ? req.rackId : undefined,
      topics: byTopic,
      readCommitted,
      maxBytes: req.maxBytes,
      minBytes: req.minBytes,
      maxWaitMs: req.maxWaitMs,
      allocate: ioBuffers.allocate,
      release: ioBuffers.releaseFn,
    });
    if (fetched instanceof Promise) return fetched.then((f) => fetchResponse(ctx, session, topics, byTopic, f, readCommitted));
    return fetchResponse(ctx, session, topics, byTopic, fetched, readCommitted);
  },
  errorResponse: (req, errorCode) => ({
    errorCode,
    responses: req.topics.map((t) => ({
      topic: t.topic,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode, highWatermark: -1n, records: EMPTY })),
    })),
  }),
});
