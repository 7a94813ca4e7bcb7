/**
 * Kafka's per-API rules that the coordinator and its service apply: which
 * APIs accept an empty group id, what each answers while the group's
 * partition is loading, how long a member without an id may wait, and which
 * persistence failures are passed on to the client as they are.
 */
import { ErrorCode } from '../../protocol/errors.js';

/** The group APIs, as Kafka's isValidGroupId distinguishes them. */
export type GroupApi =
  | 'joinGroup'
  | 'syncGroup'
  | 'heartbeat'
  | 'leaveGroup'
  | 'offsetCommit'
  | 'offsetFetch'
  | 'offsetDelete'
  | 'describeGroups'
  | 'deleteGroups'
  | 'txnOffsetCommit';

/**
 * Kafka accepts an empty group id for OffsetCommit/OffsetFetch/DescribeGroups/
 * DeleteGroups (legacy standalone consumers) and refuses it elsewhere
 * (INVALID_GROUP_ID).
 */
export function isValidGroupId(groupId: string, api: GroupApi): boolean {
  switch (api) {
    case 'offsetCommit':
    case 'offsetFetch':
    case 'describeGroups':
    case 'deleteGroups':
      return true;
    default:
      return groupId.length > 0;
  }
}

/**
 * What the handler answers while the group's __consumer_offsets partition is
 * still loading (the handler layer owns the set of loading partitions; the
 * coordinator only sees groups once loadPartition installed them). Kafka's
 * quirks: a Heartbeat is answered NONE blindly, and a SyncGroup
 * REBALANCE_IN_PROGRESS (the rebalance state was lost; old clients do not
 * know COORDINATOR_LOAD_IN_PROGRESS there). Everything else retries.
 */
export function errorWhileLoading(api: GroupApi): number {
  if (api === 'heartbeat') return ErrorCode.NONE;
  if (api === 'syncGroup') return ErrorCode.REBALANCE_IN_PROGRESS;
  return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
}

/** Kafka's new-member join timeout: a member that never got an id is dropped after this. */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * The error for a rejected persistence write. A GroupPersistence may reject
 * with an Error carrying a numeric `errorCode` (NOT_COORDINATOR when the
 * partition moved, for example); anything else is COORDINATOR_NOT_AVAILABLE,
 * which makes clients rediscover the coordinator and retry (Kafka maps
 * append timeouts and missing replicas the same way).
 */
const PASSED_ON: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  // The store's own answers for oversized commits and timed-out writes.
  ErrorCode.INVALID_COMMIT_OFFSET_SIZE,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.UNKNOWN_SERVER_ERROR,
]);

export function persistenceErrorCode(err: unknown): number {
  if (typeof err === 'object' && err !== null && 'errorCode' in err) {
    const code = (err as { errorCode: unknown }).errorCode;
    if (typeof code === 'number' && PASSED_ON.has(code)) return code;
  }
  return ErrorCode.COORDINATOR_NOT_AVAILABLE;
}
