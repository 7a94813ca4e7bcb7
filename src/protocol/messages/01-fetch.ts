// 1 Fetch. v1: response throttleTimeMs. v2: magic 1 messages. v3: maxBytes
// (partition order matters from here). v4: isolationLevel, response
// lastStableOffset + abortedTransactions (transactions; record batch v2).
// v5: logStartOffset (request and response). v6: same as v5. v7: incremental
// fetch sessions (KIP-227): sessionId, sessionEpoch, forgottenTopicsData,
// response errorCode + sessionId. v8: same as v7. v9: currentLeaderEpoch
// (KIP-320). v10: zstd (KIP-110). v11: rackId, response preferredReadReplica
// (KIP-392). v12: flexible (KIP-482); lastFetchedEpoch; request clusterId
// (tag 0); response divergingEpoch (tag 0), currentLeader (tag 1) and
// snapshotId (tag 2), all tagged. v13: topic ids replace topic names
// (KIP-516; KRaft followers fetch `__cluster_metadata` by its sentinel id
// AAAAAAAAAAAAAAAAAAAAAQ). v14: same as v13 (a new error for tiered storage,
// KIP-405). v15: replicaId moves into the tagged replicaState {replicaId,
// replicaEpoch} (tag 1, KIP-903). v16: response nodeEndpoints (tag 0, KIP-951).
// v17: request partitions carry replicaDirectoryId (tag 0, KIP-853).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const FetchRequest = request(1, { versions: '0-17', flexible: '12+', name: 'FetchRequest' }, [
  field('clusterId', 'string', { versions: '12+', nullableVersions: '12+', tag: 0, taggedVersions: '12+', default: null }),
  field('replicaId', 'int32', { versions: '0-14', default: -1 }),
  field(
    'replicaState',
    struct([field('replicaId', 'int32', { default: -1 }), field('replicaEpoch', 'int64', { default: -1n })]),
    { versions: '15+', tag: 1, taggedVersions: '15+' },
  ),
  field('maxWaitMs', 'int32'),
  field('minBytes', 'int32'),
  field('maxBytes', 'int32', { versions: '3+', default: 0x7fffffff }),
  field('isolationLevel', 'int8', { versions: '4+', default: 0 }),
  field('sessionId', 'int32', { versions: '7+', default: 0 }),
  field('sessionEpoch', 'int32', { versions: '7+', default: -1 }),
  field(
    'topics',
    array(
      struct([
        field('topic', 'string', { versions: '0-12' }),
        field('topicId', 'uuid', { versions: '13+' }),
        field(
          'partitions',
          array(
            struct([
              field('partition', 'int32'),
              field('currentLeaderEpoch', 'int32', { versions: '9+', default: -1 }),
              field('fetchOffset', 'int64'),
              field('lastFetchedEpoch', 'int32', { versions: '12+', default: -1 }),
              field('logStartOffset', 'int64', { versions: '5+', default: -1n }),
              field('partitionMaxBytes', 'int32'),
              field('replicaDirectoryId', 'uuid', { versions: '17+', tag: 0, taggedVersions: '17+' }),
            ]),
          ),
        ),
      ]),
    ),
  ),
  field(
    'forgottenTopicsData',
    array(struct([field('topic', 'string', { versions: '7-12' }), field('topicId', 'uuid', { versions: '13+' }), field('partitions', array('int32'))])),
    { versions: '7+' },
  ),
  field('rackId', 'string', { versions: '11+', default: '' }),
]);
export type FetchRequest = Infer<typeof FetchRequest>;

export const FetchResponse = response(1, { versions: '0-17', flexible: '12+', name: 'FetchResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
  field('errorCode', 'int16', { versions: '7+', default: 0 }),
  field('sessionId', 'int32', { versions: '7+', default: 0 }),
  field(
    'responses',
    array(
      struct([
        field('topic', 'string', { versions: '0-12' }),
        field('topicId', 'uuid', { versions: '13+' }),
        field(
          'partitions',
          array(
            struct([
              field('partitionIndex', 'int32'),
              field('errorCode', 'int16'),
              field('highWatermark', 'int64'),
              field('lastStableOffset', 'int64', { versions: '4+', default: -1n }),
              field('logStartOffset', 'int64', { versions: '5+', default: -1n }),
              field(
                'divergingEpoch',
                struct([field('epoch', 'int32', { default: -1 }), field('endOffset', 'int64', { default: -1n })]),
                { versions: '12+', tag: 0, taggedVersions: '12+' },
              ),
              field(
                'currentLeader',
                struct([field('leaderId', 'int32', { default: -1 }), field('leaderEpoch', 'int32', { default: -1 })]),
                { versions: '12+', tag: 1, taggedVersions: '12+' },
              ),
              field(
                'snapshotId',
                struct([field('endOffset', 'int64', { default: -1n }), field('epoch', 'int32', { default: -1 })]),
                { versions: '12+', tag: 2, taggedVersions: '12+' },
              ),
              field(
                'abortedTransactions',
                array(struct([field('producerId', 'int64'), field('firstOffset', 'int64')])),
                { versions: '4+', nullableVersions: '4+' },
              ),
              field('preferredReadReplica', 'int32', { versions: '11+', default: -1 }),
              field('records', 'records'),
            ]),
          ),
        ),
      ]),
    ),
  ),
  field(
    'nodeEndpoints',
    array(
      struct([
        field('nodeId', 'int32'),
        field('host', 'string'),
        field('port', 'int32'),
        field('rack', 'string', { nullableVersions: '16+', default: null }),
      ]),
    ),
    { versions: '16+', tag: 0, taggedVersions: '16+' },
  ),
]);
export type FetchResponse = Infer<typeof FetchResponse>;
