// 43 ElectLeaders (called ElectPreferredLeaders at v0). v1: request
// electionType (KIP-460: 0 preferred, 1 unclean; v0 is always preferred) and
// a response top-level errorCode. v2: flexible. topicPartitions null means
// every partition.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ElectLeadersRequest = request(43, { versions: '0-2', flexible: '2+', name: 'ElectLeadersRequest' }, [
  field('electionType', 'int8', { versions: '1+' }),
  field('topicPartitions', array(struct([field('topic', 'string'), field('partitions', array('int32'))])), {
    nullableVersions: '0+',
  }),
  field('timeoutMs', 'int32', { default: 60000 }),
]);
export type ElectLeadersRequest = Infer<typeof ElectLeadersRequest>;

export const ElectLeadersResponse = response(43, { versions: '0-2', flexible: '2+', name: 'ElectLeadersResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16', { versions: '1+' }),
  field(
    'replicaElectionResults',
    array(
      struct([
        field('topic', 'string'),
        field(
          'partitionResult',
          array(struct([field('partitionId', 'int32'), field('errorCode', 'int16'), field('errorMessage', 'nullableString')])),
        ),
      ]),
    ),
  ),
]);
export type ElectLeadersResponse = Infer<typeof ElectLeadersResponse>;
