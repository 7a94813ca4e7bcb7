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
 * This file holds the inputs and what each message decides; the node's state,
 * the role transitions and the messages and log writes they make are its base
 * class, RaftNodeState (raft-node-state.ts).
 */
import { invariant, unreachable } from '../../util/assert.js';
import { FollowerState, LeaderState, ProspectiveState, CandidateState, UnattachedState, type RoleState } from './roles.js';
import { EMPTY, RaftNodeState } from './raft-node-state.js';
import { snapshotChunk, SnapshotFetch } from './snapshots.js';
import { endOffsetForEpoch, lastEpochOf, logStartBoundary } from './storage.js';
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
  type RaftEntry,
  type RaftMessage,
  type RaftSnapshot,
  type VoteRequest,
  type VoteResponse,
} from './types.js';

export class RaftNode extends RaftNodeState {
  get nodeId(): NodeId {
    return this.config.nodeId;
  }
  get epoch(): number {
    return this.role.epoch;
  }
  get roleName(): RoleState['name'] {
    return this.role.name;
  }
  /** Not in the voter set: fetches and applies the log, never votes or leads. */
  get isObserver(): boolean {
    return this.observer;
  }
  /** The leader's view of the observers fetching from it (DescribeQuorum's Observers); empty elsewhere. */
  observerStates(): { readonly id: NodeId; readonly endOffset: number; readonly lastFetchMs: number | null }[] {
    const role = this.role;
    if (!(role instanceof LeaderState)) return [];
    return [...role.observers].map(([id, o]) => ({ id, endOffset: o.endOffset, lastFetchMs: o.lastFetchMs }));
  }
  /** Offset after the last committed entry this node knows of; never goes back while the node runs. */
  get highWatermark(): number {
    return this.hw;
  }
  get endOffset(): number {
    return this.log.endOffset;
  }
  get logStartOffset(): number {
    return this.log.logStartOffset;
  }
  /** Offset after the last entry (or snapshot) pollCommitted has handed out. */
  get appliedOffset(): number {
    return this.delivery.delivered;
  }
  latestSnapshot(): RaftSnapshot | null {
    return this.log.latestSnapshot();
  }

  /**
   * The next things for the state machine, in order: first the latest snapshot when the
   * state machine is behind the log start (at start, or after the follower installed one),
   * then committed entries (at most `countMax` per call). Call until it returns nothing.
   */
  pollCommitted(countMax: number = this.config.fetchEntriesMax): CommittedEvent[] {
    return this.delivery.poll(this.hw, countMax);
  }

  /**
   * The owner serialized its state machine after applying every entry before `endOffset`
   * (≤ appliedOffset ≤ high watermark): store it as a snapshot (durably) and drop the
   * log prefix it covers. Followers behind the new log start will load it (FetchSnapshot).
   */
  createSnapshot(endOffset: number, data: Uint8Array): RaftSnapshot {
    return this.delivery.createSnapshot(endOffset, data, this.hw);
  }

  /** Committed entries from `fromOffset` (up to `countMax`). */
  readCommitted(fromOffset: number, countMax: number): RaftEntry[] {
    if (fromOffset >= this.hw || fromOffset < this.log.logStartOffset) return [];
    return this.log.read(fromOffset, Math.min(countMax, this.hw - fromOffset));
  }

  tick(nowMs: number): Outbound[] {
    this.advanceTime(nowMs);
    const role = this.role;
    switch (role.name) {
      case 'unattached':
        if (nowMs < role.electionDeadlineMs) break;
        if (this.observer) this.discoverLeader(role);
        else this.becomeProspective();
        break;
      case 'follower':
        this.tickFollower(role);
        break;
      case 'prospective':
        if (nowMs >= role.electionDeadlineMs) this.becomeProspective();
        else this.sendVoteRequests(role.tally.due(nowMs, this.config.requestTimeoutMs), true);
        break;
      case 'candidate':
        if (nowMs >= role.electionDeadlineMs) this.becomeProspective();
        else this.sendVoteRequests(role.tally.due(nowMs, this.config.requestTimeoutMs), false);
        break;
      case 'leader':
        this.tickLeader(role);
        break;
      default:
        unreachable(role, 'role');
    }
    return this.drain();
  }

  receive(message: RaftMessage, nowMs: number): Outbound[] {
    this.advanceTime(nowMs);
    if (message.from === this.config.nodeId || !this.acceptsFrom(message)) return this.drain();
    if (message.epoch > this.role.epoch) this.observeHigherEpoch(message);
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
    return this.drain();
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
    this.advanceTime(nowMs);
    const role = this.role;
    if (role instanceof FollowerState && role.electionAtMs === null) role.leaderLost(nowMs + this.random.int(this.config.electionTimeoutMs));
    return this.drain();
  }

