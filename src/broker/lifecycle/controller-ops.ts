/**
 * The active controller's side of broker liveness as the handlers of
 * BrokerRegistration (62), BrokerHeartbeat (63), AlterPartition (56) and the in-process
 * transport call it: QuorumController's methods, with a failed append (this
 * node is not the Raft leader, or I/O) turned into an error code.
 */
import type { BootedController } from '../../controller/boot.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Logger } from 'pino';
import type { ControllerLifecycleOps, HeartbeatConnection } from './cluster-services.js';

/** Wraps QuorumController's liveness methods; a failed append (not the leader, I/O) becomes an error code. */
export function lifecycleOps(booted: BootedController, options: { logger?: Logger; onFastFence?: (brokerId: number) => void } = {}): ControllerLifecycleOps {
  const c = booted.controller;
  /**
   * Fast failure detection (beyond Kafka, which waits for
   * broker.session.timeout.ms): the connection each broker's heartbeats last
   * came on; when the broker's side closes or resets it, the broker is
   * fenced at once (QuorumController.fenceBrokerNow).
   */
  const heartbeatConnections = new Map<number, { id: string; epoch: bigint }>();
  const watch = (brokerId: number, epoch: bigint, connection: HeartbeatConnection): void => {
    const known = heartbeatConnections.get(brokerId);
    heartbeatConnections.set(brokerId, { id: connection.id, epoch });
    if (known?.id === connection.id) return; // already watched
    connection.onPeerClosed(() => {
      const now = heartbeatConnections.get(brokerId);
      if (now?.id !== connection.id) return; // the broker moved to another connection
      heartbeatConnections.delete(brokerId);
      c.fenceBrokerNow(brokerId, now.epoch).then(
        (fenced) => {
          if (!fenced) return;
          options.logger?.warn({ brokerId, brokerEpoch: String(now.epoch) }, 'the connection of a broker closed: fenced it without waiting for its session to expire');
          options.onFastFence?.(brokerId);
        },
        (err: unknown) => options.logger?.debug({ err, brokerId }, 'could not fence a broker whose connection closed'),
      );
    });
  };
  return {
    registerBroker: async (call) => {
      try {
        const r = await c.registerBroker({ brokerId: call.brokerId, incarnationId: call.incarnationId, endpoints: call.endpoints, rack: call.rack, previousBrokerEpoch: call.previousBrokerEpoch });
        return { errorCode: r.errorCode, errorMessage: r.errorMessage, brokerEpoch: r.brokerEpoch };
      } catch (err) {
        return { errorCode: notLeader(err) ? ErrorCode.NOT_CONTROLLER : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message, brokerEpoch: -1n };
      }
    },
    brokerHeartbeat: async (call, connection) => {
      try {
        const r = await c.brokerHeartbeat(call);
        if (connection !== undefined && r.errorCode === ErrorCode.NONE) watch(call.brokerId, call.brokerEpoch, connection);
        return { errorCode: r.errorCode, isCaughtUp: r.isCaughtUp, isFenced: r.isFenced, shouldShutDown: r.shouldShutDown };
      } catch (err) {
        return { errorCode: notLeader(err) ? ErrorCode.NOT_CONTROLLER : ErrorCode.UNKNOWN_SERVER_ERROR, isCaughtUp: false, isFenced: true, shouldShutDown: false };
      }
    },
    alterPartition: async (request) => {
      try {
        return await c.alterPartition(request);
      } catch (err) {
        return { errorCode: notLeader(err) ? ErrorCode.NOT_CONTROLLER : ErrorCode.UNKNOWN_SERVER_ERROR, topics: [] };
      }
    },
  };
}

function notLeader(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_TRIB_METADATA_NOT_LEADER';
}

