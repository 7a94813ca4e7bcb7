/**
 * A simulated consumer for the group coordinator simulation: it follows the
 * classic client protocol as the Java consumer does (eager assignors): join,
 * MEMBER_ID_REQUIRED rejoin, sync (the leader computes a real range or
 * round-robin assignment), heartbeat loop, occasional commits, and the usual
 * reactions to REBALANCE_IN_PROGRESS / UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION /
 * FENCED_INSTANCE_ID and coordinator errors.
 */
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { JoinGroupResult, SyncGroupResult } from '../../../src/coordinator/group/coordinator-api.js';
import { encodeSubscription, parseSubscriptionTopics } from '../../../src/coordinator/group/member.js';
import type { SimWorld } from './sim-world.js';

export type Tp = readonly [string, number];
export type ClientState = 'joining' | 'syncing' | 'stable' | 'dead' | 'fatal';

const RETRIABLE = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.REBALANCE_IN_PROGRESS]);
const FATAL = new Set<number>([ErrorCode.FENCED_INSTANCE_ID, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ErrorCode.GROUP_MAX_SIZE_REACHED]);

export function encodeAssignment(tps: readonly Tp[]): Buffer {
  return Buffer.from(JSON.stringify(tps));
}

export function decodeAssignment(b: Buffer): Tp[] {
  return b.length === 0 ? [] : (JSON.parse(b.toString()) as Tp[]);
}

/** Kafka's RangeAssignor: per topic, consecutive ranges over the sorted subscribers. */
export function rangeAssign(members: readonly { id: string; topics: readonly string[] }[], partitionsOf: (t: string) => number): Map<string, Tp[]> {
  const out = new Map<string, Tp[]>(members.map((m) => [m.id, []]));
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  for (const t of topics) {
    const subs = members.filter((m) => m.topics.includes(t)).map((m) => m.id).sort();
    const n = partitionsOf(t);
    const per = Math.floor(n / subs.length);
    const extra = n % subs.length;
    let p = 0;
    subs.forEach((id, i) => {
      for (let k = 0; k < per + (i < extra ? 1 : 0); k++) out.get(id)?.push([t, p++]);
    });
  }
  return out;
}

/** Kafka's RoundRobinAssignor: all partitions in order, dealt to the sorted subscribers in turn. */
export function roundRobinAssign(members: readonly { id: string; topics: readonly string[] }[], partitionsOf: (t: string) => number): Map<string, Tp[]> {
  const out = new Map<string, Tp[]>(members.map((m) => [m.id, []]));
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : 1));
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  let i = 0;
  for (const t of topics) {
    for (let p = 0; p < partitionsOf(t); p++) {
      for (let tries = 0; tries < sorted.length; tries++) {
        const m = sorted[i++ % sorted.length];
        if (m !== undefined && m.topics.includes(t)) {
          out.get(m.id)?.push([t, p]);
          break;
        }
      }
    }
  }
  return out;
}

export class SimClient {
  memberId = '';
  generationId = -1;
  state: ClientState = 'joining';
  assignment: Tp[] = [];
  /** Bumped on crash: late callbacks of an older incarnation are dropped. */
  incarnation = 0;
  /** Slow consumer (long poll loop): rejoins only from this time on. */
  slowUntilMs = 0;
  /** SIGSTOP-like pause: nothing runs until then. */
  pausedUntilMs = 0;
  private needsRejoin = false;
  private inFlight = false;

  constructor(
    readonly world: SimWorld,
    readonly name: string,
    readonly groupId: string,
    readonly instanceId: string | null,
    readonly protocols: readonly string[],
    readonly topics: readonly string[],
    readonly sessionTimeoutMs: number,
    readonly rebalanceTimeoutMs: number,
    readonly requireKnownMemberId: boolean,
  ) {}

  get live(): boolean {
    return this.state !== 'dead' && this.state !== 'fatal';
  }

  get ownerKey(): string {
    return this.instanceId ?? this.memberId;
  }

  start(): void {
    this.sendJoin();
    this.scheduleHeartbeat();
    this.scheduleCommit();
  }

  crash(): void {
    this.state = 'dead';
    this.incarnation++;
  }

  /** A clean close: dynamic members send LeaveGroup; static ones just stop (KIP-345). */
  close(): void {
    if (this.instanceId === null && this.memberId !== '') {
      const r = this.world.coordinatorCall('leaveGroup', (c) => c.leaveGroup({ groupId: this.groupId, members: [{ memberId: this.memberId, groupInstanceId: null }] }), (errorCode) => ({ errorCode, members: [] }));
      this.world.expectKnownError(r.errorCode, 'leave');
    }
    this.crash();
  }

