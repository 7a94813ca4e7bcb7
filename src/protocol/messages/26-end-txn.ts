// 26 EndTxn. v1: the broker responds before throttling (no wire change). v2:
// PRODUCER_FENCED may be returned. v3: flexible. Not here: v4
// (TRANSACTION_ABORTABLE) and v5 (epoch bump on every transaction, response
// producerId/producerEpoch; KIP-890 part 2).
import { field, request, response, type Infer } from '../schema.js';

export const EndTxnRequest = request(26, { versions: '0-3', flexible: '3+', name: 'EndTxnRequest' }, [
  field('transactionalId', 'string'),
  field('producerId', 'int64'),
  field('producerEpoch', 'int16'),
  /** true to commit, false to abort. */
  field('committed', 'bool'),
]);
export type EndTxnRequest = Infer<typeof EndTxnRequest>;

export const EndTxnResponse = response(26, { versions: '0-3', flexible: '3+', name: 'EndTxnResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
]);
export type EndTxnResponse = Infer<typeof EndTxnResponse>;
