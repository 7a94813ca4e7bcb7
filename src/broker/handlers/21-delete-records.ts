// 21 DeleteRecords, v0-2 (v1: the broker answers before throttling, no wire
// change; v2 flexible). kafkajs and librdkafka send up to v1, platformatic v2.
//
// Moves each partition's log start offset up to the requested offset (-1 =
// the high watermark) and answers the new low watermark. Records below it are
// gone for every reader at once: Fetch below it answers OFFSET_OUT_OF_RANGE
// (consumers reset), ListOffsets earliest answers it, and whole segments
// below it are deleted. Durable before the answer: the log writes
// log-start-offset-checkpoint (fsynced) as part of the move, and fsyncs the
// data first when the new start is past its recovery point.
//
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION (no such topic or
// partition), NOT_LEADER_OR_FOLLOWER (not hosted or not led here),
// OFFSET_OUT_OF_RANGE (above the high watermark, or negative other than -1),
// POLICY_VIOLATION (cleanup.policy without `delete`, as Kafka refuses).
// An offset at or below the current log start changes nothing and answers
// the current start.
//
// Simplifications: timeoutMs is unused; with one replica the move is complete
// when the leader's log moved (with followers, the answer waits until every
// replica's log start reached it, Kafka's DelayedDeleteRecords).
import { AclOperation } from '../../protocol/acl-types.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../../protocol/messages/21-delete-records.js';
import { ErrorCode } from '../../protocol/errors.js';
import { compactionConfigOf } from '../../storage/config.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';

function deletePartition(ctx: RequestContext, topic: string, partition: number, offset: bigint): { lowWatermark: bigint; errorCode: number } {
  const failed = (errorCode: number) => ({ lowWatermark: -1n, errorCode });
  const p = ctx.services.replicaManager.get(topic, partition);
  if (!p) {
    const known = ctx.services.metadata.topic(topic)?.partitions.some((x) => x.partition === partition) ?? false;
    return failed(known ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  }
  if (!p.isLeader) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (!compactionConfigOf(p.log.config).cleanupPolicy.delete) return failed(ErrorCode.POLICY_VIOLATION);
  const r = p.deleteRecordsBefore(offset);
  if (r.kind === 'offset_out_of_range') return failed(ErrorCode.OFFSET_OUT_OF_RANGE);
  ctx.logger.info({ topic, partition, requestedOffset: offset, logStartOffset: r.lowWatermark, clientId: ctx.clientId }, 'deleted records');
  return { lowWatermark: r.lowWatermark, errorCode: ErrorCode.NONE };
}

export const deleteRecordsHandler = defineHandler({
  apiKey: 21,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 2,
  request: DeleteRecordsRequest,
  response: DeleteRecordsResponse,
  handle(ctx, req) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        // DELETE on the topic (TOPIC_AUTHORIZATION_FAILED on its partitions otherwise).
        const allowed = ctx.authz.topic(AclOperation.DELETE, t.name);
        return {
          name: t.name,
          partitions: t.partitions.map((dp) => ({ partitionIndex: dp.partitionIndex, ...(allowed ? deletePartition(ctx, t.name, dp.partitionIndex, dp.offset) : { lowWatermark: -1n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED }) })),
        };
      }),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode })),
    })),
  }),
});
