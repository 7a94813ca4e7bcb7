/**
 * The group coordinator's request/response shapes, one per API, chosen so a
 * handler is a thin mapping: inputs are the request fields that matter,
 * outputs are the response fields plus a Kafka error code (ErrorCode from
 * src/protocol/errors.ts). Field names follow the wire schemas.
 */
import type { Clock } from '../../util/clock.js';
import type { GroupState } from './group.js';
import type { GroupCoordinatorConfig, GroupPersistence, Timers, TopicPartitionRef } from './types.js';

export type { GroupState } from './group.js';

export interface GroupCoordinatorDeps {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly persistence: GroupPersistence;
  readonly config: GroupCoordinatorConfig;
  /** A new, unique member id (Kafka: `${clientId}-${uuid}`); injected so simulations are deterministic. */
  newMemberId(clientId: string): string;
  /**
   * Where rebalances, member removals and loads/unloads are reported (the
   * broker's logger; Kafka logs the same at INFO). Absent in simulations.
   */
  readonly log?: GroupEventLog;
}

/** One line per group event: a message and its fields (pino's `info(fields, message)` fits). */
export type GroupEventLog = (fields: Record<string, unknown>, message: string) => void;

export interface JoinGroupInput {
  readonly groupId: string;
  /** '' for a member without an id yet. */
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly sessionTimeoutMs: number;
  /** v0 has none: pass -1 and the session timeout is used (as Kafka). */
  readonly rebalanceTimeoutMs: number;
  readonly protocolType: string;
  readonly protocols: readonly { readonly name: string; readonly metadata: Buffer }[];
  /** True for JoinGroup v4+ (KIP-394: a join without an id gets MEMBER_ID_REQUIRED first). */
  readonly requireKnownMemberId: boolean;
}

export interface JoinGroupMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly metadata: Buffer;
}

export interface JoinGroupResult {
  readonly errorCode: number;
  /** -1 on errors. */
  readonly generationId: number;
  /** '' on errors (the wire field is non-nullable up to v6). */
  readonly protocolName: string;
  /** The response's `leader`. */
  readonly leaderId: string;
  readonly memberId: string;
  /** Only the leader gets the members (with the chosen protocol's metadata). */
  readonly members: readonly JoinGroupMember[];
}

export interface SyncGroupInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** v5+ only; null when the request does not carry it. */
  readonly protocolType: string | null;
  /** v5+ only; null when the request does not carry it. */
  readonly protocolName: string | null;
  /** Only the leader's carry assignments. */
  readonly assignments: readonly { readonly memberId: string; readonly assignment: Buffer }[];
}

export interface SyncGroupResult {
  readonly errorCode: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignment: Buffer;
}

export interface HeartbeatInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface LeaveGroupInput {
  readonly groupId: string;
  /** v0-2: one entry { memberId, groupInstanceId: null }. */
  readonly members: readonly { readonly memberId: string; readonly groupInstanceId: string | null }[];
}

export interface LeaveGroupResult {
  /** v0-2 handlers answer the single member's errorCode when this is NONE. */
  readonly errorCode: number;
  readonly members: readonly { readonly memberId: string; readonly groupInstanceId: string | null; readonly errorCode: number }[];
}

export interface OffsetCommitEntry {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** -1 when the request has none (before v6). */
  readonly leaderEpoch: number;
  /** Null is stored as ''. */
  readonly metadata: string | null;
}

export interface OffsetCommitInput {
  readonly groupId: string;
  /** generationIdOrMemberEpoch; -1 with memberId '' is a standalone ("simple") commit. */
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** v2-v4 only; -1 = broker default (offsets.retention.minutes). */
  readonly retentionTimeMs: bigint | number;
  readonly offsets: readonly OffsetCommitEntry[];
}

export interface PartitionError {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
}

export interface OffsetCommitResult {
  /** One per input entry, in input order. */
  readonly partitions: readonly PartitionError[];
}

export interface FetchedOffset {
  readonly topic: string;
  readonly partition: number;
  /** -1 when nothing is committed. */
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly errorCode: number;
}

export interface OffsetFetchResult {
  /** Group-level error (v2+ / v8 per group); NONE from the coordinator itself. */
  readonly errorCode: number;
  /** In request order, or every committed partition (sorted) for `null`. */
  readonly partitions: readonly FetchedOffset[];
}

export interface OffsetDeleteResult {
  readonly errorCode: number;
  /** Empty when errorCode is not NONE. */
  readonly partitions: readonly PartitionError[];
}

export interface DescribedMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** Empty unless the group is Stable (as Kafka). */
  readonly metadata: Buffer;
  readonly assignment: Buffer;
}

export interface DescribedGroup {
  readonly groupId: string;
  readonly errorCode: number;
  /** Kafka's state names; "Dead" for an unknown group (with NONE, as Kafka). */
  readonly state: GroupState;
  readonly protocolType: string;
  /** The response's protocolData: the chosen protocol when Stable, else ''. */
  readonly protocolName: string;
  readonly members: readonly DescribedMember[];
}

export interface ListedGroup {
  readonly groupId: string;
  readonly protocolType: string;
  readonly state: GroupState;
}

export interface DeleteGroupResult {
  readonly groupId: string;
  readonly errorCode: number;
}

export interface ExpireReport {
  /** Offsets removed (tombstoned), per group. */
  readonly offsetsRemoved: ReadonlyMap<string, readonly TopicPartitionRef[]>;
  /** Empty groups without offsets that were removed (group tombstone). */
  readonly groupsRemoved: readonly string[];
}
