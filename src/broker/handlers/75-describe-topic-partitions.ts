// 75 DescribeTopicPartitions, v0 (KIP-966; flexible). What Metadata says of a
// topic's partitions, plus each partition's Eligible Leader Replicas and last
// known ELR, paged: topics in name order, at most
// min(responsePartitionLimit, 2000) partitions per answer, and nextCursor
// names the topic and partition where the next request starts (Kafka's
// DescribeTopicPartitionsRequestHandler, with max.request.partition.size.limit
// at its default of 2000).
//
// An empty topic list means every topic. A cursor starts at its topic and
// partition; with an explicit list its topic must be one of them
// (INVALID_REQUEST otherwise, as Kafka answers). Listed topics that do not
// exist answer UNKNOWN_TOPIC_OR_PARTITION; they are never auto-created.
import { AclOperation } from '../../protocol/acl-types.js';
import { ZERO_UUID } from '../../protocol/codec.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from '../../protocol/messages/75-describe-topic-partitions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { partitionMetadata } from './03-metadata.js';
import type { MetadataService, TopicView } from '../metadata-service.js';

/** Kafka's max.request.partition.size.limit default: the most partitions one answer holds. */
export const PARTITIONS_PER_RESPONSE_MAX = 2000;

type ResponseTopic = DescribeTopicPartitionsResponse['topics'][number];
type Cursor = NonNullable<DescribeTopicPartitionsResponse['nextCursor']>;

function unknownTopic(name: string): ResponseTopic {
  return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 };
}

function partitionsOf(t: TopicView, from: number, limit: number): ResponseTopic['partitions'] {
  return t.partitions.filter((p) => p.partition >= from).slice(0, limit).map((p) => ({
    ...partitionMetadata(p),
    eligibleLeaderReplicas: [...p.elr],
    lastKnownElr: [...p.lastKnownElr],
  }));
}

/** Topics in name order from the cursor on, each with up to the remaining partition budget; the cursor where the budget ran out. */
export function describePage(md: MetadataService, names: readonly string[], cursor: Cursor | null, limit: number, denied: ReadonlySet<string> = new Set()): { topics: ResponseTopic[]; nextCursor: Cursor | null } {
  const sorted = [...new Set(names)].sort().filter((n) => cursor === null || n >= cursor.topicName);
  const topics: ResponseTopic[] = [];
  let budget = limit;
  for (const name of sorted) {
    // A topic the principal may not describe: TOPIC_AUTHORIZATION_FAILED, exists or not (no leak).
    if (denied.has(name)) {
      topics.push({ ...unknownTopic(name), errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
      continue;
    }
    const t = md.topic(name);
    if (t === undefined) {
      topics.push(unknownTopic(name));
      continue;
    }
    const from = cursor !== null && name === cursor.topicName ? cursor.partitionIndex : 0;
    const remaining = t.partitions.filter((p) => p.partition >= from);
    if (budget === 0) return { topics, nextCursor: { topicName: name, partitionIndex: remaining[0]?.partition ?? from } };
    const partitions = partitionsOf(t, from, budget);
    budget -= partitions.length;
    topics.push({ errorCode: ErrorCode.NONE, name, topicId: t.topicId, isInternal: t.isInternal, partitions, topicAuthorizedOperations: -2147483648 });
    if (partitions.length < remaining.length) return { topics, nextCursor: { topicName: name, partitionIndex: remaining[partitions.length]?.partition ?? 0 } };
  }
  return { topics, nextCursor: null };
}

export const describeTopicPartitionsHandler = defineHandler({
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  minVersion: 0,
  maxVersion: 0,
  request: DescribeTopicPartitionsRequest,
  response: DescribeTopicPartitionsResponse,
  handle(ctx, req) {
    const md = ctx.services.metadata;
    const all = req.topics.length === 0;
    // DESCRIBE on each topic: all topics lists only the described ones; a named one not described is TOPIC_AUTHORIZATION_FAILED.
    const names = all ? md.topics().map((t) => t.name).filter((n) => ctx.authz.topic(AclOperation.DESCRIBE, n, false)) : req.topics.map((t) => t.name);
    const denied = new Set(all ? [] : names.filter((n) => !ctx.authz.topic(AclOperation.DESCRIBE, n)));
    if (!all && req.cursor !== null && !names.includes(req.cursor.topicName)) {
      return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ ...unknownTopic(t.name), errorCode: ErrorCode.INVALID_REQUEST })), nextCursor: null };
    }
    const limit = Math.max(1, Math.min(req.responsePartitionLimit, PARTITIONS_PER_RESPONSE_MAX));
    const page = describePage(md, names, req.cursor, limit, denied);
    return { throttleTimeMs: 0, ...page };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ ...unknownTopic(t.name), errorCode })),
    nextCursor: null,
  }),
});
