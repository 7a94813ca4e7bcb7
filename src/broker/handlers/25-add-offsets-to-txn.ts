// 25 AddOffsetsToTxn, v0-4 (v3 flexible): the group's __consumer_offsets
// partition joins the transaction, so its TxnOffsetCommit is completed by
// the transaction's marker. v2+ may answer PRODUCER_FENCED (older:
// INVALID_PRODUCER_EPOCH); v4 TRANSACTION_ABORTABLE (KIP-890). Waits for the
// previous transaction's markers (at most 100 ms) before answering
// CONCURRENT_TRANSACTIONS (src/broker/txn-concurrent-wait.ts).
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/messages/25-add-offsets-to-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { codeForVersion } from '../../coordinator/transaction/request-rules.js';
import { defineHandler } from '../handler.js';
import { afterMarkerPhase } from '../txn-concurrent-wait.js';

export const addOffsetsToTxnHandler = defineHandler({
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 4,
  request: AddOffsetsToTxnRequest,
  response: AddOffsetsToTxnResponse,
  async handle(ctx, req) {
    if (req.groupId === '') return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    const coordinator = ctx.services.transactions.coordinator;
    const code = await afterMarkerPhase(coordinator, req.transactionalId, () => coordinator.addOffsets(req, req.groupId, ctx.services.groups.numPartitions));
    return { throttleTimeMs: 0, errorCode: codeForVersion('addOffsetsToTxn', ctx.apiVersion, code) };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode }),
});
