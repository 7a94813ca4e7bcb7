// 20 DeleteTopics. v0-3: the request is the same (a list of topic names).
// Response v1: throttleTimeMs. v2: the broker responds before throttling.
// v3: TOPIC_DELETION_DISABLED may be returned. v4: flexible. v5: response
// errorMessage, THROTTLING_QUOTA_EXCEEDED (KIP-599). v6: the request replaces
// topicNames with topics[] of {name (nullable), topicId}, so a topic can be
// deleted by id; the response carries topicId and its name becomes nullable.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DeleteTopicsRequest = request(20, { versions: '0-6', flexible: '4+', name: 'DeleteTopicsRequest' }, [
  field('topics', array(struct([field('name', 'nullableString', { default: null }), field('topicId', 'uuid')])), {
    versions: '6+',
  }),
  field('topicNames', array('string'), { versions: '0-5' }),
  field('timeoutMs', 'int32'),
]);
export type DeleteTopicsRequest = Infer<typeof DeleteTopicsRequest>;

export const DeleteTopicsResponse = response(20, { versions: '0-6', flexible: '4+', name: 'DeleteTopicsResponse' }, [
  field('throttleTimeMs', 'int32', { versions: '1+' }),
  field(
    'responses',
    array(
      struct([
        field('name', 'string', { nullableVersions: '6+' }),
        field('topicId', 'uuid', { versions: '6+' }),
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString', { versions: '5+', default: null }),
      ]),
    ),
  ),
]);
export type DeleteTopicsResponse = Infer<typeof DeleteTopicsResponse>;
