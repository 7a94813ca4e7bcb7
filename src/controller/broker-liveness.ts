/**
 * Broker liveness on the active controller (KRaft's BrokerHeartbeatManager
 * and ClusterControlManager, in part), composed into QuorumController:
 * registrations (KIP-631; KIP-966's unclean restarts), heartbeats, session
 * expiry, controlled shutdown, and the fast fencing of a broker whose
 * heartbeat connection closed. Sessions live in memory on the active
 * controller only. Every call runs inside the controller's request queue
 * (QuorumController wraps them); records go through its `append`.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { Clock } from '../util/clock.js';
import type { Random } from '../util/random.js';
import { ledPartitionCount, type PartitionChanges } from './leadership.js';
import type { EndPoint, MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import type { AppendedRange, MetadataLog } from './metadata-log.js';
import type { ControllerStats } from './replication-control.js';
import type { BrokerHeartbeatReply, BrokerHeartbeatRequest, BrokerRegistrationReply, BrokerRegistrationRequest, ListenerEndpoint } from './types.js';
import { randomUuid } from './uuid.js';

/** Kafka's SecurityProtocol ids. */
const SECURITY_PROTOCOLS: Readonly<Record<string, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

/**
 * Heartbeat bookkeeping of one broker, in memory on the active controller only
 * (as KRaft): a new active controller starts every broker with a fresh session.
 */
interface BrokerSession {
  lastContactMs: number;
  /** Offset of the broker's RegisterBrokerRecord, when this controller wrote it (else its epoch is used). */
  registrationOffset: bigint | null;
  /** Controlled shutdown: offset the broker must have applied (its leaderships moved) before it may stop. */
  shutdownOffset: bigint | null;
  /** Registered by the combined single node itself (no heartbeats yet): never expires. */
  local: boolean;
}

export interface LivenessDeps {
  readonly nodeId: number;
  readonly log: MetadataLog;
  readonly image: () => MetadataImage;
  readonly random: Random;
  readonly clock?: Clock | undefined;
  /** broker.session.timeout.ms */
  readonly sessionTimeoutMs: number;
  readonly stats: ControllerStats;
  /** A PartitionChanges whose elections the next append reports. */
  readonly changes: () => PartitionChanges;
  /** The controller's append: null when committed, else the failure to answer. */
  readonly append: (records: readonly MetadataRecord[]) => Promise<{ errorCode: ErrorCode; errorMessage: string | null } | null>;
  readonly lastAppend: () => AppendedRange | null;
  readonly setLastAppend: (range: AppendedRange) => void;
  readonly reportElections: (committed: boolean) => void;
}

export class BrokerLiveness {
  private readonly sessions = new Map<number, BrokerSession>();

  constructor(private readonly deps: LivenessDeps) {}

