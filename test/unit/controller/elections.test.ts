/**
 * Leader election rules of leadership.ts on a controller-level cluster:
 * ISR first (replica order), then ELR (KIP-966), then the last known ELR
 * member, then (only with unclean.leader.election.enable, topic or broker
 * default) any live replica with ISR = [it] and RECOVERING; the unclean
 * restart (no clean-shutdown epoch) that takes a broker out of every ISR and
 * ELR; ElectLeaders preferred / unclean; auto leader rebalance; and the
 * elections reported for metrics.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeMetadataRecord, encodeMetadataRecord, type MetadataRecord } from '../../../src/controller/metadata/records.js';
import { controllerCluster } from './cluster-fixture.js';

const MIN_ISR_2 = [{ name: 'min.insync.replicas', value: '2' }];

describe('election order', () => {
  it('ISR first: the first live ISR member in replica order', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2, 3]]);
    await c.heartbeat(1, { wantFence: true });
    const p = c.partition('t');
    assert.deepEqual([p.leader, p.isr, p.elr, p.leaderEpoch], [2, [2, 3], [], 1]);
    assert.deepEqual(c.elections.at(-1), { topicName: 't', partitionId: 0, leader: 2, kind: 'isr' });
  });

  it('a member that leaves an ISR below min.insync.replicas joins the ELR, and leads when the ISR has no live member', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2, 3]], MIN_ISR_2);
    await c.heartbeat(3, { wantFence: true });
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1, 2], []], 'at min ISR: not eligible');
    await c.heartbeat(2, { wantFence: true });
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1], [2]], 'below min ISR: broker 2 is eligible');
    await c.heartbeat(1, { wantFence: true });
    assert.deepEqual([c.partition('t').leader, c.partition('t').isr, c.partition('t').elr], [-1, [1], [2]], 'the last member stays in the ISR; offline');
    await c.heartbeat(2);
    const p = c.partition('t');
    assert.deepEqual([p.leader, p.isr, p.elr, p.leaderRecoveryState], [2, [2], [], 0], 'the ELR member leads, cleanly');
    assert.equal(c.elections.at(-1)?.kind, 'elr');
    assert.equal(c.controller.stats.elections.get('elr'), 1);
  });

  it('no unclean election unless enabled; with the topic config, any live replica leads with ISR = [it], RECOVERING', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('safe', [[1, 2]]);
    await c.createTopic('risky', [[1, 2]], [{ name: 'unclean.leader.election.enable', value: 'true' }]);
    for (const [topicId, name] of [[c.image.topicByName('safe')?.topicId, 'safe'], [c.image.topicByName('risky')?.topicId, 'risky']] as const) {
      const p = c.partition(name);
      const r = await c.controller.alterPartition({ version: 3, brokerId: 1, brokerEpoch: c.epoch(1), topics: [{ topicName: name, topicId: topicId as string, partitions: [{ partitionIndex: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: [{ brokerId: 1, brokerEpoch: c.epoch(1) }] }] }] });
      assert.equal(r.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    }
    await c.heartbeat(1, { wantFence: true });
    assert.equal(c.partition('safe').leader, -1, 'broker 2 is out of sync: the partition stays offline');
    const risky = c.partition('risky');
    assert.deepEqual([risky.leader, risky.isr, risky.leaderRecoveryState], [2, [2], 1]);
    assert.equal(c.controller.stats.elections.get('unclean'), 1);
  });

  it('the broker default unclean.leader.election.enable applies to topics without their own', async () => {
    const c = await controllerCluster(2, { uncleanLeaderElectionDefault: true });
    const topicId = await c.createTopic('t', [[1, 2]]);
    const p = c.partition('t');
    await c.controller.alterPartition({ version: 3, brokerId: 1, brokerEpoch: c.epoch(1), topics: [{ topicName: 't', topicId, partitions: [{ partitionIndex: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: [{ brokerId: 1, brokerEpoch: -1n }] }] }] });
    await c.heartbeat(1, { wantFence: true });
    assert.equal(c.partition('t').leader, 2);
  });
});

describe('unclean shutdown (KIP-966 previousBrokerEpoch)', () => {
  it('a clean restart keeps the broker\'s ELR place; an unclean one takes it out of every ELR (and ISR)', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2, 3]], MIN_ISR_2);
    await c.heartbeat(3, { wantFence: true });
    await c.heartbeat(2, { wantFence: true });
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1], [2]]);
    await c.start(2, true);
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1], [2]], 'clean: still eligible (it holds every committed record)');
    await c.start(2, false);
    assert.deepEqual([c.partition('t').isr, c.partition('t').elr], [[1], []], 'unclean: it may have lost its unflushed tail');
  });

  it('the unclean restart of the last ISR member empties the ISR; it leads again as the last known ELR member', async () => {
    const c = await controllerCluster(2);
    await c.createTopic('t', [[1]]);
    await c.createTopic('u', [[1, 2]], MIN_ISR_2);
    await c.heartbeat(2, { wantFence: true });
    assert.deepEqual([c.partition('u').isr, c.partition('u').elr], [[1], [2]]);
    await c.start(1, false);
    const t = c.partition('t');
    // start() unfences broker 1 again: by then the election has run.
    assert.deepEqual([t.leader, t.isr, t.lastKnownElr], [1, [1], []], 'single replica: the last known member leads again');
    assert.ok(c.elections.some((e) => e.topicName === 't' && e.kind === 'last_known'));
    const u = c.partition('u');
    assert.deepEqual([u.leader, u.isr, u.elr, u.lastKnownElr], [-1, [], [2], []], 'broker 1 lost its place; broker 2 (ELR, fenced) is the one to wait for');
    await c.heartbeat(2);
    assert.deepEqual([c.partition('u').leader, c.partition('u').isr], [2, [2]]);
  });
});

describe('ElectLeaders and auto rebalance', () => {
  it('preferred: moves leadership back; ELECTION_NOT_NEEDED / PREFERRED_LEADER_NOT_AVAILABLE / UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const c = await controllerCluster(3);
    await c.createTopic('t', [[1, 2, 3], [2, 3, 1]]);
    await c.heartbeat(1, { wantFence: true });
    assert.equal(c.partition('t', 0).leader, 2);
    const unavailable = await c.controller.electLeaders(0, [{ topic: 't', partitions: [0, 1, 9] }]);
    assert.deepEqual(unavailable[0]?.partitions.map((p) => p.errorCode), [ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    await c.heartbeat(1);
    // Broker 1 is back but out of the ISR until its leader adds it (AlterPartition).
    const p = c.partition('t', 0);
    await c.controller.alterPartition({ version: 3, brokerId: 2, brokerEpoch: c.epoch(2), topics: [{ topicName: 't', topicId: c.image.topicByName('t')?.topicId as string, partitions: [{ partitionIndex: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: [1, 2, 3].map((brokerId) => ({ brokerId, brokerEpoch: c.epoch(brokerId) })) }] }] });
    const all = await c.controller.electLeaders(0, null);
    assert.deepEqual(all, [{ topic: 't', partitions: [{ partition: 0, errorCode: ErrorCode.NONE, errorMessage: null }] }], 'null = every partition, listing those that needed it');
    assert.equal(c.partition('t', 0).leader, 1);
    assert.equal(c.elections.at(-1)?.kind, 'preferred');
  });

  it('unclean: only for leaderless partitions; ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica may lead', async () => {
    const c = await controllerCluster(2);
    const topicId = await c.createTopic('t', [[1, 2]]);
    assert.equal((await c.controller.electLeaders(1, [{ topic: 't', partitions: [0] }]))[0]?.partitions[0]?.errorCode, ErrorCode.ELECTION_NOT_NEEDED);
    const p = c.partition('t');
    await c.controller.alterPartition({ version: 3, brokerId: 1, brokerEpoch: c.epoch(1), topics: [{ topicName: 't', topicId, partitions: [{ partitionIndex: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: [{ brokerId: 1, brokerEpoch: -1n }] }] }] });
    await c.heartbeat(1, { wantFence: true });
    assert.equal(c.partition('t').leader, -1);
    const r = await c.controller.electLeaders(1, [{ topic: 't', partitions: [0] }]);
    assert.equal(r[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    assert.deepEqual([c.partition('t').leader, c.partition('t').isr, c.partition('t').leaderRecoveryState], [2, [2], 1]);
    await c.heartbeat(2, { wantFence: true });
    assert.equal((await c.controller.electLeaders(1, [{ topic: 't', partitions: [0] }]))[0]?.partitions[0]?.errorCode, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE);
  });

  it('balanceLeaders moves leaders back to in-sync preferred replicas in bounded batches', async () => {
    const c = await controllerCluster(2);
    await c.createTopic('t', [[1, 2], [1, 2], [1, 2]]);
    await c.controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: c.epoch(1), currentMetadataOffset: c.image.lastAppliedOffset, wantFence: false, wantShutDown: true });
    assert.deepEqual([0, 1, 2].map((i) => c.partition('t', i).leader), [2, 2, 2]);
    assert.equal(await c.controller.balanceLeaders(), 0, 'the preferred replica is shutting down');
    await c.start(1, true);
    assert.deepEqual([0, 1, 2].map((i) => c.partition('t', i).isr), [[2], [2], [2]], 'left the ISR in its controlled shutdown');
    for (const i of [0, 1, 2]) {
      const p = c.partition('t', i);
      await c.controller.alterPartition({ version: 3, brokerId: 2, brokerEpoch: c.epoch(2), topics: [{ topicName: 't', topicId: c.image.topicByName('t')?.topicId as string, partitions: [{ partitionIndex: i, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, leaderRecoveryState: 0, newIsr: [{ brokerId: 2, brokerEpoch: -1n }, { brokerId: 1, brokerEpoch: -1n }] }] }] });
    }
    assert.equal(await c.controller.balanceLeaders(2), 2);
    assert.equal(await c.controller.balanceLeaders(2), 1);
    assert.equal(await c.controller.balanceLeaders(2), 0);
    assert.deepEqual([0, 1, 2].map((i) => c.partition('t', i).leader), [1, 1, 1]);
  });
});

describe('ELR fields on the wire', () => {
  it('PartitionRecord and PartitionChangeRecord round-trip eligibleLeaderReplicas and lastKnownElr (tagged; absent = default)', () => {
    const records: MetadataRecord[] = [
      {
        type: 'PartitionRecord',
        data: { partitionId: 0, topicId: 'AAAAAAAAAAAAAAAAAAAAAg', replicas: [1, 2, 3], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0, leaderEpoch: 4, partitionEpoch: 9, eligibleLeaderReplicas: [2], lastKnownElr: [3] },
      },
      {
        type: 'PartitionChangeRecord',
        data: { partitionId: 0, topicId: 'AAAAAAAAAAAAAAAAAAAAAg', isr: [], leader: -1, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, eligibleLeaderReplicas: [], lastKnownElr: [1] },
      },
      {
        type: 'PartitionChangeRecord',
        data: { partitionId: 0, topicId: 'AAAAAAAAAAAAAAAAAAAAAg', isr: null, leader: -2, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, eligibleLeaderReplicas: null, lastKnownElr: null },
      },
    ];
    for (const r of records) assert.deepEqual(decodeMetadataRecord(encodeMetadataRecord(r)).record, r);
    // Without ELR the bytes are those of a record written before the fields existed (tags are only written when set).
    const plain = { ...records[0]!, data: { ...(records[0] as Extract<MetadataRecord, { type: 'PartitionRecord' }>).data, eligibleLeaderReplicas: [], lastKnownElr: [] } } as MetadataRecord;
    const withElr = encodeMetadataRecord(records[0]!);
    assert.ok(encodeMetadataRecord(plain).length < withElr.length);
  });
});
