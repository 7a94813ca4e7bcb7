/**
 * The state of a Raft voter (or observer) and its role transitions, the half of
 * RaftNode that does not read messages: the current role, the high watermark,
 * the outbox and the node's time, and `becomeX` for each role with what it does
 * on entry (persist the vote, append the leader_change entry, send the first
 * Vote, Fetch or BeginQuorumEpoch). Kept apart from raft-node.ts, which holds
 * the inputs (tick, receive, propose, resign) and the handling of each message,
 * so that each half reads on its own; RaftNode is its only subclass.
 *
 * Pure and deterministic like the rest of the core: no clock, timer, randomness
 * or I/O of its own (time is `nowMs`, randomness the injected `Random`).
 */
import { invariant } from '../../util/assert.js';
import type { Random } from '../../util/random.js';
import { CandidateState, FollowerState, LeaderState, ProspectiveState, UnattachedState, type RoleState } from './roles.js';
import { CommitDelivery, recoverSnapshot } from './snapshots.js';
import { endOffsetForEpoch, lastEpochOf, type RaftStorage } from './storage.js';
import {
  isObserver,
  validateRaftConfig,
  type FetchError,
  type FetchRequest,
  type FetchResponse,
  type NodeId,
  type OffsetAndEpoch,
  type Outbound,
  type RaftConfig,
  type RaftEntry,
  type RaftMessage,
} from './types.js';

export const EMPTY = new Uint8Array(0);

export abstract class RaftNodeState {
  protected role: RoleState;
  protected hw = 0;
  protected readonly delivery: CommitDelivery;
  protected nowMs: number;
  protected out: Outbound[] = [];
  /** The leader that told us (EndQuorumEpoch) it resigned this epoch: late messages from it must not make us follow it again. */
  protected resigned: { readonly epoch: number; readonly leaderId: NodeId } | null = null;
  /** Not a voter: replicates (fetch, snapshots) but never votes, stands, or counts for commit. */
  protected readonly observer: boolean;
  /** An observer without a leader asks the voters in turn; the index of the next one. */
  protected discoveryCursor = 0;

  constructor(
    protected readonly config: RaftConfig,
    protected readonly log: RaftStorage,
    protected readonly random: Random,
    nowMs: number,
  ) {
    validateRaftConfig(config);
    this.observer = isObserver(config);
    this.nowMs = nowMs;
    recoverSnapshot(log);
    this.delivery = new CommitDelivery(log);
    // Entries a snapshot covers were committed; the rest of the high watermark is relearnt from the leader.
    this.hw = log.logStartOffset;
    const qs = log.readQuorumState();
    // A restarted node knows its epoch and vote, not its leader (KRaft keeps "Voted"/"Unattached").
    // An observer asks the voters who leads at its first tick.
    this.role = new UnattachedState(qs.epoch, this.observer ? null : qs.votedFor, this.observer ? nowMs : nowMs + this.electionTimeout());
  }

  get leaderId(): NodeId | null {
    if (this.role instanceof LeaderState) return this.config.nodeId;
    if (this.role instanceof FollowerState) return this.role.leaderId;
    return null;
  }

  // ---- time and output ---------------------------------------------------------------

  protected advanceTime(nowMs: number): void {
    invariant(nowMs >= this.nowMs, `time never goes back (${this.nowMs} -> ${nowMs})`);
    this.nowMs = nowMs;
  }

  protected electionTimeout(): number {
    return this.config.electionTimeoutMs + this.random.int(this.config.electionTimeoutMs);
  }

