/**
 * The cluster side of one node (process.roles, controller.quorum.voters),
 * kept out of broker.ts. Created only when the node is not alone: a lone
 * combined node (the single-node default) runs bootController's one-voter
 * Raft log (no transport, no controller listener) and registers itself
 * in-process.
 *
 * Controller role: a RaftMetadataLog voter (src/controller/quorum), its
 * RPCs served on the controller listener; the node's QuorumController is
 * active only while this node is the Raft leader (appends elsewhere fail
 * with NOT_LEADER), and while active it gets `becomeActive()`, feature
 * finalization, and a `tick()` every CONTROLLER_TICK_MS that fences brokers
 * whose session expired.
 * Broker-only (process.roles=broker): the RaftMetadataLog runs as a Raft
 * observer (its node.id is not a voter): it fetches the metadata log and
 * snapshots from the leader over the voters' controller listeners, never
 * votes, has no controller listener, and its QuorumController is never
 * active (admin requests are forwarded).
 * Broker role: a BrokerLifecycleManager registers with the active controller
 * over BrokerRegistration and heartbeats over BrokerHeartbeat (loopback when
 * that is this node); the node serves once unfenced and caught up; SIGTERM
 * runs a controlled shutdown first.
 * Admin requests go through the ControllerChannel: local when this node is
 * the active controller, else forwarded to it.
 */
import type { Logger } from 'pino';
import type { BootedController } from '../../controller/boot.js';
import { LEADER_BALANCE_BATCH_MAX } from '../../controller/controller.js';
import { ensureMetaProperties } from '../../controller/meta-properties.js';
import { RaftMetadataLog, type LeaderChange } from '../../controller/quorum/raft-metadata-log.js';
import type { FileSystem } from '../../storage/fs.js';
import type { Clock } from '../../util/clock.js';
import { systemRandom } from '../../util/random.js';
import { systemTimer } from '../../util/timer.js';
import { randomUuid } from '../../protocol/uuid.js';
import { AlterPartitionSender, controllerAlterPartitionChannel } from '../alter-partition-sender.js';
import { remoteControllerChannel, type ControllerChannel } from '../controller-channel.js';
import { takeCleanShutdownEpoch, writeCleanShutdownMarker } from './clean-shutdown.js';
import { deadBrokers, tcpDial } from './takeover-probe.js';
import { HandlerRegistry } from '../handler-registry.js';
import type { AnyHandler } from '../handler.js';
import type { BrokerServices } from '../services.js';
import { isSingleNode, type BrokerSettings, type ClusterSettings, type ListenerSettings } from '../settings.js';
import { BrokerLifecycleManager } from './broker-lifecycle.js';
import type { ClusterServices, ControllerLifecycleOps } from './cluster-services.js';
import { lifecycleOps } from './controller-ops.js';
import { ControllerRpc } from './controller-rpc.js';
import { handlersForListener } from './listener-apis.js';
import { RemoteLifecycleTransport } from './transports.js';

/** How often the active controller looks for expired broker sessions. */
export const CONTROLLER_TICK_MS = 250;
/** Longest a SIGTERM waits for the controller to move leadership away. */
export const CONTROLLED_SHUTDOWN_TIMEOUT_MS = 10_000;

const SECURITY_PROTOCOL_IDS: Readonly<Record<string, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

/**
 * The endpoints a broker registers: each listener with Kafka's id of its
 * security protocol (from listener.security.protocol.map, so a listener named
 * INTERNAL that runs SSL registers as SSL, not by its name).
 */
export function registrationEndpoints(listeners: readonly ListenerSettings[]): { name: string; host: string; port: number; securityProtocol: number }[] {
  return listeners.map((e) => ({ name: e.name, host: e.host, port: e.port, securityProtocol: SECURITY_PROTOCOL_IDS[e.security?.protocol ?? 'PLAINTEXT'] ?? 0 }));
}

