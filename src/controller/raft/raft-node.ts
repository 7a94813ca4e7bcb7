/**
 * A Raft voter as a pure, event-driven state machine (KRaft-style, pull-based).
 *
 * Inputs: `tick(nowMs)`, `receive(message, nowMs)`, `propose(data, nowMs)`.
 * Outputs: the messages to send (returned by tick/receive) and writes to the
 * injected RaftStorage (quorum state is durable at once; appends when flushed).
 * No clock, timer, randomness or I/O of its own: time is `nowMs`, randomness
 * the injected `Random` (election timeouts only).
 *
 * Replication is pulled, as in KRaft: followers send Fetch(fetchOffset,
 * lastFetchedEpoch); the leader checks them against its log and answers with
 * entries, or with a diverging epoch that tells the follower where to truncate.
 *
 * This class holds the inputs and what each message decides. The node's
 * state, the role transitions and the messages and log writes they make are
 * its QuorumState (quorum-state.ts), held by composition as Kafka's
 * KafkaRaftClient holds its QuorumState.
 */
import { invariant, unreachable } from '../../util/assert.js';
import { FollowerState, LeaderState, ProspectiveState, CandidateState, UnattachedState, type RoleState } from './roles.js';
import { EMPTY, QuorumState } from './quorum-state.js';
import { snapshotChunk, SnapshotFetch } from './snapshots.js';
import type { Random } from '../../util/random.js';
import { endOffsetForEpoch, lastEpochOf, logStartBoundary, type RaftStorage } from './storage.js';
import {
  checkQuorumTimeoutMs,
  OBSERVER_EXPIRY_MS,
  type BeginQuorumEpoch,
  type CommittedEvent,
  type EndQuorumEpoch,
  type FetchSnapshotRequest,
  type FetchSnapshotResponse,
  type FetchRequest,
  type FetchResponse,
  type NodeId,
  type Outbound,
  type ProposeResult,
  type RaftConfig,
  type RaftEntry,
  type RaftMessage,
  type RaftSnapshot,
  type VoteRequest,
  type VoteResponse,
} from './types.js';

export class RaftNode {
  private readonly q: QuorumState;

  constructor(config: RaftConfig, log: RaftStorage, random: Random, nowMs: number) {
    this.q = new QuorumState(config, log, random, nowMs);
  }

  /** The leader of the current epoch, when this node knows it. */
  get leaderId(): NodeId | null {
    return this.q.leaderId;
  }
  get nodeId(): NodeId {
    return this.q.config.nodeId;
  }
  get epoch(): number {
    return this.q.role.epoch;
  }
  get roleName(): RoleState['name'] {
    return this.q.role.name;
  }
  /** Not in the voter set: fetches and applies the log, never votes or leads. */
  get isObserver(): boolean {
    return this.q.observer;
  }
  /** The leader's view of the observers fetching from it (DescribeQuorum's Observers); empty elsewhere. */
  observerStates(): { readonly id: NodeId; readonly endOffset: number; readonly lastFetchMs: number | null }[] {
    const role = this.q.role;
    if (!(role instanceof LeaderState)) return [];
    return [...role.observers].map(([id, o]) => ({ id, endOffset: o.endOffset, lastFetchMs: o.lastFetchMs }));
  }
  /** Offset after the last committed entry this node knows of; never goes back while the node runs. */
  get highWatermark(): number {
    return this.q.hw;
  }
  get endOffset(): number {
    return this.q.log.endOffset;
  }
  get logStartOffset(): number {
    return this.q.log.logStartOffset;
  }
  /** Offset after the last entry (or snapshot) pollCommitted has handed out. */
  get appliedOffset(): number {
    return this.q.delivery.delivered;
  }
  latestSnapshot(): RaftSnapshot | null {
    return this.q.log.latestSnapshot();
  }

  /**
   * The next things for the state machine, in order: first the latest snapshot when the
   * state machine is behind the log start (at start, or after the follower installed one),
   * then committed entries (at most `countMax` per call). Call until it returns nothing.
   */
  pollCommitted(countMax: number = this.q.config.fetchEntriesMax): CommittedEvent[] {
    return this.q.delivery.poll(this.q.hw, countMax);
  }

  /**
   * The owner serialized its state machine after applying every entry before `endOffset`
   * (≤ appliedOffset ≤ high watermark): store it as a snapshot (durably) and drop the
   * log prefix it covers. Followers behind the new log start will load it (FetchSnapshot).
   */
  createSnapshot(endOffset: number, data: Uint8Array): RaftSnapshot {
    return this.q.delivery.createSnapshot(endOffset, data, this.q.hw);
  }

