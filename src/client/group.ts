/**
 * `GroupMember`: one member of a consumer group in the classic protocol,
 * eager or cooperative (KIP-429), the base of the CLI's `consume --group` and
 * of the Consumer.
 *
 *   const member = new GroupMember(cluster, { groupId: 'audit', topics: ['orders'],
 *     onAssigned: (tps) => ..., onRevoked: async (tps) => commit(...) });
 *   for (;;) { await member.ensureActive(); ...fetch member.assignment... }
 *   await member.close();
 *
 * - Coordinator: FindCoordinator, retried on COORDINATOR_NOT_AVAILABLE,
 *   NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS with backoff, over a
 *   connection of the member's own (group-coordinator.ts says why).
 * - Join: JoinGroup with the subscription encoded for each assignor (in
 *   preference order). MEMBER_ID_REQUIRED (v4+, KIP-394) is answered by
 *   joining again at once with the id the broker gave. The leader decodes the
 *   members' subscriptions, loads the partition counts of their topics and
 *   runs the assignor the broker chose; then SyncGroup hands out the result.
 * - Rebalances are driven by the caller, as in the Java client: the
 *   heartbeat timer only notices them (REBALANCE_IN_PROGRESS,
 *   ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, or no successful heartbeat for a
 *   session timeout) and sets `rejoinNeeded` (and calls `onRejoinNeeded`);
 *   the next `ensureActive()` revokes the whole assignment (eager:
 *   `onRevoked`, where the caller commits), joins and syncs again, and calls
 *   `onAssigned`. UNKNOWN_MEMBER_ID also resets the member id.
 * - Cooperative (every assignor offered has protocol 'cooperative'): the
 *   member keeps its partitions while it rejoins and sends them as
 *   ownedPartitions (with its generation; each assignor may add userData).
 *   After the sync it revokes only what the new assignment lacks
 *   (`onRevoked`), and if anything was revoked it rejoins at once so the
 *   next round hands those partitions over; `onAssigned` gets the added ones.
 *   A member that lost its generation (session expired, fenced) calls
 *   `onLost` instead and does not commit.
 * - Heartbeats: every `heartbeatIntervalMs` while the member has a
 *   generation, one at a time, each bounded by the request timeout. They
 *   continue while a rebalance is pending (the broker counts them as signs of
 *   life until the member rejoins) and stop during join/sync and on close.
 * - Close: stops the timer, revokes (`onRevoked`), sends LeaveGroup (not for
 *   static members: a restart within the session timeout must not cause a
 *   rebalance, KIP-345) and closes the coordinator connection. Every wait is
 *   bounded by a request timeout; no timer survives close.
 *
 * - Custom protocol (`options.protocol`, e.g. Connect's "connect"): its type and metadata at
 *   join, its leader assignment and its onAssignment instead of partitions; `requestRejoin`.
 *
 * Offsets: `fetchCommitted` (OffsetFetch) and `commit` (OffsetCommit with the
 * generation and member id). A commit refused because the group rebalanced
 * (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) sets
 * `rejoinNeeded` and throws the KafkaProtocolError.
 */
import { ErrorCode } from '../protocol/errors.js';
import { RangeAssignor, type Assignor } from './assignors.js';
import { request } from './apis.js';
import type { Cluster } from './cluster.js';
import type { Connection } from '../net/connection.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, encodeSubscription, type TopicPartitions } from './consumer-protocol.js';
import { ConnectionClosedError, KafkaProtocolError, invalidArgument } from '../net/errors.js';
import { computeAssignment, difference, type JoinedMember } from './group-assignment.js';
import { COORDINATOR_ERRORS, COORDINATOR_RETRY_ERRORS, GroupApis, isCoordinatorRetriable } from './group-apis.js';
import { CoordinatorLink } from './group-coordinator.js';
import { HeartbeatSchedule } from './group-heartbeat.js';
import { commitOffsets, fetchCommittedOffsets, type CommitResult, type CommittedOffset, type OffsetToCommit } from './group-offsets.js';
import { HEARTBEAT_INTERVAL_MS_DEFAULT, JOIN_ATTEMPTS_MAX, JOIN_TIMEOUT_MARGIN_MS, REBALANCE_TIMEOUT_MS_DEFAULT, REJOIN_ERRORS } from './group-options.js';
import { SESSION_TIMEOUT_MS_DEFAULT, positiveMs, type CustomGroupProtocol, type GenerationInfo, type GroupMemberOptions, type MemberState } from './group-options.js';

