/**
 * Consumer group administration over `Cluster`, behind `Admin`'s group
 * methods: ListGroups (every broker), DescribeGroups (member assignments
 * decoded with the consumer protocol), DeleteGroups, OffsetFetch, standalone
 * OffsetCommit and OffsetDelete. Each group request goes to the group's
 * coordinator (`withCoordinator`: FindCoordinator, found again on
 * NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE, retried on
 * COORDINATOR_LOAD_IN_PROGRESS). Batch calls answer per group or partition
 * with `error`, as Kafka does.
 */
import { ErrorCode } from '../protocol/errors.js';
import { request as sendRequest } from './apis.js';
import type { Cluster } from './cluster.js';
import { CONSUMER_PROTOCOL_TYPE, compareStrings, decodeAssignment, decodeSubscription, groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { decodeAuthorizedOperations, type AclOperation } from './admin-apis.js';
import { listOffsetsFor } from './admin-offsets.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';
import { COORDINATOR_ATTEMPTS_MAX, COORDINATOR_ERRORS, COORDINATOR_RETRY_ERRORS, GroupApis, withCoordinator } from './group-apis.js';
import {
  STANDALONE_COMMIT,
  commitOffsets,
  fetchCommittedOffsets,
  type CommitResult,
  type CommittedOffset,
  type OffsetToCommit,
} from './group-offsets.js';

/** One group of `Admin.listGroups`. */
export interface GroupListing {
  groupId: string;
  /** 'consumer' for consumer groups; '' for groups that only store offsets. */
  protocolType: string;
  /** Empty, Stable, PreparingRebalance, CompletingRebalance, Dead; null when the broker does not say (ListGroups before v4). */
  state: string | null;
}

/** One member of a described group. */
export interface GroupMemberDescription {
  memberId: string;
  /** The static member id (`group.instance.id`, KIP-345); null for dynamic members. */
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded with the consumer protocol; null for other protocol types or bytes that do not parse. */
  assignment: TopicPartitions[] | null;
  /** Subscribed topics (consumer protocol), or null. */
  subscription: string[] | null;
}

/** The answer for one group of `Admin.describeGroups`. */
export interface GroupDescription {
  groupId: string;
  /** Empty, Stable, PreparingRebalance, CompletingRebalance or Dead (Kafka says Dead for a group that does not exist). */
  state: string;
  protocolType: string;
  /** The assignor chosen (consumer groups), '' when none. */
  protocol: string;
  members: GroupMemberDescription[];
  /** With `includeAuthorizedOperations` (DescribeGroups v3+): what the caller may do to the group; null when not provided. */
  authorizedOperations: AclOperation[] | null;
  error: KafkaProtocolError | null;
}

/** Options of `Admin.describeGroups`. */
export interface DescribeGroupsOptions {
  /** Ask for the operations the caller is allowed on each group (DescribeGroups v3+). */
  includeAuthorizedOperations?: boolean;
}

/** The answer for one group of a batch group call (deleteGroups). */
export interface GroupResult {
  groupId: string;
  error: KafkaProtocolError | null;
}

/** The answer for one partition of a batch call (deleteGroupOffsets, electLeaders, ...). */
export interface PartitionResult {
  topic: string;
  partition: number;
  error: KafkaProtocolError | null;
}

/** Errors of a standalone commit refused because the group has live members. */
const ACTIVE_GROUP_COMMIT_ERRORS: ReadonlySet<number> = new Set([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.REBALANCE_IN_PROGRESS]);

/**
 * Groups on every broker, sorted by id. `states` filters by state
 * (ListGroups v4+ does it on the broker; before v4 the groups are
 * described to learn their state).
 */
export async function listGroups(cluster: Cluster, states: readonly string[] = []): Promise<GroupListing[]> {
  const metadata = await cluster.withRetry(() => cluster.refreshMetadata([]));
  const nodeIds = [...metadata.brokers.keys()];
  const perBroker = await Promise.all(nodeIds.map((nodeId) => listGroupsOn(cluster, nodeId, states)));
  const out = new Map<string, GroupListing>();
  let needStates = false;
  for (const r of perBroker) {
    if (r.version < 4) needStates = true;
    for (const g of r.groups) out.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType, state: r.version >= 4 ? g.groupState : null });
  }
  let listed = [...out.values()];
  if (states.length > 0 && needStates) {
    const described = new Map((await describeGroups(cluster, listed.map((g) => g.groupId))).map((d) => [d.groupId, d.state]));
    listed = listed.map((g) => ({ ...g, state: g.state ?? described.get(g.groupId) ?? null }));
    const wanted = new Set(states.map((s) => s.toLowerCase()));
    listed = listed.filter((g) => g.state !== null && wanted.has(g.state.toLowerCase()));
  }
  return listed.sort((a, b) => compareStrings(a.groupId, b.groupId));
}

