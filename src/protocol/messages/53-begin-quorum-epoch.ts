// 53 BeginQuorumEpoch (KIP-595), controller listener only. A new leader tells
// each voter "I lead epoch E" so it starts fetching from it. v1: flexible;
// voterId and voterDirectoryId name the receiver, leaderEndpoints the
// leader's listeners (KIP-853); response nodeEndpoints (tag 0).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const BeginQuorumEpochRequest = request(53, { versions: '0-1', flexible: '1+', name: 'BeginQuorumEpochRequest' }, [
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
              field('voterDirectoryId', 'uuid', { versions: '1+' }),
              field('leaderId', 'int32'),
              field('leaderEpoch', 'int32'),
            ]),
          ),
        ),
      ]),
    ),
  ),
  field('leaderEndpoints', array(struct([field('name', 'string'), field('host', 'string'), field('port', 'uint16')])), { versions: '1+' }),
]);
export type BeginQuorumEpochRequest = Infer<typeof BeginQuorumEpochRequest>;

export const BeginQuorumEpochResponse = response(53, { versions: '0-1', flexible: '1+', name: 'BeginQuorumEpochResponse' }, [
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
export type BeginQuorumEpochResponse = Infer<typeof BeginQuorumEpochResponse>;
