// 25 AddOffsetsToTxn. v1: the broker responds before throttling (no wire
// change). v2: PRODUCER_FENCED may be returned. v3: flexible. v4:
// TRANSACTION_ABORTABLE may be returned (KIP-890; no wire change).
import { field, request, response, type Infer } from '../schema.js';

export const AddOffsetsToTxnRequest = request(25, { versions: '0-4', flexible: '3+', name: 'AddOffsetsToTxnRequest' }, [
  field('transactionalId', 'string'),
  field('producerId', 'int64'),
  field('producerEpoch', 'int16'),
  field('groupId', 'string'),
]);
export type AddOffsetsToTxnRequest = Infer<typeof AddOffsetsToTxnRequest>;

export const AddOffsetsToTxnResponse = response(25, { versions: '0-4', flexible: '3+', name: 'AddOffsetsToTxnResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
]);
export type AddOffsetsToTxnResponse = Infer<typeof AddOffsetsToTxnResponse>;
