// 24 AddPartitionsToTxn, the client form only. v1: the broker responds before
// throttling (no wire change). v2: PRODUCER_FENCED may be returned. v3:
// flexible. Deliberately not here: v4+, the broker-to-broker batched form
// (transactions[] with verifyOnly, KIP-890); clients use v3 or lower
// (docs/compatibility.md). Field names are Kafka's from before v4 existed;
// Kafka now calls them v3AndBelowTransactionalId, resultsByTopicV3AndBelow,
// resultsByPartition and partitionErrorCode, with the same wire layout.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const AddPartitionsToTxnRequest = request(24, { versions: '0-3', flexible: '3+', name: 'AddPartitionsToTxnRequest' }, [
  field('transactionalId', 'string'),
  field('producerId', 'int64'),
  field('producerEpoch', 'int16'),
  field('topics', array(struct([field('name', 'string'), field('partitions', array('int32'))]))),
]);
export type AddPartitionsToTxnRequest = Infer<typeof AddPartitionsToTxnRequest>;

export const AddPartitionsToTxnResponse = response(24, { versions: '0-3', flexible: '3+', name: 'AddPartitionsToTxnResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'results',
    array(
      struct([
        field('name', 'string'),
        field('results', array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16')]))),
      ]),
    ),
  ),
]);
export type AddPartitionsToTxnResponse = Infer<typeof AddPartitionsToTxnResponse>;