// Moved to their own modules; still importable from here.
export { HEARTBEAT_INTERVAL_MS_DEFAULT, JOIN_ATTEMPTS_MAX, REBALANCE_TIMEOUT_MS_DEFAULT, SESSION_TIMEOUT_MS_DEFAULT } from './group-options.js';
export type { CustomGroupProtocol, GenerationInfo, GroupMemberOptions } from './group-options.js';
export { difference } from './group-assignment.js';

/** One member of a consumer group (classic protocol): join, sync, heartbeat, rebalance, commit, leave. */
export class GroupMember {
  readonly groupId: string;
  private topicList: readonly string[];
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** 'cooperative' when every assignor offered supports it (KIP-429), else 'eager'. */
  readonly rebalanceProtocol: 'eager' | 'cooperative';
  private readonly cluster: Cluster;
  private readonly options: GroupMemberOptions;
  private readonly assignors: readonly Assignor[];
  private readonly groupInstanceId: string | null;
  private state: MemberState = 'unjoined';
  private memberIdValue = '';
  private generation: GenerationInfo | null = null;
  private assigned: TopicPartitions[] = [];
  private rejoin = true;
  private readonly coordinator: CoordinatorLink;
  private readonly heartbeats: HeartbeatSchedule;
  private lastHeartbeatOkMs = 0;
  private joining: Promise<boolean> | null = null;

  constructor(cluster: Cluster, options: GroupMemberOptions) {
    if (options.groupId.length === 0) throw invalidArgument('the group id must not be empty');
    if (options.topics.length === 0 && options.allowEmptyTopics !== true && options.protocol === undefined) throw invalidArgument('subscribe to at least one topic');
    this.cluster = cluster;
    this.options = options;
    this.groupId = options.groupId;
    this.coordinator = new CoordinatorLink(cluster, this.groupId, options.connection, () => this.state === 'closed');
    this.topicList = [...new Set(options.topics)];
    this.assignors = options.assignors ?? [RangeAssignor];
    if (this.assignors.length === 0) throw invalidArgument('give at least one assignor');
    // A custom protocol owns no partitions here: it revokes what it gives up itself (so never an eager revoke-all).
    this.rebalanceProtocol = options.protocol !== undefined || this.assignors.every((a) => a.protocol === 'cooperative') ? 'cooperative' : 'eager';
    this.groupInstanceId = options.groupInstanceId ?? null;
    this.sessionTimeoutMs = positiveMs(options.sessionTimeoutMs ?? SESSION_TIMEOUT_MS_DEFAULT, 'sessionTimeoutMs');
    this.rebalanceTimeoutMs = positiveMs(options.rebalanceTimeoutMs ?? REBALANCE_TIMEOUT_MS_DEFAULT, 'rebalanceTimeoutMs');
    this.heartbeatIntervalMs = positiveMs(options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS_DEFAULT, 'heartbeatIntervalMs');
    if (this.heartbeatIntervalMs >= this.sessionTimeoutMs) {
      throw invalidArgument(`heartbeatIntervalMs (${this.heartbeatIntervalMs}) must be lower than sessionTimeoutMs (${this.sessionTimeoutMs})`);
    }
    this.heartbeats = new HeartbeatSchedule(this.heartbeatIntervalMs, () => this.state === 'stable', () => this.heartbeat());
  }

  /** The topics subscribed to. */
  get topics(): readonly string[] {
    return this.topicList;
  }

