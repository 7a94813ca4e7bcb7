/**
 * One class per role (KRaft's `UnattachedState`, `FollowerState`,
 * `ProspectiveState`, `CandidateState`, `LeaderState`). Each holds only that
 * role's volatile state; transitions live in quorum-state.ts, message handling in raft-node.ts.
 *
 *   unattached --election timeout--> prospective --pre-vote majority--> candidate (epoch+1) --vote majority--> leader
 *   follower   --fetch timeout-----> prospective --timeout--> prospective (new round)
 *   follower   --leader unreachable (transport) / EndQuorumEpoch--> prospective after a short delay
 *   leader     --resign (graceful shutdown)--> unattached (same epoch, voted for itself), sends EndQuorumEpoch
 *   candidate  --election timeout--> prospective
 *   leader     --check-quorum fails--> unattached (same epoch, voted for itself: cannot lead it again)
 *   any role   --message with a higher epoch--> follower (if it names the leader) or unattached
 *   observer (not a voter): only unattached <-> follower; unattached, it asks the voters in turn
 *     (Fetch) who leads; a follower whose leader is silent for the fetch timeout becomes unattached
 *   unattached/prospective/candidate --learns the leader of its epoch--> follower
 */
import { invariant } from '../../util/assert.js';
import type { SnapshotFetch } from './snapshots.js';
import { majorityOf, type NodeId } from './types.js';

/** No known leader in `epoch`; may have voted. Waits for a leader or its election timeout. */
export class UnattachedState {
  readonly name = 'unattached';
  constructor(
    readonly epoch: number,
    readonly votedFor: NodeId | null,
    readonly electionDeadlineMs: number,
  ) {}
}

/** Fetches from `leaderId`; starts a pre-vote when the leader is silent for the fetch timeout. */
export class FollowerState {
  readonly name = 'follower';
  /** When the last valid FetchResponse (or BeginQuorumEpoch) from the leader itself arrived; null if never. */
  lastHeardMs: number | null;
  /** The fetch timeout runs from here: the later of following and last hearing from the leader. */
  fetchTimerStartMs: number;
  fetchSentMs: number | null = null;
  nextFetchMs: number;
  /** Set while the follower loads the leader's snapshot instead of fetching entries. */
  snapshotFetch: SnapshotFetch | null = null;
  /**
   * Set when the leader is known gone before the fetch timeout (its connection failed, or it
   * resigned with EndQuorumEpoch): the follower starts a pre-vote at this time.
   */
  electionAtMs: number | null = null;
  constructor(
    readonly epoch: number,
    readonly leaderId: NodeId,
    readonly votedFor: NodeId | null,
    nowMs: number,
    heardFromLeader: boolean,
  ) {
    this.lastHeardMs = heardFromLeader ? nowMs : null;
    this.fetchTimerStartMs = nowMs;
    this.nextFetchMs = nowMs;
  }

  /** The leader resigned (EndQuorumEpoch): nothing it sends later (late fetch answers) makes it live again. */
  leaderResigned = false;

  heard(nowMs: number): void {
    if (this.leaderResigned) return;
    this.lastHeardMs = nowMs;
    this.fetchTimerStartMs = nowMs;
    this.electionAtMs = null;
  }

  /**
   * The leader is gone (connection reset, or it resigned): stop counting it as live, so we
   * grant pre-votes to others, and start our own pre-vote at `atMs` (the earlier one if already set).
   */
  leaderLost(atMs: number, resigned = false): void {
    this.leaderResigned ||= resigned;
    this.lastHeardMs = null;
    this.electionAtMs = this.electionAtMs === null ? atMs : Math.min(this.electionAtMs, atMs);
  }

  /** Heard from the leader itself within `timeoutMs` (hearsay about the leader does not count). */
  leaderAlive(nowMs: number, timeoutMs: number): boolean {
    return this.lastHeardMs !== null && nowMs - this.lastHeardMs < timeoutMs;
  }
}

/** Collects votes (or pre-votes) from distinct voters; shared by prospective and candidate. */
export class VoteTally {
  private readonly granted = new Set<NodeId>();
  private readonly lastSentMs = new Map<NodeId, number>();
  constructor(
    private readonly self: NodeId,
    private readonly voters: readonly NodeId[],
  ) {
    this.granted.add(self);
  }

  grant(from: NodeId): void {
    if (this.voters.includes(from)) this.granted.add(from);
  }

