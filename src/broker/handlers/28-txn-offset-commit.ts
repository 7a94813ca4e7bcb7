// 28 TxnOffsetCommit, v0-4 (v3 flexible), sent to the GROUP coordinator.
// The offsets are written to the group's __consumer_offsets partition as a
// transactional batch of the producer and stay pending (invisible to
// OffsetFetch; UNSTABLE_OFFSET_COMMIT for RequireStable) until the
// transaction's marker reaches that partition
// (src/coordinator/group/coordinator-txn-offsets.ts). v2: committedLeaderEpoch.
// v3: generationId, memberId and groupInstanceId fence zombie members
// (KIP-447). v4: TRANSACTION_ABORTABLE may be returned (KIP-890).
import { AclOperation } from '../../protocol/acl-types.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/messages/28-txn-offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isValidGroupId } from '../../coordinator/group/request-rules.js';
import { codeForVersion } from '../../coordinator/transaction/request-rules.js';
import { defineHandler } from '../handler.js';

type Req = TxnOffsetCommitRequest;

function allPartitions(req: Req, errorCode: number) {
  return req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

export const txnOffsetCommitHandler = defineHandler({
  apiKey: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 4,
  request: TxnOffsetCommitRequest,
  response: TxnOffsetCommitResponse,
  async handle(ctx, req) {
    if (!isValidGroupId(req.groupId, 'txnOffsetCommit')) return { throttleTimeMs: 0, topics: allPartitions(req, ErrorCode.INVALID_GROUP_ID) };
    const denied = ctx.services.groups.check(req.groupId, 'txnOffsetCommit');
    if (denied !== ErrorCode.NONE) return { throttleTimeMs: 0, topics: allPartitions(req, denied) };
    // READ on each topic (WRITE on the transactional id and READ on the group are the connection's gate): denied topics are not committed.
    const unreadable = new Set(req.topics.filter((t) => !ctx.authz.topic(AclOperation.READ, t.name)).map((t) => t.name));
    const deniedTopics = req.topics.filter((t) => unreadable.has(t.name)).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) }));
    if (unreadable.size === req.topics.length && unreadable.size > 0) return { throttleTimeMs: 0, topics: deniedTopics };
    const r = await ctx.services.groups.coordinator.commitTxnOffsets({
      transactionalId: req.transactionalId,
      groupId: req.groupId,
      producerId: req.producerId,
      producerEpoch: req.producerEpoch,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      offsets: req.topics.filter((t) => !unreadable.has(t.name)).flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata })),
      ),
    });
    const byTopic = new Map<string, { partitionIndex: number; errorCode: number }[]>();
    for (const p of r.partitions) {
      const list = byTopic.get(p.topic) ?? [];
      list.push({ partitionIndex: p.partition, errorCode: codeForVersion('txnOffsetCommit', ctx.apiVersion, p.errorCode) });
      byTopic.set(p.topic, list);
    }
    return { throttleTimeMs: 0, topics: [...[...byTopic].map(([name, partitions]) => ({ name, partitions })), ...deniedTopics] };
  },
  errorResponse: (req, errorCode) => ({ throttleTimeMs: 0, topics: allPartitions(req, errorCode) }),
});