/** ListGroups on one broker; COORDINATOR_LOAD_IN_PROGRESS (groups still loading) is retried with backoff. */
async function listGroupsOn(cluster: Cluster, nodeId: number, states: readonly string[]): Promise<{ version: number; groups: { groupId: string; protocolType: string; groupState: string }[] }> {
  for (let attempt = 0; ; attempt++) {
    const { version, response } = await cluster.withRetry(async () =>
      sendRequest(await cluster.connectionTo(nodeId), GroupApis.ListGroups, () => ({ statesFilter: [...states] })),
    );
    if (response.errorCode === 0) return { version, groups: response.groups };
    if (!COORDINATOR_RETRY_ERRORS.has(response.errorCode) || attempt + 1 >= COORDINATOR_ATTEMPTS_MAX) {
      throw new KafkaProtocolError(response.errorCode, { api: 'ListGroups', serverMessage: `broker ${nodeId}` });
    }
    await cluster.backoff(attempt);
  }
}

/** Describes groups (each at its coordinator); member assignments are decoded for consumer groups. */
export async function describeGroups(cluster: Cluster, groupIds: readonly string[], options: DescribeGroupsOptions = {}): Promise<GroupDescription[]> {
  return Promise.all(groupIds.map((id) => describeGroup(cluster, id, options.includeAuthorizedOperations ?? false)));
}

async function describeGroup(cluster: Cluster, groupId: string, includeAuthorizedOperations: boolean): Promise<GroupDescription> {
  const g = await withCoordinator(cluster, groupId, async (conn) => {
    const { response } = await sendRequest(conn, GroupApis.DescribeGroups, () => ({ groups: [groupId], includeAuthorizedOperations }));
    const r = response.groups.find((x) => x.groupId === groupId) ?? response.groups[0];
    if (r === undefined) throw missingGroup('DescribeGroups', groupId);
    if (COORDINATOR_ERRORS.has(r.errorCode) || COORDINATOR_RETRY_ERRORS.has(r.errorCode)) throw new KafkaProtocolError(r.errorCode, { api: `DescribeGroups ${groupId}` });
    return r;
  });
  const consumer = g.protocolType === CONSUMER_PROTOCOL_TYPE;
  return {
    groupId,
    state: g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: consumer ? tryDecode(() => decodeAssignment(m.memberAssignment).assignedPartitions) : null,
      subscription: consumer && m.memberMetadata.length > 0 ? tryDecode(() => decodeSubscription(m.memberMetadata).topics) : null,
    })),
    authorizedOperations: includeAuthorizedOperations ? decodeAuthorizedOperations(g.authorizedOperations) : null,
    error: g.errorCode === 0 ? null : new KafkaProtocolError(g.errorCode, { api: 'DescribeGroups', serverMessage: `group ${groupId}` }),
  };
}

/** Deletes groups (each must be empty: NON_EMPTY_GROUP otherwise); one result per group. */
export async function deleteGroups(cluster: Cluster, groupIds: readonly string[]): Promise<GroupResult[]> {
  return Promise.all(
    groupIds.map(async (groupId) => {
      const code = await withCoordinator(cluster, groupId, async (conn) => {
        const { response } = await sendRequest(conn, GroupApis.DeleteGroups, () => ({ groupsNames: [groupId] }));
        const r = response.results.find((x) => x.groupId === groupId) ?? response.results[0];
        const c = r?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
        if (COORDINATOR_ERRORS.has(c) || COORDINATOR_RETRY_ERRORS.has(c)) throw new KafkaProtocolError(c, { api: `DeleteGroups ${groupId}` });
        return c;
      });
      return { groupId, error: code === 0 ? null : new KafkaProtocolError(code, { api: 'DeleteGroups', serverMessage: `group ${groupId}` }) };
    }),
  );
}

