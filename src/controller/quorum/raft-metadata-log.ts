/**
 * RaftMetadataLog: the MetadataLog (../metadata-log.ts) over the Raft core,
 * on the network. It owns what the pure RaftNode does not: the clock (the
 * injected Clock's monotonic ms), ONE periodic timer (`tick` every
 * `tickIntervalMs`), the transport, the file storage, and delivery.
 *
 *  - Delivery: after every tick, received message and proposal the commits
 *    reach the listener as MetadataBatches, in order, exactly once
 *    (metadata-delivery.ts, which also keeps the "shadow" image it snapshots).
 *  - start(): the committed state known locally at start: the latest
 *    snapshot (Raft relearns the high watermark from the leader). One voter:
 *    it elects itself at once, so the whole log is replayed before start
 *    resolves.
 *  - Observer mode: a `nodeId` outside `voters` (a broker-only node) runs
 *    the core as an observer: it only sends Fetch/FetchSnapshot to the
 *    voters' controller listeners, applies what commits, never votes, and
 *    serves no quorum RPCs (it has no controller listener). `append` there
 *    rejects with NotLeaderError naming the leader, so forwarding works.
 *  - append(): only on the active leader (`isLeader`): leader of the current
 *    epoch AND its leader-change entry applied (so everything committed
 *    before it is in the image first). Resolves when the batch is committed
 *    and delivered; rejects with NotLeaderError (leaderId, endpoint) on a
 *    follower or when leadership is lost before the commit.
 *  - Snapshots: every `snapshotIntervalRecords` delivered records (or
 *    `snapshotIntervalBytes` bytes), by metadata-delivery.ts.
 *  - Fetch long poll of the leader: fetch-long-poll.ts. Options, defaults,
 *    NotLeaderError and LeaderChange: raft-metadata-log-options.ts (re-exported).
 */
import { encodeMetadataBatch } from '../metadata/batch.js';
import type { MetadataRecord } from '../metadata/records.js';
import { MetadataLogError, type AppendedRange, type CommitListener, type MetadataLog } from '../metadata-log.js';
import { RaftNode } from '../raft/raft-node.js';
import { DEFAULT_RAFT_TIMEOUTS, type FetchRequest, type NodeId, type Outbound, type RaftConfig, type RaftMessage } from '../raft/types.js';
import { FetchLongPoll } from './fetch-long-poll.js';
import { FileRaftStorage } from './file-raft-storage.js';
import { MetadataDelivery } from './metadata-delivery.js';
import { FETCH_BACKOFF_MS_DEFAULT, NotLeaderError, RAFT_TICK_INTERVAL_MS_DEFAULT, RESIGN_WAIT_MS_DEFAULT, type LeaderChange, type RaftMetadataLogOptions } from './raft-metadata-log-options.js';
import { RaftService, type QuorumDescription, type RaftEndpoint, type VoterState } from './raft-service.js';
import type { RaftTransport, VoterEndpoint } from './transport.js';

export {
  FETCH_BACKOFF_MS_DEFAULT,
  NotLeaderError,
  RAFT_TICK_INTERVAL_MS_DEFAULT,
  RESIGN_WAIT_MS_DEFAULT,
  SNAPSHOT_INTERVAL_BYTES_DEFAULT,
  SNAPSHOT_INTERVAL_RECORDS_DEFAULT,
  type LeaderChange,
  type RaftMetadataLogOptions,
  type RaftTimeouts,
  type RaftTimer,
} from './raft-metadata-log-options.js';

interface PendingAppend {
  readonly epoch: number;
  readonly entryOffset: number;
  readonly range: AppendedRange;
  readonly resolve: (r: AppendedRange) => void;
  readonly reject: (err: Error) => void;
}

interface FollowerProgress {
  logEndOffset: number;
  lastFetchMs: number;
  lastCaughtUpMs: number;
}

