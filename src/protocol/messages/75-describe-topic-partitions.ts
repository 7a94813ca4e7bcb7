// 75 DescribeTopicPartitions (KIP-966), v0, flexible. Like Metadata's topic
// part, plus each partition's Eligible Leader Replicas and last known ELR,
// paged by a cursor: at most responsePartitionLimit partitions per answer,
// and nextCursor names where the next request starts. Kafka's
// kafka-topics.sh --describe uses it (and shows "Elr" and "LastKnownElr").
// Cursor and NextCursor are nullable structs (an int8 presence marker).
import { array, field, request, response, struct, type Infer } from '../schema.js';

const cursor = struct([field('topicName', 'string'), field('partitionIndex', 'int32')]);

export const DescribeTopicPartitionsRequest = request(75, { versions: '0', flexible: '0+', name: 'DescribeTopicPartitionsRequest' }, [
  field('topics', array(struct([field('name', 'string')]))),
  field('responsePartitionLimit', 'int32', { default: 2000 }),
  field('cursor', cursor, { nullableVersions: '0+', default: null }),
]);
export type DescribeTopicPartitionsRequest = Infer<typeof DescribeTopicPartitionsRequest>;

export const DescribeTopicPartitionsResponse = response(75, { versions: '0', flexible: '0+', name: 'DescribeTopicPartitionsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'topics',
    array(
      struct([
        field('errorCode', 'int16'),
        field('name', 'nullableString'),
        field('topicId', 'uuid'),
        field('isInternal', 'bool', { default: false }),
        field(
          'partitions',
          array(
            struct([
              field('errorCode', 'int16'),
              field('partitionIndex', 'int32'),
              field('leaderId', 'int32'),
              field('leaderEpoch', 'int32', { default: -1 }),
              field('replicaNodes', array('int32')),
              field('isrNodes', array('int32')),
              field('eligibleLeaderReplicas', array('int32'), { nullableVersions: '0+', default: null }),
              field('lastKnownElr', array('int32'), { nullableVersions: '0+', default: null }),
              field('offlineReplicas', array('int32')),
            ]),
          ),
        ),
        field('topicAuthorizedOperations', 'int32', { default: -2147483648 }),
      ]),
    ),
  ),
  field('nextCursor', cursor, { nullableVersions: '0+', default: null }),
]);
export type DescribeTopicPartitionsResponse = Infer<typeof DescribeTopicPartitionsResponse>;
