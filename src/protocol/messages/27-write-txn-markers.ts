// 27 WriteTxnMarkers: the transaction coordinator tells partition leaders to
// write a commit or abort marker (KIP-98). Broker to broker only. v1:
// flexible. Not here: v2 (transactionVersion per marker, KIP-890 part 2
// markers written with the bumped epoch), until the coordinator speaks it.
// The response has no throttleTimeMs (Kafka's has none either).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const WriteTxnMarkersRequest = request(27, { versions: '0-1', flexible: '1+', name: 'WriteTxnMarkersRequest' }, [
  field(
    'markers',
    array(
      struct([
        field('producerId', 'int64'),
        field('producerEpoch', 'int16'),
        /** true: commit; false: abort. */
        field('transactionResult', 'bool'),
        field('topics', array(struct([field('name', 'string'), field('partitionIndexes', array('int32'))]))),
        field('coordinatorEpoch', 'int32'),
      ]),
    ),
  ),
]);
export type WriteTxnMarkersRequest = Infer<typeof WriteTxnMarkersRequest>;

export const WriteTxnMarkersResponse = response(27, { versions: '0-1', flexible: '1+', name: 'WriteTxnMarkersResponse' }, [
  field(
    'markers',
    array(
      struct([
        field('producerId', 'int64'),
        field(
          'topics',
          array(
            struct([
              field('name', 'string'),
              field('partitions', array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16')]))),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type WriteTxnMarkersResponse = Infer<typeof WriteTxnMarkersResponse>;
