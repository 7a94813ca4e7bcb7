/**
 * The world of the Raft simulation: N RaftNodes on virtual time, a network
 * that drops, duplicates, delays (hence reorders) and partitions messages,
 * crashes that lose unflushed writes, a replicated state machine on every
 * node (a running digest of the applied entries, snapshotted at random
 * committed points), and the safety checks run after every step (see
 * raft-sim.test.ts).
 */
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../src/util/random.js';
import {
  DEFAULT_RAFT_TIMEOUTS,
  InMemoryRaftStorage,
  RaftNode,
  checkQuorumTimeoutMs,
  majorityOf,
  type NodeId,
  type Outbound,
  type RaftConfig,
  type CommittedEvent,
  type RaftEntry,
  type RaftMessage,
} from '../../../src/controller/raft/index.js';

export const TICK_MS = 10;
/** Full re-verification of every committed prefix every this many steps (incremental checks in between). */
const FULL_CHECK_EVERY_STEPS = 64;
const TRACE_MAX = 300;

interface InFlight {
  readonly atMs: number;
  readonly seq: number;
  readonly from: NodeId;
  readonly to: NodeId;
  readonly message: RaftMessage;
}

export interface NetworkFaults {
  dropRate: number;
  duplicateRate: number;
  delayMaxMs: number;
}

/**
 * The simulated state machine: how many data entries were applied, a 64-bit running
 * digest (two FNV-1a lanes) of them with their offsets, and the last few payloads
 * (so snapshots have some bulk and are fetched in several chunks).
 */
export interface SmState {
  readonly applied: number;
  readonly count: number;
  readonly h1: number;
  readonly h2: number;
  readonly recent: readonly string[];
}

const EMPTY_STATE: SmState = { applied: 0, count: 0, h1: 0x811c9dc5, h2: 0x01000193, recent: [] };
const RECENT_MAX = 6;

function fnv(h: number, bytes: Uint8Array): number {
  let x = h;
  for (const b of bytes) x = Math.imul(x ^ b, 0x01000193) >>> 0;
  return x;
}

function applyEntry(state: SmState, offset: number, e: RaftEntry): SmState {
  if (e.kind !== 'data') return { ...state, applied: offset + 1 };
  const head = Buffer.from(`${offset}|${e.epoch}|`);
  return {
    applied: offset + 1,
    count: state.count + 1,
    h1: fnv(fnv(state.h1, head), e.data),
    h2: fnv(fnv(state.h2 ^ 0x5bd1e995, e.data), head),
    recent: [...state.recent, Buffer.from(e.data).toString()].slice(-RECENT_MAX),
  };
}

export function digestOf(state: SmState): string {
  return `${state.count}:${state.h1.toString(16)}:${state.h2.toString(16)}:${state.recent.join(',')}`;
}

function encodeState(state: SmState): Uint8Array {
  return Buffer.from(JSON.stringify(state));
}

function decodeState(data: Uint8Array): SmState {
  return JSON.parse(Buffer.from(data).toString()) as SmState;
}

export class SimNode {
  raft: RaftNode | null;
  /** The applied state machine of this incarnation (volatile: rebuilt from snapshot + log at restart). */
  state: SmState = EMPTY_STATE;
  /** Snapshot events seen by this incarnation (the first may be the load at start). */
  snapshotEvents = 0;
  /** End of the snapshot on disk when this incarnation started (0: none). */
  diskSnapshotEnd = 0;
  /** High watermark seen in this incarnation (it restarts at 0 after a crash: KRaft's HW is volatile). */
  lastHw = 0;
  /** Below this the node's log was verified against the committed ledger. */
  verifiedUpTo = 0;
  crashes = 0;
  constructor(
    readonly id: NodeId,
    readonly config: RaftConfig,
    readonly storage: InMemoryRaftStorage,
    random: SeededRandom,
  ) {
    this.raft = new RaftNode(config, storage, random, 0);
  }
}

