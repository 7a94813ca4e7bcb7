import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Compression } from '../../../../../src/protocol/record-batch/header.js';
import { buildControlBatch, buildRecordBatchSync, ControlRecordType } from '../../../../../src/protocol/record-batch/builder.js';
import { decodeRecordBatchSync, splitBatches } from '../../../../../src/protocol/record-batch/reader.js';
import { ErrorCode } from '../../../../../src/protocol/errors.js';
import { SeededRandom } from '../../../../../src/util/random.js';
import type { Partition } from '../../../../../src/replication/partition.js';
import { OffsetsStoreError, wireErrorFor } from '../../../../../src/coordinator/group/offsets-topic/errors.js';
import { loadOffsetsPartition, OffsetsReplay } from '../../../../../src/coordinator/group/offsets-topic/loader.js';
import { partitionForGroup } from '../../../../../src/coordinator/group/offsets-topic/partitioner.js';
import {
  decodeRecordKey,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
} from '../../../../../src/coordinator/group/offsets-topic/records.js';
import { OFFSETS_BATCH_RECORDS_MAX } from '../../../../../src/coordinator/group/offsets-topic/store.js';
import { offsetsTopicConfigs } from '../../../../../src/coordinator/group/offsets-topic/topic-config.js';
import type { CommittedOffset, OffsetTombstone } from '../../../../../src/coordinator/group/types.js';
import { Model, OffsetsEnv, TOPIC, WRITE_TIMEOUT_MS, commit, normal, snapshot, type NormalState } from './fixture.js';

function logBytes(p: Partition): Buffer {
  const r = p.log.read(p.logStartOffset, 1 << 30);
  assert.equal(r.kind, 'records');
  return r.kind === 'records' ? Buffer.concat(r.chunks) : Buffer.alloc(0);
}

async function loadAll(env: OffsetsEnv, readBytesMax?: number): Promise<NormalState[]> {
  const out: NormalState[] = [];
  for (let i = 0; i < env.numPartitions; i++) {
    out.push(normal(await loadOffsetsPartition(env.partition(i), readBytesMax === undefined ? {} : { readBytesMax })));
  }
  return out;
}

function expectedAll(env: OffsetsEnv, model: Model): NormalState[] {
  const out: NormalState[] = [];
  for (let i = 0; i < env.numPartitions; i++) out.push(model.expected((g) => partitionForGroup(g, env.numPartitions) === i));
  return out;
}

async function rejectsWith(promise: Promise<unknown>, kind: OffsetsStoreError['kind']): Promise<void> {
  await assert.rejects(promise, (e: unknown) => e instanceof OffsetsStoreError && e.kind === kind);
}

