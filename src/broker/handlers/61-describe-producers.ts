// 61 DescribeProducers, v0 (flexible; KIP-664): the active producers of each
// partition from its leader's producer state (id, epoch, last sequence and
// timestamp, coordinator epoch of the last marker, first offset of the open
// transaction or -1). NOT_LEADER_OR_FOLLOWER when this broker does not lead
// the partition, UNKNOWN_TOPIC_OR_PARTITION when the topic does not exist.
import { AclOperation } from '../../protocol/acl-types.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '../../protocol/messages/61-describe-producers.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';

function describePartition(ctx: RequestContext, topic: string, partitionIndex: number) {
  const p = ctx.services.replicaManager.get(topic, partitionIndex);
  const failed = (errorCode: number, errorMessage: string) => ({ partitionIndex, errorCode, errorMessage, activeProducers: [] });
  if (p === undefined) {
    return ctx.services.metadata.topicExists(topic)
      ? failed(ErrorCode.NOT_LEADER_OR_FOLLOWER, `${topic}-${partitionIndex} is not hosted on this broker`)
      : failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic ${topic}`);
  }
  if (!p.isLeader) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${p.leaderId} leads ${topic}-${partitionIndex}`);
  const activeProducers = [...p.log.producerState.entries()].map((e) => {
    const last = e.batches[e.batches.length - 1];
    return {
      producerId: e.producerId,
      producerEpoch: e.epoch,
      lastSequence: last?.lastSeq ?? -1,
      lastTimestamp: e.lastTimestampMs,
      coordinatorEpoch: e.coordinatorEpoch,
      currentTxnStartOffset: e.currentTxnFirstOffset,
    };
  });
  return { partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers };
}

export const describeProducersHandler = defineHandler({
  apiKey: 61,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  request: DescribeProducersRequest,
  response: DescribeProducersResponse,
  handle(ctx, req) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        // READ on each topic (Kafka's rule for DescribeProducers).
        const allowed = ctx.authz.topic(AclOperation.READ, t.name);
        return {
          name: t.name,
          partitions: t.partitionIndexes.map((n) => (allowed ? describePartition(ctx, t.name, n) : { partitionIndex: n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null, activeProducers: [] })),
        };
      }),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode, errorMessage: null, activeProducers: [] })) })),
  }),
});
