// 0 Produce. v0-v2: the old message formats (magic 0/1); the broker advertises
// them only so that librdkafka compresses (see handlers/00-produce.ts). v1: response
// throttleTimeMs. v2: response logAppendTimeMs. v3: transactionalId and record
// batch v2 (magic 2). v4: KAFKA_STORAGE_ERROR may be returned. v5: response
// logStartOffset. v6: same as v5. v7: zstd allowed (KIP-110).
// Not covered here: v8 recordErrors/errorMessage (KIP-467), v9 flexible.
// `records` stays a Buffer slice (record-batch/ has its own codec).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ProduceRequest = request(0, { versions: '0-7', flexible: 'none', name: 'ProduceRequest' }, [
  field('transactionalId', 'string', { versions: '3+', nullableVersions: '3+', default: null }),
  field('acks', 'int16'),
  field('timeoutMs', 'int32'),
  field(
    'topicData',
    array(
      struct([
        field('name', 'string'),
        field('partitionData', array(struct([field('index', 'int32'), field('records', 'records')]))),
      ]),
    ),
  ),
]);
export type ProduceRequest = Infer<typeof ProduceRequest>;

export const ProduceResponse = response(0, { versions: '0-7', flexible: 'none', name: 'ProduceResponse' }, [
  field(
    'responses',
    array(
      struct([
        field('name', 'string'),
        field(
          'partitionResponses',
          array(
            struct([
              field('index', 'int32'),
              field('errorCode', 'int16'),
              field('baseOffset', 'int64'),
              field('logAppendTimeMs', 'int64', { versions: '2+', default: -1n }),
              field('logStartOffset', 'int64', { versions: '5+', default: -1n }),
            ]),
          ),
        ),
      ]),
    ),
  ),
  field('throttleTimeMs', 'int32', { versions: '1+', default: 0 }),
]);
export type ProduceResponse = Infer<typeof ProduceResponse>;