describe('OffsetsTopicStore + loadOffsetsPartition', () => {
  it('commits, overwrites and tombstones offsets; a load keeps the latest per key', async () => {
    const env = new OffsetsEnv(3);
    const store = env.store();
    const p = env.partition(store.partitionOf('g'));
    await store.storeOffsets('g', [commit('t', 0, 10n), commit('t', 1, 20n, { metadata: 'meta' }), commit('u', 0, 5n)]);
    await store.storeOffsets('g', [commit('t', 0, 11n, { leaderEpoch: 4 })]);
    await store.storeOffsets('g', [{ topic: 'u', partition: 0, offset: null }]);
    assert.equal(p.logEndOffset, 5n);
    assert.equal(p.highWatermark, 5n);
    const loaded = await loadOffsetsPartition(p);
    assert.deepEqual(loaded.groups, []);
    assert.deepEqual([...loaded.offsets.entries()], [['g', [commit('t', 0, 11n, { leaderEpoch: 4 }), commit('t', 1, 20n, { metadata: 'meta' })]]]);
    assert.deepEqual(
      { batches: loaded.stats.batches, records: loaded.stats.records, skipped: loaded.stats.skippedRecords, start: loaded.stats.startOffset, end: loaded.stats.endOffset },
      { batches: 3, records: 5, skipped: 0, start: 0n, end: 5n },
    );
  });

  it('writes each call as one batch in the group\'s partition, stamped with the leader epoch and the clock', async () => {
    const env = new OffsetsEnv(5);
    env.assign(partitionForGroup('grp', 5), 1, [1], 7);
    const store = env.store();
    const commits = Array.from({ length: 100 }, (_, i) => commit('topic', i, BigInt(i)));
    await store.storeOffsets('grp', commits);
    for (let i = 0; i < 5; i++) assert.equal(env.partition(i).logEndOffset, i === partitionForGroup('grp', 5) ? 100n : 0n);
    const batches = splitBatches(logBytes(env.partition(partitionForGroup('grp', 5))));
    assert.equal(batches.length, 1);
    const { header, records } = decodeRecordBatchSync(batches[0] as Buffer);
    assert.equal(header.partitionLeaderEpoch, 7);
    assert.equal(header.baseTimestamp, BigInt(env.clock.nowMs()));
    assert.equal(records.length, 100);
    assert.deepEqual(decodeRecordKey(records[42]?.key as Buffer), { kind: 'offset', groupId: 'grp', topic: 'topic', partition: 42 });
    assert.deepEqual(records[42]?.value, encodeOffsetCommitValue(commits[42] as CommittedOffset));
  });

  it('stores group metadata, replaces it, deletes it with a tombstone', async () => {
    const env = new OffsetsEnv(2);
    const store = env.store();
    await store.storeGroup('a', snapshot('a', 1, ['m1', 'm2']));
    await store.storeGroup('b', snapshot('b', 1, ['x']));
    await store.storeGroup('a', snapshot('a', 2, ['m1', 'm2', 'm3']));
    await store.storeGroup('b', snapshot('b', 2, []));
    await store.storeOffsets('b', [commit('t', 0, 1n)]);
    const model = new Model();
    model.setGroup('a', snapshot('a', 2, ['m1', 'm2', 'm3']));
    model.setGroup('b', snapshot('b', 2, []));
    model.setOffset('b', 't', 0, commit('t', 0, 1n));
    assert.deepEqual(await loadAll(env), expectedAll(env, model));
    // Deleting a group (DeleteGroups): the coordinator tombstones its offsets and its metadata.
    await store.storeOffsets('b', [{ topic: 't', partition: 0, offset: null }]);
    await store.storeGroup('b', null);
    model.setOffset('b', 't', 0, null);
    model.setGroup('b', null);
    assert.deepEqual(await loadAll(env), expectedAll(env, model));
    const pb = env.partition(partitionForGroup('b', 2));
    const loaded = await loadOffsetsPartition(pb);
    assert.ok(!loaded.groups.some((g) => g.groupId === 'b'));
    assert.ok(!loaded.offsets.has('b'));
  });

  it('an empty commit writes nothing', async () => {
    const env = new OffsetsEnv(1);
    await env.store().storeOffsets('g', []);
    assert.equal(env.partition(0).logEndOffset, 0n);
  });

  it('fails typed when the partition is not hosted or not led here, and writes nothing', async () => {
    const env = new OffsetsEnv(2);
    const store = env.store();
    const index = store.partitionOf('g');
    env.unhost(index);
    await rejectsWith(store.storeOffsets('g', [commit('t', 0, 1n)]), 'not_available');
    await rejectsWith(store.storeGroup('g', snapshot('g', 1, ['m'])), 'not_available');
    env.rehost(index);
    const p = env.partition(index);
    env.moveLeader(index, 2);
    await rejectsWith(store.storeOffsets('g', [commit('t', 0, 1n)]), 'not_coordinator');
    await rejectsWith(store.storeGroup('g', null), 'not_coordinator');
    assert.equal(p.logEndOffset, 0n);
    assert.equal(wireErrorFor('not_available', 'offsets'), ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(wireErrorFor('not_coordinator', 'group'), ErrorCode.NOT_COORDINATOR);
  });

  it('refuses commits over the limits (all or nothing)', async () => {
    const env = new OffsetsEnv(1);
    const small = env.store({ batchBytesMax: 2000 });
    const many = Array.from({ length: 60 }, (_, i) => commit('a-topic-name', i, BigInt(i)));
    await rejectsWith(small.storeOffsets('g', many), 'too_large');
    await small.storeOffsets('g', many.slice(0, 10));
    assert.equal(env.partition(0).logEndOffset, 10n);
    const tooMany = Array.from({ length: OFFSETS_BATCH_RECORDS_MAX + 1 }, (_, i) => commit('t', i, 0n));
    await rejectsWith(env.store().storeOffsets('g', tooMany), 'too_large');
    // A metadata string longer than an int16 length can hold.
    await rejectsWith(env.store().storeOffsets('g', [commit('t', 0, 1n, { metadata: 'x'.repeat(40_000) })]), 'too_large');
    // Bigger than segment.bytes (Kafka's RECORD_LIST_TOO_LARGE).
    const tiny = new OffsetsEnv(1, { ...env.config, segmentBytes: 1000 });
    await rejectsWith(tiny.store().storeOffsets('g', many), 'too_large');
    assert.equal(tiny.partition(0).logEndOffset, 0n);
    assert.equal(env.partition(0).logEndOffset, 10n);
    assert.equal(wireErrorFor('too_large', 'offsets'), ErrorCode.INVALID_COMMIT_OFFSET_SIZE);
    assert.equal(wireErrorFor('too_large', 'group'), ErrorCode.UNKNOWN_SERVER_ERROR);
  });

  it('waits for the high watermark: completes when the in-sync followers have the batch, times out or fails over otherwise', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    // Two in-sync replicas: the write is appended at once but committed only when follower 2 has it.
    env.assign(0, 1, [1, 2], 1);
    let done = false;
    const pending = store.storeOffsets('g', [commit('t', 0, 1n), commit('t', 1, 1n)]).then(() => { done = true; });
    assert.equal(env.partition(0).logEndOffset, 2n, 'appended synchronously');
    await env.timers.advance(WRITE_TIMEOUT_MS - 1);
    assert.equal(done, false);
    env.partition(0).recordFollowerLogEndOffset(2, 1n);
    await env.timers.advance(0);
    assert.equal(done, false, 'the follower has only offset 0');
    env.partition(0).recordFollowerLogEndOffset(2, 2n);
    await pending;
    assert.equal(env.partition(0).highWatermark, 2n);
    // The follower stops fetching: the next write times out after offsets.commit.timeout.ms.
    const timedOut = rejectsWith(store.storeOffsets('g', [commit('t', 0, 2n)]), 'timeout');
    await env.timers.advance(WRITE_TIMEOUT_MS);
    await timedOut;
    assert.equal(wireErrorFor('timeout', 'group'), ErrorCode.REBALANCE_IN_PROGRESS);
    // Leadership moves while a write waits: NOT_COORDINATOR for the caller, nothing left waiting.
    const moved = rejectsWith(store.storeGroup('g', null), 'not_coordinator');
    env.moveLeader(0, 2);
    await moved;
    assert.deepEqual(env.replicaManager.delayedOperations, { fetches: 0, produces: 0 });
  });

  it('keeps call order: batches land in the log in the order of the calls', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) calls.push(store.storeOffsets('g', [commit('t', 0, BigInt(i))]));
    await Promise.all(calls);
    const loaded = await loadOffsetsPartition(env.partition(0));
    assert.equal(loaded.offsets.get('g')?.[0]?.offset, 19n);
  });

  it('a write wakes a consumer long-polling the partition', async () => {
    const env = new OffsetsEnv(1);
    const fetched = env.replicaManager.fetchRecords({
      topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }] }],
      readCommitted: false, maxBytes: 1 << 20, minBytes: 1, maxWaitMs: 30_000,
    });
    await env.timers.advance(0);
    assert.equal(env.replicaManager.delayedOperations.fetches, 1);
    await env.store().storeGroup('g', snapshot('g', 1, ['m']));
    const result = await fetched;
    assert.ok((result.topics[0]?.partitions[0]?.bytes ?? 0) > 0, 'the fetch returned the group record without waiting out its timeout');
  });

  it('round-trips through gzip, snappy and lz4 batches', async () => {
    for (const compression of [Compression.Gzip, Compression.Snappy, Compression.Lz4]) {
      const env = new OffsetsEnv(1);
      const store = env.store({ compression });
      const commits = Array.from({ length: 50 }, (_, i) => commit('topic', i, BigInt(i * 1000)));
      await store.storeOffsets('g', commits);
      await store.storeGroup('g', snapshot('g', 3, ['a', 'b']));
      const batch = splitBatches(logBytes(env.partition(0)))[0] as Buffer;
      assert.equal(decodeRecordBatchSync(batch).header.attributes & 7, compression);
      const loaded = await loadOffsetsPartition(env.partition(0));
      assert.deepEqual(loaded.offsets.get('g'), commits);
      assert.deepEqual(loaded.groups, [snapshot('g', 3, ['a', 'b'])]);
    }
  });

  it('survives a clean restart', async () => {
    const env = new OffsetsEnv(3);
    const store = env.store();
    await store.storeGroup('g1', snapshot('g1', 4, ['m']));
    await store.storeOffsets('g1', [commit('t', 0, 9n, { expireTimestampMs: 1_800_000_000_000 })]);
    env.restart();
    const model = new Model();
    model.setGroup('g1', snapshot('g1', 4, ['m']));
    // v1 values carry the expire timestamp but no leader epoch.
    model.setOffset('g1', 't', 0, commit('t', 0, 9n, { expireTimestampMs: 1_800_000_000_000, leaderEpoch: -1 }));
    assert.deepEqual(await loadAll(env), expectedAll(env, model));
  });

  it('reads in bounded chunks and yields between them', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    for (let i = 0; i < 50; i++) await store.storeOffsets('g', [commit('t', i % 7, BigInt(i))]);
    let yields = 0;
    const loaded = await loadOffsetsPartition(env.partition(0), {
      readBytesMax: 256,
      yieldToEventLoop: async () => { yields++; },
    });
    assert.ok(yields >= 10, `yielded ${yields} times`);
    assert.equal(loaded.stats.batches, 50);
    assert.deepEqual(loaded.offsets.get('g')?.map((c) => c.offset), [49n, 43n, 44n, 45n, 46n, 47n, 48n]);
  });

  it('can be aborted between chunks', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    for (let i = 0; i < 10; i++) await store.storeOffsets('g', [commit('t', 0, BigInt(i))]);
    const controller = new AbortController();
    const load = loadOffsetsPartition(env.partition(0), {
      readBytesMax: 100,
      signal: controller.signal,
      yieldToEventLoop: async () => controller.abort(),
    });
    await rejectsWith(load, 'load_aborted');
  });

  it('loads the whole log of the leader, also above the high watermark, and from the log start offset', async () => {
    const env = new OffsetsEnv(1);
    const store = env.store();
    await store.storeOffsets('g', [commit('t', 0, 1n), commit('t', 1, 1n)]); // offsets 0-1
    await store.storeOffsets('g', [commit('t', 2, 1n)]); // offset 2
    await store.storeOffsets('g', [commit('t', 3, 1n)]); // offset 3
    // A commit that timed out waiting for followers: the client was told
    // REQUEST_TIMED_OUT (outcome unknown), and the record stays in the
    // leader's log, which is never cut while it leads. Loaded as Kafka's
    // GroupMetadataManager loads it (to the log end; loader.ts says why).
    env.assign(0, 1, [1, 2], 1);
    const p = env.partition(0);
    const hwBefore = p.highWatermark;
    const timedOut = rejectsWith(store.storeOffsets('g', [commit('t', 4, 1n)]), 'timeout');
    await env.timers.advance(WRITE_TIMEOUT_MS);
    await timedOut;
    assert.equal(p.highWatermark, hwBefore);
    assert.ok(p.log.logEndOffset > hwBefore);
    let loaded = await loadOffsetsPartition(p);
    assert.deepEqual(loaded.offsets.get('g')?.map((c) => c.partition), [0, 1, 2, 3, 4]);
    assert.equal(loaded.stats.endOffset, p.log.logEndOffset);
    // DeleteRecords in the middle of the first batch: record 0 is gone.
    assert.equal(p.log.deleteRecordsBefore(1n).kind, 'ok');
    p.onLogStartOffsetChanged();
    loaded = await loadOffsetsPartition(p);
    assert.deepEqual(loaded.offsets.get('g')?.map((c) => c.partition), [1, 2, 3, 4]);
  });

  it('matches a model over random sequences of stores, restarts and rolls', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const random = new SeededRandom(seed);
      const env = new OffsetsEnv(4, { ...new OffsetsEnv(1).config, segmentBytes: 4096 });
      const store = env.store();
      const model = new Model();
      const groups = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'grüppe', '😀'];
      const topics = ['orders', 'payments', 't'];
      for (let step = 0; step < 300; step++) {
        const groupId = groups[random.int(groups.length)] as string;
        const op = random.int(10);
        env.clock.advance(random.int(1000));
        if (op < 6) {
          const entries: (CommittedOffset | OffsetTombstone)[] = [];
          const seen = new Set<string>();
          for (let n = 1 + random.int(5); n > 0; n--) {
            const topic = topics[random.int(topics.length)] as string;
            const partition = random.int(4);
            if (seen.has(`${topic}/${partition}`)) continue; // one entry per partition per commit, as OffsetCommit has
            seen.add(`${topic}/${partition}`);
            if (random.int(5) === 0) {
              entries.push({ topic, partition, offset: null });
              model.setOffset(groupId, topic, partition, null);
            } else {
              const expire = random.int(4) === 0 ? env.clock.nowMs() + 1000 : null;
              const c = commit(topic, partition, BigInt(random.int(1_000_000)), {
                leaderEpoch: expire === null ? random.int(10) : -1,
                metadata: random.int(3) === 0 ? `m${step}` : '',
                commitTimestampMs: env.clock.nowMs(),
                expireTimestampMs: expire,
              });
              entries.push(c);
              model.setOffset(groupId, topic, partition, c);
            }
          }
          await store.storeOffsets(groupId, entries);
        } else if (op < 9) {
          const members = Array.from({ length: random.int(4) }, (_, i) => `${groupId}-m${i}`);
          const s = snapshot(groupId, step, members);
          await store.storeGroup(groupId, s);
          model.setGroup(groupId, s);
        } else {
          await store.storeGroup(groupId, null);
          model.setGroup(groupId, null);
        }
        if (random.int(50) === 0) env.restart();
        if (random.int(40) === 0) env.partition(random.int(4)).log.roll();
        if (step % 75 === 74) {
          assert.deepEqual(await loadAll(env, 64 + random.int(2000)), expectedAll(env, model), `seed ${seed} step ${step}`);
        }
      }
      assert.deepEqual(await loadAll(env), expectedAll(env, model), `seed ${seed}`);
      assert.ok(env.partitions.some((p) => (p?.log.segmentCount ?? 0) > 1), 'the logs rolled segments');
    }
  });

  it('after a power cut, the load equals the state after some prefix of the stores, never less than what was flushed', async () => {
    let seedsThatLostStores = 0;
    for (const seed of [11, 12, 13, 14, 15, 16, 17, 18]) {
      const random = new SeededRandom(seed);
      const env = new OffsetsEnv(1);
      const store = env.store();
      const model = new Model();
      const history: NormalState[] = [model.expected(() => true)];
      let flushedAt = 0;
      for (let step = 0; step < 60; step++) {
        const groupId = `g${random.int(3)}`;
        if (random.int(3) === 0) {
          const s = snapshot(groupId, step, [`m${random.int(3)}`]);
          await store.storeGroup(groupId, s);
          model.setGroup(groupId, s);
        } else {
          const c = commit('t', random.int(3), BigInt(step));
          await store.storeOffsets(groupId, [c, commit('u', 0, BigInt(step))]);
          model.setOffset(groupId, 't', c.partition, c);
          model.setOffset(groupId, 'u', 0, commit('u', 0, BigInt(step)));
        }
        history.push(model.expected(() => true));
        if (random.int(10) === 0) {
          env.partition(0).log.flush();
          flushedAt = history.length - 1;
        }
      }
      env.crash(random); // a random prefix of the unflushed bytes survives: a torn tail
      const loaded = normal(await loadOffsetsPartition(env.partition(0)));
      const matches = history.map((h, i) => [i, h] as const).filter(([, h]) => {
        try {
          assert.deepEqual(loaded, h);
          return true;
        } catch {
          return false;
        }
      });
      assert.ok(matches.some(([i]) => i >= flushedAt), `seed ${seed}: load matches no prefix at or after the flush at ${flushedAt}`);
      if (!matches.some(([i]) => i === history.length - 1)) seedsThatLostStores++;
      // The store keeps working on the recovered log.
      await env.store().storeOffsets('g0', [commit('t', 0, 999n)]);
      const after = await loadOffsetsPartition(env.partition(0));
      assert.ok(after.offsets.get('g0')?.some((c) => c.topic === 't' && c.partition === 0 && c.offset === 999n));
    }
    assert.ok(seedsThatLostStores > 0, 'the crashes lost unflushed stores');
  });
});

