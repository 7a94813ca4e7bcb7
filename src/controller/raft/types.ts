/**
 * Raft (KRaft-style) messages, entries and configuration. Names follow KRaft:
 * `epoch` is the leader epoch (Raft's "term"), `endOffset` the offset after
 * the last entry, `highWatermark` the offset after the last committed entry.
 *
 * Offsets here are `number` (asserted safe integers): the Raft log is indexed
 * in memory and the metadata log stays far below 2^53 entries. The
 * MetadataLog adapter converts to `bigint` at its boundary.
 */

import { invariant } from '../../util/assert.js';

export type NodeId = number;

/** `leader_change` is the control entry a new leader appends at the start of its epoch (KRaft's LeaderChangeMessage). */
export type EntryKind = 'data' | 'leader_change';

export interface RaftEntry {
  readonly epoch: number;
  readonly kind: EntryKind;
  readonly data: Uint8Array;
}

export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/**
 * A snapshot of the state machine above Raft (the metadata image) covering
 * every entry before `endOffset` (KRaft's SnapshotId is (endOffset, epoch)).
 * `epoch` is the epoch of the last included entry (offset endOffset - 1).
 * `data` is opaque to Raft: the owner's serialized state.
 */
export interface RaftSnapshot {
  readonly endOffset: number;
  readonly epoch: number;
  readonly data: Uint8Array;
}

/**
 * What a node hands its state machine, in order (`RaftNode.pollCommitted`):
 * a `snapshot` replaces the whole state (load it, then apply the entries that
 * follow from `snapshot.endOffset`); `entries` are committed entries starting
 * at `baseOffset`, contiguous with what was delivered before.
 */
export type CommittedEvent =
  | { readonly kind: 'snapshot'; readonly snapshot: RaftSnapshot }
  | { readonly kind: 'entries'; readonly baseOffset: number; readonly entries: readonly RaftEntry[] };

/** Vote and pre-vote (KIP-996). A pre-vote asks "would you vote for me at `epoch + 1`?" and changes no state. */
export interface VoteRequest {
  readonly type: 'vote';
  readonly from: NodeId;
  readonly epoch: number;
  readonly preVote: boolean;
  readonly lastEpoch: number;
  readonly endOffset: number;
}

export interface VoteResponse {
  readonly type: 'voteResponse';
  readonly from: NodeId;
  readonly epoch: number;
  readonly preVote: boolean;
  readonly granted: boolean;
  /** The leader the responder follows in `epoch`, so a prospective node rejoins instead of waiting. */
  readonly leaderId: NodeId | null;
}

/** Sent by a new leader (and resent to voters that are not fetching) so followers know whom to fetch from. */
export interface BeginQuorumEpoch {
  readonly type: 'beginQuorumEpoch';
  readonly from: NodeId;
  readonly epoch: number;
}

/** Follower → leader pull, KRaft's Fetch: "I have everything before fetchOffset; my last entry has lastFetchedEpoch". */
export interface FetchRequest {
  readonly type: 'fetch';
  readonly from: NodeId;
  readonly epoch: number;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
}

export type FetchError = 'none' | 'fenced_epoch' | 'not_leader';

export interface FetchResponse {
  readonly type: 'fetchResponse';
  readonly from: NodeId;
  readonly epoch: number;
  readonly error: FetchError;
  readonly leaderId: NodeId | null;
  /** Echo of the request, so a stale or duplicated response is recognised. */
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  readonly highWatermark: number;
  readonly entries: readonly RaftEntry[];
  /** Set when the follower's log diverges: the largest epoch ≤ lastFetchedEpoch the leader has, and where it ends. */
  readonly divergingEpoch: OffsetAndEpoch | null;
  /**
   * Set when the follower must load a snapshot first (its fetch position is below the
   * leader's log start): the leader's latest snapshot id (KRaft FetchResponse.SnapshotId;
   * `offset` is the snapshot's end offset). The follower then sends FetchSnapshot.
   */
  readonly snapshotId: OffsetAndEpoch | null;
}

/**
 * Follower → leader: a chunk of snapshot `snapshotId` from byte `position`
 * (KRaft FetchSnapshot, apiKey 59). The core asks from 0 and accepts the whole
 * snapshot in one response or in consecutive chunks.
 */
export interface FetchSnapshotRequest {
  readonly type: 'fetchSnapshot';
  readonly from: NodeId;
  readonly epoch: number;
  readonly snapshotId: OffsetAndEpoch;
  readonly position: number;
}

export type FetchSnapshotError = FetchError | 'snapshot_not_found';