  /**
   * BrokerRegistration. With a `brokerId` (KRaft's contract, the network
   * path): the broker starts fenced with a broker epoch = the offset of its
   * RegisterBrokerRecord; the same incarnation id again is a retry and gets
   * the same epoch; a new incarnation replaces the registration (leadership of
   * the old incarnation's partitions moves away in the same batch).
   *
   * Without `brokerId`: this node (the combined single node) registers itself
   * unfenced, a no-op when the image already has the same registration, so
   * restarts do not grow the log; its session never expires (it does not
   * heartbeat). A failed append rejects with the MetadataLogError.
   */
  async registerLocal(registration: { endpoints: readonly ListenerEndpoint[]; rack: string | null }): Promise<BrokerRegistrationReply> {
    const endPoints = registration.endpoints.map(toEndPoint);
    const nodeId = this.deps.nodeId;
    const current = this.deps.image().broker(nodeId);
    const session = (): void => {
      this.sessions.set(nodeId, { lastContactMs: this.deps.clock?.monotonicMs() ?? 0, registrationOffset: null, shutdownOffset: null, local: true });
    };
    if (current !== undefined && !current.fenced && !current.inControlledShutdown && current.rack === registration.rack && sameEndPoints(current.endPoints, endPoints)) {
      session();
      return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch: current.brokerEpoch };
    }
    const brokerEpoch = this.deps.log.endOffset;
    const record: MetadataRecord = {
      type: 'RegisterBrokerRecord',
      data: { brokerId: nodeId, incarnationId: randomUuid(this.deps.random), brokerEpoch, endPoints, features: [], rack: registration.rack, fenced: false, inControlledShutdown: false },
    };
    // The new registration is unfenced at once: leaderless partitions of this node get it back.
    const changes = this.deps.changes();
    changes.addBroker(nodeId);
    // Failures throw MetadataLogError (this runs at boot, where a failure stops the start).
    let committed = false;
    try {
      this.deps.setLastAppend(await this.deps.log.append([record, ...changes.records()]));
      committed = true;
    } finally {
      this.deps.reportElections(committed);
    }
    session();
    return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch };
  }

  async registerRemote(req: BrokerRegistrationRequest): Promise<BrokerRegistrationReply> {
    const failed = (errorCode: ErrorCode, errorMessage: string): BrokerRegistrationReply => ({ errorCode, errorMessage, brokerEpoch: -1n });
    if (!Number.isInteger(req.brokerId) || req.brokerId < 0) return failed(ErrorCode.INVALID_REQUEST, `Invalid broker id ${req.brokerId}.`);
    const current = this.deps.image().broker(req.brokerId);
    const nowMs = this.sessionNowMs();
    if (current !== undefined && current.incarnationId === req.incarnationId) {
      // A retry of a registration that committed (its answer was lost).
      this.touch(req.brokerId, nowMs);
      return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch: current.brokerEpoch };
    }
    const brokerEpoch = this.deps.log.endOffset;
    const records: MetadataRecord[] = [
      {
        type: 'RegisterBrokerRecord',
        data: {
          brokerId: req.brokerId,
          incarnationId: req.incarnationId,
          brokerEpoch,
          endPoints: req.endpoints.map(toEndPoint),
          features: (req.features ?? []).map((f) => ({ ...f })),
          rack: req.rack,
          fenced: true,
          inControlledShutdown: false,
        },
      },
    ];
    if (current !== undefined) {
      // The old incarnation is gone: its leaderships move now, not after its session expires.
      // KIP-966: unless it names the epoch it had as the one of its last clean shutdown, it may
      // have lost unflushed records, so it also leaves every ISR and ELR it was in.
      const unclean = (req.previousBrokerEpoch ?? -1n) !== current.brokerEpoch;
      const changes = this.deps.changes();
      changes.removeBroker(req.brokerId, { unclean });
      records.push(...changes.records());
    }
    const result = await this.deps.append(records);
    if (result !== null) return failed(result.errorCode, result.errorMessage ?? '');
    this.sessions.set(req.brokerId, { lastContactMs: nowMs, registrationOffset: this.deps.lastAppend()?.baseOffset ?? brokerEpoch, shutdownOffset: null, local: false });
    return { errorCode: ErrorCode.NONE, errorMessage: null, brokerEpoch };
  }

  /**
   * BrokerHeartbeat (KRaft's BrokerHeartbeatManager): renews the session;
   * a fenced broker is unfenced once it has applied the metadata up to its
   * own registration (and does not ask to stay fenced); `wantFence` fences;
   * `wantShutDown` starts a controlled shutdown: leadership of its partitions
   * moves to another in-sync replica (or to none), and once the broker has
   * applied that change and leads nothing, it is fenced and told to shut down.
   */
  async heartbeat(req: BrokerHeartbeatRequest): Promise<BrokerHeartbeatReply> {
    const reply = (errorCode: ErrorCode, errorMessage: string | null, isCaughtUp: boolean, isFenced: boolean, shouldShutDown: boolean): BrokerHeartbeatReply => ({
      errorCode,
      errorMessage,
      isCaughtUp,
      isFenced,
      shouldShutDown,
    });
    const current = this.deps.image().broker(req.brokerId);
    if (current === undefined) return reply(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ${req.brokerId} is not registered.`, false, true, false);
    if (current.brokerEpoch !== req.brokerEpoch) {
      return reply(ErrorCode.STALE_BROKER_EPOCH, `Broker ${req.brokerId} is registered with epoch ${current.brokerEpoch}, not ${req.brokerEpoch}.`, false, true, false);
    }
    const session = this.touch(req.brokerId, this.sessionNowMs());
    const isCaughtUp = req.currentMetadataOffset >= (session.registrationOffset ?? current.brokerEpoch);
    const epoch = current.brokerEpoch;
    if (current.fenced) {
      // A broker whose controlled shutdown completed stays fenced until it registers again.
      if (req.wantShutDown || current.inControlledShutdown) return reply(ErrorCode.NONE, null, isCaughtUp, true, true);
      if (req.wantFence || !isCaughtUp) return reply(ErrorCode.NONE, null, isCaughtUp, true, false);
      const changes = this.deps.changes();
      changes.addBroker(req.brokerId);
      const failure = await this.deps.append([{ type: 'UnfenceBrokerRecord', data: { id: req.brokerId, epoch } }, ...changes.records()]);
      if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, true, false);
      return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
    }
    if (req.wantFence) {
      const failure = await this.deps.append(this.fenceRecords([req.brokerId]));
      if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
      return reply(ErrorCode.NONE, null, isCaughtUp, true, req.wantShutDown);
    }
    if (!req.wantShutDown) return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
    if (!current.inControlledShutdown) {
      const changes = this.deps.changes();
      changes.removeBroker(req.brokerId);
      const failure = await this.deps.append([
        { type: 'BrokerRegistrationChangeRecord', data: { brokerId: req.brokerId, brokerEpoch: epoch, fenced: 0, inControlledShutdown: 1 } },
        ...changes.records(),
      ]);
      if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
      session.shutdownOffset = this.deps.lastAppend()?.lastOffset ?? this.deps.image().lastAppliedOffset;
    }
    // A new active controller did not see the moves being written: the broker must reach what it knows now.
    session.shutdownOffset ??= this.deps.image().lastAppliedOffset;
    if (ledPartitionCount(this.deps.image(), req.brokerId) > 0 || req.currentMetadataOffset < session.shutdownOffset) return reply(ErrorCode.NONE, null, isCaughtUp, false, false);
    const failure = await this.deps.append(this.fenceRecords([req.brokerId]));
    if (failure !== null) return reply(failure.errorCode, failure.errorMessage, isCaughtUp, false, false);
    return reply(ErrorCode.NONE, null, isCaughtUp, true, true);
  }

  /**
   * Fences every unfenced broker whose last heartbeat is older than
   * broker.session.timeout.ms (moving its leaderships away), in one batch.
   * A broker this controller has no session for (it just became active)
   * gets a fresh one. Resolves to the number of brokers fenced (0 when this
   * node is not the active controller).
   */
  async tick(): Promise<number> {
    const nowMs = this.sessionNowMs();
    const timeoutMs = this.deps.sessionTimeoutMs;
    const expired: number[] = [];
    for (const b of this.deps.image().brokers()) {
      if (b.fenced) continue;
      const session = this.sessions.get(b.brokerId) ?? this.touch(b.brokerId, nowMs);
      if (!session.local && nowMs - session.lastContactMs >= timeoutMs) expired.push(b.brokerId);
    }
    if (expired.length === 0) return 0;
    const failure = await this.deps.append(this.fenceRecords(expired));
    return failure === null ? expired.length : 0;
  }

  /**
   * Fences broker `brokerId` at once, without waiting for its session to
   * expire: the active controller saw the connection its heartbeats came on
   * closed or reset by the broker's side, which a live broker never does
   * (its process died; a paused one keeps the connection and still goes by
   * the session timeout). Only the registration `brokerEpoch` is fenced, and
   * only when unfenced; its leaderships move as on a session expiry. A
   * broker that is in fact alive heartbeats again and is unfenced as usual.
   * Resolves true when a fence was committed.
   */
  async fenceNow(brokerId: number, brokerEpoch: bigint): Promise<boolean> {
    const b = this.deps.image().broker(brokerId);
    if (b === undefined || b.brokerEpoch !== brokerEpoch || b.fenced || this.sessions.get(brokerId)?.local === true) return false;
    const fenced = (await this.deps.append(this.fenceRecords([brokerId]))) === null;
    if (fenced) this.deps.stats.fastFences++;
    return fenced;
  }

  /** This node became the active controller: every broker starts a fresh session (KRaft keeps them in memory only). */
  becomeActive(): void {
    const nowMs = this.sessionNowMs();
    for (const [id, s] of this.sessions) this.sessions.set(id, { ...s, lastContactMs: nowMs, registrationOffset: null, shutdownOffset: null });
  }

  private fenceRecords(brokerIds: readonly number[]): MetadataRecord[] {
    const changes = this.deps.changes();
    for (const id of brokerIds) changes.removeBroker(id);
    const fences: MetadataRecord[] = [];
    for (const id of brokerIds) {
      const b = this.deps.image().broker(id);
      if (b !== undefined && !b.fenced) fences.push({ type: 'FenceBrokerRecord', data: { id, epoch: b.brokerEpoch } });
    }
    return [...changes.records(), ...fences];
  }

  private touch(brokerId: number, nowMs: number): BrokerSession {
    let s = this.sessions.get(brokerId);
    if (s === undefined) {
      s = { lastContactMs: nowMs, registrationOffset: null, shutdownOffset: null, local: false };
      this.sessions.set(brokerId, s);
    } else {
      s.lastContactMs = Math.max(s.lastContactMs, nowMs);
    }
    return s;
  }

  private sessionNowMs(): number {
    const clock = this.deps.clock;
    if (clock === undefined) throw new Error('QuorumController: broker sessions need the `clock` option');
    return clock.monotonicMs();
  }
}

export function toEndPoint(e: ListenerEndpoint): EndPoint {
  const protocol = e.securityProtocol;
  const securityProtocol = typeof protocol === 'number' ? protocol : SECURITY_PROTOCOLS[(protocol ?? e.name).toUpperCase()] ?? 0;
  return { name: e.name, host: e.host, port: e.port, securityProtocol };
}

function sameEndPoints(a: readonly EndPoint[], b: readonly EndPoint[]): boolean {
  return a.length === b.length && a.every((e, i) => {
    const o = b[i];
    return o !== undefined && e.name === o.name && e.host === o.host && e.port === o.port && e.securityProtocol === o.securityProtocol;
  });
}
