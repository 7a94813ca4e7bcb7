// 23 OffsetForLeaderEpoch, v0-4 (v1: response leaderEpoch; v2:
// currentLeaderEpoch fencing (KIP-320) and throttleTimeMs; v3: replicaId;
// v4 flexible). Consumers that validate their position after a leader change
// (Java, librdkafka 2.1+) and, later, followers truncating their logs
// (KIP-101) ask: where does leader epoch E end in your log?
//
// The answer comes from the partition's leader epoch cache (built from the
// partitionLeaderEpoch the leader stamps into every batch header, persisted
// in leader-epoch-checkpoint): for the latest epoch, the log end offset; for
// an older epoch, the start offset of the next larger one, with the largest
// known epoch <= E; for an epoch older than every epoch still in the log
// (its data is below the log start), E and the first retained epoch's start
// offset (the log start), as Kafka answers; for leaderEpoch -1, an epoch
// newer than any known, or a log that never had an epoch, -1/-1 with no
// error.
//
// currentLeaderEpoch (v2+) fences as in Fetch: older than ours answers
// FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH, -1 skips the check. Then
// only the leader answers (NOT_LEADER_OR_FOLLOWER otherwise), as modern Kafka
// does for every replicaId. replicaId (v3+; -1 consumer, -2 debug, >= 0 a
// follower; -2 before v3) is accepted as it is: it only decides Kafka's ACL
// check (CLUSTER_ACTION for followers), and there are no ACLs yet.
// The latest epoch's end is the log end offset even for consumers, as in
// Kafka (no high-watermark bound); on one node the two are equal.
import { leaderEpochError } from '../../replication/replica-manager.js';
import { AclOperation } from '../../protocol/acl-types.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../protocol/messages/23-offset-for-leader-epoch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';

function endOffset(ctx: RequestContext, topic: string, partition: number, currentLeaderEpoch: number, leaderEpoch: number) {
  const none = { partition, leaderEpoch: -1, endOffset: -1n };
  const p = ctx.services.replicaManager.get(topic, partition);
  if (!p) {
    const known = ctx.services.metadata.topic(topic)?.partitions.some((x) => x.partition === partition) ?? false;
    return { ...none, errorCode: known ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }
  const epochError = leaderEpochError(p, currentLeaderEpoch);
  if (epochError !== ErrorCode.NONE) return { ...none, errorCode: epochError };
  if (!p.isLeader) return { ...none, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
  const found = p.endOffsetForEpoch(leaderEpoch);
  return { partition, errorCode: ErrorCode.NONE, leaderEpoch: found.epoch, endOffset: found.endOffset };
}

export const offsetForLeaderEpochHandler = defineHandler({
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  minVersion: 0,
  maxVersion: 4,
  request: OffsetForLeaderEpochRequest,
  response: OffsetForLeaderEpochResponse,
  handle(ctx, req) {
    // CLUSTER_ACTION (followers) allows every topic; otherwise DESCRIBE on each (TOPIC_AUTHORIZATION_FAILED), as Kafka.
    const clusterAction = ctx.authz.cluster(AclOperation.CLUSTER_ACTION, false);
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const allowed = clusterAction || ctx.authz.topic(AclOperation.DESCRIBE, t.topic);
        return {
          topic: t.topic,
          partitions: t.partitions.map((p) => (allowed ? endOffset(ctx, t.topic, p.partition, p.currentLeaderEpoch, p.leaderEpoch) : { partition: p.partition, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, leaderEpoch: -1, endOffset: -1n })),
        };
      }),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode, leaderEpoch: -1, endOffset: -1n })),
    })),
  }),
});
