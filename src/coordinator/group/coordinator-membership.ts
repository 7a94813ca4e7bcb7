/**
 * The membership core of the group coordinator, which GroupCoordinator
 * (coordinator.ts) holds and drives: the loaded groups, rebalances (join
 * phase, initial delay, pending sync), session timers, member removal, and
 * loading/unloading. The request handlers live in coordinator.ts and the
 * offsets and admin APIs in coordinator-offsets.ts; this class owns the
 * group registry they all work on (Kafka's GroupCoordinator.scala, split by
 * responsibility).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { invariant } from '../../util/assert.js';
import { type GroupCoordinatorDeps, type JoinGroupResult, type SyncGroupResult } from './coordinator-api.js';
import { persistenceErrorCode } from './request-rules.js';
import { groupFromSnapshot } from './coordinator-offsets.js';
import { Group, tpKey, type InitialDelay } from './group.js';
import type { Member } from './member.js';
import type { CommittedOffset, LoadedPartitionState } from './types.js';

export const EMPTY = Buffer.alloc(0);

export function joinError(memberId: string, errorCode: number): JoinGroupResult {
  return { errorCode, generationId: -1, protocolName: '', leaderId: '', memberId, members: [] };
}

export function syncError(errorCode: number): SyncGroupResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

export class GroupMembership {
  readonly groups = new Map<string, Group>();
  /** Every member and pending member id -> its group id ("a member is in at most one group"). */
  readonly memberIndex = new Map<string, string>();

  constructor(readonly deps: GroupCoordinatorDeps) {}

  // ---------------------------------------------------------------- rebalance

  currentGenerationResult(group: Group, member: Member, withMembers: boolean): JoinGroupResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolName: group.protocolName ?? '',
      leaderId: group.leaderId ?? '',
      memberId: member.memberId,
      members: withMembers ? group.currentMemberMetadata() : [],
    };
  }

  maybePrepareRebalance(group: Group, reason: string): void {
    if (group.canRebalance()) this.prepareRebalance(group, reason);
  }

  prepareRebalance(group: Group, reason: string): void {
    this.deps.log?.({ group: group.groupId, state: group.state, generation: group.generationId, members: group.members.size, reason }, 'preparing to rebalance group');
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    group.syncTimer?.cancel();
    group.syncTimer = null;
    const wasEmpty = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.deps.clock.nowMs());
    if (wasEmpty) {
      // Kafka's InitialDelayedJoin: wait for more members of a new group before the first generation.
      const configuredMs = this.deps.config.initialRebalanceDelayMs;
      this.scheduleJoin(group, { configuredMs, delayMs: configuredMs, remainingMs: Math.max(group.rebalanceTimeoutMs() - configuredMs, 0) });
    } else {
      this.scheduleJoin(group, null);
      this.tryCompleteJoin(group);
    }
  }

  scheduleJoin(group: Group, initial: InitialDelay | null): void {
    group.joinTimer?.cancel();
    group.initialDelay = initial;
    const delayMs = initial === null ? group.rebalanceTimeoutMs() : initial.delayMs;
    group.joinTimer = this.deps.timers.schedule(delayMs, () => {
      group.joinTimer = null;
      if (!this.isLive(group) || !group.is('PreparingRebalance')) return;
      const d = group.initialDelay;
      group.initialDelay = null;
      if (d !== null && group.newMemberAdded && d.remainingMs !== 0) {
        group.newMemberAdded = false;
        const next = Math.min(d.configuredMs, d.remainingMs);
        this.scheduleJoin(group, { configuredMs: d.configuredMs, delayMs: next, remainingMs: Math.max(d.remainingMs - d.delayMs, 0) });
      } else {
        this.completeJoin(group);
      }
    });
  }

  /** Completes the join phase early once everyone rejoined (never during the initial delay). */
  tryCompleteJoin(group: Group): void {
    if (group.is('PreparingRebalance') && group.initialDelay === null && group.hasAllMembersJoined()) this.completeJoin(group);
  }

  completeJoin(group: Group): void {
    group.joinTimer?.cancel();
    group.joinTimer = null;
    group.initialDelay = null;
    for (const m of group.notYetRejoinedMembers()) {
      // Dynamic members that did not rejoin in time are removed; static ones are kept (KIP-345).
      if (!m.isStatic) this.removeMember(group, m, 'the member did not rejoin in time');
    }
    if (!group.maybeElectNewJoinedLeader() && group.members.size > 0) {
      // Only static members that have not rejoined remain: wait another round (their sessions may expire).
      this.scheduleJoin(group, null);
      return;
    }
    group.newMemberAdded = false;
    group.initNextGeneration(this.deps.clock.nowMs());
    this.deps.log?.(
      { group: group.groupId, state: group.state, generation: group.generationId, protocol: group.protocolName, leader: group.leaderId, members: group.members.size },
      group.is('Empty') ? 'group is empty after its rebalance' : 'stabilized group: join phase done',
    );
    if (group.is('Empty')) {
      // Best effort, as Kafka: if lost, the previous generation reloads and its members time out.
      this.deps.persistence.storeGroup(group.groupId, group.snapshot()).catch(() => undefined);
      return;
    }
    for (const m of group.members.values()) {
      const cb = m.awaitingJoin;
      m.awaitingJoin = null;
      cb?.(this.currentGenerationResult(group, m, group.isLeader(m.memberId)));
      m.isNew = false;
      this.scheduleSession(group, m, m.sessionTimeoutMs);
    }
    // Members that do not send SyncGroup within the rebalance timeout are removed (Kafka DelayedSync).
    const generationId = group.generationId;
    group.syncTimer = this.deps.timers.schedule(group.rebalanceTimeoutMs(), () => {
      group.syncTimer = null;
      if (!this.isLive(group) || group.generationId !== generationId) return;
      if (!(group.is('CompletingRebalance') || group.is('Stable')) || group.pendingSyncMembers.size === 0) return;
      for (const id of [...group.pendingSyncMembers]) {
        const m = group.members.get(id);
        if (m !== undefined) this.removeMember(group, m, 'the member did not send SyncGroup in time');
      }
      this.prepareRebalance(group, 'members did not send SyncGroup in time');
    });
  }

  resetAndPropagateAssignmentError(group: Group, errorCode: number): void {
    invariant(group.is('CompletingRebalance'), `group ${group.groupId} resets assignments only while CompletingRebalance`);
    for (const m of group.members.values()) {
      m.assignment = EMPTY;
      const cb = m.awaitingSync;
      m.awaitingSync = null;
      if (cb !== null) {
        cb(syncError(errorCode));
        this.scheduleSession(group, m, m.sessionTimeoutMs);
      }
    }
  }

  setAndPropagateAssignment(group: Group, assignments: ReadonlyMap<string, Buffer>): void {
    invariant(group.is('CompletingRebalance'), `group ${group.groupId} sets assignments only while CompletingRebalance`);
    for (const m of group.members.values()) {
      m.assignment = assignments.get(m.memberId) ?? EMPTY;
      const cb = m.awaitingSync;
      m.awaitingSync = null;
      if (cb !== null) {
        cb({ errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: m.assignment });
        this.scheduleSession(group, m, m.sessionTimeoutMs);
      }
    }
  }

  removePendingSyncMember(group: Group, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (group.pendingSyncMembers.size === 0) {
      group.syncTimer?.cancel();
      group.syncTimer = null;
    }
  }

  // ---------------------------------------------------------------- loading

  /**
   * Installs what one __consumer_offsets partition held. Groups with members
   * load as Stable with their last generation and assignments (Kafka): members
   * keep heartbeating, and those that do not are expired after their session
   * timeout. Groups that already exist here are left as they are.
   */
  loadPartition(state: LoadedPartitionState): void {
    for (const snapshot of state.groups) {
      if (this.groups.has(snapshot.groupId)) continue;
      const group = groupFromSnapshot(snapshot, this.deps.clock.nowMs());
      this.groups.set(group.groupId, group);
      if (group.members.size > 0) this.deps.log?.({ group: group.groupId, state: group.state, generation: group.generationId, members: group.members.size }, 'loaded group');
      for (const m of group.members.values()) {
        this.memberIndex.set(m.memberId, group.groupId);
        this.scheduleSession(group, m, m.sessionTimeoutMs);
      }
    }
    for (const [groupId, committed] of state.offsets) {
      const group = this.groups.get(groupId) ?? this.createGroup(groupId);
      for (const c of committed) group.applyCommit(c, 0);
    }
    for (const [groupId, byProducer] of state.pendingTxnOffsets ?? []) {
      const group = this.groups.get(groupId) ?? this.createGroup(groupId);
      for (const [producerId, commits] of byProducer) {
        const byTp = group.pendingTxnOffsets.get(producerId) ?? new Map<string, CommittedOffset>();
        for (const c of commits) byTp.set(tpKey(c.topic, c.partition), c);
        group.pendingTxnOffsets.set(producerId, byTp);
      }
    }
  }

  /**
   * Forgets the groups this node no longer coordinates (its __consumer_offsets
   * partition moved or the broker stops): waiting JoinGroup/SyncGroup requests
   * get NOT_COORDINATOR and every timer is cancelled (Kafka onGroupUnloaded).
   */
  unloadGroups(predicate: (groupId: string) => boolean): void {
    for (const group of [...this.groups.values()]) {
      if (!predicate(group.groupId)) continue;
      this.groups.delete(group.groupId);
      const previous = group.state;
      if (previous !== 'Empty') this.deps.log?.({ group: group.groupId, state: previous, generation: group.generationId, members: group.members.size }, 'unloaded group: this node no longer coordinates it');
      group.transitionTo('Dead', this.deps.clock.nowMs());
      group.joinTimer?.cancel();
      group.joinTimer = null;
      group.syncTimer?.cancel();
      group.syncTimer = null;
      for (const [id, timer] of group.pendingMembers) {
        timer.cancel();
        this.memberIndex.delete(id);
      }
      group.pendingMembers.clear();
      for (const m of [...group.members.values()]) {
        const join = m.awaitingJoin;
        const sync = m.awaitingSync;
        m.awaitingJoin = null;
        m.awaitingSync = null;
        if (previous !== 'Empty') join?.(joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
        sync?.(syncError(ErrorCode.NOT_COORDINATOR));
        m.cancelSessionTimer();
        this.memberIndex.delete(m.memberId);
        group.remove(m.memberId);
      }
    }
  }

  /** Unloads everything (broker shutdown). */
  shutdown(): void {
    this.unloadGroups(() => true);
  }

  /** The group's generation and state, or null when unknown (tests, metrics, the CLI). */
  groupStatus(groupId: string): { state: Group['state']; generationId: number; leaderId: string | null } | null {
    const g = this.groups.get(groupId);
    return g === undefined ? null : { state: g.state, generationId: g.generationId, leaderId: g.leaderId };
  }

  /** Checks every invariant of README.md "Invariants" (tests and the simulation call it after each step). */
  checkInvariants(): void {
    const seen = new Map<string, string>();
    for (const group of this.groups.values()) {
      group.checkInvariants();
      for (const id of [...group.members.keys(), ...group.pendingMembers.keys()]) {
        invariant(!seen.has(id), `member ${id} is in at most one group (${seen.get(id)} and ${group.groupId})`);
        seen.set(id, group.groupId);
        invariant(this.memberIndex.get(id) === group.groupId, `member index knows ${id} in ${group.groupId}`);
      }
    }
    invariant(seen.size === this.memberIndex.size, 'member index holds only current members');
  }

  // ---------------------------------------------------------------- helpers

  isLive(group: Group): boolean {
    return this.groups.get(group.groupId) === group;
  }

  createGroup(groupId: string): Group {
    invariant(!this.groups.has(groupId), `group ${groupId} created once`);
    const group = new Group(groupId, this.deps.clock.nowMs());
    this.groups.set(groupId, group);
    return group;
  }

  /** Removes a group with no members from memory (deleted or expired). */
  dropGroup(group: Group): void {
    invariant(group.members.size === 0, `group ${group.groupId} is dropped only when it has no members`);
    for (const [id, timer] of group.pendingMembers) {
      timer.cancel();
      this.memberIndex.delete(id);
    }
    group.pendingMembers.clear();
    group.joinTimer?.cancel();
    group.joinTimer = null;
    if (this.isLive(group)) this.groups.delete(group.groupId);
  }

  generateMemberId(clientId: string): string {
    const id = this.deps.newMemberId(clientId);
    invariant(id !== '' && !this.memberIndex.has(id), `newMemberId returned a fresh id (${id})`);
    return id;
  }

  /** FENCED_INSTANCE_ID when the instance id maps to another member; UNKNOWN_MEMBER_ID when not a member. */
  validateCurrentMember(group: Group, memberId: string, groupInstanceId: string | null): number | null {
    if (groupInstanceId !== null) {
      const current = group.currentStaticMemberId(groupInstanceId);
      if (current === null) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return null;
    }
    return group.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  scheduleSession(group: Group, member: Member, timeoutMs: number): void {
    member.cancelSessionTimer();
    member.sessionTimer = this.deps.timers.schedule(timeoutMs, () => {
      member.sessionTimer = null;
      if (!this.isLive(group) || group.members.get(member.memberId) !== member) return;
      // A member waiting for the rebalance is alive by definition (Kafka hasSatisfiedHeartbeat).
      if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) {
        this.scheduleSession(group, member, member.sessionTimeoutMs);
        return;
      }
      this.removeMemberAndUpdateGroup(group, member, member.isNew ? 'the new member did not finish joining in time' : 'session timeout');
    });
  }

  /** Removes a member without touching the group state (the caller decides on a rebalance). */
  removeMember(group: Group, member: Member, reason: string): void {
    this.deps.log?.({ group: group.groupId, member: member.memberId, state: group.state, generation: group.generationId, reason }, 'removed member from group');
    const join = member.awaitingJoin;
    const sync = member.awaitingSync;
    member.awaitingJoin = null;
    member.awaitingSync = null;
    join?.(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    sync?.(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    member.cancelSessionTimer();
    group.remove(member.memberId);
    this.memberIndex.delete(member.memberId);
  }

  /** Leave, session expiry, refusal: remove the member and rebalance the rest. */
  removeMemberAndUpdateGroup(group: Group, member: Member, reason: string): void {
    this.removeMember(group, member, reason);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.maybePrepareRebalance(group, `removing member ${member.memberId}: ${reason}`);
        return;
      case 'PreparingRebalance':
        this.tryCompleteJoin(group);
        return;
      case 'Empty':
      case 'Dead':
        return;
    }
  }

  removePendingMember(group: Group, memberId: string): void {
    group.pendingMembers.get(memberId)?.cancel();
    group.pendingMembers.delete(memberId);
    this.memberIndex.delete(memberId);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }
}
