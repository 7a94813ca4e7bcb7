// 66 ListTransactions (KIP-664), v0-1, flexible. Each broker lists the
// transactional ids of the __transaction_state partitions it coordinates,
// filtered by state and producer id (empty = all). v1: durationFilter, only
// transactions running longer than that many ms (KIP-994; -1 = all).
// unknownStateFilters echoes the state names the broker does not know.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ListTransactionsRequest = request(66, { versions: '0-1', flexible: '0+', name: 'ListTransactionsRequest' }, [
  field('stateFilters', array('string')),
  field('producerIdFilters', array('int64')),
  field('durationFilter', 'int64', { versions: '1+', default: -1n }),
]);
export type ListTransactionsRequest = Infer<typeof ListTransactionsRequest>;

export const ListTransactionsResponse = response(66, { versions: '0-1', flexible: '0+', name: 'ListTransactionsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('unknownStateFilters', array('string')),
  field(
    'transactionStates',
    array(struct([field('transactionalId', 'string'), field('producerId', 'int64'), field('transactionState', 'string')])),
  ),
]);
export type ListTransactionsResponse = Infer<typeof ListTransactionsResponse>;
