// 19 CreateTopics. v1: validateOnly; response errorMessage. v2: response
// throttleTimeMs. v3: the broker responds before throttling (no wire change).
// v4: numPartitions/replicationFactor may be -1 without assignments (KIP-464;
// no wire change). v5: flexible; the response returns the created topic's
// numPartitions, replicationFactor and configs, and topicConfigErrorCode as
// tagged field 0 (KIP-525). v6: THROTTLING_QUOTA_EXCEEDED may be returned
// (KIP-599; no wire change). v7: response topicId, placed right after the name.
// Sent by clients: 0-4 (librdkafka, kafkajs, kafka-python, sarama v2) and 7
// (platformatic).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const CreateTopicsRequest = request(19, { versions: '0-7', flexible: '5+', name: 'CreateTopicsRequest' }, [
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        /** -1 when assignments are given, or (v4+) to use the broker default. */
        field('numPartitions', 'int32'),
        /** -1 when assignments are given, or (v4+) to use the broker default. */
        field('replicationFactor', 'int16'),
        field('assignments', array(struct([field('partitionIndex', 'int32'), field('brokerIds', array('int32'))]))),
        field('configs', array(struct([field('name', 'string'), field('value', 'nullableString')]))),
      ]),
    ),
  ),
  field('timeoutMs', 'int32', { default: 60000 }),
  field('validateOnly', 'bool', { versions: '1+', default: false }),
]);
export type CreateTopicsRequest = Infer<typeof CreateTopicsRequest>;

export const CreateTopicsResponse = response(19, { versions: '0-7', flexible: '5+', name: 'CreateTopicsResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '2+' }),
  field(
    'topics',
    array(
      struct([
        field('name', 'string'),
        field('topicId', 'uuid', { versions: '7+' }),
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString', { versions: '1+' }),
        /** Why the configs below could not be described; 0 when they could. */
        field('topicConfigErrorCode', 'int16', { versions: '5+', tag: 0, taggedVersions: '5+' }),
        field('numPartitions', 'int32', { versions: '5+', default: -1 }),
        field('replicationFactor', 'int16', { versions: '5+', default: -1 }),
        // Nullable on the wire, but Kafka's generated default is an empty list,
        // and the Java admin client reads it without a null check.
        field(
          'configs',
          array(
            struct([
              field('name', 'string'),
              field('value', 'nullableString'),
              field('readOnly', 'bool'),
              field('configSource', 'int8', { default: -1 }),
              field('isSensitive', 'bool'),
            ]),
          ),
          { versions: '5+', nullableVersions: '5+', default: [] },
        ),
      ]),
    ),
  ),
]);
export type CreateTopicsResponse = Infer<typeof CreateTopicsResponse>;
