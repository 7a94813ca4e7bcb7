// 66 ListTransactions, v0-1 (flexible; KIP-664): the transactional ids this
// broker coordinates, filtered by state names and producer ids (empty = all);
// v1 adds durationFilter (KIP-994: running longer than that many ms, -1 =
// all). Unknown state names come back in unknownStateFilters. An admin
// client asks every broker and merges.
import { AclOperation } from '../../protocol/acl-types.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../../protocol/messages/66-list-transactions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { STATE_IDS } from '../../coordinator/transaction/records.js';
import { defineHandler } from '../handler.js';

export const listTransactionsHandler = defineHandler({
  apiKey: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 1,
  request: ListTransactionsRequest,
  response: ListTransactionsResponse,
  handle(ctx, req) {
    const known = new Set(Object.keys(STATE_IDS));
    const unknownStateFilters = req.stateFilters.filter((s) => !known.has(s));
    const listed = ctx.services.transactions.coordinator.queries.list(
      req.stateFilters.filter((s) => known.has(s)),
      req.producerIdFilters,
      Number(req.durationFilter),
    );
    // Only the transactional ids the principal may DESCRIBE are listed (Kafka's rule).
    // Only unknown state names asked for: nothing can match (Kafka answers none).
    const transactionStates = req.stateFilters.length > 0 && unknownStateFilters.length === req.stateFilters.length
      ? []
      : listed.filter((t) => ctx.authz.transactionalId(AclOperation.DESCRIBE, t.transactionalId, false)).map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, unknownStateFilters: [], transactionStates: [] }),
});
