/**
 * The offset and admin half of the group coordinator: OffsetCommit,
 * OffsetFetch, OffsetDelete, offset expiry, DescribeGroups, ListGroups,
 * DeleteGroups, and rebuilding a group from its persisted snapshot. Kafka's
 * GroupCoordinator/GroupMetadataManager semantics; the GroupCoordinator class
 * hands these functions the small core they need.
 *
 * Visibility rule: a commit or tombstone changes what OffsetFetch returns
 * only once persistence acknowledged it. Each write takes a sequence number
 * when it is issued; applying it never overwrites a later-issued write, so
 * memory follows the log order even if acknowledgements arrive out of order.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { invariant } from '../../util/assert.js';
import {
  type DeleteGroupResult,
  type DescribedGroup,
  type ExpireReport,
  type FetchedOffset,
  type GroupCoordinatorDeps,
  type ListedGroup,
  type OffsetCommitInput,
  type OffsetCommitResult,
  type OffsetDeleteResult,
  type OffsetFetchResult,
  type PartitionError,
} from './coordinator-api.js';
import { isValidGroupId, persistenceErrorCode } from './request-rules.js';
import { Group, tpKey } from './group.js';
import { CONSUMER_PROTOCOL_TYPE, Member } from './member.js';
import type { CommittedOffset, GroupSnapshot, OffsetTombstone, TopicPartitionRef } from './types.js';

/** What these functions need from the GroupCoordinator. */
export interface OffsetsCore {
  readonly deps: GroupCoordinatorDeps;
  group(groupId: string): Group | undefined;
  allGroups(): Group[];
  createGroup(groupId: string): Group;
  isLive(group: Group): boolean;
  removeGroup(group: Group): void;
  validateCurrentMember(group: Group, memberId: string, groupInstanceId: string | null): number | null;
  /** Resets a member's session timer (a commit counts as a sign of life, as in Kafka). */
  touch(group: Group, member: Member): void;
  nextWriteSeq(): number;
}

// ---------------------------------------------------------------- OffsetCommit

