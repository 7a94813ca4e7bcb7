// 65 DescribeTransactions, v0 (flexible; KIP-664): the coordinator's record
// of each transactional id. NOT_COORDINATOR for ids this broker does not
// coordinate, COORDINATOR_LOAD_IN_PROGRESS while their partition loads,
// TRANSACTIONAL_ID_NOT_FOUND for unknown ids (Kafka's answers).
import { AclOperation } from '../../protocol/acl-types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../../protocol/messages/65-describe-transactions.js';
import { defineHandler } from '../handler.js';

export const describeTransactionsHandler = defineHandler({
  apiKey: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  handle(ctx, req) {
    const coordinator = ctx.services.transactions.coordinator;
    const transactionStates = req.transactionalIds.map((id) => {
      // DESCRIBE on each transactional id; partitions of topics the principal may not describe are left out (Kafka's rule).
      if (!ctx.authz.transactionalId(AclOperation.DESCRIBE, id)) {
        return { errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionalId: id, transactionState: '', transactionTimeoutMs: -1, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] };
      }
      const d = coordinator.queries.describe(id, coordinator.shardOf(id));
      const byTopic = new Map<string, number[]>();
      for (const tp of d.partitions) if (ctx.authz.topic(AclOperation.DESCRIBE, tp.topic, false)) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
      return {
        errorCode: d.errorCode,
        transactionalId: id,
        transactionState: d.state,
        transactionTimeoutMs: d.transactionTimeoutMs,
        transactionStartTimeMs: BigInt(d.transactionStartTimeMs),
        producerId: d.producerId,
        producerEpoch: d.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    transactionStates: req.transactionalIds.map((transactionalId) => ({
      errorCode, transactionalId, transactionState: '', transactionTimeoutMs: -1, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [],
    })),
  }),
});
