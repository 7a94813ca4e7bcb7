// 10 FindCoordinator, v0-4 (v3 flexible; v4 batches keys in coordinatorKeys[]
// and answers coordinators[], KIP-699). keyType 0 = consumer group: the leader
// of the group's __consumer_offsets partition, creating that topic on first
// use (offsets.topic.num.partitions). keyType 1 = transaction: the leader of
// the id's __transaction_state partition, creating that topic on first use
// (transaction.state.log.num.partitions; src/coordinator/transaction).
// librdkafka needs v0 in range for consumer groups and, oddly, for lz4.
// DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED) or the transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), key by key.
import { AclOperation } from '../../protocol/acl-types.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/messages/10-find-coordinator.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';
import type { CoordinatorLocation } from '../../coordinator/group/group-service.js';

const KEY_TYPE_GROUP = 0;
const KEY_TYPE_TRANSACTION = 1;

function locate(ctx: RequestContext, key: string, keyType: number): Promise<CoordinatorLocation> {
  const none = { nodeId: -1, host: '', port: -1 };
  if (keyType === KEY_TYPE_TRANSACTION) {
    if (!ctx.authz.transactionalId(AclOperation.DESCRIBE, key)) return Promise.resolve({ errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: null, ...none });
    if (key === '') return Promise.resolve({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'empty transactional id', ...none });
    return ctx.services.transactions.findTransactionCoordinator(key, ctx.listenerName);
  }
  if (keyType !== KEY_TYPE_GROUP) {
    return Promise.resolve({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `unknown coordinator key type ${keyType}`, ...none });
  }
  if (!ctx.authz.group(AclOperation.DESCRIBE, key)) return Promise.resolve({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null, ...none });
  return ctx.services.groups.findGroupCoordinator(key, ctx.listenerName);
}

export const findCoordinatorHandler = defineHandler({
  apiKey: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 4,
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  async handle(ctx, req) {
    if (ctx.apiVersion >= 4) {
      const coordinators = await Promise.all(
        req.coordinatorKeys.map(async (key) => {
          const at = await locate(ctx, key, req.keyType);
          return { key, nodeId: at.nodeId, host: at.host, port: at.port, errorCode: at.errorCode, errorMessage: at.errorMessage };
        }),
      );
      return { throttleTimeMs: 0, coordinators };
    }
    const at = await locate(ctx, req.key, req.keyType);
    return { throttleTimeMs: 0, ...at };
  },
  errorResponse: (req, errorCode) => ({
    errorCode,
    coordinators: req.coordinatorKeys.map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: null })),
  }),
});
