// 67 AllocateProducerIds (KIP-730), controller listener only. Flexible from
// v0. A broker that is not the active controller asks it for the next block
// of producer ids for InitProducerId; the controller commits a
// ProducerIdsRecord first, so a block is never handed out twice.
// Answer: ids [producerIdStart, producerIdStart + producerIdLen), or an
// error (NOT_CONTROLLER, STALE_BROKER_EPOCH, UNKNOWN_SERVER_ERROR) with
// producerIdStart -1 and producerIdLen 0.
import { field, request, response, type Infer } from '../schema.js';

export const AllocateProducerIdsRequest = request(67, { versions: '0', flexible: '0+', name: 'AllocateProducerIdsRequest' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64', { default: -1n }),
]);
export type AllocateProducerIdsRequest = Infer<typeof AllocateProducerIdsRequest>;

export const AllocateProducerIdsResponse = response(67, { versions: '0', flexible: '0+', name: 'AllocateProducerIdsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('producerIdStart', 'int64'),
  field('producerIdLen', 'int32'),
]);
export type AllocateProducerIdsResponse = Infer<typeof AllocateProducerIdsResponse>;
