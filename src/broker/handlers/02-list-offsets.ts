// 2 ListOffsets, v0-7 (v6 flexible; v7 makes MAX_TIMESTAMP official, KIP-734).
// kafka-python pins v1, kafkajs uses up to 3, librdkafka up to 2, platformatic
// up to 7; sarama-era tools (consumer-lag monitors) send v0.
// v0 answers oldStyleOffsets: up to maxNumOffsets offsets at segment
// granularity, as Kafka (legacy-offsets.ts); unknown or unled partitions get
// the same errors as v1+.
// timestamp -2 = earliest (log start offset), -1 = latest (high watermark, or
// the last stable offset for read_committed, v2+), -3 = the offset of the
// record with the largest timestamp (KIP-734), otherwise the first offset whose
// timestamp is >= the given one (-1/-1 when there is none). v4+ checks the
// client's leader epoch and answers with ours. DESCRIBE on each topic
// (TOPIC_AUTHORIZATION_FAILED on its partitions otherwise).
import { AclOperation } from '../../protocol/acl-types.js';
import { leaderEpochError } from '../../replication/replica-manager.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, ListOffsetsRequest, ListOffsetsResponse, MAX_TIMESTAMP } from '../../protocol/messages/02-list-offsets.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { legacyOffsetsBefore } from '../legacy-offsets.js';
import { maxTimestampOffset, offsetForTimestamp } from '../timestamp-lookup.js';

/** replicaId of a consumer (not a follower or a debugging tool). */
const CONSUMER_REPLICA_ID = -1;

export const listOffsetsHandler = defineHandler({
  apiKey: 2,
  name: 'ListOffsets',
  minVersion: 0,
  maxVersion: 7,
  request: ListOffsetsRequest,
  response: ListOffsetsResponse,
  async handle(ctx, req) {
    const rm = ctx.services.replicaManager;
    const readCommitted = req.isolationLevel === 1;
    const topics = req.topics.map(async (t) => {
      const allowed = ctx.authz.topic(AclOperation.DESCRIBE, t.name);
      return {
        name: t.name,
        partitions: await Promise.all(t.partitions.map(async (lp) => {
          const none = { partitionIndex: lp.partitionIndex, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
          if (!allowed) return { ...none, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
          const p = rm.get(t.name, lp.partitionIndex);
          if (!p) {
            const errorCode = ctx.services.metadata.topicExists(t.name) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
            return { ...none, errorCode };
          }
          if (!p.isLeader) return { ...none, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
          const epochError = leaderEpochError(p, lp.currentLeaderEpoch);
          if (epochError !== ErrorCode.NONE) return { ...none, errorCode: epochError };
          if (ctx.apiVersion === 0) {
            const input = { segments: p.log.segmentInfos(), logStartOffset: p.logStartOffset, logEndOffset: p.logEndOffset, highWatermark: p.highWatermark, nowMs: ctx.services.clock.nowMs() };
            const oldStyleOffsets = legacyOffsetsBefore(input, lp.timestamp, lp.maxNumOffsets, req.replicaId === CONSUMER_REPLICA_ID);
            return { partitionIndex: lp.partitionIndex, errorCode: ErrorCode.NONE, oldStyleOffsets };
          }
          const answer = (offset: bigint, timestamp = -1n) => ({
            partitionIndex: lp.partitionIndex,
            errorCode: ErrorCode.NONE,
            timestamp,
            offset,
            leaderEpoch: p.leaderEpoch,
          });
          if (lp.timestamp === EARLIEST_TIMESTAMP) return answer(p.logStartOffset);
          if (lp.timestamp === LATEST_TIMESTAMP) return answer(readCommitted ? p.lastStableOffset : p.highWatermark);
          if (lp.timestamp === MAX_TIMESTAMP) {
            const max = await maxTimestampOffset(p);
            return max ? answer(max.offset, max.timestampMs) : answer(-1n);
          }
          if (lp.timestamp < 0n) return { ...none, errorCode: ErrorCode.INVALID_REQUEST };
          const found = await offsetForTimestamp(p, lp.timestamp);
          return found ? answer(found.offset, found.timestampMs) : answer(-1n);
        })),
      };
    });
    return { throttleTimeMs: 0, topics: await Promise.all(topics) };
  },
  errorResponse: (req, errorCode) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    })),
  }),
});
