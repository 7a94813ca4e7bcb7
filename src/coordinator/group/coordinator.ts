/**
 * The classic group coordinator (Kafka's GroupCoordinator.scala) as a pure
 * state machine: JoinGroup, SyncGroup, Heartbeat and LeaveGroup here; the
 * rebalance machinery, timers and loading in coordinator-membership.ts (a
 * GroupMembership it holds); offsets and the admin APIs in coordinator-offsets.ts. It never does I/O itself: time
 * comes from an injected Clock and Timers, durability from a GroupPersistence
 * whose writes it awaits before answering. State changes happen
 * synchronously; a persistence callback re-checks that the group is still the
 * same (loaded, same state and generation) before it acts, as Kafka's
 * callbacks do under the group lock. See README.md for the rules.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { invariant } from '../../util/assert.js';
import {
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
} from './coordinator-api.js';
import { NEW_MEMBER_JOIN_TIMEOUT_MS, isValidGroupId, persistenceErrorCode } from './request-rules.js';
import * as offsets from './coordinator-offsets.js';
import { commitTxnOffsets, completeTxnOffsets, type TxnOffsetCommitInput, type TxnOffsetCommitResult } from './coordinator-txn-offsets.js';
import { EMPTY, GroupMembership, joinError, syncError } from './coordinator-membership.js';
import type { Group } from './group.js';
import { Member, type JoinCallback, type ProtocolEntry, type SyncCallback } from './member.js';
import type { LoadedPartitionState, TopicPartitionRef } from './types.js';

export class GroupCoordinator {
  private writeSeq = 0;
  private readonly core: offsets.OffsetsCore;
  private readonly membership: GroupMembership;
  private readonly deps: GroupCoordinatorDeps;

  constructor(deps: GroupCoordinatorDeps) {
    this.deps = deps;
    this.membership = new GroupMembership(deps);
    this.core = {
      deps,
      group: (id) => this.membership.groups.get(id),
      allGroups: () => [...this.membership.groups.values()],
      createGroup: (id) => this.membership.createGroup(id),
      isLive: (g) => this.membership.isLive(g),
      removeGroup: (g) => this.membership.dropGroup(g),
      validateCurrentMember: (g, memberId, instanceId) => this.membership.validateCurrentMember(g, memberId, instanceId),
      touch: (g, m) => this.membership.scheduleSession(g, m, m.sessionTimeoutMs),
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
    let group = this.membership.groups.get(input.groupId);
    if (group === undefined) {
      if (!isUnknown) return Promise.resolve(joinError(input.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = this.membership.createGroup(input.groupId);
    }
    const g = group;
    if (g.is('Dead')) return Promise.resolve(joinError(input.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!this.acceptJoiningMember(g, input.memberId)) {
      // Kafka also drops an existing member refused here (it was among the last to rejoin).
      const existing = g.members.get(input.memberId);
      if (existing !== undefined) this.membership.removeMemberAndUpdateGroup(g, existing, 'the group is at its maximum size');
      return Promise.resolve(joinError(isUnknown ? '' : input.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
    }
    return new Promise<JoinGroupResult>((resolve) => {
      if (isUnknown) this.doNewMemberJoin(g, input, resolve);
      else this.doCurrentMemberJoin(g, input, resolve);
      if (g.is('PreparingRebalance')) this.membership.tryCompleteJoin(g);
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
    const newMemberId = this.membership.generateMemberId(input.clientId);
    if (input.groupInstanceId !== null) {
      if (replacing !== null) this.updateStaticMemberAndRebalance(group, replacing, newMemberId, input, respond);
      else this.addMemberAndRebalance(group, newMemberId, input, respond);
    } else if (input.requireKnownMemberId) {
      // KIP-394: remember the id as pending; the member must rejoin with it within its session timeout.
      this.membership.memberIndex.set(newMemberId, group.groupId);
      group.pendingMembers.set(
        newMemberId,
        this.deps.timers.schedule(input.sessionTimeoutMs, () => {
          if (this.membership.isLive(group) && group.isPendingMember(newMemberId)) this.membership.removePendingMember(group, newMemberId);
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
    const error = this.membership.validateCurrentMember(group, memberId, input.groupInstanceId);
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
        if (member.matches(input.protocols)) respond(this.membership.currentGenerationResult(group, member, group.isLeader(memberId)));
        else this.updateMemberAndRebalance(group, member, input, respond);
        return;
      case 'Stable':
        // A leader's rejoin forces a rebalance (it may have seen topic metadata change).
        if (group.isLeader(memberId) || !member.matches(input.protocols)) this.updateMemberAndRebalance(group, member, input, respond);
        else respond(this.membership.currentGenerationResult(group, member, false));
        return;
      case 'Empty':
      case 'Dead':
        respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return;
    }
  }

  private addMemberAndRebalance(group: Group, memberId: string, input: JoinGroupInput, respond: JoinCallback): void {
    const owner = this.membership.memberIndex.get(memberId);
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
    this.membership.memberIndex.set(memberId, group.groupId);
    // New members cannot heartbeat yet: their JoinGroup times out instead (Kafka NewMemberJoinTimeoutMs).
    this.membership.scheduleSession(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.membership.maybePrepareRebalance(group, `new member ${memberId} joined`);
  }

  private updateMemberAndRebalance(group: Group, member: Member, input: JoinGroupInput, respond: JoinCallback): void {
    this.supersedeJoin(member);
    group.updateMember(member, copyProtocols(input.protocols), this.rebalanceTimeoutOf(input), input.sessionTimeoutMs);
    member.awaitingJoin = respond;
    this.membership.maybePrepareRebalance(group, `member ${member.memberId} rejoined`);
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
    this.membership.memberIndex.delete(oldMemberId);
    this.membership.memberIndex.set(newMemberId, group.groupId);
    this.membership.scheduleSession(group, member, member.sessionTimeoutMs);
    const old = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
    group.updateMember(member, copyProtocols(input.protocols), this.rebalanceTimeoutOf(input), input.sessionTimeoutMs);
    switch (group.state) {
      case 'Stable': {
        if (group.selectProtocol() !== group.protocolName) {
          member.awaitingJoin = respond;
          this.membership.maybePrepareRebalance(group, `static member ${newMemberId} changed the protocol`);
          return;
        }
        // No rebalance: persist the new member id, then hand back the current generation.
        // The old leader id is returned so a replaced leader does not think it must assign.
        const generationId = group.generationId;
        const protocolName = group.protocolName ?? '';
        this.deps.persistence.storeGroup(group.groupId, group.snapshot()).then(
          () => respond({ errorCode: ErrorCode.NONE, generationId, protocolName, leaderId: currentLeader, memberId: newMemberId, members: [] }),
          (err: unknown) => {
            if (this.membership.isLive(group) && group.members.get(newMemberId) === member) {
              group.updateMember(member, old.protocols, old.rebalanceTimeoutMs, old.sessionTimeoutMs);
              group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
              this.membership.memberIndex.delete(newMemberId);
              this.membership.memberIndex.set(oldMemberId, group.groupId);
              this.membership.scheduleSession(group, member, member.sessionTimeoutMs);
            }
            respond({ errorCode: persistenceErrorCode(err), generationId, protocolName, leaderId: currentLeader, memberId: '', members: [] });
          },
        );
        return;
      }
      case 'CompletingRebalance':
        // The leader may be assigning to the old id: rebalance so the new id gets an assignment.
        member.awaitingJoin = respond;
        this.membership.prepareRebalance(group, `static member ${newMemberId} replaced ${oldMemberId} while the group was completing a rebalance`);
        return;
      case 'PreparingRebalance':
        member.awaitingJoin = respond;
        return;
      case 'Empty':
      case 'Dead':
        invariant(false, `group ${group.groupId} with a static member is not ${group.state}`);
    }
  }

  // ---------------------------------------------------------------- SyncGroup

  syncGroup(input: SyncGroupInput): Promise<SyncGroupResult> {
    if (!isValidGroupId(input.groupId, 'syncGroup')) return Promise.resolve(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.membership.groups.get(input.groupId);
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
        this.membership.removePendingSyncMember(group, member.memberId);
        this.membership.scheduleSession(group, member, member.sessionTimeoutMs);
        return Promise.resolve({ errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
      }
      case 'Dead':
        return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    }
  }

  private validateSyncGroup(group: Group, input: SyncGroupInput): number | null {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.membership.validateCurrentMember(group, input.memberId, input.groupInstanceId);
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
    this.membership.removePendingSyncMember(group, member.memberId);
    if (!group.isLeader(member.memberId)) return;
    // The leader's assignment: members it left out get an empty one; unknown ids are ignored.
    const assignments = new Map<string, Buffer>();
    for (const a of input.assignments) if (group.has(a.memberId)) assignments.set(a.memberId, Buffer.from(a.assignment));
    for (const id of group.members.keys()) if (!assignments.has(id)) assignments.set(id, EMPTY);
    const generationId = group.generationId;
    const stillCompleting = (): boolean => this.membership.isLive(group) && group.is('CompletingRebalance') && group.generationId === generationId;
    this.deps.persistence.storeGroup(group.groupId, group.snapshot(assignments)).then(
      () => {
        if (!stillCompleting()) return;
        this.membership.setAndPropagateAssignment(group, assignments);
        group.transitionTo('Stable', this.deps.clock.nowMs());
      },
      (err: unknown) => {
        if (!stillCompleting()) return;
        this.membership.resetAndPropagateAssignmentError(group, persistenceErrorCode(err));
        this.membership.maybePrepareRebalance(group, 'storing the assignment failed');
      },
    );
  }

  // ---------------------------------------------------------------- Heartbeat

  /** Resets the member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
  heartbeat(input: HeartbeatInput): number {
    if (!isValidGroupId(input.groupId, 'heartbeat')) return ErrorCode.INVALID_GROUP_ID;
    const group = this.membership.groups.get(input.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.membership.validateCurrentMember(group, input.memberId, input.groupInstanceId);
    if (memberError !== null) return memberError;
    if (input.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
    const member = group.get(input.memberId);
    this.membership.scheduleSession(group, member, member.sessionTimeoutMs);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- LeaveGroup

  leaveGroup(input: LeaveGroupInput): LeaveGroupResult {
    if (!isValidGroupId(input.groupId, 'leaveGroup')) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.membership.groups.get(input.groupId);
    const result = (m: LeaveGroupInput['members'][number], errorCode: number) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode });
    if (group === undefined) return { errorCode: ErrorCode.NONE, members: input.members.map((m) => result(m, ErrorCode.UNKNOWN_MEMBER_ID)) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const members = input.members.map((leaving) => {
      if (leaving.memberId === '') {
        // Administrative removal by instance id (KIP-345).
        const current = leaving.groupInstanceId === null ? null : group.currentStaticMemberId(leaving.groupInstanceId);
        if (current === null) return result(leaving, ErrorCode.UNKNOWN_MEMBER_ID);
        this.membership.removeMemberAndUpdateGroup(group, group.get(current), 'removed by an administrator (LeaveGroup by instance id)');
        return result(leaving, ErrorCode.NONE);
      }
      if (group.isPendingMember(leaving.memberId)) {
        this.membership.removePendingMember(group, leaving.memberId);
        return result(leaving, ErrorCode.NONE);
      }
      const error = this.membership.validateCurrentMember(group, leaving.memberId, leaving.groupInstanceId);
      if (error !== null) return result(leaving, error);
      this.membership.removeMemberAndUpdateGroup(group, group.get(leaving.memberId), 'the member left the group (LeaveGroup)');
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

  /** TxnOffsetCommit (28): pending until the transaction's marker (coordinator-txn-offsets.ts). */
  commitTxnOffsets(input: TxnOffsetCommitInput): Promise<TxnOffsetCommitResult> {
    return commitTxnOffsets(this.core, input);
  }

  /** A transaction marker reached a __consumer_offsets partition: its groups' pending offsets of `producerId` apply or go. */
  completeTransaction(producerId: bigint, committed: boolean, inPartition: (groupId: string) => boolean): number {
    return completeTxnOffsets(this.core, producerId, committed, inPartition);
  }

  deleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): Promise<OffsetDeleteResult> {
    return offsets.deleteOffsets(this.core, groupId, partitions);
  }

  /** Run periodically (Kafka: offsets.retention.check.interval.ms, default 10 minutes). */
  expireOffsets(): Promise<ExpireReport> {
    return offsets.expireOffsets(this.core);
  }

  describeGroups(groupIds: readonly string[]): DescribedGroup[] {
    return groupIds.map((id) => offsets.describeGroup(this.membership.groups.get(id), id));
  }

  /** Groups whose state name matches one of `statesFilter` (case-insensitive); all when empty. */
  listGroups(statesFilter: readonly string[] = []): ListedGroup[] {
    return offsets.listGroups(this.core, statesFilter);
  }

  deleteGroups(groupIds: readonly string[]): Promise<DeleteGroupResult[]> {
    return offsets.deleteGroups(this.core, groupIds);
  }

  // ------------------------------------------------------- loading and status

  /** Installs the groups and offsets loaded from a __consumer_offsets partition. */
  loadPartition(state: LoadedPartitionState): void {
    this.membership.loadPartition(state);
  }

  /** Drops the groups whose partition moved away (their members rediscover the coordinator). */
  unloadGroups(predicate: (groupId: string) => boolean): void {
    this.membership.unloadGroups(predicate);
  }

  shutdown(): void {
    this.membership.shutdown();
  }

  groupStatus(groupId: string): ReturnType<GroupMembership['groupStatus']> {
    return this.membership.groupStatus(groupId);
  }

  /** Asserts the registry's invariants (tests and the simulation call it after every step). */
  checkInvariants(): void {
    this.membership.checkInvariants();
  }
}

function copyProtocols(protocols: JoinGroupInput['protocols']): ProtocolEntry[] {
  return protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
}
