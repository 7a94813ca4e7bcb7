// 26 EndTxn. v1: the broker responds before throttling (no wire change). v2:
// PRODUCER_FENCED may be returned. v3: flexible. v4: TRANSACTION_ABORTABLE
// may be returned (no wire change). v5: transaction version 2 (KIP-890 part
// 2): every EndTxn bumps the producer epoch, and the response carries the
// producer id and epoch the client continues with.
import { field, request, response, type Infer } from '../schema.js';

export const EndTxnRequest = request(26, { versions: '0-5', flexible: '3+', name: 'EndTxnRequest' }, [
  field('transactionalId', 'string'),
  field('producerId', 'int64'),
  field('producerEpoch', 'int16'),
  /** true to commit, false to abort. */
  field('committed', 'bool'),
]);
export type EndTxnRequest = Infer<typeof EndTxnRequest>;

export const EndTxnResponse = response(26, { versions: '0-5', flexible: '3+', name: 'EndTxnResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('producerId', 'int64', { versions: '5+', default: -1n }),
  field('producerEpoch', 'int16', { versions: '5+', default: -1 }),
]);
export type EndTxnResponse = Infer<typeof EndTxnResponse>;
