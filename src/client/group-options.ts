/**
 * The options, defaults and generation type of `GroupMember` (group.ts),
 * and the group errors after which a member simply joins again. Kept apart
 * so group.ts holds the membership state machine only.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { Assignor } from './assignors.js';
import type { ConnectionOptions } from '../net/connection.js';
import type { TopicPartitions } from './consumer-protocol.js';
import { invalidArgument } from '../net/errors.js';

export const SESSION_TIMEOUT_MS_DEFAULT = 45_000;
/** Java's max.poll.interval.ms, which it sends as the rebalance timeout. */
export const REBALANCE_TIMEOUT_MS_DEFAULT = 300_000;
export const HEARTBEAT_INTERVAL_MS_DEFAULT = 3_000;
/** Join/sync rounds in one `ensureActive` before giving up (each bounded by its request timeout). */
export const JOIN_ATTEMPTS_MAX = 50;
/** Added to the rebalance timeout for the JoinGroup request timeout (Java adds 5 s too). */
export const JOIN_TIMEOUT_MARGIN_MS = 5_000;

/** Options of `new GroupMember(cluster, options)`. */
export interface GroupMemberOptions {
  groupId: string;
  /** Topics to subscribe to. */
  topics: readonly string[];
  /** Allow an empty topic list (a pattern that matches nothing yet); default false. */
  allowEmptyTopics?: boolean;
  /** Assignors offered, in order of preference (default: range). */
  assignors?: readonly Assignor[];
  /** Static membership (KIP-345; JoinGroup v5+). */
  groupInstanceId?: string | null;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** For the coordinator connection (default: client id 'tributary', 30 s request timeout). */
  connection?: Omit<ConnectionOptions, 'host' | 'port'>;
  /** Sent in the subscription (v3+). */
  rackId?: string | null;
  /**
   * After each successful sync, with the new assignment (possibly empty) and
   * the partitions it adds (eager: all of them; cooperative: the new ones).
   */
  onAssigned?: (partitions: TopicPartitions[], generation: GenerationInfo, added: TopicPartitions[]) => void | Promise<void>;
  /**
   * Partitions given up; commit here. Eager: every partition, before
   * rejoining. Cooperative: after a sync, the partitions that moved away
   * (then the member rejoins at once). Both: everything on close.
   */
  onRevoked?: (partitions: TopicPartitions[]) => void | Promise<void>;
  /**
   * Cooperative only: the member lost its generation (session expired,
   * fenced) and so its partitions, which others may already own: do not
   * commit. Default: onRevoked.
   */
  onLost?: (partitions: TopicPartitions[]) => void | Promise<void>;
  /** The heartbeat found that the group is rebalancing (call ensureActive soon). */
  onRejoinNeeded?: (reason: string) => void;
  /** Errors of the background heartbeat that need attention (fatal ones, e.g. FENCED_INSTANCE_ID). */
  onError?: (err: unknown) => void;
  /**
   * A protocol other than the consumer's (Kafka's AbstractCoordinator
   * subclasses, e.g. Connect's WorkerCoordinator with protocolType
   * 'connect'): JoinGroup metadata and assignments are opaque bytes to the
   * member, `topics`, `assignors` and the partition callbacks are unused.
   */
  protocol?: CustomGroupProtocol;
}

/** What a member of a group with its own embedded protocol supplies (Kafka's AbstractCoordinator hooks). */
export interface CustomGroupProtocol {
  /** JoinGroup protocolType, e.g. 'connect'. */
  readonly protocolType: string;
  /** The protocols this member offers at each join, in order of preference, with its metadata for each. */
  metadata(): { name: string; metadata: Buffer }[];
  /** The leader's job: each member's assignment bytes from the JoinGroup members (a member left out gets an empty assignment). */
  assign(generation: GenerationInfo, members: readonly { memberId: string; groupInstanceId: string | null; metadata: Buffer }[]): Promise<Map<string, Buffer>> | Map<string, Buffer>;
  /** Every member, after each successful sync, with its assignment bytes. */
  onAssignment(assignment: Buffer, generation: GenerationInfo): void | Promise<void>;
}

/** The group generation a member joined: generation id, member id, leader, assignor. */
export interface GenerationInfo {
  generationId: number;
  memberId: string;
  leaderId: string;
  protocolName: string;
  isLeader: boolean;
}

export type MemberState = 'unjoined' | 'joining' | 'stable' | 'closing' | 'closed';

/** Join errors after which the member simply joins again (maybe with a new id). */
export const REJOIN_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.MEMBER_ID_REQUIRED,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.REBALANCE_IN_PROGRESS,
]);

/** A GroupMember timing option: a positive integer of milliseconds. */
export function positiveMs(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw invalidArgument(`${name} must be a positive integer of milliseconds, got ${value}`);
  return value;
}
