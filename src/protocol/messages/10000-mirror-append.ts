// 10000 MirrorAppend, v0, flexible: Tributary's own API, outside Kafka's key
// range (docs/compatibility.md). `tributary mirror` in exact mode sends the
// record batches it fetched from a source partition, as they are, to the
// leader of the target's mirror topic partition, which appends them at their
// own offsets (src/replication/mirror-append.ts). A partition entry with null
// records appends nothing: the answer then only reports where the partition
// stands (log end, high watermark, log start), which the mirror reads before
// it resumes.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const MirrorAppendRequest = request(10000, { versions: '0', flexible: '0+', name: 'MirrorAppendRequest' }, [
  /** 1: the leader's append; -1: every in-sync replica's (the high watermark covers it). */
  field('acks', 'int16'),
  field('timeoutMs', 'int32'),
  field('topics', array(struct([
    field('name', 'string'),
    field('partitions', array(struct([field('index', 'int32'), field('records', 'records')]))),
  ]))),
]);
export type MirrorAppendRequest = Infer<typeof MirrorAppendRequest>;

export const MirrorAppendResponse = response(10000, { versions: '0', flexible: '0+', name: 'MirrorAppendResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('responses', array(struct([
    field('name', 'string'),
    field('partitions', array(struct([
      field('index', 'int32'),
      field('errorCode', 'int16'),
      field('errorMessage', 'nullableString', { default: null }),
      /** After the append (or as it stands when nothing was appended); -1 when the partition is not led here. */
      field('logEndOffset', 'int64', { default: -1n }),
      field('highWatermark', 'int64', { default: -1n }),
      field('logStartOffset', 'int64', { default: -1n }),
    ]))),
  ]))),
]);
export type MirrorAppendResponse = Infer<typeof MirrorAppendResponse>;
