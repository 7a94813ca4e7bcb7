/**
 * Raft observers (src/controller/raft): a node outside the voter set (a
 * broker-only node) finds the leader through any voter, replicates the log
 * and snapshots, learns the high watermark, never votes or stands, and is
 * not counted for commit or check-quorum; the leader lists it (DescribeQuorum).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../../src/util/random.js';
import { DEFAULT_RAFT_TIMEOUTS, InMemoryRaftStorage, RaftNode, type CommittedEvent, type NodeId, type RaftNode as RaftNodeType } from '../../../../src/controller/raft/index.js';
import { Net } from './net.js';

const data = (s: string): Buffer => Buffer.from(s);

/** A 3-voter net with observers `ids` started at the current time. */
function withObservers(net: Net, ids: readonly NodeId[]): RaftNodeType[] {
  return ids.map((id) => {
    net.storage.set(id, new InMemoryRaftStorage());
    net.start(id);
    return net.node(id);
  });
}

/** The data entries a node hands its state machine (loading snapshots of the same form). */
function applied(node: RaftNode, state: string[]): string[] {
  let values = state;
  for (let events: CommittedEvent[] = node.pollCommitted(); events.length > 0; events = node.pollCommitted()) {
    for (const ev of events) {
      if (ev.kind === 'snapshot') values = JSON.parse(Buffer.from(ev.snapshot.data).toString()) as string[];
      else for (const e of ev.entries) if (e.kind === 'data') values = [...values, Buffer.from(e.data).toString()];
    }
  }
  return values;
}

function cutBoth(net: Net, a: NodeId, b: NodeId): void {
  net.cut.add(`${a}-${b}`).add(`${b}-${a}`);
}