  /** Committed entries from `fromOffset` (up to `countMax`). */
  readCommitted(fromOffset: number, countMax: number): RaftEntry[] {
    if (fromOffset >= this.q.hw || fromOffset < this.q.log.logStartOffset) return [];
    return this.q.log.read(fromOffset, Math.min(countMax, this.q.hw - fromOffset));
  }

  tick(nowMs: number): Outbound[] {
    this.q.advanceTime(nowMs);
    const role = this.q.role;
    switch (role.name) {
      case 'unattached':
        if (nowMs < role.electionDeadlineMs) break;
        if (this.q.observer) this.q.discoverLeader(role);
        else this.q.becomeProspective();
        break;
      case 'follower':
        this.tickFollower(role);
        break;
      case 'prospective':
        if (nowMs >= role.electionDeadlineMs) this.q.becomeProspective();
        else this.q.sendVoteRequests(role.tally.due(nowMs, this.q.config.requestTimeoutMs), true);
        break;
      case 'candidate':
        if (nowMs >= role.electionDeadlineMs) this.q.becomeProspective();
        else this.q.sendVoteRequests(role.tally.due(nowMs, this.q.config.requestTimeoutMs), false);
        break;
      case 'leader':
        this.tickLeader(role);
        break;
      default:
        unreachable(role, 'role');
    }
    return this.q.drain();
  }

  receive(message: RaftMessage, nowMs: number): Outbound[] {
    this.q.advanceTime(nowMs);
    if (message.from === this.q.config.nodeId || !this.acceptsFrom(message)) return this.q.drain();
    if (message.epoch > this.q.role.epoch) this.q.observeHigherEpoch(message);
    switch (message.type) {
      case 'vote':
        this.handleVote(message);
        break;
      case 'voteResponse':
        this.handleVoteResponse(message);
        break;
      case 'beginQuorumEpoch':
        this.handleBeginQuorumEpoch(message);
        break;
      case 'endQuorumEpoch':
        this.handleEndQuorumEpoch(message);
        break;
      case 'fetch':
        this.handleFetch(message);
        break;
      case 'fetchResponse':
        this.handleFetchResponse(message);
        break;
      case 'fetchSnapshot':
        this.handleFetchSnapshot(message);
        break;
      case 'fetchSnapshotResponse':
        this.handleFetchSnapshotResponse(message);
        break;
      default:
        unreachable(message, 'message');
    }
    return this.q.drain();
  }

  /**
   * The transport saw the connection to our leader fail (refused, reset, closed: a killed
   * process's sockets are reset by its kernel at once). A follower stops counting the leader
   * as live (so it grants pre-votes to others who lost it too) and starts its own pre-vote
   * after a random delay in [0, electionTimeoutMs) (so two followers that both saw the reset
   * rarely split the vote), instead of waiting for the fetch timeout. Harmless when the leader
   * is fine: the other voters still fetch from it and refuse the pre-vote, naming it, and the
   * follower goes back to it. Ignored in other roles and while already pending.
   */
  leaderUnreachable(nowMs: number): Outbound[] {
    this.q.advanceTime(nowMs);
    const role = this.q.role;
    if (role instanceof FollowerState && role.electionAtMs === null) role.leaderLost(nowMs + this.q.random.int(this.q.config.electionTimeoutMs));
    return this.q.drain();
  }

  /**
   * Graceful resignation (controlled shutdown of the leader; KRaft's resign + EndQuorumEpoch):
   * a leader flushes, tells every other voter its epoch is over, naming its preferred successors
   * (most caught up first), and becomes unattached in its epoch having voted for itself, so it
   * can never lead that epoch again. The voters elect a successor at once. No-op unless leader.
   */
  resign(nowMs: number): Outbound[] {
    this.q.advanceTime(nowMs);
    const role = this.q.role;
    if (role instanceof LeaderState) {
      this.q.flushAndAdvance(role);
      const successors = [...role.replicas.entries()].sort((a, b) => b[1].endOffset - a[1].endOffset || a[0] - b[0]).map(([id]) => id);
      for (const id of successors) this.q.send(id, { type: 'endQuorumEpoch', from: this.q.config.nodeId, epoch: role.epoch, preferredSuccessors: successors });
      this.q.becomeUnattached(role.epoch, this.q.config.nodeId);
    }
    return this.q.drain();
  }

