// 63 BrokerHeartbeat, v0-1 (flexible from v0; v1 offlineLogDirs, tagged).
// Served on the controller listener only. The active controller renews the
// broker's session, unfences it once it has caught up with the metadata log,
// fences it on wantFence, and moves leadership away on wantShutDown,
// answering shouldShutDown once nothing is led there any more (controlled
// shutdown). Not the active controller: NOT_CONTROLLER. A stale broker epoch
// (the broker re-registered, or was never registered): STALE_BROKER_EPOCH /
// BROKER_ID_NOT_REGISTERED, and the broker registers again.
// The connection a broker heartbeats on is watched: when the broker's side
// closes or resets it (its process died), the broker is fenced at once
// instead of after broker.session.timeout.ms (controller-ops.ts).
// offlineLogDirs is ignored (one log dir per node).
import { BrokerHeartbeatRequest, BrokerHeartbeatResponse } from '../../protocol/messages/63-broker-heartbeat.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const brokerHeartbeatHandler = defineHandler({
  apiKey: 63,
  name: 'BrokerHeartbeat',
  minVersion: 0,
  maxVersion: 1,
  request: BrokerHeartbeatRequest,
  response: BrokerHeartbeatResponse,
  async handle(ctx, req) {
    const cluster = ctx.services.cluster;
    if (cluster?.lifecycle == null || !cluster.channel.isLocal()) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, isCaughtUp: false, isFenced: true, shouldShutDown: false };
    }
    const answer = await cluster.lifecycle.brokerHeartbeat({
      brokerId: req.brokerId,
      brokerEpoch: req.brokerEpoch,
      currentMetadataOffset: req.currentMetadataOffset,
      wantFence: req.wantFence,
      wantShutDown: req.wantShutDown,
    }, ctx.onPeerClosed === undefined ? undefined : { id: ctx.connectionId, onPeerClosed: ctx.onPeerClosed });
    return { throttleTimeMs: 0, errorCode: answer.errorCode, isCaughtUp: answer.isCaughtUp, isFenced: answer.isFenced, shouldShutDown: answer.shouldShutDown };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, isCaughtUp: false, isFenced: true, shouldShutDown: false }),
});
