// 54 EndQuorumEpoch, v0-1 (KIP-595; v1 flexible, preferredCandidates with
// directory ids and leader endpoints, KIP-853: only the candidate ids are
// used, the voter set and its endpoints are static configuration). A leader
// that resigns (graceful shutdown) tells the voters its epoch is over; they
// start an election at once, its preferred successor first. Served by the
// node's Raft (RaftService) on the controller listener; without one,
// UNSUPPORTED_VERSION.
import { EndQuorumEpochRequest, EndQuorumEpochResponse } from '../../protocol/messages/54-end-quorum-epoch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const endQuorumEpochHandler = defineHandler({
  apiKey: 54,
  name: 'EndQuorumEpoch',
  minVersion: 0,
  maxVersion: 1,
  request: EndQuorumEpochRequest,
  response: EndQuorumEpochResponse,
  handle(ctx, req) {
    const raft = ctx.services.raft;
    if (raft === undefined) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
    return raft.endQuorumEpoch(req);
  },
  errorResponse: (_req, errorCode) => ({ errorCode, topics: [] }),
});
