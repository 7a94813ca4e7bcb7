// 10000 MirrorAppend, v0 (flexible): Tributary's own API (docs/compatibility.md),
// used by `tributary mirror` in exact mode (docs/mirror.md). Each partition's
// batches, copied from the source cluster as they are, go to the
// ReplicaManager with origin `mirror`: appended by this leader at their own
// offsets into a topic whose mirror.state is `active`
// (src/replication/mirror-append.ts), acks=-1 waiting for the high watermark
// as Produce does. Null records append nothing and answer where the partition
// stands, so the mirror can check it before resuming.
//
// Errors per partition: POLICY_VIOLATION (not an active mirror topic),
// OFFSET_OUT_OF_RANGE (the batches do not start at the log end: someone else
// wrote, or a range is missing; nothing is written), INVALID_REQUEST (an
// offset gap between batches), CORRUPT_MESSAGE, NOT_LEADER_OR_FOLLOWER,
// UNKNOWN_TOPIC_OR_PARTITION, REQUEST_TIMED_OUT, INVALID_REQUIRED_ACKS; each
// with a message. The log end, high watermark and log start are answered
// whenever this broker hosts the partition, error or not.
//
// Authorization (src/security/authorizer/api-acls.ts): ALTER on each topic
// (writing a mirror topic's history is managing the topic, more than WRITE).
import { AclOperation } from '../../protocol/acl-types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { MirrorAppendRequest, MirrorAppendResponse } from '../../protocol/messages/10000-mirror-append.js';
import { defineHandler } from '../handler.js';
import type { PartitionAppendResult } from '../../replication/replica-manager.js';
import type { RequestContext } from '../request-context.js';

interface Answer {
  index: number;
  errorCode: number;
  errorMessage: string | null;
  logEndOffset: bigint;
  highWatermark: bigint;
  logStartOffset: bigint;
}

/** The partition's bounds as this broker sees them (-1 when it does not host it). */
function answer(ctx: RequestContext, topic: string, index: number, errorCode: number, errorMessage: string | null): Answer {
  const p = ctx.services.replicaManager.get(topic, index);
  if (p === undefined) return { index, errorCode, errorMessage, logEndOffset: -1n, highWatermark: -1n, logStartOffset: -1n };
  return { index, errorCode, errorMessage, logEndOffset: p.logEndOffset, highWatermark: p.highWatermark, logStartOffset: p.logStartOffset };
}

/** A probe (null records): where the partition stands, or why it cannot take mirrored batches. */
function probe(ctx: RequestContext, topic: string, index: number): Answer {
  const p = ctx.services.replicaManager.get(topic, index);
  if (p === undefined) {
    const known = ctx.services.metadata.topic(topic)?.partitions.some((x) => x.partition === index) ?? false;
    return answer(ctx, topic, index, known ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${index} is not hosted on this broker`);
  }
  if (!p.isLeader) return answer(ctx, topic, index, ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${p.leaderId} leads ${topic}-${index}`);
  const state = ctx.services.topicRules(topic).mirrorState ?? 'none';
  if (state !== 'active') return answer(ctx, topic, index, ErrorCode.POLICY_VIOLATION, `${topic} is not an active mirror topic (mirror.state=${state})`);
  return answer(ctx, topic, index, ErrorCode.NONE, null);
}

export const mirrorAppendHandler = defineHandler({
  apiKey: 10000,
  name: 'MirrorAppend',
  minVersion: 0,
  maxVersion: 0,
  request: MirrorAppendRequest,
  response: MirrorAppendResponse,
  async handle(ctx, req) {
    const allowed = req.topics.map((t) => ctx.authz.topic(AclOperation.ALTER, t.name));
    const entries = req.topics.flatMap((t, i) => (allowed[i] === true ? t.partitions.filter((p) => p.records !== null).map((p) => ({ topic: t.name, partition: p.index, records: p.records })) : []));
    const results = entries.length === 0 ? [] : await ctx.services.replicaManager.appendRecords({ origin: 'mirror', acks: req.acks, timeoutMs: req.timeoutMs, clientId: ctx.clientId, entries });
    const byKey = new Map<string, PartitionAppendResult>(results.map((r) => [`${r.topic}\u0000${r.partition}`, r]));
    for (const r of results) if (r.appendedBytes > 0) ctx.services.traffic.produced(r.topic, r.appendedBytes, r.appendedRecords);
    return {
      throttleTimeMs: 0,
      responses: req.topics.map((t, i) => ({
        name: t.name,
        partitions: t.partitions.map((p): Answer => {
          if (allowed[i] !== true) return { index: p.index, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: `ALTER on topic ${t.name} is required`, logEndOffset: -1n, highWatermark: -1n, logStartOffset: -1n };
          const r = byKey.get(`${t.name}\u0000${p.index}`);
          return r === undefined ? probe(ctx, t.name, p.index) : answer(ctx, t.name, p.index, r.errorCode, r.errorMessage);
        }),
      })),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    responses: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ index: p.index, errorCode, errorMessage: null, logEndOffset: -1n, highWatermark: -1n, logStartOffset: -1n })) })),
  }),
});