export class RaftMetadataLog implements MetadataLog, RaftEndpoint {
  /** Opened by start() (after the boot path has checked meta.properties). */
  private storageOrNull: FileRaftStorage | null = null;
  private readonly config: RaftConfig;
  private node: RaftNode | null = null;
  private transport: RaftTransport | null = null;
  private cancelTimer: (() => void) | null = null;
  private state: 'new' | 'started' | 'failed' | 'closed' = 'new';
  private failure: Error | null = null;
  private readonly delivery: MetadataDelivery;
  private pending: PendingAppend[] = [];
  /** Node time = monotonic + skew (a lone voter starts past its election timeout). */
  private skewMs = 0;
  private leaderEpochStart: { epoch: number; offset: number } | null = null;
  private lastAnnounced: LeaderChange = { leaderId: null, epoch: -1, isLeader: false };
  private readonly leaderListeners = new Set<(change: LeaderChange) => void>();
  private readonly progress = new Map<NodeId, FollowerProgress>();
  private readonly longPoll: FetchLongPoll;
  /** The handlers' entry point (quorum RPCs). */
  readonly service: RaftService;

  private constructor(private readonly opts: RaftMetadataLogOptions) {
    this.config = { ...DEFAULT_RAFT_TIMEOUTS, fetchBackoffMs: FETCH_BACKOFF_MS_DEFAULT, ...opts.raft, nodeId: opts.nodeId, voters: opts.voters.map((v) => v.id) };
    this.delivery = new MetadataDelivery({
      clock: opts.clock,
      clusterId: opts.clusterId,
      snapshotIntervalRecords: opts.snapshotIntervalRecords,
      snapshotIntervalBytes: opts.snapshotIntervalBytes,
      onEntryDelivered: (entryOffset) => this.resolveAppended(entryOffset),
    });
    this.longPoll = new FetchLongPoll({
      nowMs: () => this.nowMs(),
      isStarted: () => this.state === 'started',
      endOffset: () => this.storageOrNull?.endOffset ?? 0,
      answer: (message) => this.receiveRequest(message),
    });
    this.service = new RaftService(this);
  }

  /** Nothing is read or run until start() (which opens and recovers the storage). */
  static open(opts: RaftMetadataLogOptions): RaftMetadataLog {
    return new RaftMetadataLog(opts);
  }

  get clusterId(): string | null {
    return this.opts.clusterId;
  }

  // ---- MetadataLog --------------------------------------------------------------------

  get highWatermark(): bigint {
    return this.delivery.nextRecordOffset;
  }

  get endOffset(): bigint {
    return this.storageOrNull?.nextRecordOffset ?? 0n;
  }

  private get storage(): FileRaftStorage {
    const s = this.storageOrNull;
    if (s === null) throw new MetadataLogError('ERR_TRIB_METADATA_NOT_STARTED', 'the metadata log is not started');
    return s;
  }

  async start(listener: CommitListener): Promise<void> {
    if (this.state !== 'new') throw new MetadataLogError('ERR_TRIB_METADATA_NOT_STARTED', `start() called on a ${this.state} metadata log`);
    this.delivery.listener = listener;
    const opts = this.opts;
    try {
      this.storageOrNull = new FileRaftStorage({ fs: opts.fs, clock: opts.clock, dataDir: opts.dataDir, nodeId: opts.nodeId, voters: this.config.voters, logConfig: opts.logConfig });
    } catch (err) {
      this.state = 'failed';
      throw err instanceof MetadataLogError ? err : new MetadataLogError('ERR_TRIB_METADATA_FAILED', `cannot open the metadata log: ${(err as Error).message}`, { cause: err });
    }
    for (const w of this.storage.warnings) opts.onWarning?.(w);
    const lone = this.config.voters.length === 1 && this.config.voters[0] === opts.nodeId;
    this.skewMs = lone ? 2 * this.config.electionTimeoutMs : 0;
    let node: RaftNode;
    try {
      node = new RaftNode(this.config, this.storage, this.opts.random, this.nowMs() - this.skewMs);
    } catch (err) {
      this.state = 'failed';
      this.storage.close();
      throw err;
    }
    this.node = node;
    // A lone voter never sends a message: no transport (its client code is not even loaded).
    this.transport = this.opts.transport?.((m) => this.receiveResponse(m)) ?? (lone ? null : await this.networkTransport());
    this.state = 'started';
    this.tick(); // a lone voter elects itself here and commits its whole log
    if (this.failure !== null) throw this.failure;
    this.cancelTimer = this.opts.timer.every(this.opts.tickIntervalMs ?? RAFT_TICK_INTERVAL_MS_DEFAULT, () => this.tick());
  }