function sameEntry(a: RaftEntry, b: RaftEntry): boolean {
  return a === b || (a.epoch === b.epoch && a.kind === b.kind && Buffer.compare(a.data, b.data) === 0);
}

export class SimWorld {
  readonly random: SeededRandom;
  readonly nodes: SimNode[] = [];
  nowMs = 0;
  steps = 0;
  net: NetworkFaults = { dropRate: 0, duplicateRate: 0, delayMaxMs: 5 };
  /** Partition group per node; messages flow only inside a group. */
  group: number[];
  private queue: InFlight[] = [];
  private seq = 0;
  /** Every committed entry ever observed, by offset. Never changes once written. */
  readonly ledger: RaftEntry[] = [];
  readonly leaderOfEpoch = new Map<number, NodeId>();
  /** When each epoch's leader was first seen leading. */
  private readonly leaderSinceMs = new Map<number, number>();
  /** Acknowledged proposals: offset -> entry the leader appended. */
  private readonly acked = new Map<number, RaftEntry>();
  private readonly trace: string[] = [];
  /** Per node: since when it has been cut off from a majority of live voters (null while connected). */
  /** `${to}<${from}` -> when `to` last received anything from `from` (this incarnation). */
  private readonly lastContactMs = new Map<string, number>();
  /** The state-machine digest after applying every entry below an offset, as the first node to reach it saw it. */
  private readonly digestAt = new Map<number, string>([[0, digestOf(EMPTY_STATE)]]);
  stats = {
    delivered: 0,
    dropped: 0,
    duplicated: 0,
    crashes: 0,
    partitions: 0,
    proposalsAcked: 0,
    maxEpoch: 0,
    snapshotsTaken: 0,
    snapshotLoads: 0,
    snapshotInstalls: 0,
    resets: 0,
    resignations: 0,
  };

  /**
   * `size` voters (ids 1..size) and `observerCount` observers (ids size+1..): nodes outside the
   * voter set that replicate and apply the log but never vote nor count for commit.
   */
  constructor(
    readonly seed: number,
    readonly size: number,
    readonly observerCount = 0,
  ) {
    this.random = new SeededRandom(seed);
    const voters = Array.from({ length: size }, (_, i) => i + 1);
    const all = Array.from({ length: size + observerCount }, (_, i) => i + 1);
    // Small fetch sizes split catch-up into many rounds (and expose commit-rule mistakes).
    const fetchEntriesMax = [1, 2, 5, 20][this.random.int(4)] ?? 20;
    // Small chunks split a snapshot into many FetchSnapshot rounds.
    const snapshotChunkBytesMax = [7, 64, 1 << 20][this.random.int(3)] ?? 64;
    for (const id of all) {
      const config: RaftConfig = { ...DEFAULT_RAFT_TIMEOUTS, nodeId: id, voters, fetchEntriesMax, snapshotChunkBytesMax };
      this.nodes.push(new SimNode(id, config, new InMemoryRaftStorage(), this.random));
    }
    this.group = all.map(() => 0);
  }

  /** The voters (the first `size` nodes); observers follow them. */
  get voters(): SimNode[] {
    return this.nodes.slice(0, this.size);
  }

  isObserver(n: SimNode): boolean {
    return n.id > this.size;
  }

  log(line: string): void {
    this.trace.push(`${this.nowMs}ms ${line}`);
    if (this.trace.length > TRACE_MAX) this.trace.shift();
  }

