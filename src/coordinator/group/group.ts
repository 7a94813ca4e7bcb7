/**
 * One classic group's state (Kafka's GroupMetadata): its state machine, its
 * members, the static-member and pending-member maps, protocol selection,
 * and its committed offsets. Pure data plus the rules that only need the
 * group itself; timers and persistence live in the coordinator.
 */
import { invariant } from '../../util/assert.js';
import { CONSUMER_PROTOCOL_TYPE, Member, parseSubscriptionTopics, type ProtocolEntry } from './member.js';
import type { CommittedOffset, GroupSnapshot, TimerHandle } from './types.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATES: readonly GroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

/**
 * The states each state may be entered from (Kafka's GroupState.validPreviousStates).
 * One addition: Dead -> Empty, used only to undo a deletion whose tombstone
 * could not be written (Kafka deletes from memory first and only logs).
 */
const VALID_PREVIOUS: Readonly<Record<GroupState, readonly GroupState[]>> = {
  Empty: ['PreparingRebalance', 'Dead'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** A committed offset in memory, with the write sequence it was stored under (later writes win). */
export interface OffsetEntry {
  readonly value: CommittedOffset;
  readonly seq: number;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** The state of an InitialDelayedJoin (group.initial.rebalance.delay.ms), Kafka's parameters. */
export interface InitialDelay {
  readonly configuredMs: number;
  readonly delayMs: number;
  readonly remainingMs: number;
}

export class Group {
  state: GroupState = 'Empty';
  stateTimestampMs: number;
  generationId = 0;
  /** Null until the first member joins (or for a group that only stores offsets). */
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** In join order (the order Kafka's LinkedHashMap keeps, used for leader fallback). */
  readonly members = new Map<string, Member>();
  /** KIP-394: ids handed out with MEMBER_ID_REQUIRED, awaiting the rejoin, with their expiry. */
  readonly pendingMembers = new Map<string, TimerHandle>();
  /** group.instance.id -> current member id (KIP-345). */
  readonly staticMembers = new Map<string, string>();
  /** Members of the current generation that have not sent SyncGroup yet. */
  readonly pendingSyncMembers = new Set<string>();
  /** Set when a member joins a brand-new group during its initial delay (Kafka newMemberAdded). */
  newMemberAdded = false;
  joinTimer: TimerHandle | null = null;
  initialDelay: InitialDelay | null = null;
  syncTimer: TimerHandle | null = null;
  /** Topics the members subscribe (consumer protocol only; null when unknown). */
  subscribedTopics: ReadonlySet<string> | null = null;
  readonly offsets = new Map<string, OffsetEntry>();
  /** Commits sent to persistence and not yet answered, per partition (count). */
  readonly pendingOffsetCommits = new Map<string, number>();
  /**
   * TxnOffsetCommits waiting for their transaction's marker, by producer id
   * (written, or being written): invisible to OffsetFetch, and
   * UNSTABLE_OFFSET_COMMIT for a RequireStable fetch (KIP-447).
   */
  readonly pendingTxnOffsets = new Map<bigint, Map<string, CommittedOffset>>();
  /** The highest generation this group object ever had (invariant: never decreases). */
  private highestGenerationId = 0;

  constructor(
    readonly groupId: string,
    nowMs: number,
  ) {
    this.stateTimestampMs = nowMs;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(next: GroupState, nowMs: number): void {
    invariant(VALID_PREVIOUS[next].includes(this.state), `group ${this.groupId}: ${this.state} -> ${next} is not a valid transition`);
    this.state = next;
    this.stateTimestampMs = nowMs;
  }

  /** Kafka canRebalance: the states a rebalance may start from. */
  canRebalance(): boolean {
    return this.state === 'Stable' || this.state === 'CompletingRebalance' || this.state === 'Empty';
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): Member {
    const m = this.members.get(memberId);
    invariant(m !== undefined, `group ${this.groupId} has member ${memberId}`);
    return m;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  isPendingMember(memberId: string): boolean {
    return this.pendingMembers.has(memberId);
  }

  currentStaticMemberId(groupInstanceId: string): string | null {
    return this.staticMembers.get(groupInstanceId) ?? null;
  }

  numAwaitingJoin(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.isAwaitingJoin) n++;
    return n;
  }

  /** Kafka hasAllMembersJoined: every member rejoined and no KIP-394 id is outstanding. */
  hasAllMembersJoined(): boolean {
    return this.numAwaitingJoin() === this.members.size && this.pendingMembers.size === 0;
  }

  notYetRejoinedMembers(): Member[] {
    return [...this.members.values()].filter((m) => !m.isAwaitingJoin);
  }

  /** The largest rebalance timeout of the members (how long a rebalance waits for them). */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  add(member: Member, callback: Member['awaitingJoin']): void {
    invariant(!this.members.has(member.memberId), `member ${member.memberId} added twice to ${this.groupId}`);
    this.pendingMembers.get(member.memberId)?.cancel();
    this.pendingMembers.delete(member.memberId);
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
    member.awaitingJoin = callback;
  }

  /** Removes a member; the caller answers its pending requests and cancels its timer first. */
  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member !== undefined) {
      this.members.delete(memberId);
      if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
        this.staticMembers.delete(member.groupInstanceId);
      }
    }
    if (this.leaderId === memberId) {
      const next = this.members.keys().next();
      this.leaderId = next.done === true ? null : next.value;
    }
    this.pendingSyncMembers.delete(memberId);
  }

  updateMember(member: Member, protocols: readonly ProtocolEntry[], rebalanceTimeoutMs: number, sessionTimeoutMs: number): void {
    member.protocols = protocols;
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
  }

  /** KIP-345: the instance's member gets a new id; everything else (assignment, leadership) moves with it. */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): Member {
    const member = this.get(oldMemberId);
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    this.staticMembers.set(groupInstanceId, newMemberId);
    return member;
  }

  /**
   * Keeps the leader if it rejoined, else makes the first rejoined member the
   * leader. False when no member rejoined (Kafka maybeElectNewJoinedLeader).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader !== undefined && leader.isAwaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.isAwaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  /** Protocol names every member supports, in the order of the first member's preference. */
  candidateProtocols(): string[] {
    const all = [...this.members.values()];
    const first = all[0];
    if (first === undefined) return [];
    return first.protocols.map((p) => p.name).filter((name) => all.every((m) => m.supports(name)));
  }

  /**
   * Kafka's selectProtocol: each member votes for its first supported
   * candidate; the most votes win. Kafka breaks ties by hash-map order; we
   * break them by the first member's (usually the leader's) preference.
   */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    invariant(candidates.length > 0, `group ${this.groupId} has a protocol every member supports`);
    const set = new Set(candidates);
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(set);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best = candidates[0] as string;
    for (const c of candidates) if ((votes.get(c) ?? 0) > (votes.get(best) ?? 0)) best = c;
    return best;
  }

  /**
   * Whether a member with these protocols may join (Kafka supportsProtocols).
   * An Empty group takes any non-empty type and list; otherwise the type must
   * match and one of the protocols must be supported by every other member.
   * (Kafka counts the rejoining member's old protocols too, which refuses a
   * lone member that changes its whole list; we leave the member itself out.)
   */
  supportsProtocols(protocolType: string, names: readonly string[], joiningMemberId: string | null): boolean {
    if (this.state === 'Empty') return protocolType.length > 0 && names.length > 0;
    if (this.protocolType !== protocolType) return false;
    const others = [...this.members.values()].filter((m) => m.memberId !== joiningMemberId);
    return names.some((n) => others.every((m) => m.supports(n)));
  }

  /** Kafka initNextGeneration: bump the generation and pick the protocol (or go Empty). */
  initNextGeneration(nowMs: number): void {
    invariant(this.state === 'PreparingRebalance', `group ${this.groupId} initNextGeneration from ${this.state}`);
    this.generationId += 1;
    invariant(this.generationId > this.highestGenerationId, `group ${this.groupId} generation ids only increase`);
    this.highestGenerationId = this.generationId;
    this.pendingSyncMembers.clear();
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      for (const m of this.members.values()) {
        if (m.isAwaitingJoin) m.joinedGenerationId = this.generationId;
        this.pendingSyncMembers.add(m.memberId);
      }
      this.transitionTo('CompletingRebalance', nowMs);
    } else {
      this.protocolName = null;
      this.subscribedTopics = null;
      this.transitionTo('Empty', nowMs);
    }
  }

  /** Installs a generation read back from persistence. */
  setLoadedGeneration(generationId: number): void {
    this.generationId = generationId;
    this.highestGenerationId = Math.max(this.highestGenerationId, generationId);
  }

  computeSubscribedTopics(): ReadonlySet<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE || this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      const parsed = parseSubscriptionTopics(m.metadataFor(this.protocolName));
      if (parsed === null) return null;
      for (const t of parsed) topics.add(t);
    }
    return topics;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics !== null && this.subscribedTopics.has(topic);
  }

  /** The member list the leader gets in its JoinGroup response. */
  currentMemberMetadata(): { memberId: string; groupInstanceId: string | null; metadata: Buffer }[] {
    const protocol = this.protocolName;
    invariant(protocol !== null, `group ${this.groupId} has a protocol when answering its leader`);
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(protocol) }));
  }

  /** Group metadata as persisted; `assignments` overrides the members' current ones (SyncGroup). */
  snapshot(assignments: ReadonlyMap<string, Buffer> | null = null): GroupSnapshot {
    const protocol = this.protocolName;
    return {
      groupId: this.groupId,
      protocolType: this.protocolType ?? '',
      generationId: this.generationId,
      protocolName: protocol,
      leaderId: this.members.size === 0 ? null : this.leaderId,
      currentStateTimestampMs: this.stateTimestampMs,
      members: [...this.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: protocol === null ? Buffer.alloc(0) : m.metadataFor(protocol),
        assignment: assignments?.get(m.memberId) ?? m.assignment,
      })),
    };
  }

  hasOffsets(): boolean {
    return this.offsets.size > 0 || this.pendingOffsetCommits.size > 0 || this.pendingTxnOffsets.size > 0;
  }

  /** Whether a transaction has an offset for this partition waiting for its marker. */
  hasPendingTxnOffset(key: string): boolean {
    for (const byTp of this.pendingTxnOffsets.values()) if (byTp.has(key)) return true;
    return false;
  }

  addPendingCommit(key: string): void {
    this.pendingOffsetCommits.set(key, (this.pendingOffsetCommits.get(key) ?? 0) + 1);
  }

  removePendingCommit(key: string): void {
    const n = (this.pendingOffsetCommits.get(key) ?? 0) - 1;
    if (n <= 0) this.pendingOffsetCommits.delete(key);
    else this.pendingOffsetCommits.set(key, n);
  }

  /** Applies a durable commit unless a later write for the partition was already applied. */
  applyCommit(value: CommittedOffset, seq: number): void {
    const key = tpKey(value.topic, value.partition);
    const cur = this.offsets.get(key);
    if (cur === undefined || cur.seq < seq) this.offsets.set(key, { value, seq });
  }

  /** Applies a durable tombstone unless the partition was committed again after it was written. */
  applyTombstone(topic: string, partition: number, seq: number): void {
    const key = tpKey(topic, partition);
    const cur = this.offsets.get(key);
    if (cur !== undefined && cur.seq < seq) this.offsets.delete(key);
  }

  /** Checks the group's invariants (README "Invariants"); throws an AssertionError. */
  checkInvariants(): void {
    const id = this.groupId;
    invariant(this.generationId <= this.highestGenerationId, `group ${id}: generation never decreases`);
    if (this.state === 'Empty' || this.state === 'Dead') {
      invariant(this.members.size === 0, `group ${id}: an ${this.state} group has no members`);
    }
    if (this.members.size > 0) {
      invariant(this.leaderId !== null && this.members.has(this.leaderId), `group ${id}: its leader ${this.leaderId} is a member`);
    }
    for (const [instanceId, memberId] of this.staticMembers) {
      invariant(this.members.get(memberId)?.groupInstanceId === instanceId, `group ${id}: static ${instanceId} maps to its member`);
    }
    if (this.state === 'CompletingRebalance' || this.state === 'Stable') {
      const protocol = this.protocolName;
      invariant(protocol !== null, `group ${id}: a ${this.state} group has a protocol`);
      for (const m of this.members.values()) {
        invariant(m.supports(protocol), `group ${id}: member ${m.memberId} supports the chosen protocol ${protocol}`);
        // Static members that did not rejoin are kept over a rebalance (KIP-345, as Kafka).
        invariant(m.joinedGenerationId === this.generationId || m.isStatic, `group ${id}: member ${m.memberId} joined generation ${this.generationId}`);
        invariant(!m.isAwaitingJoin, `group ${id}: no JoinGroup waits in ${this.state}`);
      }
      for (const p of this.pendingSyncMembers) invariant(this.members.has(p), `group ${id}: pending sync ${p} is a member`);
    }
    if (this.state === 'Stable') {
      for (const m of this.members.values()) invariant(!m.isAwaitingSync, `group ${id}: no SyncGroup waits in Stable`);
    }
    if (this.state !== 'PreparingRebalance') invariant(this.joinTimer === null, `group ${id}: a join timer only runs while PreparingRebalance`);
  }
}