  async append(records: readonly MetadataRecord[]): Promise<AppendedRange> {
    if (this.state !== 'started' || this.node === null) {
      const code = this.state === 'closed' ? 'ERR_TRIB_METADATA_CLOSED' : this.state === 'failed' ? 'ERR_TRIB_METADATA_FAILED' : 'ERR_TRIB_METADATA_NOT_STARTED';
      throw new MetadataLogError(code, `metadata log is ${this.state}`, this.failure === null ? undefined : { cause: this.failure });
    }
    if (!this.isLeader) throw this.notLeader();
    const node = this.node;
    const bytes = encodeMetadataBatch(records, { timestampMs: this.opts.clock.nowMs(), epoch: node.epoch });
    let result;
    try {
      result = node.propose([bytes], this.nowMs());
    } catch (err) {
      // The log may hold a batch nobody will deliver: stop (refuse further appends).
      this.fail(err);
      throw this.failure ?? err;
    }
    if (!result.ok) {
      if (result.error === 'not_leader') throw this.notLeader();
      throw new MetadataLogError('ERR_TRIB_METADATA_FAILED', `the metadata quorum refused the append: ${result.error}`);
    }
    const range = this.storage.recordRange(result.baseOffset);
    if (range === undefined) throw new MetadataLogError('ERR_TRIB_METADATA_FAILED', 'the proposed batch is not in the log');
    const done = new Promise<AppendedRange>((resolve, reject) => {
      this.pending.push({ epoch: result.epoch, entryOffset: result.lastOffset, range, resolve, reject });
    });
    // Flush and advance now rather than at the next tick (a lone voter already committed in propose).
    this.tick();
    return done;
  }

  /**
   * Graceful handover (SIGTERM of the leader; KRaft's resign): the leader tells the other voters
   * its epoch is over (EndQuorumEpoch, most caught-up successor first), stops leading (pending
   * appends reject with NotLeaderError), and waits up to `timeoutMs` for another voter to lead.
   * Resolves true when one does (or there was nothing to hand over), false on timeout.
   */
  async resign(timeoutMs: number = RESIGN_WAIT_MS_DEFAULT): Promise<boolean> {
    const node = this.node;
    if (node === null || this.state !== 'started' || node.roleName !== 'leader' || this.config.voters.length < 2) return true;
    this.send(this.step(() => node.resign(this.nowMs())));
    const deadlineMs = this.nowMs() + timeoutMs;
    const successor = (): boolean => this.leaderId !== null && this.leaderId !== this.opts.nodeId;
    if (successor()) return true;
    return new Promise((resolve) => {
      const cancel = this.opts.timer.every(10, () => {
        if (!successor() && this.state === 'started' && this.nowMs() < deadlineMs) return;
        cancel();
        resolve(successor());
      });
    });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    // A leader closing without resign() first still ends its epoch for the others (the bytes leave as the connections close).
    const node = this.node;
    if (node !== null && this.state === 'started' && node.roleName === 'leader' && this.config.voters.length > 1) this.send(this.step(() => node.resign(this.nowMs())));
    this.state = 'closed';
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.rejectPending(new MetadataLogError('ERR_TRIB_METADATA_CLOSED', 'metadata log closed'));
    this.longPoll.releaseAll();
    await this.transport?.close();
    this.storageOrNull?.close();
  }

  // ---- leadership (for the controller / forwarding) --------------------------------------

  get leaderId(): NodeId | null {
    return this.node?.leaderId ?? null;
  }

  get epoch(): number {
    return this.node?.epoch ?? this.storageOrNull?.readQuorumState().epoch ?? 0;
  }

  get logStartOffset(): number {
    return this.storageOrNull?.logStartOffset ?? 0;
  }

  /** Leader of the current epoch with its leader-change entry applied: may append. */
  /** Not a voter (a broker-only node): fetches and applies, never leads. */
  get isObserver(): boolean {
    return !this.config.voters.includes(this.opts.nodeId);
  }

  get isLeader(): boolean {
    const node = this.node;
    if (node === null || this.state !== 'started' || node.roleName !== 'leader') return false;
    const start = this.leaderEpochStart;
    return start !== null && start.epoch === node.epoch && node.appliedOffset > start.offset;
  }

  leaderEndpoint(): VoterEndpoint | null {
    const id = this.leaderId;
    return id === null ? null : (this.opts.voters.find((v) => v.id === id) ?? null);
  }

  /** Called on every change of (leaderId, epoch, isLeader); returns unsubscribe. */
  onLeaderChange(listener: (change: LeaderChange) => void): () => void {
    this.leaderListeners.add(listener);
    return () => this.leaderListeners.delete(listener);
  }

