/**
 * Committed offsets of a consumer group: OffsetFetch and OffsetCommit on a
 * connection to the group's coordinator. Shared by `GroupMember` (commits
 * with its generation and member id) and `Admin` (standalone commits:
 * generation -1, empty member id, accepted only while the group is empty).
 *
 * Coordinator-level errors (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 * COORDINATOR_LOAD_IN_PROGRESS) are thrown so that `withCoordinator` can find
 * the coordinator again; every other error is reported per partition.
 * Before OffsetFetch v2 and in OffsetCommit the group-level errors arrive in
 * every partition, so a coordinator error in any partition is thrown too.
 */
import { ErrorCode } from '../protocol/errors.js';
import { request } from './apis.js';
import type { Connection } from '../net/connection.js';
import { compareStrings, groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { KafkaProtocolError, UnsupportedVersionError, invalidArgument } from '../net/errors.js';
import { COORDINATOR_ERRORS, COORDINATOR_RETRY_ERRORS, GroupApis } from './group-apis.js';

/** A group's committed offset of one partition (OffsetFetch). */
export interface CommittedOffset {
  topic: string;
  partition: number;
  /** -1n when the group has no committed offset for the partition. */
  offset: bigint;
  /** -1 when unknown (OffsetFetch before v5, or not committed with one). */
  leaderEpoch: number;
  metadata: string | null;
  error: KafkaProtocolError | null;
}

/** An offset to commit: the next offset to read in the partition. */
export interface OffsetToCommit {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch?: number;
  metadata?: string | null;
}

/** The answer for one partition of a commit. */
export interface CommitResult {
  topic: string;
  partition: number;
  error: KafkaProtocolError | null;
}

/** Who commits: a member of a generation, or standalone (generation -1, member ''). */
export interface CommitIdentity {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export const STANDALONE_COMMIT = { generationId: -1, memberId: '', groupInstanceId: null } as const;

function isCoordinatorCode(code: number): boolean {
  return COORDINATOR_ERRORS.has(code) || COORDINATOR_RETRY_ERRORS.has(code);
}

/**
 * The committed offsets of `groupId` for `partitions` (null: every partition
 * the group has an offset for; needs OffsetFetch v2+), sorted by topic and
 * partition. Throws group-level errors (e.g. GROUP_AUTHORIZATION_FAILED).
 */
export async function fetchCommittedOffsets(
  connection: Connection,
  groupId: string,
  partitions: readonly TopicPartitions[] | null,
  options: { requireStable?: boolean; timeoutMs?: number } = {},
): Promise<CommittedOffset[]> {
  const topics = partitions === null ? null : partitions.map((t) => ({ name: t.topic, partitionIndexes: [...t.partitions] }));
  const { version, response } = await request(
    connection,
    GroupApis.OffsetFetch,
    (v) => {
      if (topics === null && v < 2) throw new UnsupportedVersionError(9, `OffsetFetch v${v} cannot list all of a group's offsets (v2+ needed): name the topics`);
      return { groupId, topics, groups: [{ groupId, topics }], requireStable: options.requireStable ?? false };
    },
    options.timeoutMs,
  );
  let groupError = version < 8 ? response.errorCode : 0;
  let resultTopics = response.topics;
  if (version >= 8) {
    const g = response.groups.find((x) => x.groupId === groupId) ?? response.groups[0];
    if (g === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: 'OffsetFetch', serverMessage: `no answer for group ${groupId}` });
    groupError = g.errorCode;
    resultTopics = g.topics;
  }
  if (groupError !== 0) throw new KafkaProtocolError(groupError, { api: `OffsetFetch ${groupId}` });
  const out: CommittedOffset[] = [];
  for (const t of resultTopics) {
    for (const p of t.partitions) {
      if (isCoordinatorCode(p.errorCode)) throw new KafkaProtocolError(p.errorCode, { api: `OffsetFetch ${groupId}` });
      out.push({
        topic: t.name,
        partition: p.partitionIndex,
        offset: p.committedOffset,
        leaderEpoch: p.committedLeaderEpoch,
        metadata: p.metadata,
        error: p.errorCode === 0 ? null : new KafkaProtocolError(p.errorCode, { api: 'OffsetFetch', topic: t.name, partition: p.partitionIndex }),
      });
    }
  }
  return out.sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
}

/** Commits offsets; one result per input entry, in input order. Throws coordinator-level errors. */
export async function commitOffsets(
  connection: Connection,
  identity: CommitIdentity,
  offsets: readonly OffsetToCommit[],
  options: { timeoutMs?: number } = {},
): Promise<CommitResult[]> {
  if (offsets.length === 0) return [];
  const seen = new Set<string>();
  for (const o of offsets) {
    if (o.offset < 0n) throw invalidArgument(`cannot commit a negative offset (${o.offset}) for ${o.topic}-${o.partition}`);
    const key = `${o.topic}\u0000${o.partition}`;
    if (seen.has(key)) throw invalidArgument(`${o.topic}-${o.partition} appears twice in one commit`);
    seen.add(key);
  }
  const byTopic = new Map<string, OffsetToCommit[]>();
  for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
  const { response } = await request(
    connection,
    GroupApis.OffsetCommit,
    () => ({
      groupId: identity.groupId,
      generationIdOrMemberEpoch: identity.generationId,
      memberId: identity.memberId,
      groupInstanceId: identity.groupInstanceId,
      retentionTimeMs: -1n,
      topics: [...byTopic].map(([name, list]) => ({
        name,
        partitions: list.map((o) => ({
          partitionIndex: o.partition,
          committedOffset: o.offset,
          committedLeaderEpoch: o.leaderEpoch ?? -1,
          commitTimestamp: -1n,
          committedMetadata: o.metadata ?? '',
        })),
      })),
    }),
    options.timeoutMs,
  );
  const codes = new Map<string, number>();
  for (const t of response.topics) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode);
  return offsets.map((o) => {
    const code = codes.get(`${o.topic}\u0000${o.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    if (isCoordinatorCode(code)) throw new KafkaProtocolError(code, { api: `OffsetCommit ${identity.groupId}` });
    return {
      topic: o.topic,
      partition: o.partition,
      error: code === 0 ? null : new KafkaProtocolError(code, { api: `OffsetCommit ${identity.groupId}`, topic: o.topic, partition: o.partition }),
    };
  });
}

/** `offsets` as TopicPartitions (for requests that take partitions only). */
export function partitionsOf(offsets: readonly { topic: string; partition: number }[]): TopicPartitions[] {
  return groupByTopic(offsets);
}
