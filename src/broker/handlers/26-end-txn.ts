// 26 EndTxn, v0-5 (v3 flexible). Commits or aborts the id's transaction: the
// coordinator writes PrepareCommit/PrepareAbort, answers, then writes the
// markers and CompleteCommit/CompleteAbort. v2+ may answer PRODUCER_FENCED
// (older: INVALID_PRODUCER_EPOCH), v4+ TRANSACTION_ABORTABLE. v5 is
// transaction version 2 (KIP-890 part 2): every end bumps the producer epoch
// and the response carries the producer id and epoch to continue with; a
// delayed retry of an earlier EndTxn is then fenced instead of ending the
// next transaction (KAFKA-17754). v0-4 keep the classic rules.
import { EndTxnRequest, EndTxnResponse } from '../../protocol/messages/26-end-txn.js';
import { codeForVersion } from '../../coordinator/transaction/request-rules.js';
import { defineHandler } from '../handler.js';

export const endTxnHandler = defineHandler({
  apiKey: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 5,
  request: EndTxnRequest,
  response: EndTxnResponse,
  async handle(ctx, req) {
    const r = await ctx.services.transactions.coordinator.endTxn({ ...req, transactionVersion: ctx.apiVersion >= 5 ? 2 : 1 });
    return { throttleTimeMs: 0, errorCode: codeForVersion('endTxn', ctx.apiVersion, r.errorCode), producerId: r.producerId, producerEpoch: r.producerEpoch };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }),
});
