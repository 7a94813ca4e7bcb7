// 8 OffsetCommit, v0-8 (v8 flexible). v0 has no generation or member id (a
// standalone commit); v1 adds them and a per-partition commitTimestamp
// (ignored, as Kafka ignores it since 0.11); v2-4 carry retentionTimeMs; v6
// committedLeaderEpoch; v7 groupInstanceId. Offsets become visible to
// OffsetFetch only after they are stored in __consumer_offsets. sarama sends
// v1, so the range starts at 0 (docs/compatibility.md). READ on the group
// (the connection's gate) and on each topic (TOPIC_AUTHORIZATION_FAILED on
// its partitions, which are not committed).
import { AclOperation } from '../../protocol/acl-types.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/messages/08-offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const offsetCommitHandler = defineHandler({
  apiKey: 8,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 8,
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  async handle(ctx, req) {
    const denied = ctx.services.groups.check(req.groupId, 'offsetCommit');
    if (denied !== ErrorCode.NONE) {
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: denied })) })),
      };
    }
    const readable = req.topics.map((t) => ctx.authz.topic(AclOperation.READ, t.name));
    const offsets = req.topics.flatMap((t, ti) =>
      readable[ti] !== true ? [] : t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        offset: p.committedOffset,
        leaderEpoch: p.committedLeaderEpoch,
        metadata: p.committedMetadata,
      })),
    );
    const r = await ctx.services.groups.coordinator.commitOffsets({
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      retentionTimeMs: req.retentionTimeMs,
      offsets,
    });
    let i = 0;
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t, ti) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: readable[ti] !== true ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : (r.partitions[i++]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR),
        })),
      })),
    };
  },
  errorResponse: (req, errorCode) => ({
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  }),
});
