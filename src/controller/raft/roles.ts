/**
 * One class per role (KRaft's `UnattachedState`, `FollowerState`,
 * `ProspectiveState`, `CandidateState`, `LeaderState`). Each holds only that
 * role's volatile state; transitions and messages live in raft-node.ts.
 *
 *   unattached --election timeout--> prospective --pre-vote majority--> candidate (epoch+1) --vote majority--> leader
 *   follower   --fetch timeout-----> prospective --timeout--> prospective (new round)
 *   candidate  --election timeout--> prospective
 *   leader     --check-quorum fails--> unattached (same epoch, voted for itself: cannot lead it again)
 *   any role   --message with a higher epoch--> follower (if it names the leader) or unattached
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

  heard(nowMs: number): void {
    this.lastHeardMs = nowMs;
    this.fetchTimerStartMs = nowMs;
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

/** Leader of `epoch`: tracks each follower's fetch position and when it last fetched (check-quorum). */
export class LeaderState {
  readonly name = 'leader';
  readonly replicas = new Map<NodeId, ReplicaState>();
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

  replica(id: NodeId): ReplicaState {
    const r = this.replicas.get(id);
    invariant(r !== undefined, `voter ${id} has a replica state`);
    return r;
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
