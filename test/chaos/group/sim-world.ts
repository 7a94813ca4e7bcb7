/**
 * The world of the group coordinator simulation: virtual time, a fake
 * persistence with latency and injected failures, a coordinator that can be
 * "restarted" (rebuilt and reloaded from what persistence stored, with a
 * loading window answered the way the handler layer will), simulated
 * consumers, and the checks run after every step.
 */
import { GroupCoordinator } from '../../../src/coordinator/group/coordinator.js';
import { errorWhileLoading, type GroupApi } from '../../../src/coordinator/group/request-rules.js';
import type { GroupCoordinatorConfig } from '../../../src/coordinator/group/types.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { FakePersistence } from '../../unit/coordinator/group/fake-persistence.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';
import { decodeAssignment, SimClient, type Tp } from './sim-client.js';

export class SimFailure extends Error {}

const KNOWN_ERRORS = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.FENCED_INSTANCE_ID,
]);

export interface GroupSpec {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Every member lists this one, plus maybe others. */
  readonly commonProtocol: string;
}

export class SimWorld {
  readonly random: SeededRandom;
  readonly clock = new ManualClock();
  readonly timers = new VirtualTimers(this.clock);
  readonly persistence: FakePersistence;
  readonly config: GroupCoordinatorConfig;
  coordinator: GroupCoordinator;
  loadingUntilMs = 0;
  restarts = 0;
  readonly clients: SimClient[] = [];
  readonly groups: GroupSpec[] = [];
  private readonly partitions = new Map<string, number>();
  private memberSeq = 0;
  private readonly logs: string[] = [];
  /** Acknowledged commits: group -> "topic/partition" -> offset. */
  readonly acked = new Map<string, Map<string, bigint>>();
  private offsetSeq = 0n;
  /** "group/generation" -> "topic/partition" -> owner (instance id or member id). */
  private readonly owners = new Map<string, Map<string, string>>();
  private readonly leaders = new Map<string, string>();
  /** "group/generation" -> the leader's assignments, sorted. */
  private readonly leaderAssignments = new Map<string, string[]>();
  /** Highest generation seen per group, per coordinator incarnation. */
  private lastGeneration = new Map<string, number>();
  /** Highest generation whose assignments were handed out (persisted first), per group. */
  private readonly handedOut = new Map<string, number>();