describe('OffsetsReplay', () => {
  function batch(records: { key: Buffer | null; value: Buffer | null }[], baseOffset: bigint, extra: Parameters<typeof buildRecordBatchSync>[0] extends infer O ? Partial<O> : never = {}): Buffer {
    return buildRecordBatchSync({ records, baseOffset, timestampMs: 0, ...extra });
  }
  const offsetRecord = (group: string, partition: number, offset: bigint): { key: Buffer; value: Buffer } => ({
    key: encodeOffsetCommitKey(group, 't', partition),
    value: encodeOffsetCommitValue(commit('t', partition, offset)),
  });

  it('ignores a truncated trailing batch', async () => {
    const first = batch([offsetRecord('g', 0, 1n)], 0n);
    const second = batch([offsetRecord('g', 0, 2n), offsetRecord('g', 1, 2n)], 1n);
    for (let cut = 1; cut < second.length; cut += 7) {
      const replay = new OffsetsReplay();
      await replay.applyLogBytes(Buffer.concat([first, second.subarray(0, cut)]));
      assert.deepEqual([...replay.result().offsets.entries()], [['g', [commit('t', 0, 1n)]]]);
    }
  });

  it('skips a corrupt batch, null keys, unknown record types and undecodable values, and counts them', async () => {
    const corrupt = batch([offsetRecord('g', 0, 5n)], 1n);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1); // breaks the CRC
    const bytes = Buffer.concat([
      batch([offsetRecord('g', 0, 1n)], 0n),
      corrupt,
      batch([
        { key: null, value: Buffer.from('x') },
        { key: Buffer.from([0, 3, 0, 1, 0x61]), value: Buffer.from('kip-848') },
        { key: encodeOffsetCommitKey('g', 't', 1), value: Buffer.from([0, 9]) },
        { key: Buffer.from([0, 1]), value: null },
        offsetRecord('g', 2, 7n),
      ], 2n),
    ]);
    const replay = new OffsetsReplay();
    await replay.applyLogBytes(bytes);
    const result = replay.result();
    assert.deepEqual([...result.offsets.entries()], [['g', [commit('t', 0, 1n), commit('t', 2, 7n)]]]);
    assert.equal(result.stats.corruptBatches, 1);
    assert.equal(result.stats.skippedRecords, 4);
  });

  it('applies committed transactional offsets by log offset and drops aborted ones', async () => {
    const txn = { producerId: 77n, producerEpoch: 0, transactional: true, baseSequence: 0 };
    const other = { producerId: 88n, producerEpoch: 0, transactional: true, baseSequence: 0 };
    const bytes = Buffer.concat([
      batch([offsetRecord('g', 0, 100n), offsetRecord('g', 1, 100n)], 0n, txn), // 0-1, committed at 5
      batch([offsetRecord('g', 1, 200n)], 2n), // plain commit after the txn record: wins for partition 1
      batch([offsetRecord('g', 2, 300n)], 3n, other), // aborted at 4
      buildControlBatch({ type: ControlRecordType.Abort, producerId: 88n, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 4n }),
      buildControlBatch({ type: ControlRecordType.Commit, producerId: 77n, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 5n }),
      batch([offsetRecord('g', 3, 400n)], 6n, txn), // no marker yet
    ]);
    const replay = new OffsetsReplay();
    await replay.applyLogBytes(bytes);
    const result = replay.result();
    assert.deepEqual(result.offsets.get('g')?.map((c) => [c.partition, c.offset]), [[0, 100n], [1, 200n]]);
    assert.equal(result.stats.abortedTransactionalRecords, 1);
    assert.equal(result.stats.pendingTransactionalRecords, 1);
  });

  it('reads what Kafka writes for a group: v0-v2 keys and values from older brokers', async () => {
    const groupValueV1 = encodeGroupMetadataValue(snapshot('old', 2, ['m']), 1);
    const bytes = batch([
      { key: Buffer.from(encodeOffsetCommitKey('old', 't', 0).fill(0, 0, 2)), value: encodeOffsetCommitValue(commit('t', 0, 5n)) },
      { key: encodeGroupMetadataKey('old'), value: groupValueV1 },
    ], 0n);
    const replay = new OffsetsReplay();
    await replay.applyLogBytes(bytes);
    const result = replay.result();
    assert.equal(result.offsets.get('old')?.[0]?.offset, 5n);
    assert.equal(result.groups[0]?.generationId, 2);
    assert.equal(result.groups[0]?.currentStateTimestampMs, -1);
  });
});

describe('offsetsTopicConfigs', () => {
  it('returns Kafka\'s __consumer_offsets topic configs', () => {
    assert.deepEqual(offsetsTopicConfigs(), [
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'compression.type', value: 'producer' },
      { name: 'segment.bytes', value: '104857600' },
    ]);
    assert.equal(offsetsTopicConfigs(1 << 20)[2]?.value, '1048576');
    assert.throws(() => offsetsTopicConfigs(0), RangeError);
  });
});
