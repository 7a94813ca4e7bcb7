// 3 Metadata, v0-12 (v9 flexible). kafka-python probes with v0, librdkafka
// uses up to 4 (newer builds 12), kafkajs 6, platformatic 12.
//
// Topic ids (KIP-516): from v10 every response topic carries its id (zero for
// a topic that does not exist). v10-11 requests must name topics (null name or
// non-zero id: INVALID_REQUEST on every topic, as Kafka answers). From v12 a
// request topic may give only its id: it is looked up in the metadata image,
// never auto-created, and an unknown id answers UNKNOWN_TOPIC_ID with a null
// name. v11 drops the cluster authorized operations (KIP-700).
//
// Which topics: v0 with an empty list means all topics; from v1 an empty list
// means none and null means all. Requested topics that do not exist are
// created when auto.create.topics.enable is on and (v4+) the request allows
// it; the creation is awaited so the answer already has the partitions.
// Invalid names answer INVALID_TOPIC_EXCEPTION. Brokers are listed with their
// endpoint on the listener this request arrived on.
//
// Authorization (Kafka's KafkaApis.handleTopicMetadataRequest): all-topics
// requests list only the topics the principal may DESCRIBE; a named topic
// it may not describe answers TOPIC_AUTHORIZATION_FAILED whether or not it
// exists (with the zero id), so its existence never leaks. Auto-creation
// needs CREATE on the cluster or on the topic (TOPIC_AUTHORIZATION_FAILED
// otherwise). Simplification: the authorized-operations fields answer "not
// requested" (INT32_MIN).
import { AclOperation } from '../../protocol/acl-types.js';
import { ZERO_UUID } from '../../protocol/codec.js';
import { MetadataRequest, MetadataResponse } from '../../protocol/messages/03-metadata.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { PartitionView, TopicView } from '../metadata-service.js';
import type { RequestContext } from '../request-context.js';

const INTERNAL_PREFIX = '__';
/** First version whose request topics may be named by id only. */
const TOPIC_ID_REQUEST_VERSION = 12;

/** A partition as Metadata answers it (DescribeTopicPartitions adds the ELR to the same fields). */
export function partitionMetadata(p: PartitionView) {
  return {
    errorCode: p.leader < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
    partitionIndex: p.partition,
    leaderId: p.leader,
    leaderEpoch: p.leaderEpoch,
    replicaNodes: [...p.replicas],
    isrNodes: [...p.isr],
    offlineReplicas: [...p.offlineReplicas],
  };
}

function topicResponse(t: TopicView) {
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: t.topicId,
    isInternal: t.isInternal,
    partitions: t.partitions.map(partitionMetadata),
  };
}

async function autoCreate(ctx: RequestContext, names: string[]): Promise<Map<string, number>> {
  const errors = new Map<string, number>();
  if (names.length === 0) return errors;
  const created = await ctx.services.metadata.createTopics(
    names.map((name) => ({ name, numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] })),
    false,
  );
  for (const c of created) {
    if (c.errorCode !== ErrorCode.NONE && c.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) errors.set(c.name, c.errorCode);
  }
  ctx.logger.info({ topics: names, clientId: ctx.clientId }, 'auto-created topics');
  return errors;
}

type RequestTopic = MetadataRequest['topics'] extends (infer T)[] | null ? T : never;

/** Requests below v12 cannot name a topic by id (Kafka: InvalidRequestException for the whole request). */
function invalidBeforeV12(version: number, topics: readonly RequestTopic[]): boolean {
  return version < TOPIC_ID_REQUEST_VERSION && topics.some((t) => t.name === null || t.topicId !== ZERO_UUID);
}

async function requestedTopics(ctx: RequestContext, req: MetadataRequest) {
  const md = ctx.services.metadata;
  const asked = req.topics ?? [];
  if (invalidBeforeV12(ctx.apiVersion, asked)) {
    return asked.map((t) => ({ errorCode: ErrorCode.INVALID_REQUEST, name: t.name ?? '', topicId: t.topicId, isInternal: false, partitions: [] }));
  }
  // v12: an entry with an id is looked up by id (its name, if any, is ignored); ids are never auto-created.
  const byId = [...new Set(asked.filter((t) => t.topicId !== ZERO_UUID).map((t) => t.topicId))];
  const requested = [...new Set(asked.filter((t) => t.topicId === ZERO_UUID && t.name !== null).map((t) => t.name as string))];
  const denied = new Set(requested.filter((n) => !ctx.authz.topic(AclOperation.DESCRIBE, n)));
  const allowAuto = md.autoCreateTopicsEnable && (ctx.apiVersion < 4 || req.allowAutoTopicCreation);
  let missing = requested.filter((n) => !denied.has(n) && !md.topicExists(n) && !n.startsWith(INTERNAL_PREFIX));
  if (allowAuto && missing.length > 0 && !ctx.authz.cluster(AclOperation.CREATE, false)) {
    for (const n of missing) if (!ctx.authz.topic(AclOperation.CREATE, n)) denied.add(n);
    missing = missing.filter((n) => !denied.has(n));
  }
  const createErrors = allowAuto ? await autoCreate(ctx, missing) : new Map<string, number>();
  const named = requested.map((name) => {
    if (denied.has(name)) return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [] };
    const t = md.topic(name);
    if (t) return topicResponse(t);
    const errorCode = createErrors.get(name) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    return { errorCode, name, topicId: ZERO_UUID, isInternal: false, partitions: [] };
  });
  const identified = byId.map((topicId) => {
    const name = md.topicNameById(topicId);
    const t = name === undefined ? undefined : md.topic(name);
    if (t && !ctx.authz.topic(AclOperation.DESCRIBE, t.name)) return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: null, topicId, isInternal: false, partitions: [] };
    if (t) return topicResponse(t);
    return { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId, isInternal: false, partitions: [] };
  });
  return [...named, ...identified];
}

export const metadataHandler = defineHandler({
  apiKey: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 12,
  request: MetadataRequest,
  response: MetadataResponse,
  async handle(ctx, req) {
    const md = ctx.services.metadata;
    const all = req.topics === null || (ctx.apiVersion === 0 && req.topics.length === 0);
    let topics;
    if (all) {
      topics = md.topics().filter((t) => ctx.authz.topic(AclOperation.DESCRIBE, t.name, false)).map(topicResponse);
    } else {
      topics = await requestedTopics(ctx, req);
    }
    return {
      throttleTimeMs: 0,
      brokers: md.brokers(ctx.listenerName),
      clusterId: md.clusterId,
      controllerId: md.controllerId(),
      topics,
    };
  },
  errorResponse: (req, errorCode, ctx) => ({
    brokers: [],
    // A null name is only encodable from v12.
    topics: (req.topics ?? []).map((t) => ({ errorCode, name: t.name ?? (ctx.apiVersion >= TOPIC_ID_REQUEST_VERSION ? null : ''), topicId: t.topicId, partitions: [] })),
  }),
});
