/** JoinGroup rules of the classic group coordinator (Kafka GroupCoordinator semantics). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { Pending, TEST_CONFIG, formGroup, harness, joinInput, pending, sub, syncAll } from './harness.js';

describe('JoinGroup validation', () => {
  it('refuses an empty group id and session timeouts outside the configured range', async () => {
    const h = harness();
    assert.equal((await h.coordinator.joinGroup(joinInput({ groupId: '' }))).errorCode, ErrorCode.INVALID_GROUP_ID);
    assert.equal((await h.coordinator.joinGroup(joinInput({ sessionTimeoutMs: TEST_CONFIG.minSessionTimeoutMs - 1 }))).errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
    assert.equal((await h.coordinator.joinGroup(joinInput({ sessionTimeoutMs: TEST_CONFIG.maxSessionTimeoutMs + 1 }))).errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
    assert.equal(h.coordinator.groupStatus('g'), null, 'no group created by refused requests');
  });

  it('answers UNKNOWN_MEMBER_ID to a member id the coordinator never gave out', async () => {
    const h = harness();
    assert.equal((await h.coordinator.joinGroup(joinInput({ memberId: 'ghost' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    await formGroup(h, ['a']);
    assert.equal((await h.coordinator.joinGroup(joinInput({ memberId: 'ghost' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    h.coordinator.checkInvariants();
  });

  it('KIP-394: MEMBER_ID_REQUIRED with a generated id, which must be used within the session timeout', async () => {
    const h = harness();
    const first = await h.coordinator.joinGroup(joinInput({ clientId: 'kafkajs', requireKnownMemberId: true }));
    assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    assert.equal(first.memberId, 'kafkajs-1');
    h.coordinator.checkInvariants();
    const second = new Pending(h.coordinator.joinGroup(joinInput({ memberId: first.memberId, requireKnownMemberId: true })));
    await h.timers.advance(0);
    assert.equal(second.get().errorCode, ErrorCode.NONE);
    assert.equal(second.get().memberId, 'kafkajs-1');
    assert.equal(second.get().generationId, 1);

    // A pending id that is not used in time is forgotten.
    const late = await h.coordinator.joinGroup(joinInput({ groupId: 'g2', requireKnownMemberId: true }));
    await h.timers.advance(10_001);
    assert.equal((await h.coordinator.joinGroup(joinInput({ groupId: 'g2', memberId: late.memberId }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    h.coordinator.checkInvariants();
  });

  it('a rebalance waits for a pending (MEMBER_ID_REQUIRED) member to rejoin', async () => {
    const h = harness();
    const [a] = await formGroup(h, ['a']);
    assert.ok(a);
    await syncAll(h, [a]);
    const pendingJoin = await h.coordinator.joinGroup(joinInput({ clientId: 'b', requireKnownMemberId: true }));
    assert.equal(pendingJoin.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
    // The leader rejoins (forcing a rebalance); the group must also wait for b.
    const ra = await pending(h.coordinator.joinGroup(joinInput({ memberId: a.memberId })));
    assert.equal(ra.done, false);
    const rb = await pending(h.coordinator.joinGroup(joinInput({ clientId: 'b', memberId: pendingJoin.memberId })));
    assert.equal(ra.get().generationId, 2);
    assert.equal(rb.get().generationId, 2);
    assert.equal(ra.get().members.length, 2);
    h.coordinator.checkInvariants();
  });

  it('INCONSISTENT_GROUP_PROTOCOL: empty type or list, type mismatch, or no protocol every member supports (kafkajs + librdkafka)', async () => {
    const h = harness();
    assert.equal((await h.coordinator.joinGroup(joinInput({ protocols: [] }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal((await h.coordinator.joinGroup(joinInput({ protocolType: '' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    await formGroup(h, ['kafkajs'], { protocols: [{ name: 'RoundRobinAssigner', metadata: sub('t') }] });
    const rdkafka = await h.coordinator.joinGroup(
      joinInput({ clientId: 'rdkafka', protocols: [{ name: 'range', metadata: sub('t') }, { name: 'roundrobin', metadata: sub('t') }] }),
    );
    assert.equal(rdkafka.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal((await h.coordinator.joinGroup(joinInput({ protocolType: 'connect', protocols: [{ name: 'RoundRobinAssigner', metadata: sub('t') }] }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(h.coordinator.describeGroups(['g'])[0]?.members.length, 1);
    h.coordinator.checkInvariants();
  });

  it('chooses the protocol by vote among the ones every member supports', async () => {
    const h = harness();
    const p = (...names: string[]) => names.map((name) => ({ name, metadata: sub('t') }));
    const joins = [p('range', 'roundrobin', 'sticky'), p('roundrobin', 'range'), p('range', 'roundrobin')].map(
      (protocols, i) => new Pending(h.coordinator.joinGroup(joinInput({ clientId: `m${i}`, protocols }))),
    );
    await h.timers.advance(0);
    for (const j of joins) assert.equal(j.get().protocolName, 'range');
    h.coordinator.checkInvariants();
  });

  it('GROUP_MAX_SIZE_REACHED when the group is full', async () => {
    const h = harness({ maxSize: 2 });
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    assert.equal((await h.coordinator.joinGroup(joinInput({ clientId: 'c' }))).errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
    assert.equal(h.coordinator.describeGroups(['g'])[0]?.members.length, 2);
    h.coordinator.checkInvariants();
  });

  it('rebalance timeout -1 (JoinGroup v0) uses the session timeout', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b'], { rebalanceTimeoutMs: -1 });
    await syncAll(h, joins);
    const leader = joins.find((j) => j.memberId === j.leaderId);
    assert.ok(leader);
    const r = await pending(h.coordinator.joinGroup(joinInput({ memberId: leader.memberId, rebalanceTimeoutMs: -1 })));
    await h.timers.advance(9_999);
    assert.equal(r.done, false);
    await h.timers.advance(1);
    assert.equal(r.get().errorCode, ErrorCode.NONE);
    assert.equal(r.get().members.length, 1, 'the follower that did not rejoin within 10 s was removed');
  });
});

describe('initial rebalance delay (group.initial.rebalance.delay.ms)', () => {
  it('waits the delay, and extends it while new members keep joining a new group', async () => {
    const h = harness({ initialRebalanceDelayMs: 3_000 });
    const a = await pending(h.coordinator.joinGroup(joinInput({ clientId: 'a', rebalanceTimeoutMs: 10_000 })));
    await h.timers.advance(2_000);
    assert.equal(a.done, false);
    const b = await pending(h.coordinator.joinGroup(joinInput({ clientId: 'b', rebalanceTimeoutMs: 10_000 })));
    await h.timers.advance(1_000); // t=3000: b joined, so the delay is extended by another 3 s
    assert.equal(a.done, false);
    await h.timers.advance(2_999);
    assert.equal(a.done, false);
    await h.timers.advance(1); // t=6000
    assert.equal(a.get().generationId, 1);
    assert.equal(b.get().generationId, 1);
    assert.equal(a.get().members.length, 2);
  });

  it('the extensions are capped by the rebalance timeout', async () => {
    const h = harness({ initialRebalanceDelayMs: 3_000 });
    const a = await pending(h.coordinator.joinGroup(joinInput({ clientId: 'a', rebalanceTimeoutMs: 4_000 })));
    await h.timers.advance(1_000);
    await pending(h.coordinator.joinGroup(joinInput({ clientId: 'b', rebalanceTimeoutMs: 4_000 })));
    await h.timers.advance(2_500); // t=3500: extended by min(3000, remaining 1000)
    await pending(h.coordinator.joinGroup(joinInput({ clientId: 'c', rebalanceTimeoutMs: 4_000 })));
    assert.equal(a.done, false);
    await h.timers.advance(500); // t=4000: remaining is now 0, no further extension
    assert.equal(a.get().members.length, 3);
  });

  it('does not apply once the group has a generation: all rejoined completes at once', async () => {
    const h = harness({ initialRebalanceDelayMs: 3_000 });
    const joins = await formGroup(h, ['a']);
    await h.timers.advance(3_000);
    await syncAll(h, joins);
    const leader = joins[0];
    assert.ok(leader);
    const r = await pending(h.coordinator.joinGroup(joinInput({ memberId: leader.memberId })));
    assert.equal(r.get().generationId, 2);
  });
});

describe('rebalance completion', () => {
  it('completes every join together with the new generation; only the leader gets the members', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b', 'c']);
    assert.deepEqual(new Set(joins.map((j) => j.generationId)), new Set([1]));
    assert.deepEqual(new Set(joins.map((j) => j.leaderId)), new Set(['a-1']));
    for (const j of joins) assert.equal(j.members.length, j.memberId === 'a-1' ? 3 : 0);
    assert.deepEqual(
      joins[0]?.members.map((m) => m.metadata),
      [sub('t'), sub('t'), sub('t')],
    );
    assert.equal(h.coordinator.groupStatus('g')?.state, 'CompletingRebalance');
    h.coordinator.checkInvariants();
  });

  it('members that do not rejoin within the rebalance timeout are removed; a rejoined leader stays leader', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b', 'c']);
    await syncAll(h, joins);
    const [a, b] = joins;
    assert.ok(a && b);
    const ra = await pending(h.coordinator.joinGroup(joinInput({ memberId: a.memberId }))); // leader forces a rebalance
    // b keeps heartbeating (REBALANCE_IN_PROGRESS) but only rejoins late; c is silent.
    assert.equal(h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: null }), ErrorCode.REBALANCE_IN_PROGRESS);
    const rb = await pending(h.coordinator.joinGroup(joinInput({ memberId: b.memberId })));
    // c keeps its session alive with heartbeats but never rejoins: only the rebalance timeout removes it.
    const c = joins[2];
    assert.ok(c);
    for (let t = 0; t < 25_000; t += 5_000) {
      await h.timers.advance(5_000);
      assert.equal(h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: c.memberId, groupInstanceId: null }), ErrorCode.REBALANCE_IN_PROGRESS);
    }
    await h.timers.advance(4_999);
    assert.equal(ra.done, false);
    await h.timers.advance(1);
    assert.equal(ra.get().generationId, 2);
    assert.equal(ra.get().leaderId, a.memberId);
    assert.deepEqual(ra.get().members.map((m) => m.memberId), [a.memberId, b.memberId]);
    assert.equal(rb.get().generationId, 2);
    h.coordinator.checkInvariants();
  });

  it('elects a new leader when the old one does not rejoin', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    const b = joins[1];
    assert.ok(b);
    const rb = await pending(h.coordinator.joinGroup(joinInput({ memberId: b.memberId, protocols: [{ name: 'range', metadata: sub('t', 'u') }] })));
    await h.timers.advance(30_000);
    assert.equal(rb.get().leaderId, b.memberId);
    assert.equal(rb.get().members.length, 1);
  });

  it('a follower rejoining a Stable group with unchanged metadata gets the current generation without a rebalance', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    const b = joins[1];
    assert.ok(b);
    const r = await h.coordinator.joinGroup(joinInput({ memberId: b.memberId }));
    assert.equal(r.generationId, 1);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Stable');
  });

  it('a member rejoining while CompletingRebalance with the same metadata gets the same answer again', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const a = joins[0];
    assert.ok(a);
    const again = await h.coordinator.joinGroup(joinInput({ memberId: a.memberId }));
    assert.deepEqual(again, a);
  });
});

describe('static membership (KIP-345)', () => {
  const staticJoin = (instance: string, over = {}) => joinInput({ clientId: instance, groupInstanceId: instance, requireKnownMemberId: true, ...over });

  async function stableStaticGroup(over = {}) {
    const h = harness();
    const ja = new Pending(h.coordinator.joinGroup(staticJoin('ia', over)));
    const jb = new Pending(h.coordinator.joinGroup(staticJoin('ib', over)));
    await h.timers.advance(0);
    const joins = [ja.get(), jb.get()];
    const syncs = await syncAll(h, joins);
    return { h, joins, syncs };
  }

  it('static members get an id at once (no MEMBER_ID_REQUIRED)', async () => {
    const { joins } = await stableStaticGroup();
    assert.deepEqual(joins.map((j) => j.errorCode), [ErrorCode.NONE, ErrorCode.NONE]);
  });

  it('a restart (unknown member id, same instance id) in a Stable group takes over without a rebalance', async () => {
    const { h, joins } = await stableStaticGroup();
    const [a, b] = joins;
    assert.ok(a && b);
    const callsBefore = h.persistence.calls.length;
    const r = await h.coordinator.joinGroup(staticJoin('ib'));
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.notEqual(r.memberId, b.memberId);
    assert.equal(r.generationId, 1);
    assert.equal(r.leaderId, a.memberId);
    assert.equal(h.persistence.calls.length, callsBefore + 1, 'the new member id is persisted');
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Stable');
    const s = await h.coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId: r.memberId, groupInstanceId: 'ib', protocolType: null, protocolName: null, assignments: [] });
    assert.deepEqual(s.assignment, Buffer.from(`a:${b.memberId}`), 'the previous assignment');
    // The old incarnation is fenced.
    assert.equal(h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: 'ib' }), ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(
      (await h.coordinator.commitOffsets({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: 'ib', retentionTimeMs: -1, offsets: [{ topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: null }] })).partitions[0]?.errorCode,
      ErrorCode.FENCED_INSTANCE_ID,
    );
    assert.equal(h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: r.memberId, groupInstanceId: 'ib' }), ErrorCode.NONE);
    h.coordinator.checkInvariants();
  });

  it('a restarted static leader is told the old leader id, so it does not assign', async () => {
    const { h, joins } = await stableStaticGroup();
    const r = await h.coordinator.joinGroup(staticJoin('ia'));
    assert.equal(r.leaderId, joins[0]?.memberId);
    assert.notEqual(r.leaderId, r.memberId);
    assert.equal(h.coordinator.groupStatus('g')?.leaderId, r.memberId, 'but leadership moved to the new id');
  });

  it('if the new member id cannot be persisted, the old one stays valid', async () => {
    const { h, joins } = await stableStaticGroup();
    const b = joins[1];
    assert.ok(b);
    h.persistence.failNext = 1;
    const r = await h.coordinator.joinGroup(staticJoin('ib'));
    assert.equal(r.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: 'ib' }), ErrorCode.NONE);
    h.coordinator.checkInvariants();
  });

  it('a restart with protocols that change the group protocol triggers a rebalance', async () => {
    const { h } = await stableStaticGroup({ protocols: [{ name: 'range', metadata: sub('t') }, { name: 'roundrobin', metadata: sub('t') }] });
    const r = await pending(h.coordinator.joinGroup(staticJoin('ib', { protocols: [{ name: 'roundrobin', metadata: sub('t') }] })));
    assert.equal(r.done, false);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'PreparingRebalance');
  });

  it('a restart while CompletingRebalance triggers a rebalance and fences the old id', async () => {
    const h = harness();
    const ja = new Pending(h.coordinator.joinGroup(staticJoin('ia')));
    const jb = new Pending(h.coordinator.joinGroup(staticJoin('ib')));
    await h.timers.advance(0);
    const b = jb.get();
    const oldSync = await pending(h.coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: 'ib', protocolType: null, protocolName: null, assignments: [] }));
    assert.equal(oldSync.done, false);
    const r = await pending(h.coordinator.joinGroup(staticJoin('ib')));
    assert.equal(oldSync.get().errorCode, ErrorCode.FENCED_INSTANCE_ID);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'PreparingRebalance');
    const ra = await pending(h.coordinator.joinGroup(staticJoin('ia', { memberId: ja.get().memberId })));
    assert.equal(r.get().generationId, 2);
    assert.equal(ra.get().members.length, 2);
    h.coordinator.checkInvariants();
  });

  it('a static member that does not rejoin is kept over the rebalance, then removed if it never syncs', async () => {
    const { h, joins } = await stableStaticGroup();
    const [a, b] = joins;
    assert.ok(a && b);
    const ra = await pending(h.coordinator.joinGroup(staticJoin('ia', { memberId: a.memberId })));
    await h.timers.advance(5_000);
    // keep a's session alive; b stays silent but its session is 10 s, so it expires first.
    assert.equal(ra.done, false);
    await h.timers.advance(5_000);
    // b's session expired (static members too are removed on session expiry): the join completes without it.
    assert.equal(ra.get().members.length, 1);
    assert.equal(h.coordinator.describeGroups(['g'])[0]?.members.length, 1);
  });

  it('static members kept by the rebalance timeout are in the leader view; unsynced ones are removed after the rebalance timeout', async () => {
    const h = harness();
    const ja = new Pending(h.coordinator.joinGroup(staticJoin('ia', { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 20_000 })));
    const jb = new Pending(h.coordinator.joinGroup(staticJoin('ib', { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 20_000 })));
    await h.timers.advance(0);
    const [a, b] = [ja.get(), jb.get()];
    await syncAll(h, [a, b]);
    const ra = await pending(h.coordinator.joinGroup(staticJoin('ia', { memberId: a.memberId, sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 20_000 })));
    await h.timers.advance(20_000);
    assert.deepEqual(ra.get().members.map((m) => m.memberId), [a.memberId, b.memberId], 'b was kept');
    assert.equal(ra.get().generationId, 2);
    h.coordinator.checkInvariants();
    await syncAll(h, [ra.get()]);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Stable');
    // b restarts within its session: it takes over without a rebalance and gets what the leader gave it.
    const rb = await h.coordinator.joinGroup(staticJoin('ib', { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 20_000 }));
    assert.equal(rb.generationId, 2);
    const sb = await h.coordinator.syncGroup({ groupId: 'g', generationId: 2, memberId: rb.memberId, groupInstanceId: 'ib', protocolType: null, protocolName: null, assignments: [] });
    assert.deepEqual(sb.assignment, Buffer.from(`a:${b.memberId}`));
    await h.timers.advance(20_000);
    assert.equal(h.coordinator.groupStatus('g')?.generationId, 2, 'no rebalance: everyone synced');
    h.coordinator.checkInvariants();
  });
});
