// Transactional offset commits (KIP-98/KIP-447): the store writes them as a
// transactional batch of the producer to __consumer_offsets on a real
// ReplicaManager; the leader's marker completes them (commit: loaded as
// committed; abort: gone; none yet: loaded as pending). In the coordinator,
// pending offsets are invisible to OffsetFetch and answer
// UNSTABLE_OFFSET_COMMIT to RequireStable until completeTransaction.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCoordinator } from '../../../../src/coordinator/group/coordinator.js';
import { loadOffsetsPartition } from '../../../../src/coordinator/group/offsets-topic/loader.js';
import type { CommittedOffset, GroupPersistence } from '../../../../src/coordinator/group/types.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { VirtualTimers } from '../../../helpers/virtual-timers.js';
import { TEST_CONFIG } from './harness.js';
import { OffsetsEnv, TOPIC, commit } from './offsets-topic/fixture.js';

describe('transactional offsets', () => {
  it('a COMMIT marker makes them committed at load, an ABORT drops them, none keeps them pending', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    await store.storeTxnOffsets('g1', 11n, 0, [commit('t', 0, 5n)]);
    await store.storeTxnOffsets('g2', 12n, 0, [commit('t', 0, 6n)]);
    await store.storeTxnOffsets('g3', 13n, 0, [commit('t', 0, 7n)]);
    const markers = env.replicaManager.txnMarkers;
    const seen: string[] = [];
    markers.onTransactionCompleted((e) => seen.push(`${e.producerId}:${e.commit}`));
    const w1 = await markers.write({ producerId: 11n, producerEpoch: 0, coordinatorEpoch: 0, commit: true, partitions: [{ topic: TOPIC, partition: 0 }] });
    const w2 = await markers.write({ producerId: 12n, producerEpoch: 0, coordinatorEpoch: 0, commit: false, partitions: [{ topic: TOPIC, partition: 0 }] });
    assert.deepEqual([w1[0]?.errorCode, w2[0]?.errorCode], [ErrorCode.NONE, ErrorCode.NONE]);
    assert.deepEqual(seen, ['11:true', '12:false'], 'the group service hears of each marker');
    const loaded = await loadOffsetsPartition(env.partition(0));
    assert.deepEqual([...loaded.offsets.keys()], ['g1']);
    assert.deepEqual([...(loaded.pendingTxnOffsets?.get('g3')?.keys() ?? [])], [13n]);
    assert.equal(loaded.pendingTxnOffsets?.has('g2'), false);
  });

  it('a marker above the high watermark still completes its offsets at load (a follower just elected: its high watermark one fetch behind its log)', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    await store.storeTxnOffsets('g1', 11n, 0, [commit('t', 0, 5n)]);
    await store.storeTxnOffsets('g2', 12n, 0, [commit('t', 0, 6n)]);
    const leader = env.partition(0);
    const beforeMarkers = leader.log.logEndOffset;
    const markers = env.replicaManager.txnMarkers;
    await markers.write({ producerId: 11n, producerEpoch: 0, coordinatorEpoch: 0, commit: true, partitions: [{ topic: TOPIC, partition: 0 }] });
    await markers.write({ producerId: 12n, producerEpoch: 0, coordinatorEpoch: 0, commit: false, partitions: [{ topic: TOPIC, partition: 0 }] });
    // The same log as a new leader sees it before its followers fetched: the high watermark below both markers.
    const lagging = new Proxy(leader, { get: (target, key) => (key === 'highWatermark' ? beforeMarkers : Reflect.get(target, key, target)) });
    assert.equal(lagging.highWatermark, beforeMarkers);
    const loaded = await loadOffsetsPartition(lagging);
    assert.deepEqual([...loaded.offsets.keys()], ['g1'], 'the COMMIT above the high watermark applied');
    assert.equal(loaded.pendingTxnOffsets?.size ?? 0, 0, 'nothing left pending: the transaction coordinator will not send these markers again');
  });

  it('a marker written while the load runs completes its offsets (the coordinator hears of it only once loaded)', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    await store.storeTxnOffsets('g1', 11n, 0, [commit('t', 0, 5n)]);
    await store.storeOffsets('g2', [commit('t', 1, 1n)]);
    const markers = env.replicaManager.txnMarkers;
    let wrote = false;
    // One batch per step; the marker lands during the first step's yield.
    const loaded = await loadOffsetsPartition(env.partition(0), {
      readBytesMax: 1,
      yieldToEventLoop: async () => {
        if (wrote) return;
        wrote = true;
        await markers.write({ producerId: 11n, producerEpoch: 0, coordinatorEpoch: 0, commit: true, partitions: [{ topic: TOPIC, partition: 0 }] });
      },
    });
    assert.ok(wrote);
    assert.deepEqual([...loaded.offsets.keys()].sort(), ['g1', 'g2']);
    assert.equal(loaded.pendingTxnOffsets?.size ?? 0, 0);
  });

  it('pending offsets are invisible and unstable until the marker, and member fencing applies (KIP-447)', async () => {
    const stored: { groupId: string; producerId: bigint; commits: readonly CommittedOffset[] }[] = [];
    const persistence: GroupPersistence = {
      storeGroup: () => Promise.resolve(),
      storeOffsets: () => Promise.resolve(),
      storeTxnOffsets: (groupId, producerId, _epoch, commits) => {
        stored.push({ groupId, producerId, commits });
        return Promise.resolve();
      },
    };
    const clock = new ManualClock();
    const c = new GroupCoordinator({ clock, timers: new VirtualTimers(clock), persistence, config: TEST_CONFIG, newMemberId: (id) => `${id}-1` });
    const input = { transactionalId: 'tx', groupId: 'g', producerId: 7n, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 42n, leaderEpoch: -1, metadata: null }] };
    const r = await c.commitTxnOffsets(input);
    assert.deepEqual(r.partitions.map((p) => p.errorCode), [ErrorCode.NONE]);
    assert.equal(stored.length, 1);
    const fetch = (stable: boolean) => c.fetchOffsets('g', [{ topic: 't', partition: 0 }], stable).partitions[0];
    assert.equal(fetch(false)?.offset, -1n, 'not visible before the marker');
    assert.equal(fetch(true)?.errorCode, ErrorCode.UNSTABLE_OFFSET_COMMIT);
    assert.equal(c.completeTransaction(8n, true, () => true), 0, 'another producer\'s marker changes nothing');
    assert.equal(c.completeTransaction(7n, true, () => true), 1);
    assert.deepEqual([fetch(true)?.errorCode, fetch(true)?.offset], [ErrorCode.NONE, 42n]);
    await c.commitTxnOffsets({ ...input, offsets: [{ ...input.offsets[0]!, offset: 50n }] });
    c.completeTransaction(7n, false, () => true);
    assert.equal(fetch(true)?.offset, 42n, 'an aborted transaction leaves the committed offset');
    const zombie = await c.commitTxnOffsets({ ...input, memberId: 'gone', generationId: 3 });
    assert.deepEqual(zombie.partitions.map((p) => p.errorCode), [ErrorCode.UNKNOWN_MEMBER_ID]);
  });
});
