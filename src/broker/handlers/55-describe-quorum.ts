// 55 DescribeQuorum, v0-1 (KIP-595; flexible from v0; v1 adds each replica's
// lastFetchTimestamp and lastCaughtUpTimestamp, KIP-836). The quorum leader
// answers with the leader, epoch, high watermark and every voter's log end
// offset (the position of its last fetch) and fetch times (wall clock ms, -1
// when unknown), and the observers (broker-only nodes) fetching from it. A voter that
// is not the leader answers NOT_LEADER_OR_FOLLOWER in the partition with the
// leader it knows. Offsets count Raft entries (one per metadata batch), not
// records. Without a metadata quorum on this node: UNSUPPORTED_VERSION.
// Not here: v2 (KIP-853 node listeners and directory ids).
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../protocol/messages/55-describe-quorum.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const describeQuorumHandler = defineHandler({
  apiKey: 55,
  name: 'DescribeQuorum',
  minVersion: 0,
  maxVersion: 1,
  request: DescribeQuorumRequest,
  response: DescribeQuorumResponse,
  handle(ctx, req) {
    const raft = ctx.services.raft;
    if (raft === undefined) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
    return raft.describeQuorum(req);
  },
  errorResponse: (_req, errorCode) => ({ errorCode, topics: [] }),
});