export async function commitOffsets(core: OffsetsCore, input: OffsetCommitInput): Promise<OffsetCommitResult> {
  const all = (errorCode: number): OffsetCommitResult => ({
    partitions: input.offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })),
  });
  let group = core.group(input.groupId);
  if (group === undefined) {
    // A standalone consumer (no generation) may commit for a group that does not exist yet.
    if (input.generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
    group = core.createGroup(input.groupId);
  }
  const error = validateOffsetCommit(core, group, input);
  if (error !== null) return all(error);
  switch (group.state) {
    case 'Empty':
      break;
    case 'Stable':
    case 'PreparingRebalance':
      // Allowed while preparing: the heartbeat tells the member to rejoin (revoking
      // consumers commit here first).
      core.touch(group, group.get(input.memberId));
      break;
    case 'CompletingRebalance':
      // The member has the new generation but no assignment yet.
      return all(ErrorCode.REBALANCE_IN_PROGRESS);
    case 'Dead':
      return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  return storeCommits(core, group, input);
}

function validateOffsetCommit(core: OffsetsCore, group: Group, input: OffsetCommitInput): number | null {
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (input.generationId >= 0 || input.memberId !== '' || input.groupInstanceId !== null) {
    const memberError = core.validateCurrentMember(group, input.memberId, input.groupInstanceId);
    if (memberError !== null) return memberError;
    return input.generationId === group.generationId ? null : ErrorCode.ILLEGAL_GENERATION;
  }
  // A standalone commit is only allowed while the group has no members.
  return group.is('Empty') ? null : ErrorCode.UNKNOWN_MEMBER_ID;
}

async function storeCommits(core: OffsetsCore, group: Group, input: OffsetCommitInput): Promise<OffsetCommitResult> {
  const { clock, config, persistence } = core.deps;
  const nowMs = clock.nowMs();
  const retentionMs = Number(input.retentionTimeMs);
  const expireTimestampMs = retentionMs >= 0 ? nowMs + retentionMs : null;
  const codes: number[] = [];
  const commits: CommittedOffset[] = [];
  for (const o of input.offsets) {
    const metadata = o.metadata ?? '';
    // Kafka compares the string length (UTF-16 units), not the encoded bytes.
    if (metadata.length > config.offsetMetadataMaxBytes) {
      codes.push(ErrorCode.OFFSET_METADATA_TOO_LARGE);
      continue;
    }
    codes.push(ErrorCode.NONE);
    commits.push({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata, commitTimestampMs: nowMs, expireTimestampMs });
  }
  const result = (storeCode: number): OffsetCommitResult => ({
    partitions: input.offsets.map((o, i) => ({ topic: o.topic, partition: o.partition, errorCode: codes[i] === ErrorCode.NONE ? storeCode : (codes[i] as number) })),
  });
  if (commits.length === 0) return result(ErrorCode.NONE);
  const seq = core.nextWriteSeq();
  const keys = commits.map((c) => tpKey(c.topic, c.partition));
  for (const k of keys) group.addPendingCommit(k);
  try {
    await persistence.storeOffsets(group.groupId, commits);
    if (core.isLive(group) && !group.is('Dead')) for (const c of commits) group.applyCommit(c, seq);
    return result(ErrorCode.NONE);
  } catch (err) {
    return result(persistenceErrorCode(err));
  } finally {
    for (const k of keys) group.removePendingCommit(k);
  }
}

// ---------------------------------------------------------------- OffsetFetch

export function fetchOffsets(core: OffsetsCore, groupId: string, partitions: readonly TopicPartitionRef[] | null, requireStable: boolean): OffsetFetchResult {
  const none = (topic: string, partition: number, errorCode: number): FetchedOffset => ({ topic, partition, offset: -1n, leaderEpoch: -1, metadata: '', errorCode });
  const group = core.group(groupId);
  if (group === undefined || group.is('Dead')) {
    return { errorCode: ErrorCode.NONE, partitions: (partitions ?? []).map((p) => none(p.topic, p.partition, ErrorCode.NONE)) };
  }
  const wanted = partitions ?? [...group.offsets.values()].map((e) => e.value).sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  return {
    errorCode: ErrorCode.NONE,
    partitions: wanted.map((p) => {
      const key = tpKey(p.topic, p.partition);
      // Kafka answers UNSTABLE_OFFSET_COMMIT for any commit still being written and for
      // TxnOffsetCommits waiting for their marker (KIP-447): the client retries.
      if (requireStable && (group.pendingOffsetCommits.has(key) || group.hasPendingTxnOffset(key))) return none(p.topic, p.partition, ErrorCode.UNSTABLE_OFFSET_COMMIT);
      const entry = group.offsets.get(key);
      if (entry === undefined) return none(p.topic, p.partition, ErrorCode.NONE);
      const v = entry.value;
      return { topic: p.topic, partition: p.partition, offset: v.offset, leaderEpoch: v.leaderEpoch, metadata: v.metadata, errorCode: ErrorCode.NONE };
    }),
  };
}

// ---------------------------------------------------------------- OffsetDelete

export async function deleteOffsets(core: OffsetsCore, groupId: string, partitions: readonly TopicPartitionRef[]): Promise<OffsetDeleteResult> {
  if (!isValidGroupId(groupId, 'offsetDelete')) return { errorCode: ErrorCode.INVALID_GROUP_ID, partitions: [] };
  const group = core.group(groupId);
  if (group === undefined || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
  const errors = new Map<string, number>();
  const eligible: TopicPartitionRef[] = [];
  if (group.is('Empty')) {
    eligible.push(...partitions);
  } else if (group.protocolType === CONSUMER_PROTOCOL_TYPE) {
    for (const p of partitions) {
      if (group.isSubscribedToTopic(p.topic)) errors.set(tpKey(p.topic, p.partition), ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
      else eligible.push(p);
    }
  } else {
    return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
  }
  const existing = eligible.filter((p) => group.offsets.has(tpKey(p.topic, p.partition)));
  if (existing.length > 0) {
    const seq = core.nextWriteSeq();
    try {
      await core.deps.persistence.storeOffsets(groupId, existing.map(tombstone));
    } catch (err) {
      return { errorCode: persistenceErrorCode(err), partitions: [] };
    }
    for (const p of existing) group.applyTombstone(p.topic, p.partition, seq);
  }
  return {
    errorCode: ErrorCode.NONE,
    partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, errorCode: errors.get(tpKey(p.topic, p.partition)) ?? ErrorCode.NONE })),
  };
}

