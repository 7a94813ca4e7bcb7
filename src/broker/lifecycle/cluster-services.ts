/**
 * What the cluster-aware handlers reach through `services.cluster`: the
 * controller channel (forwarding), and on controller nodes the lifecycle
 * operations that BrokerRegistration (62) and BrokerHeartbeat (63) call.
 */
import type { AlterPartitionReply, AlterPartitionRequest } from '../../controller/alter-partition.js';
import type { ControllerChannel } from '../controller-channel.js';

export interface RegisterBrokerCall {
  readonly brokerId: number;
  readonly clusterId: string;
  readonly incarnationId: string;
  readonly endpoints: readonly { name: string; host: string; port: number; securityProtocol: number }[];
  readonly rack: string | null;
  /** The broker epoch of this broker's last clean shutdown, else -1 (BrokerRegistration v3, KIP-966). */
  readonly previousBrokerEpoch?: bigint | undefined;
}

export interface BrokerHeartbeatCall {
  readonly brokerId: number;
  readonly brokerEpoch: bigint;
  readonly currentMetadataOffset: bigint;
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
}

export interface RegisterBrokerAnswer {
  readonly errorCode: number;
  readonly errorMessage?: string | null;
  readonly brokerEpoch: bigint;
}

/** The connection a heartbeat came on (controller listener); absent in-process. */
export interface HeartbeatConnection {
  readonly id: string;
  /** Runs `fn` once the broker's side closes or resets the connection. */
  readonly onPeerClosed: (fn: () => void) => void;
}

export interface BrokerHeartbeatAnswer {
  readonly errorCode: number;
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly shouldShutDown: boolean;
}

/** The active controller's side of broker liveness (wraps QuorumController). */
export interface ControllerLifecycleOps {
  registerBroker(call: RegisterBrokerCall): Promise<RegisterBrokerAnswer>;
  brokerHeartbeat(call: BrokerHeartbeatCall, connection?: HeartbeatConnection): Promise<BrokerHeartbeatAnswer>;
  /** AlterPartition (56) from a partition leader. */
  alterPartition(request: AlterPartitionRequest): Promise<AlterPartitionReply>;
}

export interface ClusterServices {
  readonly channel: ControllerChannel;
  /** Present on controller nodes; answers NOT_CONTROLLER unless `channel.isLocal()`. */
  readonly lifecycle: ControllerLifecycleOps | null;
}