describe('raft observers', () => {
  it('an observer finds the leader through a voter, replicates, learns the high watermark, and is listed by the leader', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const [obs] = withObservers(net, [4]);
    assert.ok(obs !== undefined);
    assert.equal(obs.isObserver, true);
    assert.equal(leader.isObserver, false);
    // Cut the observer from the leader at first: it can only learn who leads from the other voters.
    cutBoth(net, 4, leader.nodeId);
    net.run(300);
    assert.equal(obs.leaderId, leader.nodeId, 'a non-leader voter told it who leads');
    assert.equal(obs.epoch, leader.epoch);
    net.cut.clear();
    for (let i = 0; i < 5; i++) assert.ok(leader.propose([data(`v${i}`)], net.nowMs).ok);
    net.run(500);
    assert.equal(obs.roleName, 'follower');
    assert.equal(obs.endOffset, leader.endOffset);
    assert.equal(obs.highWatermark, leader.highWatermark);
    assert.deepEqual(applied(obs, []), ['v0', 'v1', 'v2', 'v3', 'v4']);
    const listed = leader.observerStates();
    assert.deepEqual(listed.map((o) => [o.id, o.endOffset]), [[4, leader.endOffset]]);
    assert.deepEqual(net.storage.get(4)?.readQuorumState(), { epoch: leader.epoch, votedFor: null }, 'it never voted');
    const r = obs.propose([data('x')], net.nowMs);
    assert.deepEqual(r, { ok: false, error: 'not_leader', leaderId: leader.nodeId }, 'proposals are refused with the leader id');
  });

  it('observers do not count for commit nor for check-quorum', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    withObservers(net, [4, 5, 6]);
    net.run(500);
    const hw = leader.highWatermark;
    // The leader keeps only the observers: three fetching nodes, none of them a voter.
    for (const v of [1, 2, 3]) if (v !== leader.nodeId) for (const w of [1, 2, 3, 4, 5, 6]) if (w !== v) cutBoth(net, v, w);
    const r = leader.propose([data('not-committed')], net.nowMs);
    assert.ok(r.ok);
    net.run(1_000);
    assert.equal(leader.highWatermark, hw, 'three observers holding the entry do not make a majority');
    assert.equal(net.node(4).endOffset, leader.endOffset, 'the observers did replicate it');
    assert.equal(net.node(4).highWatermark, hw);
    net.run(DEFAULT_RAFT_TIMEOUTS.fetchTimeoutMs * 1.5);
    assert.notEqual(leader.roleName, 'leader', 'fetches from observers do not keep a leader without a majority');
  });

  it('an observer never stands for election and never votes, even when no leader exists', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const epoch = net.leader().epoch;
    const [obs] = withObservers(net, [4]);
    assert.ok(obs !== undefined);
    net.run(300);
    for (const v of [1, 2, 3]) cutBoth(net, 4, v);
    net.run(20_000);
    assert.ok(obs.roleName === 'unattached' || obs.roleName === 'follower', `observer is ${obs.roleName}`);
    assert.equal(obs.epoch, epoch, 'it never bumped the epoch');
    const answer = obs.receive({ type: 'vote', from: 1, epoch: epoch + 1, preVote: false, lastEpoch: 99, endOffset: 99 }, net.nowMs);
    assert.deepEqual(answer, [], 'vote requests are ignored');
    assert.equal(obs.epoch, epoch);
    assert.deepEqual(net.storage.get(4)?.readQuorumState(), { epoch, votedFor: null });
  });

  it('a voter ignores votes from a non-voter but answers its fetches with the leader', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const follower = [...net.nodes.values()].find((n) => n !== leader);
    assert.ok(follower !== undefined);
    const epoch = follower.epoch;
    assert.deepEqual(follower.receive({ type: 'vote', from: 9, epoch: epoch + 5, preVote: false, lastEpoch: 99, endOffset: 99 }, net.nowMs), []);
    assert.equal(follower.epoch, epoch, 'a vote from outside the voter set changes nothing');
    const out = follower.receive({ type: 'fetch', from: 9, epoch: 0, fetchOffset: 0, lastFetchedEpoch: 0 }, net.nowMs);
    const m = out[0]?.message;
    assert.ok(m?.type === 'fetchResponse');
    assert.equal(m.error, 'fenced_epoch');
    assert.equal(m.leaderId, leader.nodeId);
    assert.equal(m.epoch, epoch);
  });

  it('an observer far behind loads the leader snapshot (FetchSnapshot), then the entries after it', () => {
    const net = new Net([1, 2, 3], { snapshotChunkBytesMax: 5 });
    net.run(3_000);
    const leader = net.leader();
    let leaderState: string[] = [];
    for (let i = 0; i < 12; i++) assert.ok(leader.propose([data(`s${i}`)], net.nowMs).ok);
    net.run(300);
    leaderState = applied(leader, leaderState);
    leader.createSnapshot(leader.appliedOffset, Buffer.from(JSON.stringify(leaderState)));
    assert.ok(leader.logStartOffset > 0);
    const [obs] = withObservers(net, [4]);
    assert.ok(obs !== undefined);
    assert.ok(leader.propose([data('after')], net.nowMs).ok);
    net.run(1_000);
    assert.equal(obs.logStartOffset, leader.logStartOffset, 'it installed the snapshot');
    assert.equal(obs.highWatermark, leader.highWatermark);
    assert.deepEqual(applied(obs, []), [...leaderState, 'after']);
  });

  it('after the leader dies, an observer follows the new leader', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const old = net.leader();
    const [obs] = withObservers(net, [4]);
    assert.ok(obs !== undefined);
    net.run(300);
    assert.equal(obs.leaderId, old.nodeId);
    net.isolate(old.nodeId);
    cutBoth(net, 4, old.nodeId);
    net.run(8_000);
    const fresh = net.leaders().find((n) => n !== old);
    assert.ok(fresh !== undefined && fresh.epoch > old.epoch);
    assert.ok(fresh.propose([data('new-epoch')], net.nowMs).ok);
    net.run(4_000);
    assert.equal(obs.leaderId, fresh.nodeId);
    assert.equal(obs.epoch, fresh.epoch);
    assert.equal(obs.highWatermark, fresh.highWatermark);
    assert.deepEqual(applied(obs, []).slice(-1), ['new-epoch']);
    assert.deepEqual(fresh.observerStates().map((o) => o.id), [4]);
  });

  it('when its leader resigns, an observer asks the voters again at once and follows the successor', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const old = net.leader();
    const [obs] = withObservers(net, [4]);
    assert.ok(obs !== undefined);
    net.run(300);
    assert.equal(obs.leaderId, old.nodeId);
    for (const o of old.resign(net.nowMs)) net.queue.push({ from: old.nodeId, out: o });
    net.flush();
    // Well within the fetch timeout: the resigned leader answers the observer's next fetch with not_leader.
    net.run(DEFAULT_RAFT_TIMEOUTS.fetchTimeoutMs / 2);
    const fresh = net.leader();
    assert.notEqual(fresh, old);
    assert.equal(obs.leaderId, fresh.nodeId);
    assert.equal(obs.epoch, fresh.epoch);
    assert.equal(obs.highWatermark, fresh.highWatermark);
  });

  it('a restarted observer keeps its epoch, has no vote, and finds the leader again', () => {
    const storage = new InMemoryRaftStorage();
    storage.writeQuorumState({ epoch: 3, votedFor: null });
    const n = new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, nodeId: 7, voters: [1, 2, 3] }, storage, new SeededRandom(1), 0);
    assert.equal(n.isObserver, true);
    assert.equal(n.epoch, 3);
    const out = n.tick(10);
    assert.equal(out.length, 1);
    assert.equal(out[0]?.message.type, 'fetch');
    assert.ok([1, 2, 3].includes(out[0]?.to ?? -1), 'it asks a voter');
    // The next voter is asked after a request timeout without an answer.
    const next = n.tick(10 + DEFAULT_RAFT_TIMEOUTS.requestTimeoutMs);
    assert.equal(next[0]?.message.type, 'fetch');
    assert.notEqual(next[0]?.to, out[0]?.to);
  });
});
