// 53 BeginQuorumEpoch, v0-1 (KIP-595; v1 flexible, voter and directory ids and
// leader endpoints, KIP-853, ignored: the voter set and its endpoints are
// static configuration). A new leader announces its epoch; the node starts
// fetching from it. Served by the node's Raft (RaftService) on the controller
// listener; without one, UNSUPPORTED_VERSION.
import { BeginQuorumEpochRequest, BeginQuorumEpochResponse } from '../../protocol/messages/53-begin-quorum-epoch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const beginQuorumEpochHandler = defineHandler({
  apiKey: 53,
  name: 'BeginQuorumEpoch',
  minVersion: 0,
  maxVersion: 1,
  request: BeginQuorumEpochRequest,
  response: BeginQuorumEpochResponse,
  handle(ctx, req) {
    const raft = ctx.services.raft;
    if (raft === undefined) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
    return raft.beginQuorumEpoch(req);
  },
  errorResponse: (_req, errorCode) => ({ errorCode, topics: [] }),
});
