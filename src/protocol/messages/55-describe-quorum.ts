// 55 DescribeQuorum (KIP-595), answered by the quorum leader: leader, epoch,
// high watermark and each voter's (and observer's) log end offset. Flexible
// from v0. v1: lastFetchTimestamp and lastCaughtUpTimestamp per replica
// (KIP-836; -1 when unknown). Not here: v2 (error messages, directory ids,
// node listeners; KIP-853).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeQuorumRequest = request(55, { versions: '0-1', flexible: '0+', name: 'DescribeQuorumRequest' }, [
  field('topics', array(struct([field('topicName', 'string'), field('partitions', array(struct([field('partitionIndex', 'int32')])))]))),
]);
export type DescribeQuorumRequest = Infer<typeof DescribeQuorumRequest>;

const replicaState = struct([
  field('replicaId', 'int32'),
  field('logEndOffset', 'int64', { default: -1n }),
  field('lastFetchTimestamp', 'int64', { versions: '1+', default: -1n }),
  field('lastCaughtUpTimestamp', 'int64', { versions: '1+', default: -1n }),
]);

export const DescribeQuorumResponse = response(55, { versions: '0-1', flexible: '0+', name: 'DescribeQuorumResponse' }, [
  field('errorCode', 'int16'),
  field(
    'topics',
    array(
      struct([
        field('topicName', 'string'),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('errorCode', 'int16'),
              field('leaderId', 'int32', { default: -1 }),
              field('leaderEpoch', 'int32'),
              field('highWatermark', 'int64'),
              field('currentVoters', array(replicaState)),
              field('observers', array(replicaState)),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type DescribeQuorumResponse = Infer<typeof DescribeQuorumResponse>;
