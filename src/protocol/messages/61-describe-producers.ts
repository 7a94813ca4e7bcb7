// 61 DescribeProducers (KIP-664), v0, flexible: the active producers of each
// partition as its leader's producer state has them (id, epoch, last
// sequence and timestamp, coordinator epoch, first offset of the open
// transaction or -1). Answered by the partition's leader.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeProducersRequest = request(61, { versions: '0', flexible: '0+', name: 'DescribeProducersRequest' }, [
  field('topics', array(struct([field('name', 'string'), field('partitionIndexes', array('int32'))]))),
]);
export type DescribeProducersRequest = Infer<typeof DescribeProducersRequest>;

export const DescribeProducersResponse = response(61, { versions: '0', flexible: '0+', name: 'DescribeProducersResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('errorCode', 'int16'),
              field('errorMessage', 'nullableString', { default: null }),
              field(
                'activeProducers',
                array(
                  struct([
                    field('producerId', 'int64'),
                    field('producerEpoch', 'int32'),
                    field('lastSequence', 'int32', { default: -1 }),
                    field('lastTimestamp', 'int64', { default: -1n }),
                    field('coordinatorEpoch', 'int32'),
                    field('currentTxnStartOffset', 'int64', { default: -1n }),
                  ]),
                ),
              ),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type DescribeProducersResponse = Infer<typeof DescribeProducersResponse>;
