/** SyncGroup, Heartbeat, LeaveGroup and session expiry. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { formGroup, harness, joinInput, pending, syncAll } from './harness.js';
import type { JoinGroupResult } from '../../../../src/coordinator/group/coordinator-api.js';

const syncReq = (j: JoinGroupResult, over = {}) => ({
  groupId: 'g',
  generationId: j.generationId,
  memberId: j.memberId,
  groupInstanceId: null,
  protocolType: null,
  protocolName: null,
  assignments: [] as { memberId: string; assignment: Buffer }[],
  ...over,
});
const hb = (j: JoinGroupResult, over = {}) => ({ groupId: 'g', generationId: j.generationId, memberId: j.memberId, groupInstanceId: null, ...over });

describe('SyncGroup', () => {
  it('validates member, generation and protocol', async () => {
    const h = harness();
    const [a] = await formGroup(h, ['a']);
    assert.ok(a);
    const c = h.coordinator;
    assert.equal((await c.syncGroup(syncReq(a, { groupId: 'nope' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal((await c.syncGroup(syncReq(a, { groupId: '' }))).errorCode, ErrorCode.INVALID_GROUP_ID);
    assert.equal((await c.syncGroup(syncReq(a, { memberId: 'x' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal((await c.syncGroup(syncReq(a, { generationId: 7 }))).errorCode, ErrorCode.ILLEGAL_GENERATION);
    assert.equal((await c.syncGroup(syncReq(a, { protocolType: 'connect' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal((await c.syncGroup(syncReq(a, { protocolName: 'roundrobin' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    c.checkInvariants();
  });

  it('followers wait for the leader; the leader assignment is persisted before anyone is answered', async () => {
    const h = harness({}, { kind: 'manual' });
    const joins = await formGroup(h, ['a', 'b', 'c']);
    const [a, b, c] = joins;
    assert.ok(a && b && c);
    const sb = await pending(h.coordinator.syncGroup(syncReq(b)));
    assert.equal(sb.done, false);
    const sa = await pending(
      h.coordinator.syncGroup(syncReq(a, { assignments: [{ memberId: a.memberId, assignment: Buffer.from('A') }, { memberId: b.memberId, assignment: Buffer.from('B') }] })),
    );
    assert.equal(sa.done, false, 'waits for persistence');
    assert.equal(h.coordinator.groupStatus('g')?.state, 'CompletingRebalance');
    const call = h.persistence.calls.at(-1);
    assert.ok(call?.kind === 'group' && call.snapshot !== null);
    assert.equal(call.snapshot.generationId, 1);
    assert.equal(call.snapshot.protocolName, 'range');
    assert.equal(call.snapshot.leaderId, a.memberId);
    assert.deepEqual(call.snapshot.members.map((m) => m.assignment.toString()), ['A', 'B', ''], 'c, left out by the leader, gets an empty assignment');
    h.persistence.release();
    await h.timers.advance(0);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Stable');
    assert.deepEqual(sa.get(), { errorCode: 0, protocolType: 'consumer', protocolName: 'range', assignment: Buffer.from('A') });
    assert.equal(sb.get().assignment.toString(), 'B');
    // c syncs late: the group is Stable, it gets its (empty) assignment at once.
    const sc = await h.coordinator.syncGroup(syncReq(c));
    assert.equal(sc.errorCode, ErrorCode.NONE);
    assert.equal(sc.assignment.length, 0);
    h.coordinator.checkInvariants();
  });

  it('if persisting the assignment fails, everyone waiting gets COORDINATOR_NOT_AVAILABLE and the group rebalances', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const [a, b] = joins;
    assert.ok(a && b);
    const sb = await pending(h.coordinator.syncGroup(syncReq(b)));
    h.persistence.failNext = 1;
    const sa = await h.coordinator.syncGroup(syncReq(a, { assignments: [{ memberId: a.memberId, assignment: Buffer.from('A') }] }));
    assert.equal(sa.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await h.timers.advance(0);
    assert.equal(sb.get().errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'PreparingRebalance');
    assert.equal((await h.coordinator.syncGroup(syncReq(b))).errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    h.coordinator.checkInvariants();
  });

  it('a persistence failure carrying NOT_COORDINATOR is passed on', async () => {
    const h = harness();
    const [a] = await formGroup(h, ['a']);
    assert.ok(a);
    h.persistence.failNext = 1;
    h.persistence.failCode = ErrorCode.NOT_COORDINATOR;
    assert.equal((await h.coordinator.syncGroup(syncReq(a))).errorCode, ErrorCode.NOT_COORDINATOR);
  });

  it('a join during CompletingRebalance sends waiting followers back with REBALANCE_IN_PROGRESS', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const b = joins[1];
    assert.ok(b);
    const sb = await pending(h.coordinator.syncGroup(syncReq(b)));
    await pending(h.coordinator.joinGroup(joinInput({ clientId: 'late' })));
    assert.equal(sb.get().errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    h.coordinator.checkInvariants();
  });

  it('members that never send SyncGroup are removed after the rebalance timeout', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const a = joins[0];
    assert.ok(a);
    await h.coordinator.syncGroup(syncReq(a));
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Stable');
    for (let i = 0; i < 6; i++) {
      await h.timers.advance(5_000);
      h.coordinator.heartbeat(hb(a));
      h.coordinator.heartbeat(hb(joins[1] as JoinGroupResult));
    }
    assert.equal(h.coordinator.groupStatus('g')?.state, 'PreparingRebalance');
    assert.equal(h.coordinator.describeGroups(['g'])[0]?.members.length, 1);
  });
});

describe('Heartbeat and session expiry', () => {
  it('answers by state and membership', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const [a, b] = joins;
    assert.ok(a && b);
    const c = h.coordinator;
    assert.equal(c.heartbeat(hb(a)), ErrorCode.NONE, 'CompletingRebalance');
    await syncAll(h, joins);
    assert.equal(c.heartbeat(hb(a)), ErrorCode.NONE);
    assert.equal(c.heartbeat(hb(a, { generationId: 0 })), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(c.heartbeat(hb(a, { memberId: 'x' })), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(c.heartbeat(hb(a, { groupId: 'other' })), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(c.heartbeat(hb(a, { groupId: '' })), ErrorCode.INVALID_GROUP_ID);
    assert.equal(c.heartbeat(hb(a, { groupInstanceId: 'i' })), ErrorCode.UNKNOWN_MEMBER_ID);
    await pending(c.joinGroup(joinInput({ memberId: a.memberId })));
    assert.equal(c.heartbeat(hb(b)), ErrorCode.REBALANCE_IN_PROGRESS);
    c.checkInvariants();
  });

  it('heartbeats keep a member; silence removes it after the session timeout and the rest rebalance', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    const [a, b] = joins;
    assert.ok(a && b);
    for (let i = 0; i < 4; i++) {
      await h.timers.advance(3_000);
      assert.equal(h.coordinator.heartbeat(hb(a)), ErrorCode.NONE);
      if (i < 2) h.coordinator.heartbeat(hb(b));
    }
    // b last heartbeat at t=6000, session 10 s: gone at 16000
    await h.timers.advance(3_999);
    assert.equal(h.coordinator.heartbeat(hb(a)), ErrorCode.NONE);
    await h.timers.advance(1);
    assert.equal(h.coordinator.heartbeat(hb(a)), ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(h.coordinator.heartbeat(hb(b)), ErrorCode.UNKNOWN_MEMBER_ID);
    const r = await h.coordinator.joinGroup(joinInput({ memberId: a.memberId }));
    assert.equal(r.generationId, 2);
    assert.equal(r.members.length, 1);
    h.coordinator.checkInvariants();
  });

  it('the last member expiring leaves the group Empty with empty metadata persisted', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a']);
    await syncAll(h, joins);
    await h.timers.advance(10_000);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Empty');
    assert.equal(h.coordinator.groupStatus('g')?.generationId, 2);
    const last = h.persistence.calls.at(-1);
    assert.ok(last?.kind === 'group' && last.snapshot !== null);
    assert.equal(last.snapshot.members.length, 0);
    assert.equal(last.snapshot.protocolName, null);
    assert.equal(last.snapshot.generationId, 2);
  });

  it('a new member whose JoinGroup never completes is dropped after the new-member timeout', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a']);
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    // a leaves the rebalance hanging by heartbeating without rejoining... and the join of b waits.
    const b = await pending(h.coordinator.joinGroup(joinInput({ clientId: 'b', rebalanceTimeoutMs: 600_000 })));
    for (let t = 0; t < 300_000; t += 5_000) {
      await h.timers.advance(5_000);
      h.coordinator.heartbeat(hb(a));
    }
    assert.equal(b.get().errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    h.coordinator.checkInvariants();
  });
});

describe('LeaveGroup', () => {
  it('batched leave answers per member and rebalances the rest', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b', 'c']);
    await syncAll(h, joins);
    const [a, b] = joins;
    assert.ok(a && b);
    const r = h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: b.memberId, groupInstanceId: null }, { memberId: 'ghost', groupInstanceId: null }] });
    assert.deepEqual(r, {
      errorCode: 0,
      members: [
        { memberId: b.memberId, groupInstanceId: null, errorCode: ErrorCode.NONE },
        { memberId: 'ghost', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      ],
    });
    assert.equal(h.coordinator.groupStatus('g')?.state, 'PreparingRebalance');
    assert.equal(h.coordinator.leaveGroup({ groupId: '', members: [] }).errorCode, ErrorCode.INVALID_GROUP_ID);
    assert.equal(h.coordinator.leaveGroup({ groupId: 'zzz', members: [{ memberId: 'x', groupInstanceId: null }] }).members[0]?.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    h.coordinator.checkInvariants();
  });

  it('the last member leaving makes the group Empty and persists empty metadata', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a']);
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a.memberId, groupInstanceId: null }] });
    await h.timers.advance(0);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Empty');
    const last = h.persistence.calls.at(-1);
    assert.ok(last?.kind === 'group' && last.snapshot?.members.length === 0);
    h.coordinator.checkInvariants();
  });

  it('static members leave by instance id (admin removal), and a stale id is fenced', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a'], { groupInstanceId: 'ia' });
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    assert.equal(h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: 'old', groupInstanceId: 'ia' }] }).members[0]?.errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: '', groupInstanceId: 'nobody' }] }).members[0]?.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: '', groupInstanceId: 'ia' }] }).members[0]?.errorCode, ErrorCode.NONE);
    await h.timers.advance(0);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Empty');
  });

  it('a leaving member that is still waiting in JoinGroup gets UNKNOWN_MEMBER_ID; a pending id can leave', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    const [a, b] = joins;
    assert.ok(a && b);
    const ra = await pending(h.coordinator.joinGroup(joinInput({ memberId: a.memberId })));
    const p = await h.coordinator.joinGroup(joinInput({ clientId: 'p', requireKnownMemberId: true }));
    h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a.memberId, groupInstanceId: null }, { memberId: p.memberId, groupInstanceId: null }] });
    await h.timers.advance(0);
    assert.equal(ra.get().errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    const rb = await h.coordinator.joinGroup(joinInput({ memberId: b.memberId }));
    assert.equal(rb.leaderId, b.memberId);
    assert.equal(rb.members.length, 1);
    h.coordinator.checkInvariants();
  });
});
