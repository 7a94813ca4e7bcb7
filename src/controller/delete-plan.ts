/**
 * DeleteTopics as a pure function of the image (see plans.ts): resolve each
 * reference by name or by id, refuse unknown, duplicate and protected topics,
 * and emit one RemoveTopicRecord per topic (the image drops its partitions
 * and configs with it).
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { METADATA_BATCH_RECORDS_MAX } from './metadata/batch.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import { METADATA_TOPIC } from './metadata-log.js';
import type { Plan } from './plans.js';
import type { DeleteTopicRef, DeleteTopicResult } from './types.js';

export interface DeletePlanContext {
  readonly image: MetadataImage;
  /** Topics that cannot be deleted (the platform's internal topics). */
  readonly protectedTopics: ReadonlySet<string>;
}

function result(name: string | null, topicId: string | null, errorCode: ErrorCode, errorMessage: string | null): DeleteTopicResult {
  return { name, topicId: topicId ?? ZERO_UUID, errorCode, errorMessage };
}

function resolve(ctx: DeletePlanContext, ref: DeleteTopicRef): { name: string; topicId: string } | DeleteTopicResult {
  const byId = ref.topicId !== null && ref.topicId !== ZERO_UUID;
  const byName = ref.name !== null && ref.name !== '';
  if (byId === byName) {
    return result(ref.name, ref.topicId, ErrorCode.INVALID_REQUEST, 'Each topic to delete needs exactly one of a name or a topic id.');
  }
  if (byId) {
    const t = ctx.image.topicById(ref.topicId as string);
    if (t === undefined) return result(null, ref.topicId, ErrorCode.UNKNOWN_TOPIC_ID, `Topic id ${ref.topicId} does not exist.`);
    return { name: t.name, topicId: t.topicId };
  }
  const name = ref.name as string;
  if (name === METADATA_TOPIC) return result(name, null, ErrorCode.INVALID_REQUEST, `The internal topic ${METADATA_TOPIC} cannot be deleted.`);
  const t = ctx.image.topicByName(name);
  if (t === undefined) return result(name, null, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
  return { name: t.name, topicId: t.topicId };
}

/** One result per reference, in request order. */
export function planDeleteTopics(ctx: DeletePlanContext, refs: readonly DeleteTopicRef[]): Plan<DeleteTopicResult> {
  const resolved = refs.map((r) => resolve(ctx, r));
  const counts = new Map<string, number>();
  for (const r of resolved) if (!('errorCode' in r)) counts.set(r.topicId, (counts.get(r.topicId) ?? 0) + 1);
  const results: DeleteTopicResult[] = [];
  const records: MetadataRecord[] = [];
  for (const r of resolved) {
    if ('errorCode' in r) {
      results.push(r);
    } else if ((counts.get(r.topicId) ?? 0) > 1) {
      results.push(result(r.name, r.topicId, ErrorCode.INVALID_REQUEST, `Topic '${r.name}' is named more than once in the request.`));
    } else if (ctx.protectedTopics.has(r.name)) {
      results.push(result(r.name, r.topicId, ErrorCode.INVALID_TOPIC_EXCEPTION, `The internal topic ${r.name} cannot be deleted.`));
    } else if (records.length >= METADATA_BATCH_RECORDS_MAX) {
      results.push(result(r.name, r.topicId, ErrorCode.POLICY_VIOLATION, `At most ${METADATA_BATCH_RECORDS_MAX} topics can be deleted per request.`));
    } else {
      records.push({ type: 'RemoveTopicRecord', data: { topicId: r.topicId } });
      results.push(result(r.name, r.topicId, ErrorCode.NONE, null));
    }
  }
  return { results, records };
}
