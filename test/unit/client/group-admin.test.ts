/**
 * Admin's group operations against a fake broker: routing to the
 * coordinator (found again after NOT_COORDINATOR), decoding member
 * assignments, the standalone commit refused for an active group,
 * OffsetDelete per partition, and ListGroups' state filter on old brokers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { encodeAssignment, encodeSubscription } from '../../../src/client/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

function versions(listGroupsMax: number): { apiKey: number; minVersion: number; maxVersion: number }[] {
  return [
    ...FAKE_API_VERSIONS,
    { apiKey: 8, minVersion: 2, maxVersion: 8 },
    { apiKey: 9, minVersion: 1, maxVersion: 8 },
    { apiKey: 10, minVersion: 0, maxVersion: 2 },
    { apiKey: 15, minVersion: 0, maxVersion: 5 },
    { apiKey: 16, minVersion: 0, maxVersion: listGroupsMax },
    { apiKey: 42, minVersion: 0, maxVersion: 2 },
    { apiKey: 47, minVersion: 0, maxVersion: 0 },
  ];
}

function metadata(broker: FakeBroker): FakeReply {
  return { body: { throttleTimeMs: 0, brokers: [{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null }], clusterId: 'fake', controllerId: 1, topics: [] } };
}

async function start(handler: (req: FakeRequest, broker: FakeBroker) => FakeReply, listGroupsMax = 4): Promise<{ admin: Admin; broker: FakeBroker; requests: FakeRequest[] }> {
  const requests: FakeRequest[] = [];
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      requests.push(req);
      if (req.apiKey === 3) return metadata(b);
      if (req.apiKey === 10) return { body: { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: '127.0.0.1', port: b.port } };
      return handler(req, b);
    }, versions(listGroupsMax)),
  );
  const admin = await Admin.connect({ bootstrap: `127.0.0.1:${broker.port}`, retryBackoffMs: 1 });
  return { admin, broker, requests };
}

test('describeGroups finds the coordinator again after NOT_COORDINATOR and decodes assignments', async (t) => {
  let describes = 0;
  const { admin, broker, requests } = await start((req) => {
    assert.equal(req.apiKey, 15);
    describes++;
    const member = {
      memberId: 'm1',
      groupInstanceId: null,
      clientId: 'c1',
      clientHost: '/127.0.0.1',
      memberMetadata: encodeSubscription({ topics: ['orders'] }),
      memberAssignment: encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [0, 1] }] }),
    };
    const errorCode = describes === 1 ? ErrorCode.NOT_COORDINATOR : 0;
    return { body: { throttleTimeMs: 0, groups: [{ errorCode, groupId: 'g', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', members: [member], authorizedOperations: 0 }] } };
  });
  t.after(async () => {
    await admin.close();
    await broker.stop();
  });
  const [g] = await admin.describeGroups(['g']);
  assert.equal(g?.state, 'Stable');
  assert.equal(g?.protocol, 'range');
  assert.deepEqual(g?.members[0]?.assignment, [{ topic: 'orders', partitions: [0, 1] }]);
  assert.deepEqual(g?.members[0]?.subscription, ['orders']);
  assert.equal(requests.filter((r) => r.apiKey === 10).length, 2, 'FindCoordinator again after NOT_COORDINATOR');
  assert.equal(requests.find((r) => r.apiKey === 10)?.body.key, 'g');
});

test('commitGroupOffsets is a standalone commit and says why an active group refuses it', async (t) => {
  const { admin, broker, requests } = await start((req) => {
    const topics = req.body.topics as { name: string; partitions: { partitionIndex: number }[] }[];
    return { body: { throttleTimeMs: 0, topics: topics.map((x) => ({ name: x.name, partitions: x.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) })) } };
  });
  t.after(async () => {
    await admin.close();
    await broker.stop();
  });
  const [r] = await admin.commitGroupOffsets('g', [{ topic: 'orders', partition: 0, offset: 5n }]);
  assert.equal(r?.error?.errorName, 'UNKNOWN_MEMBER_ID');
  assert.match(r?.error?.message ?? '', /has active members/);
  const commit = requests.find((x) => x.apiKey === 8);
  assert.equal(commit?.apiVersion, 8);
  assert.equal(commit?.body.generationIdOrMemberEpoch, -1);
  assert.equal(commit?.body.memberId, '');
});

test('deleteGroupOffsets answers per partition', async (t) => {
  const { admin, broker } = await start(() => ({
    body: {
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] }],
    },
  }));
  t.after(async () => {
    await admin.close();
    await broker.stop();
  });
  const results = await admin.deleteGroupOffsets('g', [{ topic: 'orders', partitions: [1, 0] }]);
  assert.deepEqual(results.map((r) => [r.partition, r.error?.errorName ?? null]), [[0, null], [1, 'GROUP_SUBSCRIBED_TO_TOPIC']]);
});

test('listGroups filters by state through DescribeGroups when ListGroups is older than v4', async (t) => {
  const { admin, broker } = await start((req) => {
    if (req.apiKey === 16) {
      return { body: { throttleTimeMs: 0, errorCode: 0, groups: [{ groupId: 'b', protocolType: 'consumer' }, { groupId: 'a', protocolType: 'consumer' }] } };
    }
    const id = (req.body.groups as string[])[0] as string;
    return { body: { throttleTimeMs: 0, groups: [{ errorCode: 0, groupId: id, groupState: id === 'a' ? 'Empty' : 'Stable', protocolType: 'consumer', protocolData: '', members: [], authorizedOperations: 0 }] } };
  }, 2);
  t.after(async () => {
    await admin.close();
    await broker.stop();
  });
  assert.deepEqual((await admin.listGroups()).map((g) => [g.groupId, g.state]), [['a', null], ['b', null]]);
  assert.deepEqual((await admin.listGroups(['Empty'])).map((g) => [g.groupId, g.state]), [['a', 'Empty']]);
});

test('fetchGroupOffsets keeps the partitions that have a committed offset', async (t) => {
  const { admin, broker } = await start(() => ({
    body: {
      throttleTimeMs: 0,
      groups: [
        {
          groupId: 'g',
          errorCode: 0,
          topics: [
            { name: 'b', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }] },
            { name: 'a', partitions: [{ partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }, { partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: 2, metadata: 'm', errorCode: 0 }] },
          ],
        },
      ],
    },
  }));
  t.after(async () => {
    await admin.close();
    await broker.stop();
  });
  assert.deepEqual((await admin.fetchGroupOffsets('g')).map((o) => `${o.topic}-${o.partition}@${o.offset}`), ['a-0@9', 'b-0@3']);
  assert.deepEqual((await admin.fetchGroupOffsets('g', ['b'])).map((o) => `${o.topic}-${o.partition}`), ['b-0']);
});