export interface ClusterNodeOptions {
  readonly settings: BrokerSettings;
  readonly fs: FileSystem;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class ClusterNode {
  readonly log: RaftMetadataLog;
  readonly rpc: ControllerRpc;
  readonly channel: ControllerChannel;
  /** The broker epoch of this node's last clean stop, else -1 (BrokerRegistration v3). */
  private readonly previousBrokerEpoch: bigint;
  /** What this node's partition leaders use to change their ISRs (AlterPartition 56). */
  readonly alterPartitionSender: AlterPartitionSender;
  private booted: BootedController | null = null;
  private lifecycleOpsNow: ControllerLifecycleOps | null = null;
  private lifecycle: BrokerLifecycleManager | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private balanceTimer: NodeJS.Timeout | null = null;
  private balancing = false;
  private unsubscribeLeader: (() => void) | null = null;
  private active = false;

  private constructor(
    private readonly opts: ClusterNodeOptions,
    readonly cluster: ClusterSettings,
  ) {
    const { settings } = opts;
    // meta.properties first: opening the Raft storage creates __cluster_metadata-0,
    // and a data dir with that but no meta.properties is refused as damaged.
    ensureMetaProperties({ fs: opts.fs, dataDir: settings.dataDir, nodeId: settings.nodeId, clusterId: cluster.clusterId ?? undefined, random: systemRandom });
    // Taken before anything else runs: a crash from here on is not a clean stop (KIP-966).
    this.previousBrokerEpoch = takeCleanShutdownEpoch(opts.fs, settings.dataDir);
    this.rpc = new ControllerRpc(cluster.voters, `tributary-node-${settings.nodeId}`, cluster.links?.controller);
    this.log = RaftMetadataLog.open({
      fs: opts.fs,
      clock: opts.clock,
      random: systemRandom,
      timer: systemTimer,
      dataDir: settings.dataDir,
      nodeId: settings.nodeId,
      voters: cluster.voters,
      clusterId: cluster.clusterId,
      raft: { electionTimeoutMs: cluster.electionTimeoutMs, fetchTimeoutMs: cluster.fetchTimeoutMs },
      snapshotIntervalBytes: cluster.snapshotIntervalBytes,
      onWarning: (message) => opts.logger.warn(message),
      security: cluster.links?.controller,
    });
    this.channel = remoteControllerChannel({
      nodeId: settings.nodeId,
      controllerListenerNames: cluster.controllerListenerNames,
      rpc: this.rpc,
      leaderId: () => this.log.leaderId,
      isActiveHere: () => this.active && this.log.isLeader,
    });
    this.alterPartitionSender = new AlterPartitionSender({
      brokerId: settings.nodeId,
      brokerEpoch: () => this.lifecycle?.brokerEpoch ?? -1n,
      channel: controllerAlterPartitionChannel(this.channel, () => {
        const ops = this.lifecycleOpsNow;
        return ops === null ? null : (req) => ops.alterPartition(req);
      }),
      retryBackoffMs: Math.max(cluster.retryBackoffMs, 50),
      logger: opts.logger.child({ component: 'alter-partition' }),
    });
  }

  /** The cluster part of a node, or null for a lone combined node (the single-node default). */
  static create(opts: ClusterNodeOptions): ClusterNode | null {
    const cluster = opts.settings.cluster;
    if (cluster === undefined || isSingleNode(opts.settings)) return null;
    if (!cluster.roles.controller && cluster.voters.some((v) => v.id === opts.settings.nodeId)) {
      // A voter that does not run the controller would count for quorums it never joins.
      throw new Error(`process.roles=broker: node.id=${opts.settings.nodeId} is one of controller.quorum.voters; a broker-only node needs an id of its own (voters are controllers)`);
    }
    return new ClusterNode(opts, cluster);
  }

  get services(): ClusterServices {
    return { channel: this.channel, lifecycle: this.lifecycleOpsNow };
  }

  get isControllerOnly(): boolean {
    return !this.cluster.roles.broker;
  }

  isControllerListener(name: string): boolean {
    return this.cluster.controllerListenerNames.includes(name);
  }

  /** Registry and services for a controller listener: its own API set, its own ApiVersions. */
  controllerListenerApis(all: readonly AnyHandler[], services: BrokerServices): { registry: HandlerRegistry; services: BrokerServices } {
    const registry = new HandlerRegistry(handlersForListener(all, 'controller'));
    return { registry, services: { ...services, apiVersions: () => registry.ranges() } };
  }

  /** Called once the metadata layer is booted: drive the controller while this node leads. */
  attach(booted: BootedController): void {
    this.booted = booted;
    this.lifecycleOpsNow = lifecycleOps(booted, { logger: this.opts.logger.child({ component: 'controller' }) });
    const onChange = (change: LeaderChange): void => {
      const was = this.active;
      this.active = change.isLeader;
      if (change.isLeader && !was) {
        this.opts.logger.info({ epoch: change.epoch }, 'this node is now the active controller');
        booted.controller.becomeActive();
        void this.fenceDeadBrokersOnTakeover(booted);
        booted.controller.finalizeFeatures().catch((err: unknown) => this.opts.logger.warn({ err }, 'could not finalize feature levels'));
      } else if (!change.isLeader && was) {
        this.opts.logger.info({ leaderId: change.leaderId, epoch: change.epoch }, 'this node is no longer the active controller');
      }
    };
    this.unsubscribeLeader = this.log.onLeaderChange(onChange);
    onChange({ leaderId: this.log.leaderId, epoch: this.log.epoch, isLeader: this.log.isLeader });
    this.tickTimer = setInterval(() => {
      if (!this.active) return;
      booted.controller.tick().catch((err: unknown) => this.opts.logger.warn({ err }, 'controller tick failed'));
    }, CONTROLLER_TICK_MS);
    this.tickTimer.unref();
    if (this.cluster.autoLeaderRebalanceEnable) {
      this.balanceTimer = setInterval(() => void this.balanceLeaders(booted), this.cluster.leaderImbalanceCheckIntervalMs);
      this.balanceTimer.unref();
    }
  }

  /**
   * Right after taking over: fences the brokers whose listeners all refuse
   * connections (their process is gone, often with the old controller)
   * instead of waiting for their sessions to expire (takeover-probe.ts).
   */
  private async fenceDeadBrokersOnTakeover(booted: BootedController): Promise<void> {
    const logger = this.opts.logger.child({ component: 'controller' });
    try {
      for (const b of await deadBrokers(booted.image().brokers(), booted.nodeId, tcpDial)) {
        if (!this.active) return;
        if (await booted.controller.fenceBrokerNow(b.brokerId, b.brokerEpoch)) {
          logger.warn({ brokerId: b.brokerId, brokerEpoch: String(b.brokerEpoch) }, 'a broker refused connections when this controller took over: fenced it without waiting for its session to expire');
        }
      }
    } catch (err) {
      logger.debug({ err }, 'could not probe the brokers after taking over');
    }
  }

  /** One leader-imbalance check (auto.leader.rebalance.enable): batches until nothing is left to move. */
  private async balanceLeaders(booted: BootedController): Promise<void> {
    if (!this.active || this.balancing) return;
    this.balancing = true;
    try {
      for (let round = 0; round < 100 && this.active; round++) {
        const moved = await booted.controller.balanceLeaders();
        if (moved > 0) this.opts.logger.info({ moved }, 'moved leaderships back to preferred replicas');
        if (moved < LEADER_BALANCE_BATCH_MAX) break;
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'leader rebalance failed');
    } finally {
      this.balancing = false;
    }
  }

  /**
   * Registers this broker with the active controller and heartbeats;
   * `onCaughtUp` runs when its metadata has caught up; resolves once unfenced.
   */
  async startBroker(endpoints: readonly ListenerSettings[], onCaughtUp?: () => void): Promise<void> {
    const booted = this.booted;
    if (booted === null) throw new Error('ClusterNode.attach() must run before startBroker()');
    const { settings, logger } = this.opts;
    const manager = new BrokerLifecycleManager({
      registration: {
        brokerId: settings.nodeId,
        clusterId: booted.clusterId,
        incarnationId: randomUuid(),
        endpoints: registrationEndpoints(endpoints),
        rack: settings.rack,
        previousBrokerEpoch: this.previousBrokerEpoch,
      },
      transport: new RemoteLifecycleTransport(this.rpc, () => this.log.leaderId, Math.max(this.cluster.requestTimeoutMs, 1000)),
      metadataOffset: () => booted.image().lastAppliedOffset,
      heartbeatIntervalMs: this.cluster.brokerHeartbeatIntervalMs,
      retryBackoffMs: Math.max(this.cluster.retryBackoffMs, 50),
      logger: logger.child({ component: 'broker-lifecycle' }),
      onCaughtUp,
    });
    this.lifecycle = manager;
    manager.start();
    const waiting = setInterval(() => logger.info({ state: manager.state, leaderId: this.log.leaderId }, 'waiting to be unfenced by the active controller'), 5_000);
    waiting.unref();
    try {
      await manager.ready();
    } finally {
      clearInterval(waiting);
    }
  }

  /** SIGTERM: ask the controller to move leadership away before the listeners close. */
  async controlledShutdown(): Promise<void> {
    const manager = this.lifecycle;
    if (manager !== null) {
      const agreed = await manager.controlledShutdown(CONTROLLED_SHUTDOWN_TIMEOUT_MS);
      this.opts.logger.info({ agreed }, agreed ? 'controlled shutdown done' : 'controlled shutdown not confirmed; stopping anyway');
    }
    // The Raft leader hands over (EndQuorumEpoch) while its listeners still serve, instead of leaving the voters to time out.
    if (this.log.status().role === 'leader') {
      const epoch = this.log.epoch;
      const handedOver = await this.log.resign();
      this.opts.logger.info({ epoch, handedOver, leaderId: this.log.leaderId }, handedOver ? 'resigned metadata leadership' : 'resigned metadata leadership; no successor yet');
    }
  }

  /**
   * The last step of a clean stop, after the logs are closed: the marker that
   * lets the next start register as a clean restart (KIP-966).
   */
  markCleanShutdown(): void {
    const epoch = this.lifecycle?.brokerEpoch ?? -1n;
    if (epoch < 0n) return;
    try {
      writeCleanShutdownMarker(this.opts.fs, this.opts.settings.dataDir, epoch);
    } catch (err) {
      this.opts.logger.warn({ err }, 'could not write the clean-shutdown marker; the next start counts as unclean');
    }
  }

  async close(): Promise<void> {
    this.alterPartitionSender.close();
    if (this.tickTimer !== null) clearInterval(this.tickTimer);
    this.tickTimer = null;
    if (this.balanceTimer !== null) clearInterval(this.balanceTimer);
    this.balanceTimer = null;
    this.unsubscribeLeader?.();
    await this.lifecycle?.close();
    await this.rpc.close();
  }
}
