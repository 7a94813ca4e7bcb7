// 22 InitProducerId, v0-4 (v2 flexible). v0-2: a new producer id at epoch
// 0. v3+: producerId/producerEpoch may carry the producer's current id and
// epoch to bump the epoch (KIP-360); v4 may answer PRODUCER_FENCED where v3
// gets INVALID_PRODUCER_EPOCH (KIP-588). Ids come from blocks the controller
// allocates (ProducerIdsRecord), so they never repeat; the bump rules are in
// ../producer-ids.ts. Not here: v5 (KIP-890).
//
// Transactions are a later issue. A non-null transactionalId answers
// UNSUPPORTED_VERSION, and FindCoordinator(keyType=1) answers the same:
// Kafka's answer for "no transaction coordinator yet"
// (COORDINATOR_NOT_AVAILABLE) is retriable, so every client would retry
// until its timeout, while UNSUPPORTED_VERSION is the error Kafka gives for a
// feature the broker lacks and is fatal in the Java client, kafkajs and
// librdkafka: the application learns at once that transactions are not
// available. An empty transactionalId is INVALID_REQUEST, as in Kafka.
// transactionTimeoutMs only matters for transactions and is ignored.
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages/22-init-producer-id.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const initProducerIdHandler = defineHandler({
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 4,
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  async handle(ctx, req) {
    const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    if (req.transactionalId !== null) return refused(req.transactionalId === '' ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_VERSION);
    const r = await ctx.services.producerIds.initProducerId(req.producerId, req.producerEpoch, ctx.apiVersion, ctx.services.clock.nowMs());
    if (r.errorCode !== ErrorCode.NONE) {
      ctx.logger.debug({ reason: r.message, clientId: ctx.clientId, producerId: req.producerId, producerEpoch: req.producerEpoch }, 'InitProducerId refused');
      return refused(r.errorCode);
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: r.producerId, producerEpoch: r.producerEpoch };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }),
});