  /**
   * Graceful resignation (controlled shutdown of the leader; KRaft's resign + EndQuorumEpoch):
   * a leader flushes, tells every other voter its epoch is over, naming its preferred successors
   * (most caught up first), and becomes unattached in its epoch having voted for itself, so it
   * can never lead that epoch again. The voters elect a successor at once. No-op unless leader.
   */
  resign(nowMs: number): Outbound[] {
    this.advanceTime(nowMs);
    const role = this.role;
    if (role instanceof LeaderState) {
      this.flushAndAdvance(role);
      const successors = [...role.replicas.entries()].sort((a, b) => b[1].endOffset - a[1].endOffset || a[0] - b[0]).map(([id]) => id);
      for (const id of successors) this.send(id, { type: 'endQuorumEpoch', from: this.config.nodeId, epoch: role.epoch, preferredSuccessors: successors });
      this.becomeUnattached(role.epoch, this.config.nodeId);
    }
    return this.drain();
  }

  /** Appends entries at the leader; they commit once a majority has them durably. */
  propose(data: readonly Uint8Array[], nowMs: number): ProposeResult {
    this.advanceTime(nowMs);
    const role = this.role;
    if (!(role instanceof LeaderState)) return { ok: false, error: 'not_leader', leaderId: this.leaderId };
    if (data.length === 0 || data.length > this.config.fetchEntriesMax) return { ok: false, error: 'invalid_request', leaderId: this.leaderId };
    if (this.log.endOffset - this.hw + data.length > this.config.uncommittedEntriesMax) return { ok: false, error: 'busy', leaderId: this.leaderId };
    const baseOffset = this.log.endOffset;
    this.log.append(data.map((d) => ({ epoch: role.epoch, kind: 'data' as const, data: d })));
    if (this.config.voters.length === 1) this.flushAndAdvance(role);
    return { ok: true, epoch: role.epoch, baseOffset, lastOffset: this.log.endOffset - 1 };
  }

  /**
   * Voters talk to voters; observers (any id outside the voter set) may only fetch (Fetch,
   * FetchSnapshot), and an observer takes nothing but answers to its fetches from voters.
   */
  private acceptsFrom(message: RaftMessage): boolean {
    const fromVoter = this.config.voters.includes(message.from);
    if (this.observer) return fromVoter && (message.type === 'fetchResponse' || message.type === 'fetchSnapshotResponse');
    return fromVoter || message.type === 'fetch' || message.type === 'fetchSnapshot';
  }

  // ---- elections ----------------------------------------------------------------------

  private handleVote(req: VoteRequest): void {
    const granted = req.epoch === this.role.epoch && this.wouldGrant(req);
    if (granted && !req.preVote) {
      // Durable before the answer leaves (writeQuorumState returns only when it is on disk).
      this.becomeUnattached(this.role.epoch, req.from);
    }
    const response: VoteResponse = {
      type: 'voteResponse',
      from: this.config.nodeId,
      epoch: this.role.epoch,
      preVote: req.preVote,
      granted,
      leaderId: this.liveLeaderId(),
    };
    this.send(req.from, response);
  }

  private wouldGrant(req: VoteRequest): boolean {
    const lastEpoch = lastEpochOf(this.log);
    const logOk = req.lastEpoch > lastEpoch || (req.lastEpoch === lastEpoch && req.endOffset >= this.log.endOffset);
    if (!logOk) return false;
    const role = this.role;
    if (req.preVote) {
      // Pre-vote: refuse while we have a live leader, so a rejoining node cannot disrupt it.
      if (role instanceof LeaderState) return false;
      if (role instanceof FollowerState) return !role.leaderAlive(this.nowMs, this.config.fetchTimeoutMs);
      return true;
    }
    if (role instanceof UnattachedState || role instanceof ProspectiveState) return role.votedFor === null || role.votedFor === req.from;
    return false; // follower (a leader exists in this epoch), candidate or leader (voted for itself)
  }

  private handleVoteResponse(resp: VoteResponse): void {
    const role = this.role;
    if (resp.epoch !== role.epoch) return;
    if (resp.leaderId !== null && resp.leaderId !== this.config.nodeId && (role instanceof ProspectiveState || role instanceof CandidateState || role instanceof UnattachedState)) {
      return this.becomeFollower(role.epoch, resp.leaderId, false);
    }
    if (!resp.granted) return;
    if (role instanceof ProspectiveState && resp.preVote) {
      role.tally.grant(resp.from);
      if (role.tally.hasMajority()) this.becomeCandidate();
    } else if (role instanceof CandidateState && !resp.preVote) {
      role.tally.grant(resp.from);
      if (role.tally.hasMajority()) this.becomeLeader();
    }
  }