  private notLeader(): NotLeaderError {
    const ep = this.leaderEndpoint();
    const where = ep === null ? 'no leader is known' : `the leader is node ${ep.id} at ${ep.host}:${ep.port}`;
    return new NotLeaderError(this.leaderId, ep, `node ${this.opts.nodeId} is not the active metadata leader; ${where}`);
  }

  // ---- the node -------------------------------------------------------------------------

  private nowMs(): number {
    return this.opts.clock.monotonicMs() + this.skewMs;
  }

  private async networkTransport(): Promise<RaftTransport> {
    const { KafkaRaftTransport } = await import('./transport.js');
    return new KafkaRaftTransport({
      self: this.opts.nodeId,
      voters: this.opts.voters,
      clusterId: this.opts.clusterId,
      clock: this.opts.clock,
      deliver: (m) => this.receiveResponse(m),
      requestTimeoutMs: Math.max(1000, 5 * this.config.requestTimeoutMs),
      snapshotChunkBytesMax: this.config.snapshotChunkBytesMax,
      onWarning: this.opts.onWarning,
      security: this.opts.security,
      onPeerUnreachable: (id) => this.peerUnreachable(id),
    });
  }

  /** The transport lost its connection to voter `id`: if that is our leader, the node need not wait for its fetch timeout. */
  private peerUnreachable(id: NodeId): void {
    const node = this.node;
    if (node === null || node.roleName !== 'follower' || node.leaderId !== id) return;
    this.send(this.step(() => node.leaderUnreachable(this.nowMs())));
  }

  private tick(): void {
    const node = this.node;
    if (node !== null && this.state === 'started') this.send(this.step(() => node.tick(this.nowMs())));
  }

  /** Runs one node step and delivers commits; returns the messages to send. An exception fails the log. */
  private step(run: () => Outbound[]): Outbound[] {
    if (this.state !== 'started') return [];
    try {
      const out = run();
      this.afterStep();
      return out;
    } catch (err) {
      this.fail(err);
      return [];
    }
  }

  private send(out: readonly Outbound[]): void {
    for (const o of out) this.transport?.send(o);
  }

  private receiveResponse(message: RaftMessage): void {
    const node = this.node;
    if (node === null) return;
    this.send(this.step(() => node.receive(message, this.nowMs())));
  }

  /**
   * RaftEndpoint: an inbound Fetch. The leader answers at once when the answer
   * carries news (entries, a divergence, a snapshot id, an error, a high
   * watermark the follower has not been sent); otherwise it holds the request
   * until its log grows, its high watermark moves, its epoch or role changes,
   * or min(maxWaitMs, 3/4 of requestTimeoutMs) passes (the follower resends
   * after requestTimeoutMs), then asks the node again.
   */
  receiveFetch(message: FetchRequest, maxWaitMs: number): Promise<RaftMessage | null> {
    const answer = this.receiveRequest(message);
    const node = this.node;
    const waitMs = Math.min(maxWaitMs, Math.floor((this.config.requestTimeoutMs * 3) / 4));
    if (answer === null || node === null || answer.type !== 'fetchResponse' || waitMs <= 0) return Promise.resolve(answer);
    return this.longPoll.answerOrHold(message, answer, node, waitMs);
  }

  /** RaftEndpoint: an inbound request; returns the node's answer to its sender. */
  receiveRequest(message: RaftMessage): RaftMessage | null {
    const node = this.node;
    if (node === null || this.state !== 'started') return null;
    if (message.type === 'fetch' && node.roleName === 'leader') this.noteFetch(message.from, message.fetchOffset);
    const out = this.step(() => node.receive(message, this.nowMs()));
    let answer: RaftMessage | null = null;
    const rest: Outbound[] = [];
    for (const o of out) {
      const t = o.message.type;
      const isAnswer = o.to === message.from && (t === 'voteResponse' || t === 'fetchResponse' || t === 'fetchSnapshotResponse');
      if (isAnswer && answer === null) answer = o.message;
      else rest.push(o);
    }
    this.send(rest);
    return answer;
  }