  constructor(readonly seed: number) {
    this.random = new SeededRandom(seed);
    this.persistence = new FakePersistence({ kind: 'delayed', timers: this.timers, delayMs: () => (this.random.next() < 0.1 ? this.random.int(200) : this.random.int(10)) });
    this.config = {
      initialRebalanceDelayMs: this.pick([0, 0, 500, 3000]),
      minSessionTimeoutMs: 1000,
      maxSessionTimeoutMs: 60_000,
      maxSize: this.pick([100, 100, 100, 5]),
      offsetsRetentionMs: 7 * 24 * 3600 * 1000,
      offsetMetadataMaxBytes: 4096,
    };
    this.coordinator = this.newCoordinator();
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.random.int(xs.length)] as T;
  }

  nowMs(): number {
    return this.clock.monotonicMs();
  }

  latencyMs(): number {
    return this.random.int(5);
  }

  backoffMs(): number {
    return 50 + this.random.int(300);
  }

  log(msg: string): void {
    this.logs.push(`${this.nowMs()} ${msg}`);
    if (this.logs.length > 200) this.logs.shift();
  }

  fail(msg: string): never {
    throw new SimFailure(`seed ${this.seed} at ${this.nowMs()} ms: ${msg}\n  last events:\n  ${this.logs.slice(-40).join('\n  ')}`);
  }

  expectKnownError(code: number, what: string): void {
    if (!KNOWN_ERRORS.has(code)) this.fail(`unexpected ${what} error ${code}`);
  }

  private newCoordinator(): GroupCoordinator {
    return new GroupCoordinator({
      clock: this.clock,
      timers: this.timers,
      persistence: this.persistence,
      config: this.config,
      newMemberId: (clientId) => `${clientId}-m${++this.memberSeq}`,
    });
  }

  get loading(): boolean {
    return this.nowMs() < this.loadingUntilMs;
  }

  /** A request as the handler layer will make it: answered with the loading error while the partition loads. */
  coordinatorCall<T>(api: GroupApi, fn: (c: GroupCoordinator) => T, whileLoading: (errorCode: number) => T): T {
    return this.loading ? whileLoading(errorWhileLoading(api)) : fn(this.coordinator);
  }

  coordinatorCallAsync<T>(api: GroupApi, fn: (c: GroupCoordinator) => Promise<T>, whileLoading: (errorCode: number) => T): Promise<T> {
    return this.loading ? Promise.resolve(whileLoading(errorWhileLoading(api))) : fn(this.coordinator);
  }

  /** The coordinator moves: in-flight writes fail, a new one loads what was stored after a loading window. */
  restart(): void {
    this.restarts++;
    this.log('coordinator restart');
    this.coordinator.shutdown();
    this.persistence.fence();
    this.coordinator = this.newCoordinator();
    this.lastGeneration = new Map();
    const loadMs = this.random.int(500);
    this.loadingUntilMs = Infinity;
    const c = this.coordinator;
    this.timers.schedule(loadMs, () => {
      if (this.coordinator !== c) return;
      c.loadPartition(this.persistence.load());
      this.loadingUntilMs = 0;
    });
  }

  addGroup(spec: GroupSpec, partitionsPerTopic: number[]): void {
    this.groups.push(spec);
    spec.topics.forEach((t, i) => this.partitions.set(t, partitionsPerTopic[i] ?? 1));
  }

  partitionsOf(topic: string): number {
    return this.partitions.get(topic) ?? 0;
  }

  spawn(spec: GroupSpec, instanceId: string | null, odd = false): SimClient {
    const others = ['range', 'roundrobin'].filter((p) => p !== spec.commonProtocol && this.random.next() < 0.5);
    const protocols = odd ? ['sticky-only'] : this.random.next() < 0.5 ? [spec.commonProtocol, ...others] : [...others, spec.commonProtocol];
    const sessionTimeoutMs = 3000 + this.random.int(12_000);
    const client = new SimClient(
      this,
      `c${this.clients.length}`,
      spec.groupId,
      instanceId,
      protocols,
      spec.topics,
      sessionTimeoutMs,
      sessionTimeoutMs + this.random.int(20_000),
      this.random.next() < 0.8,
    );
    this.clients.push(client);
    this.log(`spawn ${client.name} in ${spec.groupId}${instanceId === null ? '' : ` as ${instanceId}`} protocols ${protocols.join(',')}`);
    client.start();
    return client;
  }

  nextOffset(_groupId: string, _topic: string, _partition: number): bigint {
    return ++this.offsetSeq;
  }

  noteAcked(groupId: string, topic: string, partition: number, offset: bigint): void {
    let m = this.acked.get(groupId);
    if (m === undefined) this.acked.set(groupId, (m = new Map()));
    m.set(`${topic}/${partition}`, offset);
  }

  /**
   * At most one leader per generation of one coordinator incarnation. (A
   * generation that was never persisted can be formed again after a
   * failover, as in Kafka; generations whose assignments were handed out
   * cannot, which noteOwnership checks.)
   */
  noteLeader(epoch: number, groupId: string, generationId: number, ownerKey: string): void {
    const key = `${epoch}:${groupId}/${generationId}`;
    const prev = this.leaders.get(key);
    if (prev !== undefined && prev !== ownerKey) this.fail(`two leaders in ${key}: ${prev} and ${ownerKey}`);
    this.leaders.set(key, ownerKey);
  }

  noteLeaderAssignment(groupId: string, generationId: number, assignments: readonly { assignment: Buffer }[]): void {
    this.leaderAssignments.set(`${groupId}/${generationId}`, assignments.map((a) => a.assignment.toString()).sort());
  }

  noteOwnership(groupId: string, generationId: number, ownerKey: string, tps: readonly Tp[]): void {
    const key = `${groupId}/${generationId}`;
    this.handedOut.set(groupId, Math.max(this.handedOut.get(groupId) ?? 0, generationId));
    let m = this.owners.get(key);
    if (m === undefined) this.owners.set(key, (m = new Map()));
    for (const [t, p] of tps) {
      const tp = `${t}/${p}`;
      const prev = m.get(tp);
      if (prev !== undefined && prev !== ownerKey) this.fail(`${tp} owned by ${prev} and ${ownerKey} in ${key}`);
      m.set(tp, ownerKey);
    }
  }

  /** The safety checks, after every step. */
  check(): void {
    if (this.loading) return;
    const c = this.coordinator;
    try {
      c.checkInvariants();
    } catch (e) {
      this.fail(`coordinator invariant: ${(e as Error).message}`);
    }
    for (const spec of this.groups) {
      const status = c.groupStatus(spec.groupId);
      if (status === null) continue;
      const gen = status.generationId;
      const last = this.lastGeneration.get(spec.groupId) ?? -1;
      if (gen < last) this.fail(`${spec.groupId} generation went from ${last} to ${gen}`);
      this.lastGeneration.set(spec.groupId, gen);
      const floor = this.handedOut.get(spec.groupId) ?? 0;
      if (gen < floor) this.fail(`${spec.groupId} generation ${gen} is below ${floor}, whose assignments were handed out`);
      if (status.state === 'Stable') {
        const expected = this.leaderAssignments.get(`${spec.groupId}/${gen}`);
        const d = c.describeGroups([spec.groupId])[0];
        const actual = (d?.members ?? []).map((m) => m.assignment.toString()).sort();
        if (expected !== undefined && JSON.stringify(expected) !== JSON.stringify(actual)) {
          this.fail(`Stable ${spec.groupId} gen ${gen}: members hold ${JSON.stringify(actual)}, leader assigned ${JSON.stringify(expected)}`);
        }
      }
    }
    for (const [groupId, m] of this.acked) {
      const tps = [...m.keys()].map((k) => {
        const i = k.lastIndexOf('/');
        return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
      });
      const fetched = c.fetchOffsets(groupId, tps, false).partitions;
      fetched.forEach((f) => {
        const want = m.get(`${f.topic}/${f.partition}`);
        if (f.offset !== want) this.fail(`${groupId} ${f.topic}/${f.partition}: fetched ${f.offset}, acknowledged ${want}`);
      });
    }
  }

  /** Liveness, after a quiet period: every group with live members is Stable with every partition assigned once. */
  checkConverged(): void {
    const c = this.coordinator;
    for (const spec of this.groups) {
      const live = this.clients.filter((x) => x.groupId === spec.groupId && x.live);
      if (live.length === 0) continue;
      const status = c.groupStatus(spec.groupId);
      if (status?.state !== 'Stable') this.fail(`${spec.groupId} with ${live.length} live members is ${status?.state ?? 'missing'}`);
      const d = c.describeGroups([spec.groupId])[0];
      const members = new Set((d?.members ?? []).map((m) => m.memberId));
      const liveIds = new Set(live.map((x) => x.memberId));
      if (members.size !== liveIds.size || [...liveIds].some((id) => !members.has(id))) {
        this.fail(`${spec.groupId} members ${[...members].join(',')} but live clients ${live.map((x) => `${x.name}:${x.memberId}:${x.state}`).join(',')}`);
      }
      const owned = new Map<string, string>();
      for (const x of live) {
        if (x.state !== 'stable' || x.generationId !== status.generationId) this.fail(`${x.name} is ${x.state} in generation ${x.generationId}, group at ${status.generationId}`);
        for (const [t, p] of x.assignment) {
          const k = `${t}/${p}`;
          if (owned.has(k)) this.fail(`${k} owned twice at convergence`);
          owned.set(k, x.name);
        }
        const held = d?.members.find((m) => m.memberId === x.memberId);
        if (held === undefined || JSON.stringify(decodeAssignment(held.assignment)) !== JSON.stringify(x.assignment)) this.fail(`${x.name} holds an assignment the coordinator does not`);
      }
      const total = spec.topics.reduce((n, t) => n + this.partitionsOf(t), 0);
      if (owned.size !== total) this.fail(`${spec.groupId}: ${owned.size} of ${total} partitions assigned at convergence`);
    }
  }
}
