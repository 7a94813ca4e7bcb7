/**
 * The two ways a broker reaches the active controller for registration and
 * heartbeats: over the controller listeners (BrokerRegistration 62 and
 * BrokerHeartbeat 63 via ControllerRpc), or in-process when the controller
 * is on this node and alone (the single-node default: no sockets, start-up
 * stays fast).
 */
import { BrokerHeartbeatRequest, BrokerHeartbeatResponse } from '../../protocol/messages/63-broker-heartbeat.js';
import { BrokerRegistrationRequest, BrokerRegistrationResponse } from '../../protocol/messages/62-broker-registration.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { LifecycleTransport } from './broker-lifecycle.js';
import type { ControllerLifecycleOps } from './cluster-services.js';
import type { ControllerRpc } from './controller-rpc.js';

const REGISTRATION_VERSION = 4;
const HEARTBEAT_VERSION = 1;

export function localLifecycleTransport(ops: ControllerLifecycleOps): LifecycleTransport {
  return {
    register: (call) => ops.registerBroker(call),
    heartbeat: (call) => ops.brokerHeartbeat(call),
    controllerMoved: () => undefined,
  };
}

/**
 * Sends to the controller this node believes active (`leaderId()`, from the
 * Raft state this node follows or observes); when that is unknown or has
 * just failed, tries the voters in turn.
 */
export class RemoteLifecycleTransport implements LifecycleTransport {
  private rotation = 0;
  private suspect: number | null = null;

  constructor(
    private readonly rpc: ControllerRpc,
    private readonly leaderId: () => number | null,
    private readonly requestTimeoutMs: number,
  ) {}

  private target(): number {
    const leader = this.leaderId();
    if (leader !== null && leader !== this.suspect) return leader;
    const ids = this.rpc.voterIds;
    const id = ids[this.rotation % ids.length];
    if (id === undefined) throw new Error('controller.quorum.voters is empty');
    return id;
  }

  controllerMoved(): void {
    const leader = this.leaderId();
    if (leader !== null && leader !== this.suspect) {
      this.suspect = leader;
    } else {
      this.rotation++;
    }
  }

  async register(call: Parameters<LifecycleTransport['register']>[0]): ReturnType<LifecycleTransport['register']> {
    const target = this.target();
    const res = await this.rpc.send(
      target,
      { request: BrokerRegistrationRequest, response: BrokerRegistrationResponse },
      REGISTRATION_VERSION,
      {
        brokerId: call.brokerId,
        clusterId: call.clusterId,
        incarnationId: call.incarnationId,
        listeners: call.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
        features: [],
        rack: call.rack,
        previousBrokerEpoch: call.previousBrokerEpoch ?? -1n,
      },
      this.requestTimeoutMs,
    );
    this.confirm(target, res.errorCode);
    return { errorCode: res.errorCode, brokerEpoch: res.brokerEpoch };
  }

  async heartbeat(call: Parameters<LifecycleTransport['heartbeat']>[0]): ReturnType<LifecycleTransport['heartbeat']> {
    const target = this.target();
    const res = await this.rpc.send(
      target,
      { request: BrokerHeartbeatRequest, response: BrokerHeartbeatResponse },
      HEARTBEAT_VERSION,
      { brokerId: call.brokerId, brokerEpoch: call.brokerEpoch, currentMetadataOffset: call.currentMetadataOffset, wantFence: call.wantFence, wantShutDown: call.wantShutDown },
      this.requestTimeoutMs,
    );
    this.confirm(target, res.errorCode);
    return { errorCode: res.errorCode, isCaughtUp: res.isCaughtUp, isFenced: res.isFenced, shouldShutDown: res.shouldShutDown };
  }

  /** An answer from the leader we suspected clears the suspicion. */
  private confirm(target: number, errorCode: number): void {
    if (errorCode !== ErrorCode.NOT_CONTROLLER && target === this.suspect) this.suspect = null;
  }
}