  hasMajority(): boolean {
    return this.granted.size >= majorityOf(this.voters.length);
  }

  /** Voters to (re)send the request to now. */
  due(nowMs: number, requestTimeoutMs: number): NodeId[] {
    const out: NodeId[] = [];
    for (const v of this.voters) {
      if (v === this.self || this.granted.has(v)) continue;
      const sent = this.lastSentMs.get(v);
      if (sent === undefined || nowMs - sent >= requestTimeoutMs) {
        this.lastSentMs.set(v, nowMs);
        out.push(v);
      }
    }
    return out;
  }
}

/** Pre-vote (KIP-996): asks whether a majority would vote at epoch + 1, without bumping anyone's epoch. */
export class ProspectiveState {
  readonly name = 'prospective';
  readonly tally: VoteTally;
  constructor(
    readonly epoch: number,
    readonly votedFor: NodeId | null,
    readonly electionDeadlineMs: number,
    self: NodeId,
    voters: readonly NodeId[],
  ) {
    this.tally = new VoteTally(self, voters);
  }
}

/** Has bumped the epoch and voted for itself; becomes leader on a majority. */
export class CandidateState {
  readonly name = 'candidate';
  readonly tally: VoteTally;
  constructor(
    readonly epoch: number,
    readonly electionDeadlineMs: number,
    readonly self: NodeId,
    voters: readonly NodeId[],
  ) {
    this.tally = new VoteTally(self, voters);
  }

  get votedFor(): NodeId {
    return this.self;
  }
}

export interface ReplicaState {
  /** The follower's log matches ours up to here (its last validated fetch offset). */
  endOffset: number;
  lastFetchMs: number | null;
  lastBeginSentMs: number | null;
}

/** Leader of `epoch`: tracks each follower's fetch position and when it last fetched (check-quorum), and its observers'. */
export class LeaderState {
  readonly name = 'leader';
  readonly replicas = new Map<NodeId, ReplicaState>();
  /** Non-voters fetching from us (broker-only nodes), by id. */
  readonly observers = new Map<NodeId, ReplicaState>();
  constructor(
    readonly epoch: number,
    readonly self: NodeId,
    readonly voters: readonly NodeId[],
    /** Offset of the first entry of this epoch (the leader_change entry). */
    readonly epochStartOffset: number,
    readonly sinceMs: number,
  ) {
    for (const v of voters) if (v !== self) this.replicas.set(v, { endOffset: 0, lastFetchMs: null, lastBeginSentMs: null });
  }

  get votedFor(): NodeId {
    return this.self;
  }

  /**
   * The state of a fetching node: a voter's, or an observer's (created on its first fetch).
   * Observers are tracked for DescribeQuorum only: never counted for commit or check-quorum.
   */
  fetcher(id: NodeId): ReplicaState {
    const voter = this.replicas.get(id);
    if (voter !== undefined) return voter;
    let o = this.observers.get(id);
    if (o === undefined) {
      o = { endOffset: 0, lastFetchMs: null, lastBeginSentMs: null };
      this.observers.set(id, o);
    }
    return o;
  }

  /** Forgets observers that have not fetched for `timeoutMs` (a broker that went away). */
  expireObservers(nowMs: number, timeoutMs: number): void {
    for (const [id, o] of this.observers) if (o.lastFetchMs === null || nowMs - o.lastFetchMs >= timeoutMs) this.observers.delete(id);
  }

  /** The largest offset a majority (counting our durable end) has reached. */
  majorityEndOffset(selfFlushedEndOffset: number): number {
    const ends = [selfFlushedEndOffset, ...[...this.replicas.values()].map((r) => r.endOffset)].sort((a, b) => b - a);
    const m = ends[majorityOf(this.voters.length) - 1];
    invariant(m !== undefined, 'a majority exists');
    return m;
  }

  /** True while a majority (us included) fetched within `timeoutMs`, or we have led for less than that. */
  hasQuorum(nowMs: number, timeoutMs: number): boolean {
    if (nowMs - this.sinceMs < timeoutMs) return true;
    let live = 1;
    for (const r of this.replicas.values()) if (r.lastFetchMs !== null && nowMs - r.lastFetchMs < timeoutMs) live++;
    return live >= majorityOf(this.voters.length);
  }
}

export type RoleState = UnattachedState | FollowerState | ProspectiveState | CandidateState | LeaderState;
