/** OffsetCommit/Fetch/Delete, expiry, admin APIs, loading and unloading. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import type { OffsetCommitInput } from '../../../../src/coordinator/group/coordinator-api.js';
import { encodeSubscription, parseSubscriptionTopics } from '../../../../src/coordinator/group/member.js';
import { formGroup, harness, joinInput, pending, sub, syncAll } from './harness.js';

const DAY = 24 * 3600 * 1000;
const commit = (over: Partial<OffsetCommitInput> = {}, offset = 5n, metadata: string | null = 'm'): OffsetCommitInput => ({
  groupId: 'g',
  generationId: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1,
  offsets: [{ topic: 't', partition: 0, offset, leaderEpoch: 3, metadata }],
  ...over,
});
const codes = (r: { partitions: readonly { errorCode: number }[] }) => r.partitions.map((p) => p.errorCode);

describe('OffsetCommit and OffsetFetch', () => {
  it('a standalone commit creates the group; offsets are visible once persisted', async () => {
    const h = harness();
    const c = h.coordinator;
    assert.deepEqual(c.fetchOffsets('g', [{ topic: 't', partition: 0 }], false).partitions, [{ topic: 't', partition: 0, offset: -1n, leaderEpoch: -1, metadata: '', errorCode: 0 }]);
    assert.deepEqual(codes(await c.commitOffsets(commit())), [ErrorCode.NONE]);
    assert.deepEqual(c.fetchOffsets('g', null, false).partitions, [{ topic: 't', partition: 0, offset: 5n, leaderEpoch: 3, metadata: 'm', errorCode: 0 }]);
    assert.equal(h.persistence.committed('g', 't', 0)?.offset, 5n);
    assert.equal(c.groupStatus('g')?.state, 'Empty');
    // Null metadata is stored as ''.
    await c.commitOffsets(commit({}, 6n, null));
    assert.equal(c.fetchOffsets('g', null, false).partitions[0]?.metadata, '');
    // The empty group id is valid for commits (legacy standalone consumers).
    assert.deepEqual(codes(await c.commitOffsets(commit({ groupId: '' }))), [ErrorCode.NONE]);
    c.checkInvariants();
  });

  it('a commit is invisible while it is being written; require_stable answers UNSTABLE_OFFSET_COMMIT for it', async () => {
    const h = harness({}, { kind: 'manual' });
    const c = h.coordinator;
    const first = c.commitOffsets(commit({}, 1n));
    h.persistence.release();
    await first;
    const second = await pending(c.commitOffsets(commit({}, 2n)));
    assert.equal(c.fetchOffsets('g', null, false).partitions[0]?.offset, 1n);
    assert.equal(c.fetchOffsets('g', [{ topic: 't', partition: 0 }], true).partitions[0]?.errorCode, ErrorCode.UNSTABLE_OFFSET_COMMIT);
    h.persistence.release();
    await h.timers.advance(0);
    assert.deepEqual(codes(second.get()), [ErrorCode.NONE]);
    assert.equal(c.fetchOffsets('g', [{ topic: 't', partition: 0 }], true).partitions[0]?.offset, 2n);
  });

  it('a failed write is answered with COORDINATOR_NOT_AVAILABLE and never becomes visible', async () => {
    const h = harness();
    h.persistence.failNext = 1;
    assert.deepEqual(codes(await h.coordinator.commitOffsets(commit())), [ErrorCode.COORDINATOR_NOT_AVAILABLE]);
    assert.equal(h.coordinator.fetchOffsets('g', null, false).partitions.length, 0);
  });

  it('OFFSET_METADATA_TOO_LARGE per partition; the others are stored', async () => {
    const h = harness({ offsetMetadataMaxBytes: 4 });
    const r = await h.coordinator.commitOffsets({
      ...commit(),
      offsets: [
        { topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: 'toolong' },
        { topic: 't', partition: 1, offset: 2n, leaderEpoch: -1, metadata: 'ok' },
      ],
    });
    assert.deepEqual(codes(r), [ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.NONE]);
    assert.deepEqual(h.coordinator.fetchOffsets('g', null, false).partitions.map((p) => p.partition), [1]);
  });

  it('group members commit with their generation; stale or foreign commits are refused as Kafka does', async () => {
    const h = harness();
    const c = h.coordinator;
    assert.deepEqual(codes(await c.commitOffsets(commit({ groupId: 'nope', generationId: 1, memberId: 'x' }))), [ErrorCode.ILLEGAL_GENERATION]);
    const joins = await formGroup(h, ['a', 'b']);
    const [a, b] = joins;
    assert.ok(a && b);
    const as = { generationId: 1, memberId: a.memberId };
    assert.deepEqual(codes(await c.commitOffsets(commit(as))), [ErrorCode.REBALANCE_IN_PROGRESS], 'CompletingRebalance');
    await syncAll(h, joins);
    assert.deepEqual(codes(await c.commitOffsets(commit(as))), [ErrorCode.NONE]);
    assert.deepEqual(codes(await c.commitOffsets(commit({ generationId: 0, memberId: a.memberId }))), [ErrorCode.ILLEGAL_GENERATION]);
    assert.deepEqual(codes(await c.commitOffsets(commit({ generationId: 1, memberId: 'x' }))), [ErrorCode.UNKNOWN_MEMBER_ID]);
    assert.deepEqual(codes(await c.commitOffsets(commit())), [ErrorCode.UNKNOWN_MEMBER_ID], 'standalone commit into a group with members');
    await pending(c.joinGroup(joinInput({ memberId: a.memberId })));
    assert.equal(c.groupStatus('g')?.state, 'PreparingRebalance');
    assert.deepEqual(codes(await c.commitOffsets(commit({ generationId: 1, memberId: b.memberId }, 9n))), [ErrorCode.NONE], 'allowed while preparing');
    assert.equal(c.fetchOffsets('g', null, false).partitions[0]?.offset, 9n);
    c.checkInvariants();
  });

  it('v2-v4 retention sets an expiry time on the commit', async () => {
    const h = harness();
    await h.coordinator.commitOffsets(commit({ retentionTimeMs: 1000n }));
    assert.equal(h.persistence.committed('g', 't', 0)?.expireTimestampMs, h.clock.nowMs() + 1000);
  });
});

describe('OffsetDelete', () => {
  it('refuses topics a consumer group subscribes; deletes the others with tombstones', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a'], { protocols: [{ name: 'range', metadata: sub('t') }] });
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    await h.coordinator.commitOffsets({
      ...commit({ generationId: 1, memberId: a.memberId }),
      offsets: [
        { topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: '' },
        { topic: 'u', partition: 0, offset: 2n, leaderEpoch: -1, metadata: '' },
      ],
    });
    const r = await h.coordinator.deleteOffsets('g', [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }]);
    assert.deepEqual(r, {
      errorCode: 0,
      partitions: [
        { topic: 't', partition: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC },
        { topic: 'u', partition: 0, errorCode: ErrorCode.NONE },
      ],
    });
    assert.deepEqual(h.coordinator.fetchOffsets('g', null, false).partitions.map((p) => p.topic), ['t']);
    const last = h.persistence.calls.at(-1);
    assert.deepEqual(last, { kind: 'offsets', groupId: 'g', commits: [{ topic: 'u', partition: 0, offset: null }] });
  });

  it('GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP for other protocol types, everything for an Empty group', async () => {
    const h = harness();
    assert.equal((await h.coordinator.deleteOffsets('nope', [])).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal((await h.coordinator.deleteOffsets('', [])).errorCode, ErrorCode.INVALID_GROUP_ID);
    await formGroup(h, ['w'], { groupId: 'connect', protocolType: 'connect' });
    assert.equal((await h.coordinator.deleteOffsets('connect', [{ topic: 't', partition: 0 }])).errorCode, ErrorCode.NON_EMPTY_GROUP);
    await h.coordinator.commitOffsets(commit());
    assert.deepEqual(codes(await h.coordinator.deleteOffsets('g', [{ topic: 't', partition: 0 }])), [ErrorCode.NONE]);
    assert.equal(h.persistence.committed('g', 't', 0), undefined);
  });

  it('a failed tombstone write leaves the offsets in place', async () => {
    const h = harness();
    await h.coordinator.commitOffsets(commit());
    h.persistence.failNext = 1;
    assert.equal((await h.coordinator.deleteOffsets('g', [{ topic: 't', partition: 0 }])).errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(h.coordinator.fetchOffsets('g', null, false).partitions.length, 1);
  });
});

describe('offset expiry (offsets.retention.ms)', () => {
  it('standalone offsets expire by commit time; the emptied group is removed with a tombstone', async () => {
    const h = harness({ offsetsRetentionMs: DAY });
    await h.coordinator.commitOffsets(commit());
    await h.timers.advance(DAY - 1);
    assert.equal((await h.coordinator.expireOffsets()).offsetsRemoved.size, 0);
    await h.timers.advance(1);
    const report = await h.coordinator.expireOffsets();
    assert.deepEqual(report.offsetsRemoved.get('g'), [{ topic: 't', partition: 0 }]);
    assert.deepEqual(report.groupsRemoved, ['g']);
    assert.equal(h.coordinator.groupStatus('g'), null);
    assert.deepEqual(h.persistence.calls.at(-1), { kind: 'group', groupId: 'g', snapshot: null });
    h.coordinator.checkInvariants();
  });

  it('an Empty group keeps its offsets for the retention after it became empty, not after the commit', async () => {
    const h = harness({ offsetsRetentionMs: DAY, maxSessionTimeoutMs: 10 * DAY });
    const joins = await formGroup(h, ['a'], { sessionTimeoutMs: DAY });
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    await h.coordinator.commitOffsets(commit({ generationId: 1, memberId: a.memberId }));
    for (let i = 0; i < 10; i++) {
      await h.timers.advance(DAY / 5);
      h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null });
    }
    assert.equal((await h.coordinator.expireOffsets()).offsetsRemoved.size, 0, 'Stable and subscribed: kept');
    h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a.memberId, groupInstanceId: null }] });
    await h.timers.advance(DAY - 1);
    assert.equal((await h.coordinator.expireOffsets()).offsetsRemoved.size, 0);
    await h.timers.advance(1);
    assert.equal((await h.coordinator.expireOffsets()).offsetsRemoved.get('g')?.length, 1);
  });

  it('a Stable consumer group loses offsets of topics it no longer subscribes, by commit time', async () => {
    const h = harness({ offsetsRetentionMs: DAY, maxSessionTimeoutMs: 10 * DAY });
    const joins = await formGroup(h, ['a'], { sessionTimeoutMs: 5 * DAY });
    await syncAll(h, joins);
    const a = joins[0];
    assert.ok(a);
    await h.coordinator.commitOffsets({ ...commit({ generationId: 1, memberId: a.memberId }), offsets: [{ topic: 'old', partition: 0, offset: 1n, leaderEpoch: -1, metadata: '' }, { topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: '' }] });
    await h.timers.advance(DAY);
    const r = await h.coordinator.expireOffsets();
    assert.deepEqual(r.offsetsRemoved.get('g'), [{ topic: 'old', partition: 0 }]);
  });

  it('an explicit retention (OffsetCommit v2-v4) expires at its own time', async () => {
    const h = harness({ offsetsRetentionMs: DAY });
    await h.coordinator.commitOffsets(commit({ retentionTimeMs: 1000 }));
    await h.timers.advance(1000);
    assert.equal((await h.coordinator.expireOffsets()).offsetsRemoved.get('g')?.length, 1);
  });
});

describe('DescribeGroups, ListGroups, DeleteGroups', () => {
  it('describes members (metadata and assignment only when Stable) and unknown groups as Dead', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    let d = h.coordinator.describeGroups(['g', 'nope']);
    assert.equal(d[0]?.state, 'CompletingRebalance');
    assert.equal(d[0]?.protocolName, '');
    assert.equal(d[0]?.members[0]?.metadata.length, 0);
    assert.deepEqual(d[1], { groupId: 'nope', errorCode: 0, state: 'Dead', protocolType: '', protocolName: '', members: [] });
    await syncAll(h, joins);
    d = h.coordinator.describeGroups(['g']);
    assert.equal(d[0]?.state, 'Stable');
    assert.equal(d[0]?.protocolType, 'consumer');
    assert.equal(d[0]?.protocolName, 'range');
    assert.deepEqual(d[0]?.members[0], { memberId: 'a-1', groupInstanceId: null, clientId: 'a', clientHost: '/127.0.0.1', metadata: sub('t'), assignment: Buffer.from('a:a-1') });
  });

  it('lists groups with a case-insensitive state filter', async () => {
    const h = harness();
    await formGroup(h, ['a']);
    await h.coordinator.commitOffsets(commit({ groupId: 'standalone' }));
    assert.deepEqual(h.coordinator.listGroups([]), [
      { groupId: 'g', protocolType: 'consumer', state: 'CompletingRebalance' },
      { groupId: 'standalone', protocolType: '', state: 'Empty' },
    ]);
    assert.deepEqual(h.coordinator.listGroups(['empty']).map((g) => g.groupId), ['standalone']);
    assert.deepEqual(h.coordinator.listGroups(['Stable']), []);
  });

  it('deletes Empty groups with tombstones for offsets and group; refuses groups with members', async () => {
    const h = harness();
    await formGroup(h, ['a'], { groupId: 'busy' });
    await h.coordinator.commitOffsets(commit());
    const r = await h.coordinator.deleteGroups(['g', 'busy', 'nope']);
    assert.deepEqual(r, [
      { groupId: 'g', errorCode: ErrorCode.NONE },
      { groupId: 'busy', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    assert.equal(h.coordinator.groupStatus('g'), null);
    assert.equal(h.persistence.committed('g', 't', 0), undefined);
    assert.equal(h.persistence.groups.has('g'), false);
    assert.equal(h.coordinator.fetchOffsets('g', null, false).partitions.length, 0);
    h.coordinator.checkInvariants();
  });

  it('a failed deletion leaves the group Empty', async () => {
    const h = harness();
    await h.coordinator.commitOffsets(commit());
    h.persistence.failNext = 1;
    assert.equal((await h.coordinator.deleteGroups(['g']))[0]?.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(h.coordinator.groupStatus('g')?.state, 'Empty');
    assert.equal(h.coordinator.fetchOffsets('g', null, false).partitions.length, 1);
  });
});

describe('loading and unloading', () => {
  it('a restarted coordinator loads Stable groups whose members keep heartbeating, and offsets', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    await syncAll(h, joins);
    const [a, b] = joins;
    assert.ok(a && b);
    await h.coordinator.commitOffsets(commit({ generationId: 1, memberId: a.memberId }, 42n));
    await h.coordinator.commitOffsets(commit({ groupId: 'solo' }, 7n));
    const c = h.restart();
    assert.equal(c.groupStatus('g')?.state, 'Stable');
    assert.equal(c.groupStatus('g')?.generationId, 1);
    assert.equal(c.fetchOffsets('g', null, false).partitions[0]?.offset, 42n);
    assert.equal(c.fetchOffsets('solo', null, false).partitions[0]?.offset, 7n);
    assert.equal(c.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null }), ErrorCode.NONE);
    const sa = await c.syncGroup({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
    assert.equal(sa.assignment.toString(), `a:${a.memberId}`);
    c.checkInvariants();
    // b is silent after the restart: its session expires and a rebalance follows.
    for (let i = 0; i < 4; i++) {
      await h.timers.advance(3_000);
      c.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null });
    }
    assert.equal(c.groupStatus('g')?.state, 'PreparingRebalance');
    c.checkInvariants();
  });

  it('unloading answers waiting requests with NOT_COORDINATOR and cancels every timer', async () => {
    const h = harness();
    const joins = await formGroup(h, ['a', 'b']);
    const b = joins[1];
    assert.ok(b);
    const sb = await pending(h.coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId: b.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }));
    const j2 = await pending(h.coordinator.joinGroup(joinInput({ groupId: 'g2' })));
    await h.timers.advance(0);
    assert.equal(j2.get().errorCode, ErrorCode.NONE);
    h.coordinator.unloadGroups((id) => id === 'g');
    await h.timers.advance(0);
    assert.equal(sb.get().errorCode, ErrorCode.NOT_COORDINATOR);
    assert.equal(h.coordinator.groupStatus('g'), null);
    assert.notEqual(h.coordinator.groupStatus('g2'), null);
    h.coordinator.shutdown();
    assert.equal(h.timers.live, 0, 'no timer left behind');
    h.coordinator.checkInvariants();
  });
});

describe('consumer protocol subscription parsing', () => {
  it('reads the topics of any version and refuses garbage', () => {
    assert.deepEqual(parseSubscriptionTopics(encodeSubscription(['a', 'bé'], Buffer.from('x'))), ['a', 'bé']);
    const v3 = Buffer.concat([Buffer.from([0, 3, 0, 0, 0, 1, 0, 1]), Buffer.from('z'), Buffer.alloc(20)]);
    assert.deepEqual(parseSubscriptionTopics(v3), ['z']);
    assert.equal(parseSubscriptionTopics(Buffer.from([0, 0, 0, 0, 0, 5, 0])), null);
    assert.equal(parseSubscriptionTopics(Buffer.alloc(2)), null);
    assert.equal(parseSubscriptionTopics(Buffer.from([0, 0, 0x7f, 0, 0, 0])), null);
  });
});