  protected drain(): Outbound[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  protected send(to: NodeId, message: RaftMessage): void {
    this.out.push({ to, message });
  }

  protected persist(epoch: number, votedFor: NodeId | null): void {
    const current = this.log.readQuorumState();
    if (current.epoch !== epoch || current.votedFor !== votedFor) this.log.writeQuorumState({ epoch, votedFor });
  }

  protected votedFor(): NodeId | null {
    return this.role.votedFor;
  }

  // ---- role transitions ----------------------------------------------------------------

  protected becomeUnattached(epoch: number, votedFor: NodeId | null): void {
    invariant(epoch >= this.role.epoch, 'epochs only grow');
    invariant(!this.observer || votedFor === null, 'an observer never votes');
    this.persist(epoch, votedFor);
    // An observer does not wait for an election: it looks for the leader at once.
    this.role = new UnattachedState(epoch, votedFor, this.observer ? this.nowMs : this.nowMs + this.electionTimeout());
  }

  /**
   * An observer without a leader sends a Fetch to the next voter (KRaft observers fetch from
   * the bootstrap voters): the leader answers it, any other voter answers with the leader and
   * epoch it knows (not_leader / fenced_epoch), which the response handling follows.
   */
  protected discoverLeader(role: UnattachedState): void {
    const voters = this.config.voters;
    const to = voters[this.discoveryCursor % voters.length];
    invariant(to !== undefined, 'there are voters');
    this.discoveryCursor = (this.discoveryCursor + 1) % voters.length;
    this.role = new UnattachedState(role.epoch, null, this.nowMs + this.config.requestTimeoutMs);
    this.send(to, { type: 'fetch', from: this.config.nodeId, epoch: role.epoch, fetchOffset: this.log.endOffset, lastFetchedEpoch: lastEpochOf(this.log) });
  }

  /** `heard`: the leader itself told us (BeginQuorumEpoch, FetchResponse), not another voter. */
  protected becomeFollower(epoch: number, leaderId: NodeId, heard: boolean): void {
    invariant(epoch >= this.role.epoch, 'epochs only grow');
    invariant(leaderId !== this.config.nodeId, 'a node does not follow itself');
    if (this.resigned !== null && this.resigned.epoch === epoch && this.resigned.leaderId === leaderId) return; // it ended its epoch
    invariant(!(this.role instanceof LeaderState && this.role.epoch === epoch), 'a leader never follows another in its own epoch');
    const votedFor = epoch === this.role.epoch ? this.votedFor() : null;
    this.persist(epoch, votedFor);
    this.role = new FollowerState(epoch, leaderId, votedFor, this.nowMs, heard);
    this.sendFetch(this.role);
  }

  protected becomeProspective(): void {
    invariant(!this.observer, 'an observer never stands for election');
    const epoch = this.role.epoch;
    const role = new ProspectiveState(epoch, this.votedFor(), this.nowMs + this.electionTimeout(), this.config.nodeId, this.config.voters);
    this.role = role;
    if (role.tally.hasMajority()) return this.becomeCandidate();
    this.sendVoteRequests(role.tally.due(this.nowMs, this.config.requestTimeoutMs), true);
  }

  protected becomeCandidate(): void {
    const epoch = this.role.epoch + 1;
    this.persist(epoch, this.config.nodeId);
    const role = new CandidateState(epoch, this.nowMs + this.electionTimeout(), this.config.nodeId, this.config.voters);
    this.role = role;
    if (role.tally.hasMajority()) return this.becomeLeader();
    this.sendVoteRequests(role.tally.due(this.nowMs, this.config.requestTimeoutMs), false);
  }

  protected becomeLeader(): void {
    invariant(this.role instanceof CandidateState, 'only a candidate becomes leader');
    const epoch = this.role.epoch;
    const role = new LeaderState(epoch, this.config.nodeId, this.config.voters, this.log.endOffset, this.nowMs);
    this.role = role;
    // KRaft's LeaderChange control record: an entry of the new epoch, whose commit also commits everything before it.
    this.log.append([{ epoch, kind: 'leader_change', data: EMPTY }]);
    this.flushAndAdvance(role);
    this.sendBeginQuorumEpoch(role);
  }

  /** Any message from a later epoch: follow its leader if the message names one, else wait unattached. */
  protected observeHigherEpoch(message: RaftMessage): void {
    let leader: NodeId | null = null;
    if (message.type === 'beginQuorumEpoch') leader = message.from;
    else if (message.type === 'fetchResponse' || message.type === 'voteResponse' || message.type === 'fetchSnapshotResponse') leader = message.leaderId;
    if (leader !== null && leader !== this.config.nodeId) this.becomeFollower(message.epoch, leader, leader === message.from);
    else this.becomeUnattached(message.epoch, null);
  }

  // ---- messages out, and the leader's commit rule ---------------------------------------

  /** The leader we follow only while it is alive to us: a timed-out follower must not send voters back to a dead leader. */
  protected liveLeaderId(): NodeId | null {
    const role = this.role;
    if (role instanceof LeaderState) return this.config.nodeId;
    if (role instanceof FollowerState && role.leaderAlive(this.nowMs, this.config.fetchTimeoutMs)) return role.leaderId;
    return null;
  }

  protected fetchResponse(req: FetchRequest, error: FetchError, rest: Partial<Pick<FetchResponse, 'entries' | 'divergingEpoch' | 'snapshotId'>> = {}): FetchResponse {
    return {
      type: 'fetchResponse',
      from: this.config.nodeId,
      epoch: this.role.epoch,
      error,
      leaderId: this.leaderId,
      fetchOffset: req.fetchOffset,
      lastFetchedEpoch: req.lastFetchedEpoch,
      highWatermark: this.hw,
      entries: rest.entries ?? [],
      divergingEpoch: rest.divergingEpoch ?? null,
      snapshotId: rest.snapshotId ?? null,
    };
  }

  protected sendVoteRequests(to: readonly NodeId[], preVote: boolean): void {
    const lastEpoch = lastEpochOf(this.log);
    for (const v of to) {
      this.send(v, { type: 'vote', from: this.config.nodeId, epoch: this.role.epoch, preVote, lastEpoch, endOffset: this.log.endOffset });
    }
  }

  /** (Re)announce the epoch to voters that are not fetching from us. */
  protected sendBeginQuorumEpoch(role: LeaderState): void {
    const quietMs = this.config.fetchBackoffMs + this.config.requestTimeoutMs;
    for (const [id, r] of role.replicas) {
      const fetching = r.lastFetchMs !== null && this.nowMs - r.lastFetchMs < quietMs;
      const recentlySent = r.lastBeginSentMs !== null && this.nowMs - r.lastBeginSentMs < this.config.requestTimeoutMs;
      if (fetching || recentlySent) continue;
      r.lastBeginSentMs = this.nowMs;
      this.send(id, { type: 'beginQuorumEpoch', from: this.config.nodeId, epoch: role.epoch });
    }
  }

  protected flushAndAdvance(role: LeaderState): void {
    this.log.flush();
    this.advanceLeaderHighWatermark(role);
  }

  /** Commit rule: a majority has the offset durably AND the entry before it is of our epoch. */
  protected advanceLeaderHighWatermark(role: LeaderState): void {
    const m = role.majorityEndOffset(this.log.flushedEndOffset);
    if (m <= this.hw) return;
    const entry = this.log.entryAt(m - 1);
    invariant(entry !== undefined, `the leader has entry ${m - 1}`);
    if (entry.epoch !== role.epoch) return;
    invariant(m > role.epochStartOffset, 'a current-epoch entry is after the epoch start');
    this.hw = m;
  }

  protected sendFetchSnapshot(role: FollowerState): void {
    const fetch = role.snapshotFetch;
    invariant(fetch !== null, 'a snapshot fetch is under way');
    role.fetchSentMs = this.nowMs;
    this.send(role.leaderId, { type: 'fetchSnapshot', from: this.config.nodeId, epoch: role.epoch, snapshotId: fetch.id, position: fetch.received });
  }

  protected sendFetch(role: FollowerState): void {
    role.fetchSentMs = this.nowMs;
    this.send(role.leaderId, {
      type: 'fetch',
      from: this.config.nodeId,
      epoch: role.epoch,
      fetchOffset: this.log.endOffset,
      lastFetchedEpoch: lastEpochOf(this.log),
    });
  }

  // ---- the follower's log ---------------------------------------------------------------

  protected appendAsFollower(role: FollowerState, entries: readonly RaftEntry[]): void {
    if (entries.length === 0) return;
    for (const e of entries) {
      // Bytes from the network are validated, not asserted: a bad entry ends this response's use.
      if (!Number.isSafeInteger(e.epoch) || e.epoch < lastEpochOf(this.log) || e.epoch > role.epoch) return;
      this.log.append([e]);
    }
    // Followers flush before their next fetch, so the offset they report is durable.
    this.log.flush();
  }

  /** KRaft's truncateToEndOffset: cut back to where our log and the leader's agree. */
  protected truncateToEndOffset(diverging: OffsetAndEpoch): void {
    let target: number;
    if (diverging.epoch === 0) {
      target = Math.min(diverging.offset, this.log.endOffset);
    } else {
      const local = endOffsetForEpoch(this.log, diverging.epoch);
      target = local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
    }
    invariant(target < this.log.endOffset, `a divergence truncates (to ${target}, end ${this.log.endOffset})`);
    invariant(target >= this.hw, `committed entries are never truncated (to ${target}, high watermark ${this.hw})`);
    this.log.truncateTo(target);
  }
}
