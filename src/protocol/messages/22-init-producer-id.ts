// 22 InitProducerId. v1: the broker responds before throttling (no wire
// change). v2: flexible. v3: the request carries the current producerId and
// producerEpoch so a producer can bump its epoch after INVALID_PRODUCER_EPOCH
// instead of getting a new id (KIP-360; -1/-1 for a fresh producer). v4:
// PRODUCER_FENCED may be returned (no wire change). v5: TRANSACTION_ABORTABLE
// may be returned (KIP-890; no wire change).
import { field, request, response, type Infer } from '../schema.js';

export const InitProducerIdRequest = request(22, { versions: '0-5', flexible: '2+', name: 'InitProducerIdRequest' }, [
  /** null for an idempotent producer without transactions. */
  field('transactionalId', 'nullableString'),
  field('transactionTimeoutMs', 'int32'),
  field('producerId', 'int64', { versions: '3+', default: -1n }),
  field('producerEpoch', 'int16', { versions: '3+', default: -1 }),
]);
export type InitProducerIdRequest = Infer<typeof InitProducerIdRequest>;

export const InitProducerIdResponse = response(22, { versions: '0-5', flexible: '2+', name: 'InitProducerIdResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('producerId', 'int64', { default: -1n }),
  field('producerEpoch', 'int16'),
]);
export type InitProducerIdResponse = Infer<typeof InitProducerIdResponse>;
