/**
 * Our Admin client's group calls against the embeddable broker: list with a
 * state filter, describe with decoded member assignments, remove members
 * (batched LeaveGroup v3+, by member id, by instance id, everyone), commit /
 * fetch / reset / delete offsets, delete groups; errors per member,
 * partition and group.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type EmbeddedCluster } from '../../../src/index.js';
import { Admin, Cluster, GroupMember, produce } from '../../../src/client/index.js';

const TOPIC = 'ag-orders';

describe('Admin: consumer groups', { timeout: 60_000 }, () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  let memberCluster: Cluster;

  before(async () => {
    // No initial rebalance delay: a lone member joins at once.
    cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
    admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    memberCluster = await Cluster.connect({ bootstrap: cluster.bootstrap });
    await admin.createTopic({ name: TOPIC, numPartitions: 2 });
    for (const partition of [0, 1]) {
      await produce(admin.cluster, TOPIC, partition, Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, timestamp: 1_000 * (i + 1) })));
    }
  });

  after(async () => {
    await memberCluster?.close();
    await admin?.close();
    await cluster?.stop();
  });

  async function joinedMember(groupId: string, groupInstanceId: string | null = null): Promise<GroupMember> {
    const member = new GroupMember(memberCluster, { groupId, topics: [TOPIC], groupInstanceId, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 });
    await member.ensureActive();
    return member;
  }

  it('lists groups with a state filter and describes members with decoded assignments', async () => {
    const member = await joinedMember('ag-live');
    try {
      const stable = await admin.listGroups(['Stable']);
      assert.deepEqual(stable.map((g) => [g.groupId, g.protocolType, g.state]), [['ag-live', 'consumer', 'Stable']]);
      assert.deepEqual(await admin.listGroups(['Empty']), []);
      const [d] = await admin.describeGroups(['ag-live'], { includeAuthorizedOperations: true });
      assert.equal(d!.error, null);
      assert.equal(d!.state, 'Stable');
      assert.equal(d!.protocol, 'range');
      assert.equal(d!.members.length, 1);
      assert.deepEqual(d!.members[0]!.assignment, [{ topic: TOPIC, partitions: [0, 1] }]);
      assert.deepEqual(d!.members[0]!.subscription, [TOPIC]);
      assert.equal(d!.authorizedOperations, null);
      const [dead] = await admin.describeGroups(['ag-none']);
      assert.equal(dead!.state, 'Dead');
    } finally {
      await member.close();
    }
  });

  it('removeGroupMembers: every member when none is named; unknown members answer per member', async () => {
    const member = await joinedMember('ag-remove');
    try {
      const removed = await admin.removeGroupMembers('ag-remove');
      assert.equal(removed.error, null);
      assert.equal(removed.members.length, 1);
      assert.equal(removed.members[0]!.error, null);
      assert.equal((await admin.describeGroups(['ag-remove']))[0]!.state, 'Empty');
      const unknown = await admin.removeGroupMembers('ag-remove', [{ memberId: 'nobody' }, { groupInstanceId: 'ghost' }]);
      assert.equal(unknown.error, null);
      assert.deepEqual(unknown.members.map((m) => [m.memberId, m.groupInstanceId, m.error?.kafkaErrorName]), [
        ['nobody', null, 'UNKNOWN_MEMBER_ID'],
        ['', 'ghost', 'UNKNOWN_MEMBER_ID'],
      ]);
      await assert.rejects(admin.removeGroupMembers('ag-remove', [{}]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
    } finally {
      await member.close();
    }
  });

  it('removeGroupMembers removes a static member by its instance id', async () => {
    const member = await joinedMember('ag-static', 'instance-1');
    try {
      const removed = await admin.removeGroupMembers('ag-static', [{ groupInstanceId: 'instance-1' }]);
      assert.deepEqual(removed.members.map((m) => [m.groupInstanceId, m.error]), [['instance-1', null]]);
      assert.equal((await admin.describeGroups(['ag-static']))[0]!.members.length, 0);
    } finally {
      await member.close();
    }
  });

  it('commit, reset (earliest, latest, timestamp, offset, shiftBy, dry run), fetch and delete offsets', async () => {
    const group = 'ag-offsets';
    const committed = await admin.commitGroupOffsets(group, [{ topic: TOPIC, partition: 0, offset: 5n }]);
    assert.deepEqual(committed.map((c) => c.error), [null]);
    const offsets = async (): Promise<[number, bigint][]> => (await admin.fetchGroupOffsets(group)).map((o) => [o.partition, o.offset]);
    assert.deepEqual(await offsets(), [[0, 5n]]);

    const dry = await admin.resetGroupOffsets(group, [TOPIC], 'earliest', { dryRun: true });
    assert.deepEqual(dry.map((r) => [r.partition, r.offset, r.error]), [[0, 0n, null], [1, 0n, null]]);
    assert.deepEqual(await offsets(), [[0, 5n]]);

    await admin.resetGroupOffsets(group, [TOPIC], 'latest');
    assert.deepEqual(await offsets(), [[0, 10n], [1, 10n]]);
    await admin.resetGroupOffsets(group, [{ topic: TOPIC, partitions: [1] }], 3_500);
    assert.deepEqual(await offsets(), [[0, 10n], [1, 3n]]);
    await admin.resetGroupOffsets(group, [TOPIC], { shiftBy: -4n });
    assert.deepEqual(await offsets(), [[0, 6n], [1, 0n]]);
    await admin.resetGroupOffsets(group, [TOPIC], { offset: 99n });
    assert.deepEqual(await offsets(), [[0, 10n], [1, 10n]]);
    const missing = await admin.resetGroupOffsets(group, ['ag-missing'], 'earliest');
    assert.equal(missing[0]!.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION');

    const deleted = await admin.deleteGroupOffsets(group, [{ topic: TOPIC, partitions: [0] }]);
    assert.deepEqual(deleted.map((d) => d.error), [null]);
    assert.deepEqual(await offsets(), [[1, 10n]]);
  });

  it('offsets of a live group cannot be reset; the refusal comes back per partition', async () => {
    const member = await joinedMember('ag-busy');
    try {
      const results = await admin.resetGroupOffsets('ag-busy', [TOPIC], 'earliest');
      assert.deepEqual(results.map((r) => r.error?.kafkaErrorName), ['UNKNOWN_MEMBER_ID', 'UNKNOWN_MEMBER_ID']);
      assert.match(results[0]!.error!.message, /active members/);
      const [notEmpty] = await admin.deleteGroups(['ag-busy']);
      assert.equal(notEmpty!.error?.kafkaErrorName, 'NON_EMPTY_GROUP');
    } finally {
      await member.close();
    }
    const [gone, never] = await admin.deleteGroups(['ag-busy', 'ag-never']);
    assert.equal(gone!.error, null);
    assert.equal(never!.error?.kafkaErrorName, 'GROUP_ID_NOT_FOUND');
  });
});
