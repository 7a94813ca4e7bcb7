/**
 * Fast failover in the Raft core (issue 6): `leaderUnreachable` (the transport
 * saw the connection to the leader fail) and `resign` + EndQuorumEpoch
 * (graceful shutdown of the leader). Virtual time on the synchronous test
 * network (net.ts); the seeded fault schedules are in test/chaos/raft.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RAFT_TIMEOUTS, type EndQuorumEpoch, type NodeId, type RaftNode } from '../../../../src/controller/raft/index.js';
import { Net } from './net.js';

const { electionTimeoutMs, fetchTimeoutMs, requestTimeoutMs } = DEFAULT_RAFT_TIMEOUTS;

function settled(voters: readonly NodeId[]): { net: Net; leader: RaftNode; followers: RaftNode[] } {
  const net = new Net(voters);
  net.run(3_000);
  const leader = net.leader();
  const followers = [...net.nodes.values()].filter((n) => n !== leader);
  for (const f of followers) assert.equal(f.leaderId, leader.nodeId);
  return { net, leader, followers };
}

/** Feeds `leaderUnreachable` to a node, queueing what it sends. */
function unreachable(net: Net, n: RaftNode): void {
  for (const o of n.leaderUnreachable(net.nowMs)) net.queue.push({ from: n.nodeId, out: o });
  net.flush();
}

/** Runs until a leader of an epoch after `epoch` exists; returns the virtual ms it took. */
function untilNewLeader(net: Net, epoch: number, boundMs: number): number {
  const from = net.nowMs;
  while (net.nowMs - from < boundMs) {
    net.run(10);
    if (net.leaders().some((l) => l.epoch > epoch)) return net.nowMs - from;
  }
  assert.fail(`no leader after epoch ${epoch} within ${boundMs} ms`);
}

describe('raft: leader unreachable (connection reset)', () => {
  it('a dead leader is replaced before the fetch timeout when its followers saw the resets', () => {
    for (const voters of [
      [1, 2, 3],
      [1, 2, 3, 4, 5],
    ]) {
      const { net, leader, followers } = settled(voters);
      const epoch = leader.epoch;
      net.nodes.delete(leader.nodeId); // kill -9
      for (const f of followers) unreachable(net, f);
      const ms = untilNewLeader(net, epoch, fetchTimeoutMs);
      assert.ok(ms < fetchTimeoutMs, `new leader after ${ms} ms`);
      assert.equal(net.leader().epoch, epoch + 1);
    }
  });

  it('without the input the followers wait for the fetch timeout (the control)', () => {
    const { net, leader } = settled([1, 2, 3]);
    const epoch = leader.epoch;
    net.nodes.delete(leader.nodeId);
    net.run(fetchTimeoutMs - 20);
    assert.equal(net.leaders().length, 0, 'nobody moved before the fetch timeout');
    assert.ok(untilNewLeader(net, epoch, 4 * electionTimeoutMs) > 0);
  });

  it('a single flaky link does not depose a healthy leader: the other voters refuse, the follower returns', () => {
    for (const voters of [
      [1, 2, 3],
      [1, 2, 3, 4, 5],
    ]) {
      const { net, leader, followers } = settled(voters);
      const epoch = leader.epoch;
      const flaky = followers[0];
      assert.ok(flaky !== undefined);
      // Only the link between this follower and the leader fails; it keeps being reset.
      net.cut.add(`${flaky.nodeId}-${leader.nodeId}`).add(`${leader.nodeId}-${flaky.nodeId}`);
      const before = net.delivered.length;
      for (let round = 0; round < 10; round++) {
        if (flaky.roleName === 'follower') unreachable(net, flaky);
        net.run(300);
      }
      const preVotes = net.delivered.slice(before).filter((d) => d.from === flaky.nodeId && d.message.type === 'vote' && d.message.preVote);
      const refusals = net.delivered.slice(before).filter((d) => d.to === flaky.nodeId && d.message.type === 'voteResponse' && !d.message.granted && d.message.leaderId === leader.nodeId);
      assert.ok(preVotes.length > 0, 'the follower did try pre-votes');
      assert.ok(refusals.length > 0, 'which were refused, naming the leader');
      assert.equal(net.leader(), leader);
      for (const n of net.nodes.values()) assert.equal(n.epoch, epoch, `node ${n.nodeId} kept epoch ${epoch}`);
      net.heal();
      net.run(500);
      assert.equal(flaky.roleName, 'follower');
      assert.equal(flaky.leaderId, leader.nodeId);
    }
  });

  it('a reset on a link that recovers at once changes nothing: the next fetch answer cancels the pre-vote', () => {
    const { net, leader, followers } = settled([1, 2, 3]);
    const f = followers[0];
    assert.ok(f !== undefined);
    const before = net.delivered.length;
    unreachable(net, f);
    net.run(2 * electionTimeoutMs);
    assert.equal(net.delivered.slice(before).filter((d) => d.message.type === 'vote').length, 0);
    assert.equal(f.leaderId, leader.nodeId);
  });

  it('a follower that lost the leader grants pre-votes; one that still hears from it refuses', () => {
    const { net, leader, followers } = settled([1, 2, 3]);
    const [lost, live] = followers;
    assert.ok(lost !== undefined && live !== undefined);
    unreachable(net, lost);
    const ask = (to: RaftNode, from: RaftNode): boolean => {
      const out = to.receive({ type: 'vote', from: from.nodeId, epoch: to.epoch, preVote: true, lastEpoch: leader.epoch, endOffset: 1_000 }, net.nowMs);
      const answer = out.find((o) => o.message.type === 'voteResponse')?.message;
      assert.ok(answer?.type === 'voteResponse');
      return answer.granted;
    };
    assert.equal(ask(lost, live), true);
    assert.equal(ask(live, lost), false);
  });

  it('is ignored by a leader, an unattached node, and a follower already counting down', () => {
    const { net, leader, followers } = settled([1, 2, 3]);
    assert.deepEqual(leader.leaderUnreachable(net.nowMs), []);
    assert.equal(leader.roleName, 'leader');
    const f = followers[0];
    assert.ok(f !== undefined);
    unreachable(net, f);
    assert.deepEqual(f.leaderUnreachable(net.nowMs), [], 'a second report changes nothing');
    assert.equal(f.roleName, 'follower');
    const fresh = new Net([1, 2, 3]);
    assert.deepEqual(fresh.node(1).leaderUnreachable(0), []);
    assert.equal(fresh.node(1).roleName, 'unattached');
  });
});