  /** Runs `fn` now, or when a pause ends; never for a dead incarnation. */
  private run(fn: () => void, delayMs = 0): void {
    const inc = this.incarnation;
    const go = (): void => {
      if (this.incarnation !== inc || !this.live) return;
      const wait = this.pausedUntilMs - this.world.nowMs();
      if (wait > 0) this.world.timers.schedule(wait, go);
      else fn();
    };
    this.world.timers.schedule(delayMs, go);
  }

  private respond<T>(p: Promise<T>, fn: (r: T) => void): void {
    const inc = this.incarnation;
    void p.then((r) => {
      if (this.incarnation === inc) this.run(() => fn(r), this.world.latencyMs());
    });
  }

  private rejoin(resetMemberId: boolean): void {
    if (resetMemberId) this.memberId = '';
    this.needsRejoin = false;
    this.generationId = -1;
    this.assignment = [];
    this.state = 'joining';
    if (!this.inFlight) this.run(() => this.sendJoin(), this.world.backoffMs());
  }

  private fatal(code: number, what: string): void {
    this.world.log(`${this.name} fatal ${what} error ${code}`);
    this.state = 'fatal';
    this.incarnation++;
  }

  private sendJoin(): void {
    if (this.inFlight || this.state !== 'joining') return;
    this.inFlight = true;
    const input = {
      groupId: this.groupId,
      memberId: this.memberId,
      groupInstanceId: this.instanceId,
      clientId: this.name,
      clientHost: '/127.0.0.1',
      sessionTimeoutMs: this.sessionTimeoutMs,
      rebalanceTimeoutMs: this.rebalanceTimeoutMs,
      protocolType: 'consumer',
      protocols: this.protocols.map((name) => ({ name, metadata: encodeSubscription(this.topics) })),
      requireKnownMemberId: this.requireKnownMemberId,
    };
    const epoch = this.world.restarts;
    this.respond(
      this.world.coordinatorCallAsync('joinGroup', (c) => c.joinGroup(input), (errorCode) => ({ errorCode, generationId: -1, protocolName: '', leaderId: '', memberId: this.memberId, members: [] })),
      (r) => this.onJoin(r, epoch),
    );
  }

