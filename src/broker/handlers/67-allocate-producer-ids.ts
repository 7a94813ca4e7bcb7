// 67 AllocateProducerIds, v0 (flexible; KIP-730). Served on the controller
// listener only. A broker that is not the active controller asks here for
// the next block of producer ids (src/broker/producer-ids.ts through
// src/broker/controller-channel.ts routeMetadataChanges); the active
// controller commits a ProducerIdsRecord moving the next free id past the
// block before answering, so two brokers never get overlapping blocks.
// Not the active controller (or a lone node, which never forwards):
// NOT_CONTROLLER, and the asking broker retries at the new leader.
// The committed record names the controller's node (the block is allocated
// through its own metadata service); brokerId and brokerEpoch of the
// request are only logged.
import { AllocateProducerIdsRequest, AllocateProducerIdsResponse } from '../../protocol/messages/67-allocate-producer-ids.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const allocateProducerIdsHandler = defineHandler({
  apiKey: 67,
  name: 'AllocateProducerIds',
  minVersion: 0,
  maxVersion: 0,
  request: AllocateProducerIdsRequest,
  response: AllocateProducerIdsResponse,
  async handle(ctx, req) {
    const channel = ctx.services.cluster?.channel;
    if (channel === undefined || !channel.isLocal()) return errorResponse(ErrorCode.NOT_CONTROLLER);
    const block = await ctx.services.metadata.allocateProducerIds();
    if (block.errorCode !== ErrorCode.NONE) {
      ctx.logger.debug({ brokerId: req.brokerId, errorCode: block.errorCode, reason: block.errorMessage }, 'AllocateProducerIds refused');
      return errorResponse(block.errorCode);
    }
    ctx.logger.debug({ brokerId: req.brokerId, brokerEpoch: req.brokerEpoch, first: block.firstProducerId, size: block.size }, 'producer id block allocated');
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerIdStart: block.firstProducerId, producerIdLen: block.size };
  },
  errorResponse: (_req, errorCode) => errorResponse(errorCode),
});

function errorResponse(errorCode: number) {
  return { throttleTimeMs: 0, errorCode, producerIdStart: -1n, producerIdLen: 0 };
}