describe('raft: resign and EndQuorumEpoch', () => {
  it('the leader resigns: EndQuorumEpoch to every voter, most caught up first; the next epoch is led by another at once', () => {
    const { net, leader, followers } = settled([1, 2, 3, 4, 5]);
    const epoch = leader.epoch;
    // One follower is cut off and falls behind, so it comes last among the successors.
    const behind = followers[3];
    assert.ok(behind !== undefined);
    net.isolate(behind.nodeId);
    const p = leader.propose([Buffer.from('x')], net.nowMs);
    assert.ok(p.ok);
    net.run(200);
    net.heal();
    const before = net.delivered.length;
    const out = leader.resign(net.nowMs);
    const ends = out.map((o) => o.message).filter((m): m is EndQuorumEpoch => m.type === 'endQuorumEpoch');
    assert.deepEqual(out.map((o) => o.to).sort(), followers.map((f) => f.nodeId).sort(), 'one EndQuorumEpoch per other voter');
    assert.equal(ends.length, 4);
    for (const e of ends) {
      assert.equal(e.epoch, epoch);
      assert.equal(e.from, leader.nodeId);
      assert.equal(e.preferredSuccessors.length, 4);
      assert.equal(e.preferredSuccessors.at(-1), behind.nodeId, 'the lagging voter is the last choice');
    }
    assert.equal(leader.roleName, 'unattached');
    assert.equal(leader.epoch, epoch);
    assert.equal(leader.propose([Buffer.from('y')], net.nowMs).ok, false);
    for (const o of out) net.queue.push({ from: leader.nodeId, out: o });
    net.flush();
    const ms = untilNewLeader(net, epoch, fetchTimeoutMs);
    assert.ok(ms <= requestTimeoutMs, `handover took ${ms} ms`);
    const next = net.leader();
    assert.equal(next.epoch, epoch + 1);
    assert.equal(next.nodeId, ends[0]?.preferredSuccessors[0], 'the first preferred successor won');
    assert.ok(net.delivered.slice(before).some((d) => d.message.type === 'vote' && d.message.preVote), 'it went through a pre-vote');
  });

  it('late answers from the resigned leader do not make its followers follow it again', () => {
    const { net, leader, followers } = settled([1, 2, 3]);
    const epoch = leader.epoch;
    const f = followers[1];
    assert.ok(f !== undefined);
    // A fetch answer the leader produced before resigning, delivered after its EndQuorumEpoch.
    const fetchOut = leader.receive({ type: 'fetch', from: f.nodeId, epoch, fetchOffset: f.endOffset, lastFetchedEpoch: epoch }, net.nowMs);
    const late = fetchOut.find((o) => o.message.type === 'fetchResponse');
    assert.ok(late !== undefined);
    const out = leader.resign(net.nowMs);
    const toF = out.find((o) => o.to === f.nodeId);
    assert.ok(toF !== undefined);
    f.receive(toF.message, net.nowMs);
    f.receive(late.message, net.nowMs);
    // Not the first successor: it waits its turn, then stands anyway (the leader does not come back).
    net.nodes.delete(leader.nodeId);
    net.nodes.delete(followers[0]?.nodeId ?? -1);
    net.run(requestTimeoutMs * 2);
    assert.notEqual(f.roleName, 'follower', 'it did not go back to the resigned leader');
  });

  it('resign is a no-op except on a leader', () => {
    const { net, followers } = settled([1, 2, 3]);
    const f = followers[0];
    assert.ok(f !== undefined);
    assert.deepEqual(f.resign(net.nowMs), []);
    assert.equal(f.roleName, 'follower');
  });

  it('an EndQuorumEpoch of another epoch or from a non-leader is ignored', () => {
    const { net, leader, followers } = settled([1, 2, 3]);
    const [a, b] = followers;
    assert.ok(a !== undefined && b !== undefined);
    a.receive({ type: 'endQuorumEpoch', from: b.nodeId, epoch: leader.epoch, preferredSuccessors: [a.nodeId] }, net.nowMs);
    a.receive({ type: 'endQuorumEpoch', from: leader.nodeId, epoch: leader.epoch - 1, preferredSuccessors: [a.nodeId] }, net.nowMs);
    assert.equal(a.roleName, 'follower');
    net.run(500);
    assert.equal(net.leader(), leader);
    assert.equal(a.leaderId, leader.nodeId);
  });
});
