/**
 * The active controller's side of broker liveness as the handlers of
 * BrokerRegistration (62), BrokerHeartbeat (63), AlterPartition (56) and the in-process
 * transport call it: QuorumController's methods, with a failed append (this
 * node is not the Raft leader, or I/O) turned into an error code.
 */
import type { BootedController } from '../../controller/boot.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ControllerLifecycleOps } from './cluster-services.js';

/** Wraps QuorumController's liveness methods; a failed append (not the leader, I/O) becomes an error code. */
export function lifecycleOps(booted: BootedController): ControllerLifecycleOps {
  const c = booted.controller;
  return {
    registerBroker: async (call) => {
      try {
        const r = await c.registerBroker({ brokerId: call.brokerId, incarnationId: call.incarnationId, endpoints: call.endpoints, rack: call.rack, previousBrokerEpoch: call.previousBrokerEpoch });
        return { errorCode: r.errorCode, errorMessage: r.errorMessage, brokerEpoch: r.brokerEpoch };
      } catch (err) {
        return { errorCode: notLeader(err) ? ErrorCode.NOT_CONTROLLER : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message, brokerEpoch: -1n };
      }
    },
    brokerHeartbeat: async (call) => {
      try {
        const r = await c.brokerHeartbeat(call);
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

