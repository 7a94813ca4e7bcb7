/**
 * Unit tests of the Raft state machine (src/controller/raft): a tiny
 * synchronous network delivers messages in order, with links that can be cut.
 * The seeded fault schedules are in test/chaos/raft.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../../src/util/random.js';
import {
  DEFAULT_RAFT_TIMEOUTS,
  InMemoryRaftStorage,
  RaftNode,
  endOffsetForEpoch,
  type NodeId,
  type Outbound,
  type RaftEntry,
} from '../../../../src/controller/raft/index.js';
import { Net } from './net.js';

const data = (s: string): Buffer => Buffer.from(s);

describe('raft: elections', () => {
  it('a single voter elects itself and commits at once', () => {
    const net = new Net([1]);
    net.run(2_100);
    const n = net.node(1);
    assert.equal(n.roleName, 'leader');
    assert.equal(n.epoch, 1);
    const r = n.propose([data('a'), data('b')], net.nowMs);
    assert.ok(r.ok);
    assert.deepEqual([r.baseOffset, r.lastOffset], [1, 2]); // offset 0 is the leader_change entry
    assert.equal(n.highWatermark, 3);
    assert.deepEqual(n.readCommitted(1, 10).map((e) => Buffer.from(e.data).toString()), ['a', 'b']);
  });

  it('three voters elect one leader, and the others follow it', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    for (const n of net.nodes.values()) {
      assert.equal(n.epoch, leader.epoch);
      assert.equal(n.leaderId, leader.nodeId);
    }
    assert.equal(net.node(leader.nodeId === 1 ? 2 : 1).propose([data('x')], net.nowMs).ok, false, 'a follower refuses proposals');
  });

  it('pre-vote: an isolated follower does not bump the epoch nor disturb the leader when it returns', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const epoch = leader.epoch;
    const follower = [...net.nodes.values()].find((n) => n !== leader);
    assert.ok(follower !== undefined);
    net.isolate(follower.nodeId);
    net.run(10_000);
    assert.equal(follower.epoch, epoch, 'pre-votes failed, so the isolated node never became a candidate');
    assert.equal(follower.roleName, 'prospective');
    net.heal();
    net.run(3_000);
    assert.equal(net.leader(), leader);
    assert.equal(leader.epoch, epoch);
    assert.equal(follower.leaderId, leader.nodeId);
  });

  it('a follower with a live leader refuses a pre-vote', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const [a, b] = [...net.nodes.values()].filter((n) => n !== leader);
    assert.ok(a !== undefined && b !== undefined);
    const out = a.receive({ type: 'vote', from: b.nodeId, epoch: a.epoch, preVote: true, lastEpoch: 99, endOffset: 99 }, net.nowMs);
    assert.equal(out.length, 1);
    const msg = out[0]?.message;
    assert.ok(msg?.type === 'voteResponse');
    assert.equal(msg.granted, false);
    assert.equal(msg.leaderId, leader.nodeId, 'and points the asker at the leader');
  });

  it('a voter grants one vote per epoch, durably, and only to an up-to-date log', () => {
    const storage = new InMemoryRaftStorage();
    storage.append([{ epoch: 2, kind: 'data', data: data('x') }]);
    storage.flush();
    storage.writeQuorumState({ epoch: 2, votedFor: null });
    const n = new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, nodeId: 1, voters: [1, 2, 3] }, storage, new SeededRandom(1), 0);
    const ask = (from: NodeId, lastEpoch: number, endOffset: number): boolean => {
      const m = n.receive({ type: 'vote', from, epoch: 3, preVote: false, lastEpoch, endOffset }, 0)[0]?.message;
      assert.ok(m?.type === 'voteResponse');
      return m.granted;
    };
    assert.equal(ask(2, 1, 5), false, 'an older last epoch loses, whatever its length');
    assert.equal(ask(2, 2, 1), true);
    assert.deepEqual(storage.readQuorumState(), { epoch: 3, votedFor: 2 });
    assert.equal(ask(3, 2, 1), false, 'already voted in epoch 3');
    assert.equal(ask(2, 2, 1), true, 'the same candidate asking again is granted again');
  });
});

describe('raft: check-quorum', () => {
  it('a leader cut off from the majority resigns within 1.5 x fetch timeout, and the majority elects another', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const old = net.leader();
    net.isolate(old.nodeId);
    net.run(DEFAULT_RAFT_TIMEOUTS.fetchTimeoutMs * 1.5 + 20);
    assert.notEqual(old.roleName, 'leader');
    net.run(5_000);
    const fresh = net.leaders().filter((n) => n !== old);
    assert.equal(fresh.length, 1);
    assert.ok((fresh[0]?.epoch ?? 0) > old.epoch);
  });
});

describe('raft: replication', () => {
  it('commits by majority, and followers learn the high watermark', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const r = leader.propose([data('a')], net.nowMs);
    assert.ok(r.ok);
    net.run(200);
    for (const n of net.nodes.values()) {
      assert.equal(n.highWatermark, r.lastOffset + 1);
      assert.equal(Buffer.from(n.readCommitted(r.lastOffset, 1)[0]?.data ?? []).toString(), 'a');
    }
  });

  it('an isolated leader cannot commit; its uncommitted entries are truncated by the new leader', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const old = net.leader();
    const hw = old.highWatermark;
    net.isolate(old.nodeId);
    const lost = old.propose([data('lost-1'), data('lost-2')], net.nowMs);
    assert.ok(lost.ok);
    net.run(6_000);
    assert.equal(old.highWatermark, hw, 'nothing commits without a majority');
    const fresh = net.leaders().find((n) => n !== old);
    assert.ok(fresh !== undefined);
    const kept = fresh.propose([data('kept')], net.nowMs);
    assert.ok(kept.ok);
    net.heal();
    net.run(5_000);
    const oldLog = net.storage.get(old.nodeId);
    const freshLog = net.storage.get(fresh.nodeId);
    assert.ok(oldLog !== undefined && freshLog !== undefined);
    const text = (s: InMemoryRaftStorage): string[] => s.snapshotEntries().map((e: RaftEntry) => `${e.epoch}:${Buffer.from(e.data).toString()}`);
    assert.deepEqual(text(oldLog), text(freshLog), 'the old leader truncated its divergent tail and caught up');
    assert.ok(!text(oldLog).some((t) => t.includes('lost')));
    assert.ok(text(oldLog).some((t) => t.endsWith(':kept')));
  });

  it('a leader crash before its flush loses the unacknowledged-as-committed tail; the others go on', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const old = net.leader();
    const r = old.propose([data('unflushed')], net.nowMs);
    assert.ok(r.ok);
    assert.equal(old.highWatermark, r.baseOffset, 'not committed before a flush');
    const storage = net.storage.get(old.nodeId);
    assert.ok(storage !== undefined);
    net.nodes.delete(old.nodeId);
    storage.crash(0);
    assert.equal(storage.endOffset, r.baseOffset);
    net.run(6_000);
    const fresh = net.leader();
    assert.ok(fresh.epoch > r.epoch);
    net.start(old.nodeId);
    net.run(4_000);
    assert.equal(net.node(old.nodeId).leaderId, fresh.nodeId);
    assert.equal(net.node(old.nodeId).highWatermark, fresh.highWatermark);
  });

  it('a restarted follower (its high watermark is volatile) catches up', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    for (let i = 0; i < 30; i++) assert.ok(leader.propose([data(`e${i}`)], net.nowMs).ok);
    const follower = [...net.nodes.values()].find((n) => n !== leader);
    assert.ok(follower !== undefined);
    net.run(500);
    const storage = net.storage.get(follower.nodeId);
    assert.ok(storage !== undefined);
    storage.crash(0);
    net.start(follower.nodeId);
    assert.equal(net.node(follower.nodeId).highWatermark, 0, 'the high watermark is volatile');
    net.run(4_000);
    assert.equal(net.node(follower.nodeId).highWatermark, leader.highWatermark);
    assert.equal(storage.endOffset, leader.endOffset);
  });
});

describe('raft: commit rule (Raft paper, figure 8)', () => {
  it('a new leader does not commit older-epoch entries by counting replicas, only with an entry of its own epoch', () => {
    // S1 and S2 hold an epoch-2 entry at offset 1 that S5 overwrote with epoch 3 elsewhere; S1 now leads epoch 4.
    const e = (epoch: number, d: string): RaftEntry => ({ epoch, kind: 'data', data: data(d) });
    const logs: Record<number, RaftEntry[]> = { 1: [e(1, 'a'), e(2, 'b')], 2: [e(1, 'a'), e(2, 'b')], 3: [e(1, 'a')], 4: [e(1, 'a')], 5: [e(1, 'a'), e(3, 'c')] };
    const nodes = new Map<NodeId, RaftNode>();
    for (const id of [1, 2, 3, 4, 5]) {
      const storage = new InMemoryRaftStorage();
      storage.append(logs[id] ?? []);
      storage.flush();
      storage.writeQuorumState({ epoch: 3, votedFor: id === 5 ? 5 : null });
      // One entry per fetch, so a follower reports the old entry before it sees the new leader's own.
      nodes.set(id, new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, nodeId: id, voters: [1, 2, 3, 4, 5], fetchEntriesMax: 1 }, storage, new SeededRandom(id), 0));
    }
    const s1 = nodes.get(1);
    assert.ok(s1 !== undefined);
    const hws: number[] = [];
    const pump = (from: NodeId, outs: readonly Outbound[], nowMs: number): void => {
      for (const o of outs) {
        if (o.to === 5 || from === 5) continue; // S5 is away
        const to = nodes.get(o.to);
        assert.ok(to !== undefined);
        const out = to.receive(o.message, nowMs);
        if (o.to === 1) hws.push(s1.highWatermark);
        pump(o.to, out, nowMs);
      }
    };
    for (let t = 10; t <= 3_000; t += 10) {
      pump(1, s1.tick(t), t);
      for (const id of [2, 3, 4]) pump(id, nodes.get(id)?.tick(t) ?? [], t);
    }
    assert.equal(s1.roleName, 'leader');
    assert.equal(s1.epoch, 4);
    assert.ok(!hws.includes(1) && !hws.includes(2), `the high watermark skipped offsets 1-2 (epochs 1-2), went ${[...new Set(hws)].join(',')}`);
    assert.equal(s1.highWatermark, 3, 'the epoch-4 leader_change entry at offset 2 commits everything before it');
  });
});

describe('raft: storage', () => {
  it('a crash keeps the flushed entries and only the given prefix of the unflushed ones', () => {
    const s = new InMemoryRaftStorage();
    const e = (epoch: number, d: string): RaftEntry => ({ epoch, kind: 'data', data: data(d) });
    s.append([e(1, 'a'), e(1, 'b')]);
    s.flush();
    s.append([e(2, 'c'), e(2, 'd'), e(3, 'e')]);
    s.crash(1);
    assert.equal(s.endOffset, 3);
    assert.equal(s.flushedEndOffset, 3);
    assert.deepEqual(endOffsetForEpoch(s, 2), { epoch: 2, offset: 3 });
    assert.deepEqual(endOffsetForEpoch(s, 5), { epoch: 2, offset: 3 });
    assert.deepEqual(endOffsetForEpoch(s, 1), { epoch: 1, offset: 2 });
    assert.deepEqual(endOffsetForEpoch(s, 0), { epoch: 0, offset: 0 });
    s.truncateTo(1);
    s.crash(5);
    assert.equal(s.endOffset, 1, 'a truncation is durable');
  });
});
