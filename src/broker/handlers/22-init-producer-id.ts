// 22 InitProducerId, v0-5 (v2 flexible). v0-2: a new producer id at epoch
// 0. v3+: producerId/producerEpoch may carry the producer's current id and
// epoch to bump the epoch (KIP-360); v4 may answer PRODUCER_FENCED where v3
// gets INVALID_PRODUCER_EPOCH (KIP-588). v5: TRANSACTION_ABORTABLE may be
// returned (KIP-890; no wire change).
//
// Without a transactional id: an idempotent producer; ids come from blocks
// the controller allocates (ProducerIdsRecord), the bump rules are in
// ../producer-ids.ts. With one: the transaction coordinator of that id
// (src/coordinator/transaction): NOT_COORDINATOR unless this broker leads
// the id's __transaction_state partition, INVALID_TRANSACTION_TIMEOUT above
// transaction.max.timeout.ms, an epoch bump that fences the previous
// producer of the id (aborting its open transaction first:
// CONCURRENT_TRANSACTIONS until that is done). An empty transactional id is
// INVALID_REQUEST, as in Kafka.
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages/22-init-producer-id.js';
import { ErrorCode } from '../../protocol/errors.js';
import { codeForVersion } from '../../coordinator/transaction/request-rules.js';
import { defineHandler } from '../handler.js';

export const initProducerIdHandler = defineHandler({
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  async handle(ctx, req) {
    const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode: codeForVersion('initProducerId', ctx.apiVersion, errorCode), producerId: -1n, producerEpoch: -1 });
    if (req.transactionalId !== null) {
      const r = await ctx.services.transactions.coordinator.initProducerId({
        transactionalId: req.transactionalId,
        transactionTimeoutMs: req.transactionTimeoutMs,
        producerId: req.producerId,
        producerEpoch: req.producerEpoch,
      });
      if (r.errorCode !== ErrorCode.NONE) return refused(r.errorCode);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: r.producerId, producerEpoch: r.producerEpoch };
    }
    const r = await ctx.services.producerIds.initProducerId(req.producerId, req.producerEpoch, ctx.apiVersion, ctx.services.clock.nowMs());
    if (r.errorCode !== ErrorCode.NONE) {
      ctx.logger.debug({ reason: r.message, clientId: ctx.clientId, producerId: req.producerId, producerEpoch: req.producerEpoch }, 'InitProducerId refused');
      return refused(r.errorCode);
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: r.producerId, producerEpoch: r.producerEpoch };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }),
});
