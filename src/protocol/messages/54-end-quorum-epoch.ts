// 54 EndQuorumEpoch (KIP-595), controller listener only. A resigning leader
// tells the voters to start an election now instead of waiting for their
// fetch timeout, naming the voters it prefers as successors (the most caught
// up first). v1: flexible; preferredSuccessors (ids) becomes
// preferredCandidates (id + directory id) and leaderEndpoints is added
// (KIP-853); response nodeEndpoints (tag 0).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const EndQuorumEpochRequest = request(54, { versions: '0-1', flexible: '1+', name: 'EndQuorumEpochRequest' }, [
  field('clusterId', 'string', { nullableVersions: '0+', default: null }),
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
              field('leaderId', 'int32'),
              field('leaderEpoch', 'int32'),
              field('preferredSuccessors', array('int32'), { versions: '0' }),
              field('preferredCandidates', array(struct([field('candidateId', 'int32'), field('candidateDirectoryId', 'uuid')])), { versions: '1+' }),
            ]),
          ),
        ),
      ]),
    ),
  ),
  field('leaderEndpoints', array(struct([field('name', 'string'), field('host', 'string'), field('port', 'uint16')])), { versions: '1+' }),
]);
export type EndQuorumEpochRequest = Infer<typeof EndQuorumEpochRequest>;

export const EndQuorumEpochResponse = response(54, { versions: '0-1', flexible: '1+', name: 'EndQuorumEpochResponse' }, [
  field('errorCode', 'int16'),
  field(
    'topics',
    array(
      struct([
        field('topicName', 'string'),
        field(
          'partitions',
          array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16'), field('leaderId', 'int32', { default: -1 }), field('leaderEpoch', 'int32')])),
        ),
      ]),
    ),
  ),
  field('nodeEndpoints', array(struct([field('nodeId', 'int32'), field('host', 'string'), field('port', 'uint16')])), {
    versions: '1+',
    tag: 0,
    taggedVersions: '1+',
  }),
]);
export type EndQuorumEpochResponse = Infer<typeof EndQuorumEpochResponse>;
