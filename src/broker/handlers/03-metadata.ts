// 3 Metadata, v0-9 (v9 flexible). kafka-python probes with v0, librdkafka
// uses up to 4, kafkajs 6, platformatic 9.
//
// Which topics: v0 with an empty list means all topics; from v1 an empty list
// means none and null means all. Requested topics that do not exist are
// created when auto.create.topics.enable is on and (v4+) the request allows
// it; the creation is awaited so the answer already has the partitions.
// Invalid names answer INVALID_TOPIC_EXCEPTION. Brokers are listed with their
// endpoint on the listener this request arrived on.
// Simplification: authorized-operations fields answer "not requested" until
// ACLs exist.
import { MetadataRequest, MetadataResponse } from '../../protocol/messages/03-metadata.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import type { TopicView } from '../metadata-service.js';
import type { RequestContext } from '../request-context.js';

const INTERNAL_PREFIX = '__';

function topicResponse(t: TopicView) {
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    isInternal: t.isInternal,
    partitions: t.partitions.map((p) => ({
      errorCode: p.leader < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: p.leader,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: [...p.replicas],
      isrNodes: [...p.isr],
      offlineReplicas: [],
    })),
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

export const metadataHandler = defineHandler({
  apiKey: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 9,
  request: MetadataRequest,
  response: MetadataResponse,
  async handle(ctx, req) {
    const md = ctx.services.metadata;
    const all = req.topics === null || (ctx.apiVersion === 0 && req.topics.length === 0);
    let topics;
    if (all) {
      topics = md.topics().map(topicResponse);
    } else {
      const requested = [...new Set((req.topics ?? []).map((t) => t.name))];
      const allowAuto = md.autoCreateTopicsEnable && (ctx.apiVersion < 4 || req.allowAutoTopicCreation);
      const missing = requested.filter((n) => !md.topicExists(n) && !n.startsWith(INTERNAL_PREFIX));
      const createErrors = allowAuto ? await autoCreate(ctx, missing) : new Map<string, number>();
      topics = requested.map((name) => {
        const t = md.topic(name);
        if (t) return topicResponse(t);
        const errorCode = createErrors.get(name) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        return { errorCode, name, isInternal: false, partitions: [] };
      });
    }
    return {
      throttleTimeMs: 0,
      brokers: md.brokers(ctx.listenerName),
      clusterId: md.clusterId,
      controllerId: md.controllerId(),
      topics,
    };
  },
  errorResponse: (req, errorCode) => ({
    brokers: [],
    topics: (req.topics ?? []).map((t) => ({ errorCode, name: t.name, partitions: [] })),
  }),
});
