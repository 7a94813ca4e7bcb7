// 65 DescribeTransactions (KIP-664), v0, flexible: the coordinator's view of
// each transactional id (state by Kafka's name, producer id and epoch,
// timeout, start time, partitions). Sent to the id's transaction coordinator;
// TRANSACTIONAL_ID_NOT_FOUND for an id it does not know.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeTransactionsRequest = request(65, { versions: '0', flexible: '0+', name: 'DescribeTransactionsRequest' }, [
  field('transactionalIds', array('string')),
]);
export type DescribeTransactionsRequest = Infer<typeof DescribeTransactionsRequest>;

export const DescribeTransactionsResponse = response(65, { versions: '0', flexible: '0+', name: 'DescribeTransactionsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'transactionStates',
    array(
      struct([
        field('errorCode', 'int16'),
        field('transactionalId', 'string'),
        field('transactionState', 'string'),
        field('transactionTimeoutMs', 'int32'),
        field('transactionStartTimeMs', 'int64'),
        field('producerId', 'int64'),
        field('producerEpoch', 'int16'),
        field('topics', array(struct([field('topic', 'string'), field('partitions', array('int32'))]))),
      ]),
    ),
  ),
]);
export type DescribeTransactionsResponse = Infer<typeof DescribeTransactionsResponse>;
