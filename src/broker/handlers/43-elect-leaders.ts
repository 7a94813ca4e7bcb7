// 43 ElectLeaders, v0-2 (v0 was ElectPreferredLeaders: always a preferred
// election; v1: electionType (KIP-460: 0 preferred, 1 unclean) and a
// top-level errorCode; v2 flexible). The admin tools' leader-election command.
//
// Runs on the active controller (forwarded there from other nodes) with
// KRaft's rules (src/controller/partition-admin.ts), per partition: unknown
// topic or partition UNKNOWN_TOPIC_OR_PARTITION; preferred election when the
// first replica already leads, or unclean election when the partition has a
// leader, ELECTION_NOT_NEEDED; PREFERRED_LEADER_NOT_AVAILABLE when the
// preferred replica is not an in-sync replica that may lead;
// ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica may lead. The new leaders
// are committed as PartitionChangeRecords (an unclean one with ISR = [it]).
// topicPartitions null = every partition, and then (Kafka's rule) only the
// partitions that needed an election are listed, under every topic.
// An unknown electionType answers INVALID_REQUEST at the top and for every
// requested partition (Kafka's error response). timeoutMs is unused (the
// answer comes once the change is committed).
import { ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/messages/43-elect-leaders.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isElectionType } from '../../controller/partition-admin.js';
import { forwardToController } from '../controller-channel.js';
import { defineHandler } from '../handler.js';

type Req = ElectLeadersRequest;

function errorBody(req: Req, errorCode: number, errorMessage: string | null) {
  return {
    throttleTimeMs: 0,
    errorCode,
    replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
      topic: t.topic,
      partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode, errorMessage })),
    })),
  };
}

export const electLeadersHandler = defineHandler({
  apiKey: 43,
  name: 'ElectLeaders',
  minVersion: 0,
  maxVersion: 2,
  request: ElectLeadersRequest,
  response: ElectLeadersResponse,
  async handle(ctx, req) {
    const forwarded = await forwardToController(ctx, { request: ElectLeadersRequest, response: ElectLeadersResponse }, req, (code) => errorBody(req, code, null));
    if (forwarded !== null) return forwarded;
    const electionType = ctx.apiVersion === 0 ? 0 : req.electionType;
    if (!isElectionType(electionType)) return errorBody(req, ErrorCode.INVALID_REQUEST, `Unknown election type ${electionType}`);
    const refs = req.topicPartitions === null ? null : req.topicPartitions.map((t) => ({ topic: t.topic, partitions: t.partitions }));
    const results = await ctx.services.metadata.electLeaders(electionType, refs);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      replicaElectionResults: results.map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((p) => ({ partitionId: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  },
  errorResponse: (req, errorCode) => errorBody(req, errorCode, null),
});
