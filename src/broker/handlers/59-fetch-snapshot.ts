// 59 FetchSnapshot, v0 (KIP-630; flexible from v0). A follower below the
// leader's log start pulls the leader's latest snapshot in chunks of at most
// maxBytes (and the node's snapshot chunk limit) from `position`. Answered by
// the quorum leader (RaftService): NOT_LEADER_OR_FOLLOWER elsewhere,
// FENCED_LEADER_EPOCH for an old epoch, SNAPSHOT_NOT_FOUND for any snapshot
// but the latest. Offsets in snapshotId count Raft entries. Without a
// metadata quorum on this node: UNSUPPORTED_VERSION. Not here: v1
// (replicaDirectoryId, KIP-853).
import { FetchSnapshotRequest, FetchSnapshotResponse } from '../../protocol/messages/59-fetch-snapshot.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const fetchSnapshotHandler = defineHandler({
  apiKey: 59,
  name: 'FetchSnapshot',
  minVersion: 0,
  maxVersion: 0,
  request: FetchSnapshotRequest,
  response: FetchSnapshotResponse,
  handle(ctx, req) {
    const raft = ctx.services.raft;
    if (raft === undefined) return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
    return raft.fetchSnapshot(req);
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, topics: [] }),
});