  private afterStep(): void {
    const node = this.node;
    if (node === null) return;
    if (node.roleName === 'leader' && (this.leaderEpochStart === null || this.leaderEpochStart.epoch !== node.epoch)) {
      // The core appended its leader-change entry last when it became leader.
      this.leaderEpochStart = { epoch: node.epoch, offset: this.storage.endOffset - 1 };
      this.progress.clear();
      this.longPoll.forgetSent();
    }
    this.delivery.deliver(node);
    if (node.roleName !== 'leader' || this.pending.some((p) => p.epoch !== node.epoch)) {
      const lost = this.pending.filter((p) => node.roleName !== 'leader' || p.epoch !== node.epoch);
      this.pending = this.pending.filter((p) => !lost.includes(p));
      for (const p of lost) p.reject(this.notLeader());
    }
    this.delivery.maybeSnapshot(node);
    this.announceLeader();
    this.longPoll.completeDue(node);
  }

  /** The appends whose last entry is at or before `entryOffset` have been delivered: they resolve. */
  private resolveAppended(entryOffset: number): void {
    for (const p of this.pending.filter((q) => q.entryOffset <= entryOffset)) p.resolve(p.range);
    this.pending = this.pending.filter((q) => q.entryOffset > entryOffset);
  }

  private announceLeader(): void {
    const now: LeaderChange = { leaderId: this.leaderId, epoch: this.epoch, isLeader: this.isLeader };
    const last = this.lastAnnounced;
    if (now.leaderId === last.leaderId && now.epoch === last.epoch && now.isLeader === last.isLeader) return;
    this.lastAnnounced = now;
    for (const l of [...this.leaderListeners]) {
      try {
        l(now);
      } catch (err) {
        this.opts.onWarning?.(`onLeaderChange listener threw: ${(err as Error).message}`);
      }
    }
  }

  private rejectPending(err: Error): void {
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) p.reject(err);
  }

  private fail(err: unknown): void {
    if (this.state !== 'started') return;
    this.state = 'failed';
    const failure = err instanceof MetadataLogError ? err : new MetadataLogError('ERR_TRIB_METADATA_FAILED', `metadata log failed: ${(err as Error).message}`, { cause: err });
    this.failure = failure;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.rejectPending(failure);
    this.longPoll.releaseAll();
    this.opts.onWarning?.(failure.message);
  }

  // ---- DescribeQuorum ----------------------------------------------------------------------

  private noteFetch(from: NodeId, fetchOffset: number): void {
    const wall = this.opts.clock.nowMs();
    const p = this.progress.get(from) ?? { logEndOffset: -1, lastFetchMs: -1, lastCaughtUpMs: -1 };
    p.logEndOffset = fetchOffset;
    p.lastFetchMs = wall;
    if (fetchOffset >= this.storage.endOffset) p.lastCaughtUpMs = wall;
    this.progress.set(from, p);
  }

  describeQuorum(): QuorumDescription {
    const node = this.node;
    const voters: VoterState[] = this.config.voters.map((id) => {
      if (id === this.opts.nodeId) return { replicaId: id, logEndOffset: this.storageOrNull?.endOffset ?? -1, lastFetchTimestampMs: -1, lastCaughtUpTimestampMs: this.opts.clock.nowMs() };
      const p = this.progress.get(id);
      return { replicaId: id, logEndOffset: p?.logEndOffset ?? -1, lastFetchTimestampMs: p?.lastFetchMs ?? -1, lastCaughtUpTimestampMs: p?.lastCaughtUpMs ?? -1 };
    });
    // Observers (broker-only nodes) the core still tracks; progress has their wall-clock fetch times.
    const observers: VoterState[] = (node?.observerStates() ?? []).map((o) => {
      const p = this.progress.get(o.id);
      return { replicaId: o.id, logEndOffset: o.endOffset, lastFetchTimestampMs: p?.lastFetchMs ?? -1, lastCaughtUpTimestampMs: p?.lastCaughtUpMs ?? -1 };
    });
    return { leaderId: this.leaderId, epoch: this.epoch, highWatermark: node?.highWatermark ?? 0, isLeader: node?.roleName === 'leader', voters, observers };
  }

  /** For tests and status: the applied entry offset and the node's role. */
  status(): { role: string; appliedOffset: number; highWatermark: number; logStartOffset: number; endOffset: number } {
    const node = this.node;
    return {
      role: node?.roleName ?? 'stopped',
      appliedOffset: node?.appliedOffset ?? 0,
      highWatermark: node?.highWatermark ?? 0,
      logStartOffset: this.storageOrNull?.logStartOffset ?? 0,
      endOffset: this.storageOrNull?.endOffset ?? 0,
    };
  }
}