  /** Appends entries at the leader; they commit once a majority has them durably. */
  propose(data: readonly Uint8Array[], nowMs: number): ProposeResult {
    this.q.advanceTime(nowMs);
    const role = this.q.role;
    if (!(role instanceof LeaderState)) return { ok: false, error: 'not_leader', leaderId: this.q.leaderId };
    if (data.length === 0 || data.length > this.q.config.fetchEntriesMax) return { ok: false, error: 'invalid_request', leaderId: this.q.leaderId };
    if (this.q.log.endOffset - this.q.hw + data.length > this.q.config.uncommittedEntriesMax) return { ok: false, error: 'busy', leaderId: this.q.leaderId };
    const baseOffset = this.q.log.endOffset;
    this.q.log.append(data.map((d) => ({ epoch: role.epoch, kind: 'data' as const, data: d })));
    if (this.q.config.voters.length === 1) this.q.flushAndAdvance(role);
    return { ok: true, epoch: role.epoch, baseOffset, lastOffset: this.q.log.endOffset - 1 };
  }

  /**
   * Voters talk to voters; observers (any id outside the voter set) may only fetch (Fetch,
   * FetchSnapshot), and an observer takes nothing but answers to its fetches from voters.
   */
  private acceptsFrom(message: RaftMessage): boolean {
    const fromVoter = this.q.config.voters.includes(message.from);
    if (this.q.observer) return fromVoter && (message.type === 'fetchResponse' || message.type === 'fetchSnapshotResponse');
    return fromVoter || message.type === 'fetch' || message.type === 'fetchSnapshot';
  }

  // ---- elections ----------------------------------------------------------------------

  private handleVote(req: VoteRequest): void {
    const granted = req.epoch === this.q.role.epoch && this.wouldGrant(req);
    if (granted && !req.preVote) {
      // Durable before the answer leaves (writeQuorumState returns only when it is on disk).
      this.q.becomeUnattached(this.q.role.epoch, req.from);
    }
    const response: VoteResponse = {
      type: 'voteResponse',
      from: this.q.config.nodeId,
      epoch: this.q.role.epoch,
      preVote: req.preVote,
      granted,
      leaderId: this.q.liveLeaderId(),
    };
    this.q.send(req.from, response);
  }

  private wouldGrant(req: VoteRequest): boolean {
    const lastEpoch = lastEpochOf(this.q.log);
    const logOk = req.lastEpoch > lastEpoch || (req.lastEpoch === lastEpoch && req.endOffset >= this.q.log.endOffset);
    if (!logOk) return false;
    const role = this.q.role;
    if (req.preVote) {
      // Pre-vote: refuse while we have a live leader, so a rejoining node cannot disrupt it.
      if (role instanceof LeaderState) return false;
      if (role instanceof FollowerState) return !role.leaderAlive(this.q.nowMs, this.q.config.fetchTimeoutMs);
      return true;
    }
    if (role instanceof UnattachedState || role instanceof ProspectiveState) return role.votedFor === null || role.votedFor === req.from;
    return false; // follower (a leader exists in this epoch), candidate or leader (voted for itself)
  }

  private handleVoteResponse(resp: VoteResponse): void {
    const role = this.q.role;
    if (resp.epoch !== role.epoch) return;
    if (resp.leaderId !== null && resp.leaderId !== this.q.config.nodeId && (role instanceof ProspectiveState || role instanceof CandidateState || role instanceof UnattachedState)) {
      return this.q.becomeFollower(role.epoch, resp.leaderId, false);
    }
    if (!resp.granted) return;
    if (role instanceof ProspectiveState && resp.preVote) {
      role.tally.grant(resp.from);
      if (role.tally.hasMajority()) this.q.becomeCandidate();
    } else if (role instanceof CandidateState && !resp.preVote) {
      role.tally.grant(resp.from);
      if (role.tally.hasMajority()) this.q.becomeLeader();
    }
  }

  private handleBeginQuorumEpoch(msg: BeginQuorumEpoch): void {
    const role = this.q.role;
    if (msg.epoch !== role.epoch) return;
    if (role instanceof FollowerState) {
      invariant(role.leaderId === msg.from, `one leader per epoch: ${role.leaderId} and ${msg.from} in epoch ${role.epoch}`);
      role.heard(this.q.nowMs);
      return;
    }
    invariant(!(role instanceof LeaderState), `one leader per epoch: ${this.q.config.nodeId} and ${msg.from} in epoch ${role.epoch}`);
    this.q.becomeFollower(role.epoch, msg.from, true);
  }