  /**
   * Changes the subscription (a pattern matched new topics): when the set
   * differs, the member rejoins with it at the next ensureActive().
   */
  setTopics(topics: readonly string[]): boolean {
    const next = [...new Set(topics)].sort();
    const current = [...this.topicList].sort();
    if (next.length === current.length && next.every((t, i) => t === current[i])) return false;
    this.topicList = next;
    const first = !this.rejoin;
    this.rejoin = true;
    if (first && this.state === 'stable') this.options.onRejoinNeeded?.('subscription changed');
    return true;
  }

  /** The member id the coordinator gave ('' before the first join). */
  get memberId(): string {
    return this.memberIdValue;
  }

  /** The current generation, or null before the first successful sync. */
  get generationInfo(): GenerationInfo | null {
    return this.generation;
  }

  /** The partitions of the current generation (empty while rebalancing). */
  get assignment(): TopicPartitions[] {
    return this.assigned;
  }

  /** True when the next ensureActive() will rejoin. */
  get rejoinNeeded(): boolean {
    return this.rejoin;
  }

  /** True while a join/sync is under way. */
  get isJoining(): boolean {
    return this.state === 'joining';
  }

  /** True once close() was called. */
  get isClosed(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  /**
   * Joins (or rejoins) the group when needed: revokes, joins, syncs, starts
   * heartbeats. Resolves true when a new generation began, false when
   * nothing had to be done. Concurrent calls share one join.
   */
  ensureActive(): Promise<boolean> {
    if (this.isClosed) return Promise.reject(new ConnectionClosedError(`group member of ${this.groupId} is closed`));
    if (!this.rejoin && this.state === 'stable') return Promise.resolve(false);
    this.joining ??= this.rebalance().finally(() => {
      this.joining = null;
    });
    return this.joining;
  }

  /**
   * Asks for a rejoin at the next ensureActive() (Java's enforceRebalance: a
   * custom protocol's follow-up round after a revocation, a leader that saw
   * its inputs change, fresh userData); calls onRejoinNeeded once if the
   * member was stable.
   */
  requestRejoin(reason: string): void {
    const first = !this.rejoin;
    this.rejoin = true;
    if (first && this.state === 'stable') this.options.onRejoinNeeded?.(reason);
  }

  /** The group's committed offsets for `partitions` (default: the current assignment). */
  async fetchCommitted(partitions: readonly TopicPartitions[] = this.assigned, options: { requireStable?: boolean } = {}): Promise<CommittedOffset[]> {
    if (partitions.length === 0) return [];
    return this.coordinator.run((conn) => fetchCommittedOffsets(conn, this.groupId, partitions, options));
  }

  /**
   * Commits offsets (the next offset to read, as Kafka) with this member's
   * generation. Throws the first partition error; a rebalance error also sets
   * rejoinNeeded (UNKNOWN_MEMBER_ID resets the member id).
   */
  async commit(offsets: readonly OffsetToCommit[]): Promise<CommitResult[]> {
    if (offsets.length === 0) return [];
    if (this.state === 'closed') throw new ConnectionClosedError(`group member of ${this.groupId} is closed`);
    const generation = this.generation;
    if (generation === null) throw new KafkaProtocolError(ErrorCode.UNKNOWN_MEMBER_ID, { api: `OffsetCommit ${this.groupId}`, serverMessage: 'the member has not joined the group' });
    const identity = { groupId: this.groupId, generationId: generation.generationId, memberId: this.memberIdValue, groupInstanceId: this.groupInstanceId };
    const results = await this.coordinator.run((conn) => commitOffsets(conn, identity, offsets));
    const failed = results.find((r) => r.error !== null)?.error;
    if (failed !== undefined && failed !== null) {
      this.noteGroupError(failed.errorCode, 'commit');
      throw failed;
    }
    return results;
  }

  /** Revokes, leaves the group (dynamic members) and closes the coordinator connection. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    const joining = this.joining;
    this.state = 'closing';
    this.heartbeats.stop();
    if (joining !== null) {
      // A JoinGroup may be parked for the whole rebalance timeout: drop its connection to end it now.
      this.coordinator.drop();
      await joining.catch(() => undefined);
    }
    await this.heartbeats.inFlight;
    try {
      await this.revoke();
    } finally {
      try {
        if (this.memberIdValue !== '' && this.groupInstanceId === null) {
          await this.coordinator.connection(3)
            .then((conn) => this.leave(conn))
            .catch((err: unknown) => this.options.onError?.(err));
        }
      } finally {
        this.generation = null;
        this.coordinator.drop();
        this.state = 'closed';
      }
    }
  }

  // ------------------------------------------------------------- rebalance

  private async rebalance(): Promise<boolean> {
    // Heartbeats go on while the caller revokes (it may first finish the records it holds).
    const cooperative = this.rebalanceProtocol === 'cooperative';
    if (!cooperative) await this.revoke();
    else if (this.generation === null && this.assigned.length > 0) await this.lose();
    else await this.revokeUnsubscribed();
    this.heartbeats.stop();
    await this.heartbeats.inFlight;
    if (this.isClosed) throw new ConnectionClosedError(`group member of ${this.groupId} closed while rebalancing`);
    this.state = 'joining';
    const before = this.assigned;
    const generation = await this.joinAndSync();
    this.lastHeartbeatOkMs = performance.now();
    this.heartbeats.start();
    const custom = this.options.protocol;
    if (custom !== undefined) {
      await this.handOver(custom, generation);
      return true;
    }
    let added = this.assigned;
    if (cooperative) {
      added = difference(this.assigned, before);
      const revoked = difference(before, this.assigned);
      if (revoked.length > 0) {
        // KIP-429: give the moved partitions up, then rejoin so the next round hands them over.
        this.rejoin = true;
        this.options.onRejoinNeeded?.('cooperative: partitions revoked, rejoining to hand them over');
        await this.options.onRevoked?.(revoked);
      }
    }
    try {
      await this.options.onAssigned?.(this.assigned, generation, added);
    } catch (err) {
      // The caller could not take the partitions over: the next ensureActive() revokes and joins again.
      this.rejoin = true;
      throw err;
    }
    return true;
  }

  /** A custom protocol takes its assignment; if it throws, the next ensureActive() joins again. */
  private async handOver(custom: CustomGroupProtocol, generation: GenerationInfo): Promise<void> {
    const raw = this.customAssignment;
    this.customAssignment = Buffer.alloc(0);
    try {
      await custom.onAssignment(raw, generation);
    } catch (err) {
      this.rejoin = true;
      throw err;
    }
  }

  /** Join/sync rounds until one succeeds, a non-retriable error, close, or JOIN_ATTEMPTS_MAX. */
  private async joinAndSync(): Promise<GenerationInfo> {
    let lastError: unknown = null;
    for (let attempt = 0; attempt < JOIN_ATTEMPTS_MAX; attempt++) {
      if (this.isClosed) throw new ConnectionClosedError(`group member of ${this.groupId} closed while joining`);
      try {
        const conn = await this.coordinator.connection();
        const joined = await this.join(conn);
        if (joined === 'rejoin') continue;
        const assignment = await this.sync(conn, joined);
        if (assignment === 'rejoin') continue;
        if (this.isClosed) throw new ConnectionClosedError(`group member of ${this.groupId} closed while joining`);
        this.generation = joined;
        this.assigned = assignment;
        this.rejoin = false;
        this.state = 'stable';
        return joined;
      } catch (err) {
        lastError = err;
        if (this.isClosed || !isCoordinatorRetriable(err)) {
          if (!this.isClosed) this.state = 'unjoined';
          throw err;
        }
        if (!(err instanceof KafkaProtocolError && COORDINATOR_RETRY_ERRORS.has(err.errorCode))) this.coordinator.drop();
        await this.cluster.backoff(Math.min(attempt, 10));
      }
    }
    this.state = 'unjoined';
    throw lastError instanceof Error ? lastError : new KafkaProtocolError(ErrorCode.REBALANCE_IN_PROGRESS, { api: `JoinGroup ${this.groupId}`, serverMessage: `no stable generation after ${JOIN_ATTEMPTS_MAX} attempts` });
  }

  /** JoinGroup; 'rejoin' after errors that call for joining again at once. */
  private async join(conn: Connection): Promise<GenerationInfo | 'rejoin'> {
    // Eager members revoked everything before joining; cooperative ones say what they keep (KIP-429).
    const owned = this.rebalanceProtocol === 'cooperative' ? this.assigned : [];
    const generationId = this.generation?.generationId ?? -1;
    const custom = this.options.protocol;
    const protocols = custom !== undefined ? custom.metadata() : this.assignors.map((a) => ({
      name: a.name,
      metadata: encodeSubscription({
        topics: this.topicList,
        userData: a.userData?.(owned, generationId) ?? null,
        ownedPartitions: owned,
        generationId,
        rackId: this.options.rackId ?? null,
      }),
    }));
    const { response } = await request(
      conn,
      GroupApis.JoinGroup,
      () => ({
        groupId: this.groupId,
        sessionTimeoutMs: this.sessionTimeoutMs,
        rebalanceTimeoutMs: this.rebalanceTimeoutMs,
        memberId: this.memberIdValue,
        groupInstanceId: this.groupInstanceId,
        protocolType: custom?.protocolType ?? CONSUMER_PROTOCOL_TYPE,
        protocols,
      }),
      this.rebalanceTimeoutMs + JOIN_TIMEOUT_MARGIN_MS,
    );
    if (response.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      this.memberIdValue = response.memberId;
      return 'rejoin';
    }
    if (response.errorCode !== 0) {
      if (REJOIN_ERRORS.has(response.errorCode)) {
        this.noteGroupError(response.errorCode, 'join');
        return 'rejoin';
      }
      throw new KafkaProtocolError(response.errorCode, { api: `JoinGroup ${this.groupId}` });
    }
    this.memberIdValue = response.memberId;
    const info: GenerationInfo = {
      generationId: response.generationId,
      memberId: response.memberId,
      leaderId: response.leader,
      protocolName: response.protocolName,
      isLeader: response.leader === response.memberId,
    };
    if (info.isLeader) this.leaderMembers = response.members;
    return info;
  }

  /** The JoinGroup members, kept for the leader's assignment. */
  private leaderMembers: JoinedMember[] = [];

  /** SyncGroup (the leader sends the assignment); 'rejoin' when the generation is gone. */
  private async sync(conn: Connection, generation: GenerationInfo): Promise<TopicPartitions[] | 'rejoin'> {
    const assignments = generation.isLeader ? await this.leaderAssignment(generation) : [];
    this.leaderMembers = [];
    const { response } = await request(conn, GroupApis.SyncGroup, () => ({
      groupId: this.groupId,
      generationId: generation.generationId,
      memberId: generation.memberId,
      groupInstanceId: this.groupInstanceId,
      assignments,
    }));
    if (response.errorCode !== 0) {
      if (REJOIN_ERRORS.has(response.errorCode)) {
        this.noteGroupError(response.errorCode, 'sync');
        return 'rejoin';
      }
      throw new KafkaProtocolError(response.errorCode, { api: `SyncGroup ${this.groupId}` });
    }
    if (this.options.protocol !== undefined) {
      this.customAssignment = response.assignment;
      return [];
    }
    const assignment = decodeAssignment(response.assignment);
    const assignor = this.assignors.find((a) => a.name === generation.protocolName);
    assignor?.onAssignment?.({ partitions: assignment.assignedPartitions, userData: assignment.userData }, { generationId: generation.generationId, memberId: generation.memberId });
    return assignment.assignedPartitions;
  }

  /** The assignment bytes of the last sync, for a custom protocol. */
  private customAssignment: Buffer = Buffer.alloc(0);

  private async leaderAssignment(generation: GenerationInfo): Promise<{ memberId: string; assignment: Buffer }[]> {
    const custom = this.options.protocol;
    if (custom === undefined) return computeAssignment(this.cluster, this.groupId, this.assignors, generation.protocolName, this.leaderMembers);
    const result = await custom.assign(generation, this.leaderMembers);
    return this.leaderMembers.map((m) => ({ memberId: m.memberId, assignment: result.get(m.memberId) ?? Buffer.alloc(0) }));
  }

  private async revoke(): Promise<void> {
    const owned = this.assigned;
    this.assigned = [];
    if (owned.length > 0) await this.options.onRevoked?.(owned);
  }

  /** Cooperative: partitions of topics no longer subscribed are given up before joining (as Java does). */
  private async revokeUnsubscribed(): Promise<void> {
    const topics = new Set(this.topicList);
    const gone = this.assigned.filter((t) => !topics.has(t.topic));
    if (gone.length === 0) return;
    this.assigned = this.assigned.filter((t) => topics.has(t.topic));
    await this.options.onRevoked?.(gone);
  }

  /** Cooperative: the generation is gone, so are the partitions (no commit: others may own them). */
  private async lose(): Promise<void> {
    const owned = this.assigned;
    this.assigned = [];
    if (owned.length === 0) return;
    if (this.options.onLost !== undefined) await this.options.onLost(owned);
    else await this.options.onRevoked?.(owned);
  }

  private async leave(conn: Connection): Promise<void> {
    const { version, response } = await request(conn, GroupApis.LeaveGroup, () => ({
      groupId: this.groupId,
      memberId: this.memberIdValue,
      members: [{ memberId: this.memberIdValue, groupInstanceId: this.groupInstanceId }],
    }));
    const code = response.errorCode !== 0 ? response.errorCode : version >= 3 ? (response.members[0]?.errorCode ?? 0) : 0;
    // UNKNOWN_MEMBER_ID: the session already expired; nothing to leave.
    if (code !== 0 && code !== ErrorCode.UNKNOWN_MEMBER_ID) throw new KafkaProtocolError(code, { api: `LeaveGroup ${this.groupId}` });
  }

  /** Reacts to a group error from any request: mark for rejoin, reset the id when unknown. */
  private noteGroupError(code: number, where: string): void {
    if (code === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.memberIdValue = '';
      this.generation = null;
    }
    if (code === ErrorCode.ILLEGAL_GENERATION) this.generation = null;
    if (code === ErrorCode.REBALANCE_IN_PROGRESS || code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION) {
      const first = !this.rejoin;
      this.rejoin = true;
      if (first && this.state === 'stable') this.options.onRejoinNeeded?.(`${where}: ${new KafkaProtocolError(code).errorName}`);
    }
  }

  // ------------------------------------------------------------- heartbeat

  /** One heartbeat; never throws (errors become rejoinNeeded or onError). */
  private async heartbeat(): Promise<void> {
    const generation = this.generation;
    if (this.state !== 'stable' || generation === null) return;
    try {
      const conn = await this.coordinator.connection(3);
      const { response } = await request(
        conn,
        GroupApis.Heartbeat,
        () => ({ groupId: this.groupId, generationId: generation.generationId, memberId: this.memberIdValue, groupInstanceId: this.groupInstanceId }),
        Math.min(conn.requestTimeoutMs, this.sessionTimeoutMs),
      );
      const code = response.errorCode;
      if (code === 0 || code === ErrorCode.REBALANCE_IN_PROGRESS) this.lastHeartbeatOkMs = performance.now();
      if (code === 0) return;
      if (COORDINATOR_ERRORS.has(code)) this.coordinator.drop();
      else if (REJOIN_ERRORS.has(code)) this.noteGroupError(code, 'heartbeat');
      else if (!COORDINATOR_RETRY_ERRORS.has(code)) this.options.onError?.(new KafkaProtocolError(code, { api: `Heartbeat ${this.groupId}` }));
    } catch (err) {
      if (isCoordinatorRetriable(err)) this.coordinator.drop();
      else this.options.onError?.(err);
    }
    // No successful heartbeat for a session: the broker has dropped us; join again.
    if (this.state === 'stable' && performance.now() - this.lastHeartbeatOkMs > this.sessionTimeoutMs) {
      this.noteGroupError(ErrorCode.UNKNOWN_MEMBER_ID, 'heartbeat (session timed out)');
    }
  }
}
