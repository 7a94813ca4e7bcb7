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
import { KafkaProtocolError } from './errors.js';
import { COORDINATOR_ATTEMPTS_MAX, COORDINATOR_ERRORS, COORDINATOR_RETRY_ERRORS, GroupApis, withCoordinator } from './group-apis.js';
import {
  STANDALONE_COMMIT,
  commitOffsets,
  fetchCommittedOffsets,
  type CommitResult,
  type CommittedOffset,
  type OffsetToCommit,
} from './group-offsets.js';

export interface GroupListing {
  groupId: string;
  /** 'consumer' for consumer groups; '' for groups that only store offsets. */
  protocolType: string;
  /** Empty, Stable, PreparingRebalance, CompletingRebalance, Dead; null when the broker does not say (ListGroups before v4). */
  state: string | null;
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded with the consumer protocol; null for other protocol types or bytes that do not parse. */
  assignment: TopicPartitions[] | null;
  /** Subscribed topics (consumer protocol), or null. */
  subscription: string[] | null;
}

export interface GroupDescription {
  groupId: string;
  /** Empty, Stable, PreparingRebalance, CompletingRebalance or Dead (Kafka says Dead for a group that does not exist). */
  state: string;
  protocolType: string;
  /** The assignor chosen (consumer groups), '' when none. */
  protocol: string;
  members: GroupMemberDescription[];
  error: KafkaProtocolError | null;
}

export interface GroupResult {
  groupId: string;
  error: KafkaProtocolError | null;
}

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
export async function describeGroups(cluster: Cluster, groupIds: readonly string[]): Promise<GroupDescription[]> {
  return Promise.all(groupIds.map((id) => describeGroup(cluster, id)));
}

async function describeGroup(cluster: Cluster, groupId: string): Promise<GroupDescription> {
  const g = await withCoordinator(cluster, groupId, async (conn) => {
    const { response } = await sendRequest(conn, GroupApis.DescribeGroups, () => ({ groups: [groupId], includeAuthorizedOperations: false }));
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