  /**
   * Our leader resigned: the first preferred successor starts a pre-vote now, the k-th after
   * k request timeouts (if the earlier ones fail), a voter not named after an election timeout.
   * Meanwhile none of us counts the leader as live, so the pre-votes are granted.
   */
  private handleEndQuorumEpoch(msg: EndQuorumEpoch): void {
    const role = this.q.role;
    if (msg.epoch !== role.epoch || !(role instanceof FollowerState) || role.leaderId !== msg.from) return;
    this.q.noteResigned(msg.epoch, msg.from);
    const position = msg.preferredSuccessors.indexOf(this.q.config.nodeId);
    const delayMs = position < 0 ? this.q.electionTimeout() : position * this.q.config.requestTimeoutMs;
    role.leaderLost(this.q.nowMs + delayMs, true);
    if (delayMs === 0) this.q.becomeProspective();
  }

  // ---- replication: leader side -------------------------------------------------------

  private tickLeader(role: LeaderState): void {
    this.q.flushAndAdvance(role);
    role.expireObservers(this.q.nowMs, OBSERVER_EXPIRY_MS);
    if (!role.hasQuorum(this.q.nowMs, checkQuorumTimeoutMs(this.q.config))) {
      // Check-quorum: resign; we voted for ourselves in this epoch, so we cannot lead it again.
      this.q.becomeUnattached(role.epoch, this.q.config.nodeId);
      return;
    }
    this.q.sendBeginQuorumEpoch(role);
  }

  private handleFetch(req: FetchRequest): void {
    const role = this.q.role;
    if (req.epoch < role.epoch) return this.q.send(req.from, this.q.fetchResponse(req, 'fenced_epoch'));
    if (!(role instanceof LeaderState)) return this.q.send(req.from, this.q.fetchResponse(req, 'not_leader'));
    if (!Number.isSafeInteger(req.fetchOffset) || req.fetchOffset < 0 || req.lastFetchedEpoch < 0 || req.lastFetchedEpoch > role.epoch) return;
    const replica = role.fetcher(req.from); // a voter's state, or an observer's (never counted for commit)
    replica.lastFetchMs = this.q.nowMs;
    const start = logStartBoundary(this.q.log);
    if (start.offset > 0 && (req.fetchOffset < start.offset || req.lastFetchedEpoch < start.epoch || (req.fetchOffset === start.offset && req.lastFetchedEpoch !== start.epoch))) {
      // The follower needs entries we only have in the snapshot (or diverges below it): load the snapshot first.
      return this.q.send(req.from, this.q.fetchResponse(req, 'none', { snapshotId: start }));
    }
    if (req.fetchOffset > 0) {
      const ours = endOffsetForEpoch(this.q.log, req.lastFetchedEpoch);
      if (ours.epoch !== req.lastFetchedEpoch || ours.offset < req.fetchOffset) {
        return this.q.send(req.from, this.q.fetchResponse(req, 'none', { divergingEpoch: ours }));
      }
    }
    // The follower's log equals ours below fetchOffset (same offset and epoch => same prefix).
    replica.endOffset = req.fetchOffset;
    this.q.advanceLeaderHighWatermark(role);
    const entries = this.q.log.read(req.fetchOffset, this.q.config.fetchEntriesMax);
    this.q.send(req.from, this.q.fetchResponse(req, 'none', { entries }));
  }

  // ---- replication: follower side -----------------------------------------------------

  private tickFollower(role: FollowerState): void {
    // The leader is gone: silent for the fetch timeout, or known lost sooner (leaderUnreachable, EndQuorumEpoch).
    const leaderGone = role.electionAtMs !== null && this.q.nowMs >= role.electionAtMs;
    if (leaderGone || this.q.nowMs - role.fetchTimerStartMs >= this.q.config.fetchTimeoutMs) {
      // An observer cannot elect anyone: it forgets the silent leader and asks the voters again.
      if (this.q.observer) return this.q.becomeUnattached(role.epoch, null);
      return this.q.becomeProspective();
    }
    const inFlight = role.fetchSentMs !== null && this.q.nowMs - role.fetchSentMs < this.q.config.requestTimeoutMs;
    if (inFlight) return;
    if (role.snapshotFetch !== null) this.q.sendFetchSnapshot(role);
    else if (this.q.nowMs >= role.nextFetchMs) this.q.sendFetch(role);
  }