  private handleBeginQuorumEpoch(msg: BeginQuorumEpoch): void {
    const role = this.role;
    if (msg.epoch !== role.epoch) return;
    if (role instanceof FollowerState) {
      invariant(role.leaderId === msg.from, `one leader per epoch: ${role.leaderId} and ${msg.from} in epoch ${role.epoch}`);
      role.heard(this.nowMs);
      return;
    }
    invariant(!(role instanceof LeaderState), `one leader per epoch: ${this.config.nodeId} and ${msg.from} in epoch ${role.epoch}`);
    this.becomeFollower(role.epoch, msg.from, true);
  }

  /**
   * Our leader resigned: the first preferred successor starts a pre-vote now, the k-th after
   * k request timeouts (if the earlier ones fail), a voter not named after an election timeout.
   * Meanwhile none of us counts the leader as live, so the pre-votes are granted.
   */
  private handleEndQuorumEpoch(msg: EndQuorumEpoch): void {
    const role = this.role;
    if (msg.epoch !== role.epoch || !(role instanceof FollowerState) || role.leaderId !== msg.from) return;
    this.resigned = { epoch: msg.epoch, leaderId: msg.from };
    const position = msg.preferredSuccessors.indexOf(this.config.nodeId);
    const delayMs = position < 0 ? this.electionTimeout() : position * this.config.requestTimeoutMs;
    role.leaderLost(this.nowMs + delayMs, true);
    if (delayMs === 0) this.becomeProspective();
  }

  // ---- replication: leader side -------------------------------------------------------

  private tickLeader(role: LeaderState): void {
    this.flushAndAdvance(role);
    role.expireObservers(this.nowMs, OBSERVER_EXPIRY_MS);
    if (!role.hasQuorum(this.nowMs, checkQuorumTimeoutMs(this.config))) {
      // Check-quorum: resign; we voted for ourselves in this epoch, so we cannot lead it again.
      this.becomeUnattached(role.epoch, this.config.nodeId);
      return;
    }
    this.sendBeginQuorumEpoch(role);
  }

  private handleFetch(req: FetchRequest): void {
    const role = this.role;
    if (req.epoch < role.epoch) return this.send(req.from, this.fetchResponse(req, 'fenced_epoch'));
    if (!(role instanceof LeaderState)) return this.send(req.from, this.fetchResponse(req, 'not_leader'));
    if (!Number.isSafeInteger(req.fetchOffset) || req.fetchOffset < 0 || req.lastFetchedEpoch < 0 || req.lastFetchedEpoch > role.epoch) return;
    const replica = role.fetcher(req.from); // a voter's state, or an observer's (never counted for commit)
    replica.lastFetchMs = this.nowMs;
    const start = logStartBoundary(this.log);
    if (start.offset > 0 && (req.fetchOffset < start.offset || req.lastFetchedEpoch < start.epoch || (req.fetchOffset === start.offset && req.lastFetchedEpoch !== start.epoch))) {
      // The follower needs entries we only have in the snapshot (or diverges below it): load the snapshot first.
      return this.send(req.from, this.fetchResponse(req, 'none', { snapshotId: start }));
    }
    if (req.fetchOffset > 0) {
      const ours = endOffsetForEpoch(this.log, req.lastFetchedEpoch);
      if (ours.epoch !== req.lastFetchedEpoch || ours.offset < req.fetchOffset) {
        return this.send(req.from, this.fetchResponse(req, 'none', { divergingEpoch: ours }));
      }
    }
    // The follower's log equals ours below fetchOffset (same offset and epoch => same prefix).
    replica.endOffset = req.fetchOffset;
    this.advanceLeaderHighWatermark(role);
    const entries = this.log.read(req.fetchOffset, this.config.fetchEntriesMax);
    this.send(req.from, this.fetchResponse(req, 'none', { entries }));
  }

  // ---- replication: follower side -----------------------------------------------------

  private tickFollower(role: FollowerState): void {
    // The leader is gone: silent for the fetch timeout, or known lost sooner (leaderUnreachable, EndQuorumEpoch).
    const leaderGone = role.electionAtMs !== null && this.nowMs >= role.electionAtMs;
    if (leaderGone || this.nowMs - role.fetchTimerStartMs >= this.config.fetchTimeoutMs) {
      // An observer cannot elect anyone: it forgets the silent leader and asks the voters again.
      if (this.observer) return this.becomeUnattached(role.epoch, null);
      return this.becomeProspective();
    }
    const inFlight = role.fetchSentMs !== null && this.nowMs - role.fetchSentMs < this.config.requestTimeoutMs;
    if (inFlight) return;
    if (role.snapshotFetch !== null) this.sendFetchSnapshot(role);
    else if (this.nowMs >= role.nextFetchMs) this.sendFetch(role);
  }

