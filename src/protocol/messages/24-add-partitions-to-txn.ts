// 24 AddPartitionsToTxn. v1: the broker responds before throttling (no wire
// change). v2: PRODUCER_FENCED may be returned. v3: flexible. v4: the
// batched broker-to-coordinator form (KIP-890 part 1): transactions[], each
// with verifyOnly (the partition leader asks whether a partition is already
// in the producer's transaction before the first transactional append), and
// a top-level errorCode; the single-transaction fields are v0-3 only. v5:
// TRANSACTION_ABORTABLE may be returned (no wire change).
// Field names for v0-3 are Kafka's from before v4 existed; Kafka now calls
// them v3AndBelowTransactionalId, resultsByTopicV3AndBelow and so on, with
// the same wire layout.
import { array, field, request, response, struct, type Infer } from '../schema.js';

const Topic = struct([field('name', 'string'), field('partitions', array('int32'))]);
const TopicResult = struct([
  field('name', 'string'),
  field('results', array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16')]))),
]);

export const AddPartitionsToTxnRequest = request(24, { versions: '0-5', flexible: '3+', name: 'AddPartitionsToTxnRequest' }, [
  field(
    'transactions',
    array(
      struct([
        field('transactionalId', 'string'),
        field('producerId', 'int64'),
        field('producerEpoch', 'int16'),
        field('verifyOnly', 'bool', { default: false }),
        field('topics', array(Topic)),
      ]),
    ),
    { versions: '4+', default: [] },
  ),
  field('transactionalId', 'string', { versions: '0-3', default: '' }),
  field('producerId', 'int64', { versions: '0-3', default: -1n }),
  field('producerEpoch', 'int16', { versions: '0-3', default: -1 }),
  field('topics', array(Topic), { versions: '0-3', default: [] }),
]);
export type AddPartitionsToTxnRequest = Infer<typeof AddPartitionsToTxnRequest>;

export const AddPartitionsToTxnResponse = response(24, { versions: '0-5', flexible: '3+', name: 'AddPartitionsToTxnResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16', { versions: '4+', default: 0 }),
  field(
    'resultsByTransaction',
    array(struct([field('transactionalId', 'string'), field('topicResults', array(TopicResult))])),
    { versions: '4+', default: [] },
  ),
  field('results', array(TopicResult), { versions: '0-3', default: [] }),
]);
export type AddPartitionsToTxnResponse = Infer<typeof AddPartitionsToTxnResponse>;
