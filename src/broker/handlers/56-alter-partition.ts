// 56 AlterPartition, v0-3 (flexible from v0; v1 leaderRecoveryState, KIP-704;
// v2 topic ids, KIP-841; v3 ISR members with broker epochs, KIP-903).
// Served on the controller listener only: a partition leader's
// AlterPartitionSender sends it to the active controller, which validates
// and commits the ISR change (src/controller/alter-partition.ts). Not the
// active controller: NOT_CONTROLLER at the top, and the sender retries.
// v0-2 carry a plain ISR: its members' broker epochs are not checked (-1).
import { AlterPartitionRequest, AlterPartitionResponse } from '../../protocol/messages/56-alter-partition.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const alterPartitionHandler = defineHandler({
  apiKey: 56,
  name: 'AlterPartition',
  minVersion: 0,
  maxVersion: 3,
  request: AlterPartitionRequest,
  response: AlterPartitionResponse,
  async handle(ctx, req) {
    const cluster = ctx.services.cluster;
    if (cluster?.lifecycle == null || !cluster.channel.isLocal()) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, topics: [] };
    const version = ctx.apiVersion;
    const answer = await cluster.lifecycle.alterPartition({
      version,
      brokerId: req.brokerId,
      brokerEpoch: req.brokerEpoch,
      topics: req.topics.map((t) => ({
        topicName: t.topicName,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          leaderRecoveryState: p.leaderRecoveryState,
          newIsr: version >= 3 ? p.newIsrWithEpochs : p.newIsr.map((brokerId) => ({ brokerId, brokerEpoch: -1n })),
        })),
      })),
    });
    return { throttleTimeMs: 0, errorCode: answer.errorCode, topics: answer.topics };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, topics: [] }),
});
