// 52 Vote (KIP-595), controller listener only. Flexible from v0. A candidate
// (or, with preVote, a prospective voter) asks every other voter for its vote
// in `replicaEpoch`, showing how far its log goes. v1: voterId (the receiver)
// and the directory ids of both sides (KIP-853); response nodeEndpoints
// (tag 0). v2: preVote (KIP-996); the partition fields are renamed from
// candidateEpoch/candidateId/lastOffsetEpoch/lastOffset to the names used
// here (no wire change). `lastEndOffset` is the sender's log end offset.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const VoteRequest = request(52, { versions: '0-2', flexible: '0+', name: 'VoteRequest' }, [
  field('clusterId', 'string', { nullableVersions: '0+', default: null }),
  field('voterId', 'int32', { versions: '1+', default: -1 }),
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
              field('replicaEpoch', 'int32'),
              field('replicaId', 'int32'),
              field('replicaDirectoryId', 'uuid', { versions: '1+' }),
              field('voterDirectoryId', 'uuid', { versions: '1+' }),
              field('lastEpoch', 'int32'),
              field('lastEndOffset', 'int64'),
              field('preVote', 'bool', { versions: '2+' }),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type VoteRequest = Infer<typeof VoteRequest>;

export const VoteResponse = response(52, { versions: '0-2', flexible: '0+', name: 'VoteResponse' }, [
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
              field('voteGranted', 'bool'),
            ]),
          ),
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
export type VoteResponse = Infer<typeof VoteResponse>;
