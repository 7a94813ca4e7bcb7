// 52 Vote, v0-2 (KIP-595; flexible from v0). v1: voter and directory ids
// (KIP-853; ignored: the voter set is static). v2: preVote (KIP-996), which
// our Raft core uses, so peers speak v2. Served on the controller listener by
// the node's Raft (RaftService); a node without a metadata quorum (broker
// only) answers UNSUPPORTED_VERSION. A request for another partition than
// __cluster_metadata-0 is INVALID_REQUEST; another cluster's,
// INCONSISTENT_CLUSTER_ID.
import { VoteRequest, VoteResponse } from '../../protocol/messages/52-vote.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const voteHandler = defineHandler({
  apiKey: 52,
  name: 'Vote',
  minVersion: 0,
  maxVersion: 2,
  request: VoteRequest,
  response: VoteResponse,
  handle(ctx, req) {
    const raft = ctx.services.raft;
    if (raft === undefined) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
    return raft.vote(req);
  },
  errorResponse: (_req, errorCode) => ({ errorCode, topics: [] }),
});