  private handleFetchResponse(resp: FetchResponse): void {
    let role = this.role;
    if (resp.epoch !== role.epoch) return; // stale (a later epoch was handled by observeHigherEpoch)
    if (!(role instanceof FollowerState)) {
      // Someone in our epoch knows the leader (we may be prospective/candidate/unattached).
      if (role instanceof LeaderState || resp.leaderId === null || resp.leaderId === this.config.nodeId) return;
      this.becomeFollower(role.epoch, resp.leaderId, resp.leaderId === resp.from);
      role = this.role;
      if (!(role instanceof FollowerState)) return;
    }
    // Our leader says it no longer leads (it resigned): an observer asks the voters again at once.
    if (this.observer && resp.error === 'not_leader' && resp.from === role.leaderId) return this.becomeUnattached(role.epoch, null);
    if (resp.error !== 'none' || resp.from !== role.leaderId || role.snapshotFetch !== null) return;
    // Only the answer to our current position counts; duplicates and reordered answers are dropped.
    if (resp.fetchOffset !== this.log.endOffset || resp.lastFetchedEpoch !== lastEpochOf(this.log)) return;
    role.heard(this.nowMs);
    role.fetchSentMs = null;
    if (resp.snapshotId !== null) {
      const id = resp.snapshotId;
      // Validated, not asserted: a snapshot must cover what we know is committed and end past our position.
      if (!Number.isSafeInteger(id.offset) || id.offset < this.hw || id.offset <= 0 || !Number.isSafeInteger(id.epoch) || id.epoch < 1 || id.epoch > role.epoch) return;
      role.snapshotFetch = new SnapshotFetch(id);
      return this.sendFetchSnapshot(role);
    }
    if (resp.divergingEpoch !== null) {
      this.truncateToEndOffset(resp.divergingEpoch);
      return this.sendFetch(role);
    }
    this.appendAsFollower(role, resp.entries);
    // Our log now equals the leader's up to our end offset, so its commits up to there are ours.
    const hw = Math.min(resp.highWatermark, this.log.endOffset);
    if (hw > this.hw) this.hw = hw;
    if (resp.entries.length > 0) this.sendFetch(role);
    else role.nextFetchMs = this.nowMs + this.config.fetchBackoffMs;
  }

  // ---- snapshots (KRaft FetchSnapshot) -------------------------------------------------

  private handleFetchSnapshot(req: FetchSnapshotRequest): void {
    const role = this.role;
    const answer = (a: Pick<FetchSnapshotResponse, 'error' | 'size' | 'data'>): void =>
      this.send(req.from, { type: 'fetchSnapshotResponse', from: this.config.nodeId, epoch: role.epoch, leaderId: this.leaderId, snapshotId: req.snapshotId, position: req.position, ...a });
    if (req.epoch < role.epoch) return answer({ error: 'fenced_epoch', size: 0, data: EMPTY });
    if (!(role instanceof LeaderState)) return answer({ error: 'not_leader', size: 0, data: EMPTY });
    role.fetcher(req.from).lastFetchMs = this.nowMs; // a voter's counts for check-quorum, as a Fetch
    const chunk = snapshotChunk(this.log, req, this.config.snapshotChunkBytesMax);
    if (chunk !== null) answer(chunk);
  }

  private handleFetchSnapshotResponse(resp: FetchSnapshotResponse): void {
    const role = this.role;
    if (resp.epoch !== role.epoch || !(role instanceof FollowerState) || resp.from !== role.leaderId) return;
    const fetch = role.snapshotFetch;
    if (fetch === null || !fetch.answers(resp)) return;
    if (resp.error === 'snapshot_not_found') {
      // The leader has a newer snapshot: ask again where to start.
      role.heard(this.nowMs);
      role.snapshotFetch = null;
      return this.sendFetch(role);
    }
    if (resp.error !== 'none') return;
    const progress = fetch.accept(resp);
    if (progress === 'invalid') return;
    role.heard(this.nowMs);
    role.fetchSentMs = null;
    if (progress === 'more') return this.sendFetchSnapshot(role);
    role.snapshotFetch = null;
    if (fetch.id.offset < this.hw) return this.sendFetch(role); // we learnt more meanwhile; cannot happen with a correct leader
    // Replaces our log: it starts (and ends) at the snapshot's end; pollCommitted hands the snapshot to the state machine.
    this.log.installSnapshot({ endOffset: fetch.id.offset, epoch: fetch.id.epoch, data: fetch.assemble() });
    this.hw = Math.max(this.hw, fetch.id.offset);
    this.sendFetch(role);
  }

}