function tombstone(p: TopicPartitionRef): OffsetTombstone {
  return { topic: p.topic, partition: p.partition, offset: null };
}

// ---------------------------------------------------------------- expiry

/**
 * Kafka 2.1+ retention (KIP-211): offsets of an Empty group expire
 * offsets.retention.ms after the group became empty; offsets of a standalone
 * group (no protocol type) and, in a Stable consumer group, of topics nobody
 * subscribes, after their commit time; an explicit v2-v4 retention sets its
 * own expiry time. Partitions with a commit in flight are kept. Afterwards an
 * Empty group with no offsets is removed (group tombstone).
 */
export async function expireOffsets(core: OffsetsCore): Promise<ExpireReport> {
  const offsetsRemoved = new Map<string, TopicPartitionRef[]>();
  const groupsRemoved: string[] = [];
  await Promise.all(
    core.allGroups().map(async (group) => {
      const expired = expiredOffsets(group, core.deps.clock.nowMs(), core.deps.config.offsetsRetentionMs);
      if (expired.length > 0) {
        const seq = core.nextWriteSeq();
        try {
          await core.deps.persistence.storeOffsets(group.groupId, expired.map(tombstone));
        } catch {
          return; // retried at the next expiry run
        }
        for (const p of expired) group.applyTombstone(p.topic, p.partition, seq);
        offsetsRemoved.set(group.groupId, expired);
      }
      if (await removeIfUnused(core, group)) groupsRemoved.push(group.groupId);
    }),
  );
  groupsRemoved.sort();
  return { offsetsRemoved, groupsRemoved };
}

function expiredOffsets(group: Group, nowMs: number, retentionMs: number): TopicPartitionRef[] {
  if (group.is('Dead')) return [];
  let base: ((c: CommittedOffset) => number) | null = null;
  let keep: ReadonlySet<string> = new Set();
  if (group.protocolType === null) {
    base = (c) => c.commitTimestampMs;
  } else if (group.is('Empty')) {
    base = () => group.stateTimestampMs;
  } else if (group.protocolType === CONSUMER_PROTOCOL_TYPE && group.is('Stable') && group.subscribedTopics !== null) {
    base = (c) => c.commitTimestampMs;
    keep = group.subscribedTopics;
  }
  if (base === null) return [];
  const out: TopicPartitionRef[] = [];
  for (const [key, { value }] of group.offsets) {
    if (keep.has(value.topic) || group.pendingOffsetCommits.has(key)) continue;
    const expired = value.expireTimestampMs !== null ? nowMs >= value.expireTimestampMs : nowMs - base(value) >= retentionMs;
    if (expired) out.push({ topic: value.topic, partition: value.partition });
  }
  return out;
}

async function removeIfUnused(core: OffsetsCore, group: Group): Promise<boolean> {
  const unused = (): boolean => core.isLive(group) && group.is('Empty') && !group.hasOffsets() && group.pendingMembers.size === 0;
  if (!unused()) return false;
  group.transitionTo('Dead', core.deps.clock.nowMs());
  try {
    await core.deps.persistence.storeGroup(group.groupId, null);
  } catch {
    if (core.isLive(group)) group.transitionTo('Empty', core.deps.clock.nowMs());
    return false;
  }
  core.removeGroup(group);
  return true;
}

// ---------------------------------------------------------------- admin

export function describeGroup(group: Group | undefined, groupId: string): DescribedGroup {
  if (group === undefined) return { groupId, errorCode: ErrorCode.NONE, state: 'Dead', protocolType: '', protocolName: '', members: [] };
  const stable = group.is('Stable');
  const protocol = stable ? group.protocolName : null;
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    state: group.state,
    protocolType: group.protocolType ?? '',
    protocolName: protocol ?? '',
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      metadata: protocol === null ? Buffer.alloc(0) : m.metadataFor(protocol),
      assignment: stable ? m.assignment : Buffer.alloc(0),
    })),
  };
}

