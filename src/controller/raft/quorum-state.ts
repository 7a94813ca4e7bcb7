/**
 * QuorumState: the state of a Raft voter (or observer) and its role
 * transitions. It holds the current role, the high watermark, the outbox and
 * the node's time, and `becomeX` for each role with what it does on entry
 * (persist the vote, append the leader_change entry, send the first Vote,
 * Fetch or BeginQuorumEpoch). RaftNode (raft-node.ts) holds one, as Kafka's
 * KafkaRaftClient holds a QuorumState: RaftNode takes the inputs (tick,
 * receive, propose, resign) and decides what each message means; this object
 * is the only place the role and the high watermark change.
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

export class QuorumState {
  private currentRole: RoleState;
  private highWatermarkOffset = 0;
  /** Hands committed entries and snapshots to the state machine (pollCommitted). */
  readonly delivery: CommitDelivery;
  private now: number;
  private out: Outbound[] = [];
  /** The leader that told us (EndQuorumEpoch) it resigned this epoch: late messages from it must not make us follow it again. */
  private resigned: { readonly epoch: number; readonly leaderId: NodeId } | null = null;
  /** Not a voter: replicates (fetch, snapshots) but never votes, stands, or counts for commit. */
  readonly observer: boolean;
  /** An observer without a leader asks the voters in turn; the index of the next one. */
  private discoveryCursor = 0;

  constructor(
    readonly config: RaftConfig,
    readonly log: RaftStorage,
    readonly random: Random,
    nowMs: number,
  ) {
    validateRaftConfig(config);
    this.observer = isObserver(config);
    this.now = nowMs;
    recoverSnapshot(log);
    this.delivery = new CommitDelivery(log);
    // Entries a snapshot covers were committed; the rest of the high watermark is relearnt from the leader.
    this.highWatermarkOffset = log.logStartOffset;
    const qs = log.readQuorumState();
    // A restarted node knows its epoch and vote, not its leader (KRaft keeps "Voted"/"Unattached").
    // An observer asks the voters who leads at its first tick.
    this.currentRole = new UnattachedState(qs.epoch, this.observer ? null : qs.votedFor, this.observer ? nowMs : nowMs + this.electionTimeout());
  }

  /** The current role and its volatile state; replaced only by the `becomeX` transitions below. */
  get role(): RoleState {
    return this.currentRole;
  }

  /** Offset after the last committed entry this node knows of; never goes back. */
  get hw(): number {
    return this.highWatermarkOffset;
  }

  /** The node's time: the latest `nowMs` it was given. */
  get nowMs(): number {
    return this.now;
  }

  /** A follower learnt a higher commit point from its leader (or a snapshot); lower values are ignored. */
  raiseHighWatermark(offset: number): void {
    if (offset > this.highWatermarkOffset) this.highWatermarkOffset = offset;
  }

  /** Our leader ended its epoch (EndQuorumEpoch): never follow it again in that epoch. */
  noteResigned(epoch: number, leaderId: NodeId): void {
    this.resigned = { epoch, leaderId };
  }

  get leaderId(): NodeId | null {
    if (this.role instanceof LeaderState) return this.config.nodeId;
    if (this.role instanceof FollowerState) return this.role.leaderId;
    return null;
  }

  // ---- time and output ---------------------------------------------------------------

  advanceTime(nowMs: number): void {
    invariant(nowMs >= this.nowMs, `time never goes back (${this.nowMs} -> ${nowMs})`);
    this.now = nowMs;
  }

  electionTimeout(): number {
    return this.config.electionTimeoutMs + this.random.int(this.config.electionTimeoutMs);
  }

  drain(): Outbound[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  send(to: NodeId, message: RaftMessage): void {
    this.out.push({ to, message });
  }

  persist(epoch: number, votedFor: NodeId | null): void {
    const current = this.log.readQuorumState();
    if (current.epoch !== epoch || current.votedFor !== votedFor) this.log.writeQuorumState({ epoch, votedFor });
  }

  votedFor(): NodeId | null {
    return this.role.votedFor;
  }

  // ---- role transitions ----------------------------------------------------------------

  becomeUnattached(epoch: number, votedFor: NodeId | null): void {
    invariant(epoch >= this.role.epoch, 'epochs only grow');
    invariant(!this.observer || votedFor === null, 'an observer never votes');
    this.persist(epoch, votedFor);
    // An observer does not wait for an election: it looks for the leader at once.
    this.currentRole = new UnattachedState(epoch, votedFor, this.observer ? this.nowMs : this.nowMs + this.electionTimeout());
  }

  /**
   * An observer without a leader sends a Fetch to the next voter (KRaft observers fetch from
   * the bootstrap voters): the leader answers it, any other voter answers with the leader and
   * epoch it knows (not_leader / fenced_epoch), which the response handling follows.
   */
  discoverLeader(role: UnattachedState): void {
    const voters = this.config.voters;
    const to = voters[this.discoveryCursor % voters.length];
    invariant(to !== undefined, 'there are voters');
    this.discoveryCursor = (this.discoveryCursor + 1) % voters.length;
    this.currentRole = new UnattachedState(role.epoch, null, this.nowMs + this.config.requestTimeoutMs);
    this.send(to, { type: 'fetch', from: this.config.nodeId, epoch: role.epoch, fetchOffset: this.log.endOffset, lastFetchedEpoch: lastEpochOf(this.log) });
  }

  /** `heard`: the leader itself told us (BeginQuorumEpoch, FetchResponse), not another voter. */
  becomeFollower(epoch: number, leaderId: NodeId, heard: boolean): void {
    invariant(epoch >= this.role.epoch, 'epochs only grow');
    invariant(leaderId !== this.config.nodeId, 'a node does not follow itself');
    if (this.resigned !== null && this.resigned.epoch === epoch && this.resigned.leaderId === leaderId) return; // it ended its epoch
    invariant(!(this.role instanceof LeaderState && this.role.epoch === epoch), 'a leader never follows another in its own epoch');
    const votedFor = epoch === this.role.epoch ? this.votedFor() : null;
    this.persist(epoch, votedFor);
    const role = new FollowerState(epoch, leaderId, votedFor, this.nowMs, heard);
    this.currentRole = role;
    this.sendFetch(role);
  }

  becomeProspective(): void {
    invariant(!this.observer, 'an observer never stands for election');
    const epoch = this.role.epoch;
    const role = new ProspectiveState(epoch, this.votedFor(), this.nowMs + this.electionTimeout(), this.config.nodeId, this.config.voters);
    this.currentRole = role;
    if (role.tally.hasMajority()) return this.becomeCandidate();
    this.sendVoteRequests(role.tally.due(this.nowMs, this.config.requestTimeoutMs), true);
  }

  becomeCandidate(): void {
    const epoch = this.role.epoch + 1;
    this.persist(epoch, this.config.nodeId);
    const role = new CandidateState(epoch, this.nowMs + this.electionTimeout(), this.config.nodeId, this.config.voters);
    this.currentRole = role;
    if (role.tally.hasMajority()) return this.becomeLeader();
    this.sendVoteRequests(role.tally.due(this.nowMs, this.config.requestTimeoutMs), false);
  }

  becomeLeader(): void {
    invariant(this.role instanceof CandidateState, 'only a candidate becomes leader');
    const epoch = this.role.epoch;
    const role = new LeaderState(epoch, this.config.nodeId, this.config.voters, this.log.endOffset, this.nowMs);
    this.currentRole = role;
    // KRaft's LeaderChange control record: an entry of the new epoch, whose commit also commits everything before it.
    this.log.append([{ epoch, kind: 'leader_change', data: EMPTY }]);
    this.flushAndAdvance(role);
    this.sendBeginQuorumEpoch(role);
  }

  /** Any message from a later epoch: follow its leader if the message names one, else wait unattached. */
  observeHigherEpoch(message: RaftMessage): void {
    let leader: NodeId | null = null;
    if (message.type === 'beginQuorumEpoch') leader = message.from;
    else if (message.type === 'fetchResponse' || message.type === 'voteResponse' || message.type === 'fetchSnapshotResponse') leader = message.leaderId;
    if (leader !== null && leader !== this.config.nodeId) this.becomeFollower(message.epoch, leader, leader === message.from);
    else this.becomeUnattached(message.epoch, null);
  }

  // ---- messages out, and the leader's commit rule ---------------------------------------

  /** The leader we follow only while it is alive to us: a timed-out follower must not send voters back to a dead leader. */
  liveLeaderId(): NodeId | null {
    const role = this.role;
    if (role instanceof LeaderState) return this.config.nodeId;
    if (role instanceof FollowerState && role.leaderAlive(this.nowMs, this.config.fetchTimeoutMs)) return role.leaderId;
    return null;
  }

  fetchResponse(req: FetchRequest, error: FetchError, rest: Partial<Pick<FetchResponse, 'entries' | 'divergingEpoch' | 'snapshotId'>> = {}): FetchResponse {
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

  sendVoteRequests(to: readonly NodeId[], preVote: boolean): void {
    const lastEpoch = lastEpochOf(this.log);
    for (const v of to) {
      this.send(v, { type: 'vote', from: this.config.nodeId, epoch: this.role.epoch, preVote, lastEpoch, endOffset: this.log.endOffset });
    }
  }

  /** (Re)announce the epoch to voters that are not fetching from us. */
  sendBeginQuorumEpoch(role: LeaderState): void {
    const quietMs = this.config.fetchBackoffMs + this.config.requestTimeoutMs;
    for (const [id, r] of role.replicas) {
      const fetching = r.lastFetchMs !== null && this.nowMs - r.lastFetchMs < quietMs;
      const recentlySent = r.lastBeginSentMs !== null && this.nowMs - r.lastBeginSentMs < this.config.requestTimeoutMs;
      if (fetching || recentlySent) continue;
      r.lastBeginSentMs = this.nowMs;
      this.send(id, { type: 'beginQuorumEpoch', from: this.config.nodeId, epoch: role.epoch });
    }
  }

  flushAndAdvance(role: LeaderState): void {
    this.log.flush();
    this.advanceLeaderHighWatermark(role);
  }

  /** Commit rule: a majority has the offset durably AND the entry before it is of our epoch. */
  advanceLeaderHighWatermark(role: LeaderState): void {
    const m = role.majorityEndOffset(this.log.flushedEndOffset);
    if (m <= this.hw) return;
    const entry = this.log.entryAt(m - 1);
    invariant(entry !== undefined, `the leader has entry ${m - 1}`);
    if (entry.epoch !== role.epoch) return;
    invariant(m > role.epochStartOffset, 'a current-epoch entry is after the epoch start');
    this.highWatermarkOffset = m;
  }

  sendFetchSnapshot(role: FollowerState): void {
    const fetch = role.snapshotFetch;
    invariant(fetch !== null, 'a snapshot fetch is under way');
    role.fetchSentMs = this.nowMs;
    this.send(role.leaderId, { type: 'fetchSnapshot', from: this.config.nodeId, epoch: role.epoch, snapshotId: fetch.id, position: fetch.received });
  }

  sendFetch(role: FollowerState): void {
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

  appendAsFollower(role: FollowerState, entries: readonly RaftEntry[]): void {
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
  truncateToEndOffset(diverging: OffsetAndEpoch): void {
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
