/**
 * The classic group coordinator (Kafka's GroupCoordinator.scala) as a pure
 * state machine: JoinGroup, SyncGroup, Heartbeat and LeaveGroup here; offsets
 * and the admin APIs in coordinator-offsets.ts. It never does I/O itself: time
 * comes from an injected Clock and Timers, durability from a GroupPersistence
 * whose writes it awaits before answering. State changes happen
 * synchronously; a persistence callback re-checks that the group is still the
 * same (loaded, same state and generation) before it acts, as Kafka's
 * callbacks do under the group lock. See README.md for the rules.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { invariant } from '../../util/assert.js';
import {
  NEW_MEMBER_JOIN_TIMEOUT_MS,
  isValidGroupId,
  persistenceErrorCode,
  type DeleteGroupResult,
  type DescribedGroup,
  type ExpireReport,
  type GroupCoordinatorDeps,
  type HeartbeatInput,
  type JoinGroupInput,
  type JoinGroupResult,
  type LeaveGroupInput,
  type LeaveGroupResult,
  type ListedGroup,
  type OffsetCommitInput,
  type OffsetCommitResult,
  type OffsetDeleteResult,
  type OffsetFetchResult,
  type SyncGroupInput,
  type SyncGroupResult,
} from './coordinator-types.js';
import * as offsets from './coordinator-offsets.js';
import { Group, type InitialDelay } from './group.js';
import { Member, type JoinCallback, type ProtocolEntry, type SyncCallback } from './member.js';
import type { LoadedPartitionState, TopicPartitionRef } from './types.js';

const EMPTY = Buffer.alloc(0);

function joinError(memberId: string, errorCode: number): JoinGroupResult {
  return { errorCode, generationId: -1, protocolName: '', leaderId: '', memberId, members: [] };
}

function syncError(errorCode: number): SyncGroupResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();
  /** Every member and pending member id -> its group id ("a member is in at most one group"). */
  private readonly memberIndex = new Map<string, string>();
  private writeSeq = 0;
  private readonly core: offsets.OffsetsCore;

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.core = {
      deps,
      group: (id) => this.groups.get(id),
      allGroups: () => [...this.groups.values()],
      createGroup: (id) => this.createGroup(id),
      isLive: (g) => this.isLive(g),
      removeGroup: (g) => this.dropGroup(g),
      validateCurrentMember: (g, memberId, instanceId) => this.validateCurrentMember(g, memberId, instanceId),
      touch: (g, m) => this.scheduleSession(g, m, m.sessionTimeoutMs),
      nextWriteSeq: () => ++this.writeSeq,
    };
  }

  // ---------------------------------------------------------------- JoinGroup

  joinGroup(input: JoinGroupInput): Promise<JoinGroupResult> {
    const { config } = this.deps;
    if (!isValidGroupId(input.groupId, 'joinGroup')) return Promise.resolve(joinError(input.memberId, ErrorCode.INVALID_GROUP_ID));
    if (input.sessionTimeoutMs < config.minSessionTimeoutMs || input.sessionTimeoutMs > config.maxSessionTimeoutMs) {
      return Promise.resolve(joinError(input.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const isUnknown = input.memberId === '';
    let group = this.groups.get(input.groupId);
    if (group === undefined) {
      if (!isUnknown) return Promise.resolve(joinError(input.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = this.createGroup(input.groupId);
    }
    const g = group;
    if (g.is('Dead')) return Promise.resolve(joinError(input.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!this.acceptJoiningMember(g, input.memberId)) {
      // Kafka also drops an existing member refused here (it was among the last to rejoin).
      const existing = g.members.get(input.memberId);
      if (existing !== undefined) this.removeMemberAndUpdateGroup(g, existing);
      return Promise.resolve(joinError(isUnknown ? '' : input.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
    }
    return new Promise<JoinGroupResult>((resolve) => {
      if (isUnknown) this.doNewMemberJoin(g, input, resolve);
      else this.doCurrentMemberJoin(g, input, resolve);
      if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
    });
  }

  private acceptJoiningMember(group: Group, memberId: string): boolean {
    const max = this.deps.config.maxSize;
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance':
        return (group.has(memberId) && group.get(memberId).isAwaitingJoin) || group.numAwaitingJoin() < max;
      case 'CompletingRebalance':
      case 'Stable':
        return group.has(memberId) || group.members.size < max;
    }
  }

  private rebalanceTimeoutOf(input: JoinGroupInput): number {
    return input.rebalanceTimeoutMs < 0 ? input.sessionTimeoutMs : input.rebalanceTimeoutMs;
  }

  private doNewMemberJoin(group: Group, input: JoinGroupInput, respond: JoinCallback): void {
    const replacing = input.groupInstanceId === null ? null : group.currentStaticMemberId(input.groupInstanceId);
    if (!group.supportsProtocols(input.protocolType, input.protocols.map((p) => p.name), replacing)) {
      respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return;
    }
    const newMemberId = this.generateMemberId(input.clientId);
    if (input.groupInstanceId !== null) {
      if (replacing !== null) this.updateStaticMemberAndRebalance(group, replacing, newMemberId, input, respond);
      else this.addMemberAndRebalance(group, newMemberId, input, respond);
    } else if (input.requireKnownMemberId) {
      // KIP-394: remember the id as pending; the member must rejoin with it within its session timeout.
      this.memberIndex.set(newMemberId, group.groupId);
      group.pendingMembers.set(
        newMemberId,
        this.deps.timers.schedule(input.sessionTimeoutMs, () => {
          if (this.isLive(group) && group.isPendingMember(newMemberId)) this.removePendingMember(group, newMemberId);
        }),
      );
      respond(joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    } else {
      this.addMemberAndRebalance(group, newMemberId, input, respond);
    }
  }

  private doCurrentMemberJoin(group: Group, input: JoinGroupInput, respond: JoinCallback): void {
    const { memberId } = input;
    if (!group.supportsProtocols(input.protocolType, input.protocols.map((p) => p.name), memberId)) {
      respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return;
    }
    if (group.isPendingMember(memberId) && input.groupInstanceId === null) {
      this.addMemberAndRebalance(group, memberId, input, respond);
      return;
    }
    const error = this.validateCurrentMember(group, memberId, input.groupInstanceId);
    if (error !== null) {
      respond(joinError(memberId, error));
      return;
    }
    const member = group.get(memberId);
    switch (group.state) {
      case 'PreparingRebalance':
        this.updateMemberAndRebalance(group, member, input, respond);
        return;
      case 'CompletingRebalance':
        // Same metadata: the member probably lost the JoinGroup response; answer it again.
        if (member.matches(input.protocols)) respond(this.currentGenerationResult(group, member, group.isLeader(memberId)));
        else this.updateMemberAndRebalance(group, member, input, respond);
        return;
      case 'Stable':
        // A leader's rejoin forces a rebalance (it may have seen topic metadata change).
        if (group.isLeader(memberId) || !member.matches(input.protocols)) this.updateMemberAndRebalance(group, member, input, respond);
        else respond(this.currentGenerationResult(group, member, false));
        return;
      case 'Empty':
      case 'Dead':
        respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return;
    }
  }

  private currentGenerationResult(group: Group, member: Member, withMembers: boolean): JoinGroupResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolName: group.protocolName ?? '',
      leaderId: group.leaderId ?? '',
      memberId: member.memberId,
      members: withMembers ? group.currentMemberMetadata() : [],
    };
  }

  private addMemberAndRebalance(group: Group, memberId: string, input: JoinGroupInput, respond: JoinCallback): void {
    const owner = this.memberIndex.get(memberId);
    invariant(owner === undefined || owner === group.groupId, `member ${memberId} is in at most one group (also in ${owner})`);
    const member = new Member({
      memberId,
      groupInstanceId: input.groupInstanceId,
      clientId: input.clientId,
      clientHost: input.clientHost,
      rebalanceTimeoutMs: this.rebalanceTimeoutOf(input),
      sessionTimeoutMs: input.sessionTimeoutMs,
      protocolType: input.protocolType,
      protocols: copyProtocols(input.protocols),
    });
    member.isNew = true;
    // A member joining a brand-new group during its initial delay extends the delay.
    if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true;
    group.add(member, respond);
    this.memberIndex.set(memberId, group.groupId);
    // New members cannot heartbeat yet: their JoinGroup times out instead (Kafka NewMemberJoinTimeoutMs).
    this.scheduleSession(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalance(group);
  }

  private updateMemberAndRebalance(group: Group, member: Member, input: JoinGroupInput, respond: JoinCallback): void {
    this.supersedeJoin(member);
    group.updateMember(member, copyProtocols(input.protocols), this.rebalanceTimeoutOf(input), input.sessionTimeoutMs);
    member.awaitingJoin = respond;
    this.maybePrepareRebalance(group);
  }

  /** A member that joins again before its first JoinGroup was answered: the old request gets REBALANCE_IN_PROGRESS. */
  private supersedeJoin(member: Member): void {
    const old = member.awaitingJoin;
    member.awaitingJoin = null;
    old?.(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  }

  /** KIP-345: a known group.instance.id joins with a new id; the old id is fenced. */
  private updateStaticMemberAndRebalance(group: Group, oldMemberId: string, newMemberId: string, input: JoinGroupInput, respond: JoinCallback): void {
    const instanceId = input.groupInstanceId;
    invariant(instanceId !== null, 'a static member has an instance id');
    const currentLeader = group.leaderId ?? '';
    const member = group.get(oldMemberId);
    const oldJoin = member.awaitingJoin;
    const oldSync = member.awaitingSync;
    member.awaitingJoin = null;
    member.awaitingSync = null;
    oldJoin?.(joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
    oldSync?.(syncError(ErrorCode.FENCED_INSTANCE_ID));
    group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.memberIndex.delete(oldMemberId);
    this.memberIndex.set(newMemberId, group.groupId);
    this.scheduleSession(group, member, member.sessionTimeoutMs);
    const old = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
    group.updateMember(member, copyProtocols(input.protocols), this.rebalanceTimeoutOf(input), input.sessionTimeoutMs);
    switch (group.state) {
      case 'Stable': {
        if (group.selectProtocol() !== group.protocolName) {
          member.awaitingJoin = respond;
          this.maybePrepareRebalance(group);
          return;
        }
        // No rebalance: persist the new member id, then hand back the current generation.
        // The old leader id is returned so a replaced leader does not think it must assign.
        const generationId = group.generationId;
        const protocolName = group.protocolName ?? '';
        this.deps.persistence.storeGroup(group.groupId, group.snapshot()).then(
          () => respond({ errorCode: ErrorCode.NONE, generationId, protocolName, leaderId: currentLeader, memberId: newMemberId, members: [] }),
          (err: unknown) => {
            if (this.isLive(group) && group.members.get(newMemberId) === member) {
              group.updateMember(member, old.protocols, old.rebalanceTimeoutMs, old.sessionTimeoutMs);
              group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
              this.memberIndex.delete(newMemberId);
              this.memberIndex.set(oldMemberId, group.groupId);
              this.scheduleSession(group, member, member.sessionTimeoutMs);
            }
            respond({ errorCode: persistenceErrorCode(err), generationId, protocolName, leaderId: currentLeader, memberId: '', members: [] });
          },
        );
        return;
      }
      case 'CompletingRebalance':
        // The leader may be assigning to the old id: rebalance so the new id gets an assignment.
        member.awaitingJoin = respond;
        this.prepareRebalance(group);
        return;
      case 'PreparingRebalance':
        member.awaitingJoin = respond;
        return;
      case 'Empty':
      case 'Dead':
        invariant(false, `group ${group.groupId} with a static member is not ${group.state}`);
    }
  }

  // ---------------------------------------------------------------- rebalance

  private maybePrepareRebalance(group: Group): void {
    if (group.canRebalance()) this.prepareRebalance(group);
  }

  private prepareRebalance(group: Group): void {
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

  private scheduleJoin(group: Group, initial: InitialDelay | null): void {
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
  private tryCompleteJoin(group: Group): void {
    if (group.is('PreparingRebalance') && group.initialDelay === null && group.hasAllMembersJoined()) this.completeJoin(group);
  }

  private completeJoin(group: Group): void {
    group.joinTimer?.cancel();
    group.joinTimer = null;
    group.initialDelay = null;
    for (const m of group.notYetRejoinedMembers()) {
      // Dynamic members that did not rejoin in time are removed; static ones are kept (KIP-345).
      if (!m.isStatic) this.removeMember(group, m);
    }
    if (!group.maybeElectNewJoinedLeader() && group.members.size > 0) {
      // Only static members that have not rejoined remain: wait another round (their sessions may expire).
      this.scheduleJoin(group, null);
      return;
    }
    group.newMemberAdded = false;
    group.initNextGeneration(this.deps.clock.nowMs());
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
        if (m !== undefined) this.removeMember(group, m);
      }
      this.prepareRebalance(group);
    });
  }

  private resetAndPropagateAssignmentError(group: Group, errorCode: number): void {
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

  private setAndPropagateAssignment(group: Group, assignments: ReadonlyMap<string, Buffer>): void {
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

  // ---------------------------------------------------------------- SyncGroup

  syncGroup(input: SyncGroupInput): Promise<SyncGroupResult> {
    if (!isValidGroupId(input.groupId, 'syncGroup')) return Promise.resolve(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.groups.get(input.groupId);
    if (group === undefined) return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    const error = this.validateSyncGroup(group, input);
    if (error !== null) return Promise.resolve(syncError(error));
    switch (group.state) {
      case 'Empty':
        return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      case 'PreparingRebalance':
        return Promise.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case 'CompletingRebalance':
        return new Promise<SyncGroupResult>((resolve) => this.syncWhileCompleting(group, input, resolve));
      case 'Stable': {
        const member = group.get(input.memberId);
        this.removePendingSyncMember(group, member.memberId);
        this.scheduleSession(group, member, member.sessionTimeoutMs);
        return Promise.resolve({ errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
      }
      case 'Dead':
        return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    }
  }

  private validateSyncGroup(group: Group, input: SyncGroupInput): number | null {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.validateCurrentMember(group, input.memberId, input.groupInstanceId);
    if (memberError !== null) return memberError;
    if (input.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (input.protocolType !== null && group.protocolType !== input.protocolType) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    if (input.protocolName !== null && group.protocolName !== input.protocolName) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    return null;
  }

  private syncWhileCompleting(group: Group, input: SyncGroupInput, respond: SyncCallback): void {
    const member = group.get(input.memberId);
    const old = member.awaitingSync;
    member.awaitingSync = respond;
    old?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
    this.removePendingSyncMember(group, member.memberId);
    if (!group.isLeader(member.memberId)) return;
    // The leader's assignment: members it left out get an empty one; unknown ids are ignored.
    const assignments = new Map<string, Buffer>();
    for (const a of input.assignments) if (group.has(a.memberId)) assignments.set(a.memberId, Buffer.from(a.assignment));
    for (const id of group.members.keys()) if (!assignments.has(id)) assignments.set(id, EMPTY);
    const generationId = group.generationId;
    const stillCompleting = (): boolean => this.isLive(group) && group.is('CompletingRebalance') && group.generationId === generationId;
    this.deps.persistence.storeGroup(group.groupId, group.snapshot(assignments)).then(
      () => {
        if (!stillCompleting()) return;
        this.setAndPropagateAssignment(group, assignments);
        group.transitionTo('Stable', this.deps.clock.nowMs());
      },
      (err: unknown) => {
        if (!stillCompleting()) return;
        this.resetAndPropagateAssignmentError(group, persistenceErrorCode(err));
        this.maybePrepareRebalance(group);
      },
    );
  }

  private removePendingSyncMember(group: Group, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (group.pendingSyncMembers.size === 0) {
      group.syncTimer?.cancel();
      group.syncTimer = null;
    }
  }

  // ---------------------------------------------------------------- Heartbeat

  /** Resets the member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
  heartbeat(input: HeartbeatInput): number {
    if (!isValidGroupId(input.groupId, 'heartbeat')) return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(input.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.validateCurrentMember(group, input.memberId, input.groupInstanceId);
    if (memberError !== null) return memberError;
    if (input.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
    const member = group.get(input.memberId);
    this.scheduleSession(group, member, member.sessionTimeoutMs);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- LeaveGroup

  leaveGroup(input: LeaveGroupInput): LeaveGroupResult {
    if (!isValidGroupId(input.groupId, 'leaveGroup')) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.groups.get(input.groupId);
    const result = (m: LeaveGroupInput['members'][number], errorCode: number) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode });
    if (group === undefined) return { errorCode: ErrorCode.NONE, members: input.members.map((m) => result(m, ErrorCode.UNKNOWN_MEMBER_ID)) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const members = input.members.map((leaving) => {
      if (leaving.memberId === '') {
        // Administrative removal by instance id (KIP-345).
        const current = leaving.groupInstanceId === null ? null : group.currentStaticMemberId(leaving.groupInstanceId);
        if (current === null) return result(leaving, ErrorCode.UNKNOWN_MEMBER_ID);
        this.removeMemberAndUpdateGroup(group, group.get(current));
        return result(leaving, ErrorCode.NONE);
      }
      if (group.isPendingMember(leaving.memberId)) {
        this.removePendingMember(group, leaving.memberId);
        return result(leaving, ErrorCode.NONE);
      }
      const error = this.validateCurrentMember(group, leaving.memberId, leaving.groupInstanceId);
      if (error !== null) return result(leaving, error);
      this.removeMemberAndUpdateGroup(group, group.get(leaving.memberId));
      return result(leaving, ErrorCode.NONE);
    });
    return { errorCode: ErrorCode.NONE, members };
  }

  // ---------------------------------------------------------------- offsets and admin (coordinator-offsets.ts)

  commitOffsets(input: OffsetCommitInput): Promise<OffsetCommitResult> {
    return offsets.commitOffsets(this.core, input);
  }

  /** Committed offsets; `partitions` null = every partition with a committed offset. */
  fetchOffsets(groupId: string, partitions: readonly TopicPartitionRef[] | null, requireStable: boolean): OffsetFetchResult {
    return offsets.fetchOffsets(this.core, groupId, partitions, requireStable);
  }

  deleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): Promise<OffsetDeleteResult> {
    return offsets.deleteOffsets(this.core, groupId, partitions);
  }

  /** Run periodically (Kafka: offsets.retention.check.interval.ms, default 10 minutes). */
  expireOffsets(): Promise<ExpireReport> {
    return offsets.expireOffsets(this.core);
  }

  describeGroups(groupIds: readonly string[]): DescribedGroup[] {
    return groupIds.map((id) => offsets.describeGroup(this.groups.get(id), id));
  }

  /** Groups whose state name matches one of `statesFilter` (case-insensitive); all when empty. */
  listGroups(statesFilter: readonly string[] = []): ListedGroup[] {
    return offsets.listGroups(this.core, statesFilter);
  }

  deleteGroups(groupIds: readonly string[]): Promise<DeleteGroupResult[]> {
    return offsets.deleteGroups(this.core, groupIds);
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
      const group = offsets.groupFromSnapshot(snapshot, this.deps.clock.nowMs());
      this.groups.set(group.groupId, group);
      for (const m of group.members.values()) {
        this.memberIndex.set(m.memberId, group.groupId);
        this.scheduleSession(group, m, m.sessionTimeoutMs);
      }
    }
    for (const [groupId, committed] of state.offsets) {
      const group = this.groups.get(groupId) ?? this.createGroup(groupId);
      for (const c of committed) group.applyCommit(c, 0);
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

  private isLive(group: Group): boolean {
    return this.groups.get(group.groupId) === group;
  }

  private createGroup(groupId: string): Group {
    invariant(!this.groups.has(groupId), `group ${groupId} created once`);
    const group = new Group(groupId, this.deps.clock.nowMs());
    this.groups.set(groupId, group);
    return group;
  }

  /** Removes a group with no members from memory (deleted or expired). */
  private dropGroup(group: Group): void {
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

  private generateMemberId(clientId: string): string {
    const id = this.deps.newMemberId(clientId);
    invariant(id !== '' && !this.memberIndex.has(id), `newMemberId returned a fresh id (${id})`);
    return id;
  }

  /** FENCED_INSTANCE_ID when the instance id maps to another member; UNKNOWN_MEMBER_ID when not a member. */
  private validateCurrentMember(group: Group, memberId: string, groupInstanceId: string | null): number | null {
    if (groupInstanceId !== null) {
      const current = group.currentStaticMemberId(groupInstanceId);
      if (current === null) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return null;
    }
    return group.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  private scheduleSession(group: Group, member: Member, timeoutMs: number): void {
    member.cancelSessionTimer();
    member.sessionTimer = this.deps.timers.schedule(timeoutMs, () => {
      member.sessionTimer = null;
      if (!this.isLive(group) || group.members.get(member.memberId) !== member) return;
      // A member waiting for the rebalance is alive by definition (Kafka hasSatisfiedHeartbeat).
      if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) {
        this.scheduleSession(group, member, member.sessionTimeoutMs);
        return;
      }
      this.removeMemberAndUpdateGroup(group, member);
    });
  }

  /** Removes a member without touching the group state (the caller decides on a rebalance). */
  private removeMember(group: Group, member: Member): void {
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
  private removeMemberAndUpdateGroup(group: Group, member: Member): void {
    this.removeMember(group, member);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.maybePrepareRebalance(group);
        return;
      case 'PreparingRebalance':
        this.tryCompleteJoin(group);
        return;
      case 'Empty':
      case 'Dead':
        return;
    }
  }

  private removePendingMember(group: Group, memberId: string): void {
    group.pendingMembers.get(memberId)?.cancel();
    group.pendingMembers.delete(memberId);
    this.memberIndex.delete(memberId);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }
}

function copyProtocols(protocols: JoinGroupInput['protocols']): ProtocolEntry[] {
  return protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
}