  private handleFetchResponse(resp: FetchResponse): void {
    let role = this.q.role;
    if (resp.epoch !== role.epoch) return; // stale (a later epoch was handled by observeHigherEpoch)
    if (!(role instanceof FollowerState)) {
      // Someone in our epoch knows the leader (we may be prospective/candidate/unattached).
      if (role instanceof LeaderState || resp.leaderId === null || resp.leaderId === this.q.config.nodeId) return;
      this.q.becomeFollower(role.epoch, resp.leaderId, resp.leaderId === resp.from);
      role = this.q.role;
      if (!(role instanceof FollowerState)) return;
    }
    // Our leader says it no longer leads (it resigned): an observer asks the voters again at once.
    if (this.q.observer && resp.error === 'not_leader' && resp.from === role.leaderId) return this.q.becomeUnattached(role.epoch, null);
    if (resp.error !== 'none' || resp.from !== role.leaderId || role.snapshotFetch !== null) return;
    // Only the answer to our current position counts; duplicates and reordered answers are dropped.
    if (resp.fetchOffset !== this.q.log.endOffset || resp.lastFetchedEpoch !== lastEpochOf(this.q.log)) return;
    role.heard(this.q.nowMs);
    role.fetchSentMs = null;
    if (resp.snapshotId !== null) {
      const id = resp.snapshotId;
      // Validated, not asserted: a snapshot must cover what we know is committed and end past our position.
      if (!Number.isSafeInteger(id.offset) || id.offset < this.q.hw || id.offset <= 0 || !Number.isSafeInteger(id.epoch) || id.epoch < 1 || id.epoch > role.epoch) return;
      role.snapshotFetch = new SnapshotFetch(id);
      return this.q.sendFetchSnapshot(role);
    }
    if (resp.divergingEpoch !== null) {
      this.q.truncateToEndOffset(resp.divergingEpoch);
      return this.q.sendFetch(role);
    }
    this.q.appendAsFollower(role, resp.entries);
    // Our log now equals the leader's up to our end offset, so its commits up to there are ours.
    const hw = Math.min(resp.highWatermark, this.q.log.endOffset);
    this.q.raiseHighWatermark(hw);
    if (resp.entries.length > 0) this.q.sendFetch(role);
    else role.nextFetchMs = this.q.nowMs + this.q.config.fetchBackoffMs;
  }

  // ---- snapshots (KRaft FetchSnapshot) -------------------------------------------------

  private handleFetchSnapshot(req: FetchSnapshotRequest): void {
    const role = this.q.role;
    const answer = (a: Pick<FetchSnapshotResponse, 'error' | 'size' | 'data'>): void =>
      this.q.send(req.from, { type: 'fetchSnapshotResponse', from: this.q.config.nodeId, epoch: role.epoch, leaderId: this.q.leaderId, snapshotId: req.snapshotId, position: req.position, ...a });
    if (req.epoch < role.epoch) return answer({ error: 'fenced_epoch', size: 0, data: EMPTY });
    if (!(role instanceof LeaderState)) return answer({ error: 'not_leader', size: 0, data: EMPTY });
    role.fetcher(req.from).lastFetchMs = this.q.nowMs; // a voter's counts for check-quorum, as a Fetch
    const chunk = snapshotChunk(this.q.log, req, this.q.config.snapshotChunkBytesMax);
    if (chunk !== null) answer(chunk);
  }

  private handleFetchSnapshotResponse(resp: FetchSnapshotResponse): void {
    const role = this.q.role;
    if (resp.epoch !== role.epoch || !(role instanceof FollowerState) || resp.from !== role.leaderId) return;
    const fetch = role.snapshotFetch;
    if (fetch === null || !fetch.answers(resp)) return;
    if (resp.error === 'snapshot_not_found') {
      // The leader has a newer snapshot: ask again where to start.
      role.heard(this.q.nowMs);
      role.snapshotFetch = null;
      return this.q.sendFetch(role);
    }
    if (resp.error !== 'none') return;
    const progress = fetch.accept(resp);
    if (progress === 'invalid') return;
    role.heard(this.q.nowMs);
    role.fetchSentMs = null;
    if (progress === 'more') return this.q.sendFetchSnapshot(role);
    role.snapshotFetch = null;
    if (fetch.id.offset < this.q.hw) return this.q.sendFetch(role); // we learnt more meanwhile; cannot happen with a correct leader
    // Replaces our log: it starts (and ends) at the snapshot's end; pollCommitted hands the snapshot to the state machine.
    this.q.log.installSnapshot({ endOffset: fetch.id.offset, epoch: fetch.id.epoch, data: fetch.assemble() });
    this.q.raiseHighWatermark(fetch.id.offset);
    this.q.sendFetch(role);
  }

}