  private onJoin(r: JoinGroupResult, epoch: number): void {
    this.inFlight = false;
    if (this.state !== 'joining') return;
    if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      this.memberId = r.memberId;
      this.sendJoin();
    } else if (r.errorCode === ErrorCode.NONE) {
      this.memberId = r.memberId;
      this.generationId = r.generationId;
      this.state = 'syncing';
      const assignments = r.leaderId === r.memberId && r.members.length > 0 ? this.assign(r, epoch) : [];
      this.sendSync(assignments);
    } else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.rejoin(true);
    } else if (r.errorCode === ErrorCode.ILLEGAL_GENERATION || RETRIABLE.has(r.errorCode)) {
      this.rejoin(false);
    } else if (FATAL.has(r.errorCode)) {
      this.fatal(r.errorCode, 'join');
    } else {
      this.world.fail(`${this.name}: unexpected JoinGroup error ${r.errorCode}`);
    }
  }

  /** The leader's job: a real range or round-robin assignment from the members' subscriptions. */
  private assign(r: JoinGroupResult, epoch: number): { memberId: string; assignment: Buffer }[] {
    const members = r.members.map((m) => {
      const topics = parseSubscriptionTopics(m.metadata);
      if (topics === null) this.world.fail(`leader ${this.name} got unparsable metadata`);
      return { id: m.memberId, topics: topics ?? [] };
    });
    const partitionsOf = (t: string): number => this.world.partitionsOf(t);
    const plan = r.protocolName === 'range' ? rangeAssign(members, partitionsOf) : roundRobinAssign(members, partitionsOf);
    this.world.noteLeader(epoch, this.groupId, r.generationId, this.ownerKey);
    return [...plan].map(([memberId, tps]) => ({ memberId, assignment: encodeAssignment(tps) }));
  }

  private sendSync(assignments: { memberId: string; assignment: Buffer }[]): void {
    this.inFlight = true;
    const generationId = this.generationId;
    const p = this.world.coordinatorCallAsync(
      'syncGroup',
      (c) => c.syncGroup({ groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: this.instanceId, protocolType: null, protocolName: null, assignments }),
      (errorCode) => ({ errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) }),
    );
    const ownerKey = this.ownerKey;
    // Ownership is recorded when the coordinator answers, whether or not this client lives to see it.
    void p.then((r) => {
      if (r.errorCode !== ErrorCode.NONE) return;
      this.world.noteOwnership(this.groupId, generationId, ownerKey, decodeAssignment(r.assignment));
      if (assignments.length > 0) this.world.noteLeaderAssignment(this.groupId, generationId, assignments);
    });
    this.respond(p, (r) => this.onSync(r, generationId));
  }

  private onSync(r: SyncGroupResult, generationId: number): void {
    this.inFlight = false;
    if (this.state === 'joining') {
      // A heartbeat answer sent us back to joining while this SyncGroup was in flight.
      this.run(() => this.sendJoin(), this.world.backoffMs());
      return;
    }
    if (this.state !== 'syncing' || this.generationId !== generationId) return;
    if (r.errorCode === ErrorCode.NONE) {
      this.assignment = decodeAssignment(r.assignment);
      this.state = 'stable';
      if (this.needsRejoin) this.maybeRejoinAfterRebalanceNotice();
    } else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.rejoin(true);
    } else if (r.errorCode === ErrorCode.ILLEGAL_GENERATION || RETRIABLE.has(r.errorCode)) {
      this.rejoin(false);
    } else if (FATAL.has(r.errorCode)) {
      this.fatal(r.errorCode, 'sync');
    } else {
      this.world.fail(`${this.name}: unexpected SyncGroup error ${r.errorCode}`);
    }
  }

  private scheduleHeartbeat(): void {
    this.run(() => {
      this.heartbeatOnce();
      this.scheduleHeartbeat();
    }, Math.floor(this.sessionTimeoutMs / 3));
  }

  private heartbeatOnce(): void {
    if (this.state !== 'syncing' && this.state !== 'stable') return;
    const generationId = this.generationId;
    const code = this.world.coordinatorCall(
      'heartbeat',
      (c) => c.heartbeat({ groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: this.instanceId }),
      (errorCode) => errorCode,
    );
    this.respond(Promise.resolve(code), (e) => {
      if (this.generationId !== generationId || (this.state !== 'syncing' && this.state !== 'stable')) return;
      if (e === ErrorCode.NONE || e === ErrorCode.COORDINATOR_NOT_AVAILABLE || e === ErrorCode.NOT_COORDINATOR) return;
      if (e === ErrorCode.REBALANCE_IN_PROGRESS) {
        this.needsRejoin = true;
        if (this.state === 'stable') this.maybeRejoinAfterRebalanceNotice();
      } else if (e === ErrorCode.UNKNOWN_MEMBER_ID) this.rejoin(true);
      else if (e === ErrorCode.ILLEGAL_GENERATION) this.rejoin(false);
      else if (FATAL.has(e)) this.fatal(e, 'heartbeat');
      else this.world.fail(`${this.name}: unexpected Heartbeat error ${e}`);
    });
  }

  /** An eager consumer commits, revokes everything and rejoins (a slow one only at its next poll). */
  private maybeRejoinAfterRebalanceNotice(): void {
    const wait = this.slowUntilMs - this.world.nowMs();
    if (wait > 0) {
      this.run(() => {
        if (this.state === 'stable' && this.needsRejoin) this.maybeRejoinAfterRebalanceNotice();
      }, wait);
      return;
    }
    this.needsRejoin = false;
    this.commitOnce();
    this.rejoin(false);
  }

  private scheduleCommit(): void {
    this.run(() => {
      if (this.state === 'stable' && this.world.random.next() < 0.7) this.commitOnce();
      this.scheduleCommit();
    }, 500 + this.world.random.int(3000));
  }

  private commitOnce(): void {
    if (this.state !== 'stable' || this.assignment.length === 0) return;
    const offsets = this.assignment.map(([topic, partition]) => ({ topic, partition, offset: this.world.nextOffset(this.groupId, topic, partition), leaderEpoch: -1, metadata: this.name }));
    const p = this.world.coordinatorCallAsync(
      'offsetCommit',
      (c) => c.commitOffsets({ groupId: this.groupId, generationId: this.generationId, memberId: this.memberId, groupInstanceId: this.instanceId, retentionTimeMs: -1, offsets }),
      (errorCode) => ({ partitions: offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })) }),
    );
    void p.then((r) => {
      r.partitions.forEach((res, i) => {
        const o = offsets[i];
        if (o === undefined) return;
        if (res.errorCode === ErrorCode.NONE) this.world.noteAcked(this.groupId, o.topic, o.partition, o.offset);
        else this.world.expectKnownError(res.errorCode, 'commit');
      });
    });
  }
}