/**
 * The group's committed offsets (only partitions that have one), optionally
 * for some topics only; sorted by topic and partition.
 */
export async function fetchGroupOffsets(cluster: Cluster, groupId: string, topics?: readonly string[]): Promise<CommittedOffset[]> {
  const all = await withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, null));
  const wanted = topics === undefined ? null : new Set(topics);
  return all.filter((o) => (wanted === null || wanted.has(o.topic)) && (o.offset >= 0n || o.error !== null));
}

/**
 * A standalone commit (generation -1, no member id), as
 * kafka-consumer-groups.sh --reset-offsets does. The broker accepts it only
 * while the group has no active members; otherwise each partition carries
 * its error (UNKNOWN_MEMBER_ID), with a message saying so.
 */
export async function commitGroupOffsets(cluster: Cluster, groupId: string, offsets: readonly OffsetToCommit[]): Promise<CommitResult[]> {
  const results = await withCoordinator(cluster, groupId, (conn) => commitOffsets(conn, { groupId, ...STANDALONE_COMMIT }, offsets));
  return results.map((r) =>
    r.error !== null && ACTIVE_GROUP_COMMIT_ERRORS.has(r.error.errorCode)
      ? {
          ...r,
          error: new KafkaProtocolError(r.error.errorCode, {
            api: `OffsetCommit ${groupId}`,
            topic: r.topic,
            partition: r.partition,
            serverMessage: `group ${groupId} has active members; offsets can only be changed while the group is empty`,
          }),
        }
      : r,
  );
}