export interface FetchSnapshotResponse {
  readonly type: 'fetchSnapshotResponse';
  readonly from: NodeId;
  readonly epoch: number;
  readonly error: FetchSnapshotError;
  readonly leaderId: NodeId | null;
  /** Echo of the request. */
  readonly snapshotId: OffsetAndEpoch;
  /** Byte position of `data` in the snapshot (echo of the request's position). */
  readonly position: number;
  /** Total snapshot size in bytes. */
  readonly size: number;
  readonly data: Uint8Array;
}

/**
 * Sent by a leader that resigns (graceful shutdown, `RaftNode.resign`; KRaft's EndQuorumEpoch, apiKey 54):
 * its followers stop trusting it at once and start an election, the first of `preferredSuccessors`
 * (the most caught-up voters first) without delay, the others after a short backoff by position.
 */
export interface EndQuorumEpoch {
  readonly type: 'endQuorumEpoch';
  readonly from: NodeId;
  readonly epoch: number;
  readonly preferredSuccessors: readonly NodeId[];
}

export type RaftMessage = VoteRequest | VoteResponse | BeginQuorumEpoch | EndQuorumEpoch | FetchRequest | FetchResponse | FetchSnapshotRequest | FetchSnapshotResponse;

export interface Outbound {
  readonly to: NodeId;
  readonly message: RaftMessage;
}

export type RaftError = 'not_leader' | 'busy' | 'invalid_request';

export type ProposeResult =
  | { readonly ok: true; readonly epoch: number; readonly baseOffset: number; readonly lastOffset: number }
  | { readonly ok: false; readonly error: RaftError; readonly leaderId: NodeId | null };

export interface RaftConfig {
  /** This node; when it is not one of `voters` the node is an **observer** (a broker-only node): it fetches, never votes. */
  readonly nodeId: NodeId;
  /** Static voter set (`controller.quorum.voters`); every node must be given the same list. */
  readonly voters: readonly NodeId[];
  /** Base election timeout; each wait is drawn from [base, 2*base) (`quorum.election.timeout.ms`). */
  readonly electionTimeoutMs: number;
  /** A follower that has not heard from its leader for this long starts a pre-vote (`quorum.fetch.timeout.ms`). */
  readonly fetchTimeoutMs: number;
  /** An idle follower re-fetches after this long (stands in for the leader's long poll). */
  readonly fetchBackoffMs: number;
  /** An unanswered Fetch, Vote or BeginQuorumEpoch is resent after this long. */
  readonly requestTimeoutMs: number;
  /** Entries per FetchResponse. */
  readonly fetchEntriesMax: number;
  /** Uncommitted entries the leader accepts before answering `busy`. */
  readonly uncommittedEntriesMax: number;
  /** Snapshot bytes per FetchSnapshotResponse (KRaft's replica.fetch.max.bytes for snapshots). */
  readonly snapshotChunkBytesMax: number;
}

export const DEFAULT_RAFT_TIMEOUTS = {
  electionTimeoutMs: 1000,
  fetchTimeoutMs: 2000,
  fetchBackoffMs: 50,
  requestTimeoutMs: 200,
  fetchEntriesMax: 500,
  uncommittedEntriesMax: 10_000,
  snapshotChunkBytesMax: 1024 * 1024,
} as const;

/** The leader forgets an observer that has not fetched for this long (KRaft: 5 minutes). */
export const OBSERVER_EXPIRY_MS = 300_000;

/** KRaft: the leader resigns when a majority has not fetched within 1.5 × fetch timeout. */
export function checkQuorumTimeoutMs(config: RaftConfig): number {
  return Math.floor(config.fetchTimeoutMs * 1.5);
}

export function validateRaftConfig(c: RaftConfig): void {
  invariant(c.voters.length > 0 && new Set(c.voters).size === c.voters.length, 'voters are distinct and not empty');
  invariant(c.voters.every((v) => Number.isSafeInteger(v) && v >= 0) && Number.isSafeInteger(c.nodeId) && c.nodeId >= 0, 'node ids are non-negative integers');
  invariant(c.electionTimeoutMs > 0 && c.fetchTimeoutMs > 0 && c.fetchBackoffMs > 0 && c.requestTimeoutMs > 0, 'timeouts are positive');
  invariant(c.fetchEntriesMax > 0 && c.uncommittedEntriesMax > 0 && c.snapshotChunkBytesMax > 0, 'limits are positive');
}

/** A node outside the voter set observes: it replicates the log and snapshots but never votes or stands. */
export function isObserver(c: RaftConfig): boolean {
  return !c.voters.includes(c.nodeId);
}

export function majorityOf(voterCount: number): number {
  return Math.floor(voterCount / 2) + 1;
}