export function listGroups(core: OffsetsCore, statesFilter: readonly string[]): ListedGroup[] {
  const wanted = new Set(statesFilter.map((s) => s.toLowerCase()));
  return core
    .allGroups()
    .filter((g) => !g.is('Dead') && (wanted.size === 0 || wanted.has(g.state.toLowerCase())))
    .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state }))
    .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

export async function deleteGroups(core: OffsetsCore, groupIds: readonly string[]): Promise<DeleteGroupResult[]> {
  return Promise.all(groupIds.map(async (groupId) => ({ groupId, errorCode: await deleteGroup(core, groupId) })));
}

/**
 * Tombstones every offset, then the group. The group is Dead while the
 * writes are in flight (concurrent requests get COORDINATOR_NOT_AVAILABLE and
 * retry); if a write fails it is Empty again with what is still stored.
 */
async function deleteGroup(core: OffsetsCore, groupId: string): Promise<number> {
  if (!isValidGroupId(groupId, 'deleteGroups')) return ErrorCode.INVALID_GROUP_ID;
  const group = core.group(groupId);
  if (group === undefined || group.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
  if (!group.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
  const { persistence, clock } = core.deps;
  group.transitionTo('Dead', clock.nowMs());
  const revert = (err: unknown): number => {
    if (core.isLive(group)) group.transitionTo('Empty', clock.nowMs());
    return persistenceErrorCode(err);
  };
  const existing = [...group.offsets.values()].map((e) => ({ topic: e.value.topic, partition: e.value.partition }));
  if (existing.length > 0) {
    const seq = core.nextWriteSeq();
    try {
      await persistence.storeOffsets(groupId, existing.map(tombstone));
    } catch (err) {
      return revert(err);
    }
    for (const p of existing) group.applyTombstone(p.topic, p.partition, seq);
  }
  try {
    await persistence.storeGroup(groupId, null);
  } catch (err) {
    return revert(err);
  }
  core.removeGroup(group);
  return ErrorCode.NONE;
}

// ---------------------------------------------------------------- loading

/** Rebuilds a group from its stored metadata (Kafka GroupMetadata.loadGroup). */
export function groupFromSnapshot(snapshot: GroupSnapshot, nowMs: number): Group {
  const group = new Group(snapshot.groupId, snapshot.currentStateTimestampMs > 0 ? snapshot.currentStateTimestampMs : nowMs);
  group.protocolType = snapshot.protocolType === '' ? null : snapshot.protocolType;
  group.setLoadedGeneration(snapshot.generationId);
  const protocolName = snapshot.protocolName;
  // Members without a chosen protocol cannot be a Stable generation: load such a group Empty.
  if (snapshot.members.length === 0 || protocolName === null || group.protocolType === null) return group;
  group.protocolName = protocolName;
  for (const s of snapshot.members) {
    if (group.members.has(s.memberId)) continue;
    const m = new Member({
      memberId: s.memberId,
      groupInstanceId: s.groupInstanceId,
      clientId: s.clientId,
      clientHost: s.clientHost,
      rebalanceTimeoutMs: s.rebalanceTimeoutMs,
      sessionTimeoutMs: s.sessionTimeoutMs,
      protocolType: group.protocolType,
      protocols: [{ name: protocolName, metadata: Buffer.from(s.subscription) }],
    });
    m.assignment = Buffer.from(s.assignment);
    m.joinedGenerationId = snapshot.generationId;
    group.members.set(m.memberId, m);
    if (m.groupInstanceId !== null) group.staticMembers.set(m.groupInstanceId, m.memberId);
  }
  const leader = snapshot.leaderId;
  group.leaderId = leader !== null && group.members.has(leader) ? leader : (group.members.keys().next().value ?? null);
  // Loading is not a transition: the group resumes in the state it was stored in.
  group.state = 'Stable';
  group.subscribedTopics = group.computeSubscribedTopics();
  invariant(group.members.size > 0, 'a loaded Stable group has members');
  return group;
}
