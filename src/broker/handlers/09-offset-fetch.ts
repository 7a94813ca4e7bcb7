// 9 OffsetFetch, v1-8 (v6 flexible). v2: topics null = every committed
// partition, and a top-level errorCode (before v2 errors go in each
// partition). v5: committedLeaderEpoch. v7: requireStable (UNSTABLE_OFFSET_COMMIT
// for partitions with a commit being written or a TxnOffsetCommit waiting for
// its marker, KIP-447). v8: many
// groups per request (KIP-709). v0 (offsets kept in ZooKeeper) is not
// advertised; librdkafka needs v1 in range for consumer groups.
// Authorization: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED) and on
// each topic: a named topic the principal may not describe answers
// TOPIC_AUTHORIZATION_FAILED on its partitions; "every partition" leaves
// such topics out.
import { AclOperation } from '../../protocol/acl-types.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../../protocol/messages/09-offset-fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Input } from '../../protocol/schema.js';
import { defineHandler } from '../handler.js';
import type { RequestContext } from '../request-context.js';

type TopicsOut = NonNullable<Input<typeof OffsetFetchResponse>['topics']>;

interface GroupAnswer {
  errorCode: number;
  topics: TopicsOut;
}

function fetchGroup(
  ctx: RequestContext,
  groupId: string,
  topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
  requireStable: boolean,
): GroupAnswer {
  const asked = topics?.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition }))) ?? null;
  const denied = ctx.authz.group(AclOperation.DESCRIBE, groupId) ? ctx.services.groups.check(groupId, 'offsetFetch') : ErrorCode.GROUP_AUTHORIZATION_FAILED;
  if (denied !== ErrorCode.NONE) {
    const topicsOut = (topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: denied })),
    }));
    return { errorCode: denied, topics: topicsOut };
  }
  const r = ctx.services.groups.coordinator.fetchOffsets(groupId, asked, requireStable);
  const byTopic = new Map<string, TopicsOut[number]['partitions'] extends readonly (infer P)[] ? P[] : never>();
  const describable = new Map<string, boolean>();
  for (const p of r.partitions) {
    let allowed = describable.get(p.topic);
    if (allowed === undefined) describable.set(p.topic, (allowed = ctx.authz.topic(AclOperation.DESCRIBE, p.topic, asked !== null)));
    if (!allowed && asked === null) continue;
    let list = byTopic.get(p.topic);
    if (!list) {
      list = [];
      byTopic.set(p.topic, list);
    }
    if (!allowed) list.push({ partitionIndex: p.partition, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    else list.push({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch, metadata: p.metadata, errorCode: p.errorCode });
  }
  return { errorCode: r.errorCode, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) };
}

export const offsetFetchHandler = defineHandler({
  apiKey: 9,
  name: 'OffsetFetch',
  minVersion: 1,
  maxVersion: 8,
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  handle(ctx, req) {
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: req.groups.map((g) => {
          const a = fetchGroup(ctx, g.groupId, g.topics, req.requireStable);
          return { groupId: g.groupId, topics: a.topics, errorCode: a.errorCode };
        }),
      };
    }
    const a = fetchGroup(ctx, req.groupId, ctx.apiVersion >= 2 ? req.topics : (req.topics ?? []), req.requireStable);
    // v2+ carry the group error at the top; v1 only per partition.
    return { throttleTimeMs: 0, topics: a.topics, errorCode: a.errorCode };
  },
  errorResponse: (req, errorCode) => ({
    errorCode,
    topics: [],
    groups: req.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode })),
  }),
});
