// 56 AlterPartition (KIP-497, called AlterIsr at v0; renamed in KIP-704),
// controller listener only, sent by a partition leader to the active
// controller to change its ISR. Flexible from v0.
// v1: leaderRecoveryState on request and response (KIP-704: 1 while a leader
// elected uncleanly is still recovering). v2: topics named by topicId instead
// of name (KIP-841). v3: newIsrWithEpochs replaces newIsr: every proposed ISR
// member carries the broker epoch the leader saw it fetch with, so the
// controller can refuse a member that restarted meanwhile (KIP-903).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const AlterPartitionRequest = request(56, { versions: '0-3', flexible: '0+', name: 'AlterPartitionRequest' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64', { default: -1n }),
  field(
    'topics',
    array(
      struct([
        field('topicName', 'string', { versions: '0-1' }),
        field('topicId', 'uuid', { versions: '2+' }),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('leaderEpoch', 'int32'),
              field('newIsr', array('int32'), { versions: '0-2' }),
              field('newIsrWithEpochs', array(struct([field('brokerId', 'int32'), field('brokerEpoch', 'int64', { default: -1n })])), {
                versions: '3+',
              }),
              field('leaderRecoveryState', 'int8', { versions: '1+', default: 0 }),
              field('partitionEpoch', 'int32'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type AlterPartitionRequest = Infer<typeof AlterPartitionRequest>;

export const AlterPartitionResponse = response(56, { versions: '0-3', flexible: '0+', name: 'AlterPartitionResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field(
    'topics',
    array(
      struct([
        field('topicName', 'string', { versions: '0-1' }),
        field('topicId', 'uuid', { versions: '2+' }),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('errorCode', 'int16'),
              field('leaderId', 'int32', { default: -1 }),
              field('leaderEpoch', 'int32'),
              field('isr', array('int32')),
              field('leaderRecoveryState', 'int8', { versions: '1+', default: 0 }),
              field('partitionEpoch', 'int32'),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type AlterPartitionResponse = Infer<typeof AlterPartitionResponse>;
