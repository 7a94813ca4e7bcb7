// 3 Metadata. v1: topics may be null (= all topics; in v0 an empty list means
// all), broker rack, controllerId, topic isInternal. v2: clusterId. v3:
// throttleTimeMs. v4: allowAutoTopicCreation (KIP-204). v5: offlineReplicas.
// v6: same as v5. v7: partition leaderEpoch (KIP-320). v8: authorized
// operations (KIP-430): includeClusterAuthorizedOperations (8-10),
// includeTopicAuthorizedOperations, topicAuthorizedOperations,
// clusterAuthorizedOperations (8-10). v9: flexible (KIP-482). v10: topic ids
// (KIP-516): request and response topics carry topicId (requests of v10-11
// must leave it zero). v11: no includeClusterAuthorizedOperations /
// clusterAuthorizedOperations (KIP-700). v12: a request topic may name only
// its id (name null); a response topic's name may be null (unknown id).
import { array, field, request, response, struct, type Infer } from '../schema.js';

/** Kafka's "not requested" value for authorized-operations bit sets. */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export const MetadataRequest = request(3, { versions: '0-12', flexible: '9+', name: 'MetadataRequest' }, [
  field('topics', array(struct([field('topicId', 'uuid', { versions: '10+' }), field('name', 'string', { nullableVersions: '10+', default: '' })])), { nullableVersions: '1+' }),
  field('allowAutoTopicCreation', 'bool', { versions: '4+', default: true }),
  field('includeClusterAuthorizedOperations', 'bool', { versions: '8-10', default: false }),
  field('includeTopicAuthorizedOperations', 'bool', { versions: '8+', default: false }),
]);
export type MetadataRequest = Infer<typeof MetadataRequest>;

export const MetadataResponse = response(3, { versions: '0-12', flexible: '9+', name: 'MetadataResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '3+', default: 0 }),
  field(
    'brokers',
    array(
      struct([
        field('nodeId', 'int32'),
        field('host', 'string'),
        field('port', 'int32'),
        field('rack', 'string', { versions: '1+', nullableVersions: '1+', default: null }),
      ]),
    ),
  ),
  field('clusterId', 'string', { versions: '2+', nullableVersions: '2+', default: null }),
  field('controllerId', 'int32', { versions: '1+', default: -1 }),
  field(
    'topics',
    array(
      struct([
        field('errorCode', 'int16'),
        field('name', 'string', { nullableVersions: '12+', default: '' }),
        field('topicId', 'uuid', { versions: '10+' }),
        field('isInternal', 'bool', { versions: '1+', default: false }),
        field(
          'partitions',
          array(
            struct([
              field('errorCode', 'int16'),
              field('partitionIndex', 'int32'),
              field('leaderId', 'int32'),
              field('leaderEpoch', 'int32', { versions: '7+', default: -1 }),
              field('replicaNodes', array('int32')),
              field('isrNodes', array('int32')),
              field('offlineReplicas', array('int32'), { versions: '5+' }),
            ]),
          ),
        ),
        field('topicAuthorizedOperations', 'int32', { versions: '8+', default: AUTHORIZED_OPERATIONS_OMITTED }),
      ]),
    ),
  ),
  field('clusterAuthorizedOperations', 'int32', { versions: '8-10', default: AUTHORIZED_OPERATIONS_OMITTED }),
]);
export type MetadataResponse = Infer<typeof MetadataResponse>;