  traceTail(lines = 40): string {
    return this.trace.slice(-lines).join('\n');
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.random.int(items.length)];
    assert.ok(item !== undefined, 'pick from a non-empty list');
    return item;
  }

  node(id: NodeId): SimNode {
    const n = this.nodes[id - 1];
    assert.ok(n !== undefined);
    return n;
  }

  live(): SimNode[] {
    return this.nodes.filter((n) => n.raft !== null);
  }

  connected(a: NodeId, b: NodeId): boolean {
    return this.group[a - 1] === this.group[b - 1];
  }

  // ---- network ----------------------------------------------------------------------

  private sendAll(from: NodeId, out: readonly Outbound[]): void {
    for (const o of out) {
      if (!this.connected(from, o.to) || this.random.next() < this.net.dropRate) {
        this.stats.dropped++;
        continue;
      }
      this.enqueue(from, o);
      if (this.random.next() < this.net.duplicateRate) {
        this.stats.duplicated++;
        this.enqueue(from, o);
      }
    }
  }

  private enqueue(from: NodeId, o: Outbound): void {
    const item: InFlight = { atMs: this.nowMs + 1 + this.random.int(this.net.delayMaxMs), seq: this.seq++, from, to: o.to, message: o.message };
    // Sorted by (atMs, seq); random delays reorder messages.
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.queue[mid];
      assert.ok(m !== undefined);
      if (m.atMs < item.atMs || (m.atMs === item.atMs && m.seq < item.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, item);
  }

  // ---- running ----------------------------------------------------------------------

  /** One tick: deliver what is due (checking after each), then tick every live node in random order. */
  step(): void {
    const end = this.nowMs + TICK_MS;
    for (;;) {
      const next = this.queue[0];
      if (next === undefined || next.atMs > end) break;
      this.queue.shift();
      this.nowMs = Math.max(this.nowMs, next.atMs);
      const dest = this.node(next.to);
      if (dest.raft === null || !this.connected(next.from, next.to)) {
        this.stats.dropped++;
        continue;
      }
      this.stats.delivered++;
      this.lastContactMs.set(`${next.to}<${next.from}`, this.nowMs);
      this.sendAll(next.to, dest.raft.receive(next.message, this.nowMs));
      this.applyCommitted(dest);
      this.check();
    }
    this.nowMs = end;
    const order = this.live();
    for (let i = order.length - 1; i > 0; i--) {
      const j = this.random.int(i + 1);
      const a = order[i];
      const b = order[j];
      assert.ok(a !== undefined && b !== undefined);
      order[i] = b;
      order[j] = a;
    }
    for (const n of order) {
      if (n.raft === null) continue;
      this.sendAll(n.id, n.raft.tick(this.nowMs));
      this.refuseToDeadLeader(n);
      this.applyCommitted(n);
      this.checkQuorumHonoured(n);
      this.check();
    }
    this.steps++;
    if (this.steps % FULL_CHECK_EVERY_STEPS === 0) this.check(true);
  }

  crash(n: SimNode): void {
    assert.ok(n.raft !== null);
    const unflushed = n.storage.endOffset - n.storage.flushedEndOffset;
    const keep = this.random.int(unflushed + 1);
    this.log(`crash ${n.id} (${n.raft.roleName} epoch ${n.raft.epoch}), keeps ${keep}/${unflushed} unflushed`);
    n.storage.crash(keep);
    n.raft = null;
    n.state = EMPTY_STATE;
    n.crashes++;
    this.stats.crashes++;
  }

  /**
   * "Connection reset to leader": the transport of `n` reports its leader unreachable
   * (RaftNode.leaderUnreachable). After a crash this is what the kernel's resets tell the
   * followers; on a live leader it is a flaky link, which must not depose it.
   */
  resetToLeader(n: SimNode): void {
    if (n.raft === null) return;
    this.log(`node ${n.id}: connection to leader ${n.raft.leaderId ?? 'none'} reset`);
    this.stats.resets++;
    this.sendAll(n.id, n.raft.leaderUnreachable(this.nowMs));
    this.check();
  }

  /**
   * A follower whose leader's process is down but whose host is reachable gets "connection
   * refused" on every reconnect: its transport reports the leader unreachable (a partitioned
   * follower gets nothing of the kind; it waits for its fetch timeout).
   */
  private refuseToDeadLeader(n: SimNode): void {
    const leaderId = n.raft?.roleName === 'follower' ? n.raft.leaderId : null;
    if (n.raft === null || leaderId === null || this.node(leaderId).raft !== null || !this.connected(n.id, leaderId)) return;
    this.sendAll(n.id, n.raft.leaderUnreachable(this.nowMs));
    this.applyCommitted(n);
    this.check();
  }

  /** The leader's sockets are reset when it dies: every live follower connected to it may notice at once. */
  resetConnectionsTo(dead: SimNode, probability: number): void {
    for (const n of this.live()) {
      if (n !== dead && n.raft?.leaderId === dead.id && this.connected(n.id, dead.id) && this.random.next() < probability) this.resetToLeader(n);
    }
  }

  /** Graceful resignation of a leader (RaftNode.resign: EndQuorumEpoch to the voters). */
  resign(n: SimNode): void {
    if (n.raft === null || n.raft.roleName !== 'leader') return;
    this.log(`leader ${n.id} resigns epoch ${n.raft.epoch}`);
    this.stats.resignations++;
    this.sendAll(n.id, n.raft.resign(this.nowMs));
    this.check();
  }

  restart(n: SimNode): void {
    assert.ok(n.raft === null);
    this.log(`restart ${n.id}`);
    n.diskSnapshotEnd = n.storage.latestSnapshot()?.endOffset ?? 0;
    n.raft = new RaftNode(n.config, n.storage, this.random, this.nowMs);
    n.state = EMPTY_STATE;
    n.snapshotEvents = 0;
    n.lastHw = 0;
    this.applyCommitted(n);
    for (const v of this.nodes) this.lastContactMs.delete(`${n.id}<${v.id}`);
    n.verifiedUpTo = 0;
  }

  setPartition(groups: number[]): void {
    this.group = groups;
    this.stats.partitions++;
    this.log(`partition ${groups.join(',')}`);
  }

  heal(): void {
    this.group = this.nodes.map(() => 0);
    this.log('heal');
  }

  propose(n: SimNode, count: number): { offset: number; epoch: number } | null {
    if (n.raft === null) return null;
    const data = Array.from({ length: count }, () => Buffer.from(`s${this.seed}-e${this.seq++}`));
    const r = n.raft.propose(data, this.nowMs);
    if (!r.ok) return null;
    this.stats.proposalsAcked++;
    data.forEach((d, i) => this.acked.set(r.baseOffset + i, { epoch: r.epoch, kind: 'data', data: d }));
    this.check();
    return { offset: r.lastOffset, epoch: r.epoch };
  }

  /**
   * Hands the node's committed entries (and snapshots) to its state machine, checking that
   * the state at every offset is the same on every node (a snapshot loads exactly the state
   * some node had at its end offset).
   */
  applyCommitted(n: SimNode): void {
    const raft = n.raft;
    if (raft === null) return;
    for (;;) {
      const events: CommittedEvent[] = raft.pollCommitted();
      if (events.length === 0) return;
      for (const ev of events) {
        if (ev.kind === 'snapshot') {
          assert.ok(ev.snapshot.endOffset > n.state.applied, `node ${n.id}: a snapshot at ${ev.snapshot.endOffset} does not take the state back from ${n.state.applied}`);
          const state = decodeState(ev.snapshot.data);
          assert.equal(state.applied, ev.snapshot.endOffset, `node ${n.id}: the snapshot's state is at its end offset`);
          if (n.snapshotEvents === 0 && ev.snapshot.endOffset === n.diskSnapshotEnd) this.stats.snapshotLoads++;
          else this.stats.snapshotInstalls++;
          n.snapshotEvents++;
          n.state = state;
          this.log(`node ${n.id} loads snapshot at ${ev.snapshot.endOffset}`);
          this.checkDigest(n);
          continue;
        }
        assert.equal(ev.baseOffset, n.state.applied, `node ${n.id}: committed entries arrive in order`);
        ev.entries.forEach((e, i) => {
          n.state = applyEntry(n.state, ev.baseOffset + i, e);
          this.checkDigest(n);
        });
      }
    }
  }

  private checkDigest(n: SimNode): void {
    const digest = digestOf(n.state);
    const known = this.digestAt.get(n.state.applied);
    if (known === undefined) this.digestAt.set(n.state.applied, digest);
    else assert.equal(digest, known, `node ${n.id}: the applied state at offset ${n.state.applied} differs from another node's`);
  }

  /** The node's owner snapshots its applied state (committed by construction) and drops the log prefix. */
  snapshot(n: SimNode): boolean {
    const raft = n.raft;
    if (raft === null) return false;
    const end = n.state.applied;
    if (end <= (n.storage.latestSnapshot()?.endOffset ?? 0)) return false;
    raft.createSnapshot(end, encodeState(n.state));
    this.stats.snapshotsTaken++;
    this.log(`node ${n.id} snapshots at ${end}`);
    this.check();
    return true;
  }

  leader(): SimNode | null {
    // The live leader with the highest epoch, if any.
    let best: SimNode | null = null;
    let bestEpoch = -1;
    for (const n of this.live()) {
      if (n.raft?.roleName === 'leader' && n.raft.epoch > bestEpoch) {
        best = n;
        bestEpoch = n.raft.epoch;
      }
    }
    return best;
  }

  // ---- invariants -------------------------------------------------------------------

  check(full = false): void {
    for (const n of this.live()) {
      const raft = n.raft;
      assert.ok(raft !== null);
      this.stats.maxEpoch = Math.max(this.stats.maxEpoch, raft.epoch);
      if (this.isObserver(n)) {
        // An observer only ever follows or looks for a leader, and never records a vote.
        assert.ok(raft.roleName === 'follower' || raft.roleName === 'unattached', `observer ${n.id} is ${raft.roleName}`);
        assert.equal(n.storage.readQuorumState().votedFor, null, `observer ${n.id} voted`);
      }
      if (raft.roleName === 'leader') {
        const prev = this.leaderOfEpoch.get(raft.epoch);
        assert.ok(prev === undefined || prev === n.id, `two leaders in epoch ${raft.epoch}: ${prev} and ${n.id}`);
        if (prev === undefined) {
          this.log(`leader ${n.id} epoch ${raft.epoch}`);
          this.leaderSinceMs.set(raft.epoch, this.nowMs);
        }
        this.leaderOfEpoch.set(raft.epoch, n.id);
      }
      const hw = raft.highWatermark;
      assert.ok(hw >= n.lastHw, `the high watermark of node ${n.id} went back from ${n.lastHw} to ${hw}`);
      assert.ok(hw <= n.storage.endOffset, `node ${n.id}: high watermark ${hw} beyond its log end ${n.storage.endOffset}`);
      n.lastHw = hw;
      this.checkCommittedPrefix(n, hw, full);
    }
    // Leader completeness: the leader of the latest epoch holds every committed entry. (A deposed
    // leader of an older epoch that has not noticed yet may lack entries committed after it.)
    const latestEpoch = Math.max(0, ...this.leaderOfEpoch.keys());
    for (const n of this.live()) {
      if (n.raft?.roleName === 'leader' && n.raft.epoch === latestEpoch) this.checkHolds(n, n.storage.endOffset, full, `leader ${n.id} (epoch ${n.raft.epoch})`);
    }
    this.checkMajorityDurable(full);
  }

  /**
   * Check-quorum: right after its tick, a leader that has led for the check-quorum timeout
   * (1.5 x fetch timeout) and has received nothing from a majority within that time has resigned.
   */
  private checkQuorumHonoured(n: SimNode): void {
    const raft = n.raft;
    if (raft === null || raft.roleName !== 'leader') return;
    const timeoutMs = checkQuorumTimeoutMs(n.config);
    const sinceMs = this.leaderSinceMs.get(raft.epoch) ?? this.nowMs;
    if (this.nowMs - sinceMs < timeoutMs) return;
    let heard = 1;
    // Only voters count: fetches from observers must not keep a leader in office.
    for (const v of this.voters) {
      const at = this.lastContactMs.get(`${n.id}<${v.id}`);
      if (v !== n && at !== undefined && this.nowMs - at < timeoutMs) heard++;
    }
    assert.ok(heard >= majorityOf(this.size), `leader ${n.id} (epoch ${raft.epoch}) heard from ${heard - 1} voters in ${timeoutMs} ms and still leads`);
  }

  /** Entries below a node's high watermark are the committed ones; new ones extend the ledger. */
  private checkCommittedPrefix(n: SimNode, hw: number, full: boolean): void {
    const start = this.checkSnapshotBoundary(n, `node ${n.id}`);
    const from = Math.max(start, full ? 0 : Math.min(n.verifiedUpTo, hw));
    for (let offset = from; offset < hw; offset++) {
      const entry = n.storage.entryAt(offset);
      assert.ok(entry !== undefined, `node ${n.id} lacks entry ${offset} below its high watermark ${hw}`);
      const known = this.ledger[offset];
      if (known === undefined) {
        assert.equal(offset, this.ledger.length, 'the ledger grows contiguously');
        const acked = this.acked.get(offset);
        if (acked !== undefined && acked.epoch === entry.epoch) {
          assert.ok(sameEntry(acked, entry), `committed entry ${offset} differs from what the epoch-${entry.epoch} leader acknowledged`);
        }
        this.ledger.push(entry);
      } else {
        assert.ok(sameEntry(known, entry), `committed entry ${offset} changed on node ${n.id} (epoch ${known.epoch} -> ${entry.epoch})`);
      }
    }
    n.verifiedUpTo = hw;
  }

  /**
   * Below its log start a node holds the committed prefix as a snapshot: the log starts where
   * the latest snapshot ends, within the committed ledger, and the snapshot's epoch is that of
   * the committed entry it ends with. Returns the log start.
   */
  private checkSnapshotBoundary(n: SimNode, who: string): number {
    const start = n.storage.logStartOffset;
    if (start === 0) return 0;
    const snapshot = n.storage.latestSnapshot();
    assert.ok(snapshot !== null && snapshot.endOffset === start, `${who}: its log starts at ${start} where its latest snapshot ends`);
    assert.ok(start <= this.ledger.length, `${who}: its snapshot ends at ${start}, beyond the committed offset ${this.ledger.length}`);
    assert.equal(snapshot.epoch, this.ledger[start - 1]?.epoch, `${who}: its snapshot's epoch is that of committed entry ${start - 1}`);
    return start;
  }

  /** `n`'s log up to `end` (capped by the ledger) matches the ledger; the ledger fits in `end`. */
  private checkHolds(n: SimNode, end: number, full: boolean, who: string): void {
    assert.ok(end >= this.ledger.length, `${who} ends at ${end}, before the committed offset ${this.ledger.length}`);
    const from = Math.max(this.checkSnapshotBoundary(n, who), full ? 0 : Math.max(0, this.ledger.length - 4));
    for (let offset = from; offset < this.ledger.length; offset++) {
      const e = n.storage.entryAt(offset);
      const c = this.ledger[offset];
      assert.ok(e !== undefined && c !== undefined && sameEntry(c, e), `${who} lost or changed committed entry ${offset}`);
    }
  }

  /** Every committed entry is durable on a majority (crashed nodes included: their disks remain). */
  private checkMajorityDurable(full: boolean): void {
    const len = this.ledger.length;
    if (len === 0) return;
    let holders = 0;
    // Observers hold the log too, but commit needs a majority of the voters.
    for (const n of this.voters) {
      if (n.storage.flushedEndOffset < len) continue;
      // A durable snapshot holds the prefix below the log start.
      const from = Math.max(this.checkSnapshotBoundary(n, `node ${n.id}`), full ? 0 : len - 1);
      let ok = true;
      for (let offset = from; offset < len && ok; offset++) {
        const e = n.storage.entryAt(offset);
        const c = this.ledger[offset];
        ok = e !== undefined && c !== undefined && sameEntry(c, e);
      }
      if (ok) holders++;
    }
    assert.ok(holders >= majorityOf(this.size), `only ${holders} of ${this.size} voters hold the ${len} committed entries durably`);
  }
}