/** Deletes committed offsets (OffsetDelete); GROUP_SUBSCRIBED_TO_TOPIC for topics the group still consumes. */
export async function deleteGroupOffsets(cluster: Cluster, groupId: string, partitions: readonly TopicPartitions[]): Promise<PartitionResult[]> {
  const list = groupByTopic(partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))));
  if (list.length === 0) return [];
  const response = await withCoordinator(cluster, groupId, async (conn) => {
    const { response: r } = await sendRequest(conn, GroupApis.OffsetDelete, () => ({
      groupId,
      topics: list.map((t) => ({ name: t.topic, partitions: t.partitions.map((partitionIndex) => ({ partitionIndex })) })),
    }));
    if (COORDINATOR_ERRORS.has(r.errorCode) || COORDINATOR_RETRY_ERRORS.has(r.errorCode)) throw new KafkaProtocolError(r.errorCode, { api: `OffsetDelete ${groupId}` });
    return r;
  });
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'OffsetDelete', serverMessage: `group ${groupId}` });
  const codes = new Map<string, number>();
  for (const t of response.topics) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode);
  return list.flatMap((t) =>
    t.partitions.map((partition) => {
      const code = codes.get(`${t.topic}\u0000${partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      return { topic: t.topic, partition, error: code === 0 ? null : new KafkaProtocolError(code, { api: 'OffsetDelete', topic: t.topic, partition }) };
    }),
  );
}

/** A member to remove from a group: a dynamic member by `memberId`, a static one by `groupInstanceId` (or both). */
export interface MemberToRemove {
  memberId?: string;
  groupInstanceId?: string | null;
}

/** The answer for one removed member. */
export interface RemovedMember {
  memberId: string;
  groupInstanceId: string | null;
  /** UNKNOWN_MEMBER_ID for a member the group does not have, FENCED_INSTANCE_ID for a mismatched pair. */
  error: KafkaProtocolError | null;
}

/** The answer of `Admin.removeGroupMembers`. */
export interface RemoveMembersResult {
  groupId: string;
  /** A group-level error (GROUP_ID_NOT_FOUND, ...); `members` is empty then. */
  error: KafkaProtocolError | null;
  /** One entry per member asked for (or, when none was named, per member the group had). */
  members: RemovedMember[];
}

/** LeaveGroup v3+ (KIP-345): the batched form, one answer per member. */
const LEAVE_GROUP_BATCH = { ...GroupApis.LeaveGroup, minVersion: 3 };

/**
 * Removes members from a group with one batched LeaveGroup (v3+), as Java's
 * `removeMembersFromConsumerGroup`; the group rebalances without them. With
 * no members named, every current member is removed (KIP-571; dynamic
 * members by member id, static ones by instance id). Errors come back per
 * member (and per group); only coordinator or connection failures that
 * outlive the retries throw.
 */
export async function removeGroupMembers(cluster: Cluster, groupId: string, members?: readonly MemberToRemove[]): Promise<RemoveMembersResult> {
  let list: { memberId: string; groupInstanceId: string | null }[];
  if (members === undefined) {
    const [d] = await describeGroups(cluster, [groupId]);
    if (d === undefined) throw missingGroup('DescribeGroups', groupId);
    if (d.error !== null) return { groupId, error: d.error, members: [] };
    // Static members leave by instance id: their member id may change under us.
    list = d.members.map((m) => (m.groupInstanceId === null ? { memberId: m.memberId, groupInstanceId: null } : { memberId: '', groupInstanceId: m.groupInstanceId }));
    if (list.length === 0) return { groupId, error: null, members: [] };
  } else {
    list = members.map((m) => {
      const memberId = m.memberId ?? '';
      const groupInstanceId = m.groupInstanceId ?? null;
      if (memberId === '' && groupInstanceId === null) throw invalidArgument('a member to remove needs a memberId or a groupInstanceId');
      return { memberId, groupInstanceId };
    });
    if (list.length === 0) throw invalidArgument('name at least one member to remove (or none at all to remove every member)');
  }
  const response = await withCoordinator(cluster, groupId, async (conn) => {
    const { response: r } = await sendRequest(conn, LEAVE_GROUP_BATCH, () => ({ groupId, memberId: '', members: list }));
    if (COORDINATOR_ERRORS.has(r.errorCode) || COORDINATOR_RETRY_ERRORS.has(r.errorCode)) throw new KafkaProtocolError(r.errorCode, { api: `LeaveGroup ${groupId}` });
    return r;
  });
  if (response.errorCode !== 0) {
    return { groupId, error: new KafkaProtocolError(response.errorCode, { api: 'LeaveGroup', serverMessage: `group ${groupId}` }), members: [] };
  }
  return {
    groupId,
    error: null,
    members: list.map((m) => {
      const a = response.members.find((x) => x.memberId === m.memberId && x.groupInstanceId === m.groupInstanceId);
      const code = a?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      const who = m.groupInstanceId === null ? `member ${m.memberId}` : `instance ${m.groupInstanceId}`;
      return {
        memberId: a?.memberId ?? m.memberId,
        groupInstanceId: m.groupInstanceId,
        error: code === 0 ? null : new KafkaProtocolError(code, { api: 'LeaveGroup', serverMessage: `group ${groupId} ${who}${a === undefined ? ': the broker did not answer for it' : ''}` }),
      };
    }),
  };
}

/**
 * Where `Admin.resetGroupOffsets` moves a group: an offset spec
 * ('earliest', 'latest', a timestamp in ms: the first record at or after it,
 * or the end when there is none), `{ offset }` (the same offset in every
 * partition, clamped to the partition's range) or `{ shiftBy }` (the
 * committed offset moved by n, clamped; partitions without one start from
 * 'latest'), as kafka-consumer-groups.sh --reset-offsets does.
 */
export type ResetOffsetsTarget = 'earliest' | 'latest' | bigint | number | { offset: bigint } | { shiftBy: bigint };

/** Options of `Admin.resetGroupOffsets`. */
export interface ResetOffsetsOptions {
  /** Compute and return the new offsets without committing them (--dry-run). */
  dryRun?: boolean;
}

/** The answer for one partition of `Admin.resetGroupOffsets`. */
export interface ResetOffsetsResult {
  topic: string;
  partition: number;
  /** The offset committed (or, with dryRun, that would be); -1n when `error` is set before it was known. */
  offset: bigint;
  error: KafkaProtocolError | null;
}

/**
 * Moves a group's committed offsets for `topics` (a name: every partition;
 * or `{ topic, partitions }`) to `to`, with a standalone commit: the group
 * must have no active members (each partition carries UNKNOWN_MEMBER_ID
 * otherwise). Per-partition failures come back as `error`.
 */
export async function resetGroupOffsets(
  cluster: Cluster,
  groupId: string,
  topics: readonly (string | TopicPartitions)[],
  to: ResetOffsetsTarget,
  options: ResetOffsetsOptions = {},
): Promise<ResetOffsetsResult[]> {
  const names = [...new Set(topics.map((t) => (typeof t === 'string' ? t : t.topic)))];
  const metadata = names.length === 0 ? cluster.metadata : await cluster.withRetry(() => cluster.refreshMetadata(names));
  const partitions: { topic: string; partition: number }[] = [];
  const results: ResetOffsetsResult[] = [];
  for (const t of topics) {
    const topic = typeof t === 'string' ? t : t.topic;
    const meta = metadata.topics.get(topic);
    if (meta === undefined || meta.errorCode !== 0) {
      const wanted = typeof t === 'string' ? [-1] : t.partitions;
      for (const partition of wanted) results.push({ topic, partition, offset: -1n, error: new KafkaProtocolError(meta?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { api: 'ResetOffsets', topic }) });
      continue;
    }
    const list = typeof t === 'string' ? meta.partitions.map((p) => p.partition) : t.partitions;
    for (const partition of list) partitions.push({ topic, partition });
  }
  const spec = typeof to === 'object' ? null : to;
  const [earliest, latest, bySpec, committed] = await Promise.all([
    listOffsetsFor(cluster, partitions.map((p) => ({ ...p, spec: 'earliest' as const }))),
    listOffsetsFor(cluster, partitions.map((p) => ({ ...p, spec: 'latest' as const }))),
    spec === null || spec === 'earliest' || spec === 'latest' ? null : listOffsetsFor(cluster, partitions.map((p) => ({ ...p, spec }))),
    typeof to === 'object' && 'shiftBy' in to ? fetchGroupOffsets(cluster, groupId) : null,
  ]);
  const committedAt = new Map((committed ?? []).map((c) => [`${c.topic}\u0000${c.partition}`, c.offset]));
  const toCommit: OffsetToCommit[] = [];
  partitions.forEach((p, i) => {
    const low = earliest[i]!;
    const high = latest[i]!;
    const found = bySpec?.[i];
    const error = low.error ?? high.error ?? found?.error ?? null;
    if (error !== null) {
      results.push({ ...p, offset: -1n, error });
      return;
    }
    const clamp = (o: bigint): bigint => (o < low.offset ? low.offset : o > high.offset ? high.offset : o);
    let offset: bigint;
    if (to === 'earliest') offset = low.offset;
    else if (to === 'latest') offset = high.offset;
    else if (typeof to === 'object' && 'offset' in to) offset = clamp(to.offset);
    else if (typeof to === 'object') {
      const current = committedAt.get(`${p.topic}\u0000${p.partition}`);
      offset = current === undefined || current < 0n ? high.offset : clamp(current + to.shiftBy);
    } else offset = found === undefined || found.offset < 0n ? high.offset : found.offset;
    toCommit.push({ ...p, offset });
  });
  if (options.dryRun === true || toCommit.length === 0) {
    results.push(...toCommit.map((c) => ({ topic: c.topic, partition: c.partition, offset: c.offset, error: null })));
  } else {
    const committedResults = await commitGroupOffsets(cluster, groupId, toCommit);
    const errors = new Map(committedResults.map((r) => [`${r.topic}\u0000${r.partition}`, r.error]));
    results.push(...toCommit.map((c) => ({ topic: c.topic, partition: c.partition, offset: c.offset, error: errors.get(`${c.topic}\u0000${c.partition}`) ?? null })));
  }
  return results.sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
}

function missingGroup(api: string, groupId: string): KafkaProtocolError {
  return new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api, serverMessage: `the broker did not answer for group ${groupId}` });
}

function tryDecode<T>(decode: () => T): T | null {
  try {
    return decode();
  } catch {
    return null;
  }
}
