/**
 * The log cleaner: what compaction keeps and removes, when it runs, that
 * offsets never move, codecs, the checkpoint, and crashes in the middle of a
 * segment swap (MemoryFileSystem).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ATTR_DELETE_HORIZON, compressionOf } from '../../../../src/protocol/record-batch/header.js';
import { buildControlBatch, buildRecordBatchSync, ControlRecordType } from '../../../../src/protocol/record-batch/builder.js';
import { batchHasNullKey } from '../../../../src/storage/cleaner/keys.js';
import { CLEANER_OFFSET_CHECKPOINT } from '../../../../src/storage/cleaner/log-cleaner.js';
import type { SwapPoint } from '../../../../src/storage/cleaner/segment-swap.js';
import type { PartitionLog } from '../../../../src/storage/partition-log.js';
import { validateLogConfig } from '../../../../src/storage/config.js';
import { FS_KINDS, makeEnv, type FsEnv } from '../fs-env.js';
import {
  compactConfig,
  keyedBatch,
  latestByKey,
  openManager,
  segmentLogPath,
  storedBatches,
  storedRecords,
  type KV,
  type StoredRecord,
} from './cleaner-fixture.js';
import type { LogManager } from '../../../../src/storage/log-manager.js';
import type { CleanerStepResult } from '../../../../src/storage/cleaner/log-cleaner.js';

/** The broker's order: the timer's tick flushes rolled segments (recovery point), then the cleaner runs. */
async function clean(manager: LogManager, log: PartitionLog, nowMs: number): Promise<CleanerStepResult[]> {
  log.maybeFlush(nowMs);
  return manager.cleaner.cleanUntilIdle(nowMs);
}

const keys = (n: number, value: (k: number) => string | null): KV[] =>
  Array.from({ length: n }, (_, k) => ({ key: `k${k}`, value: value(k) }));

async function append(env: FsEnv, log: PartitionLog, records: KV[], codec = 0): Promise<void> {
  log.append(await keyedBatch(records, env.clock.nowMs(), codec));
}

/** Ten rounds over ten keys, a roll every three rounds, then one batch in the active segment. */
async function writeRounds(env: FsEnv, log: PartitionLog, codec = 0): Promise<StoredRecord[]> {
  for (let round = 0; round < 10; round++) {
    await append(env, log, keys(10, () => `r${round}`), codec);
    if (round % 3 === 2) log.roll();
  }
  log.roll();
  await append(env, log, [{ key: 'k0', value: 'active' }], codec);
  return storedRecords(log);
}

function assertSubsetWithSameOffsets(after: readonly StoredRecord[], before: readonly StoredRecord[]): void {
  const byOffset = new Map(before.map((r) => [r.offset, r]));
  let prev = -1n;
  for (const r of after) {
    assert.ok(r.offset > prev, 'offsets strictly increase');
    prev = r.offset;
    const orig = byOffset.get(r.offset);
    assert.ok(orig !== undefined, `offset ${r.offset} was written`);
    assert.equal(r.key, orig.key, `key at ${r.offset}`);
    assert.equal(r.value, orig.value, `value at ${r.offset}`);
    assert.equal(r.timestampMs, orig.timestampMs, `timestamp at ${r.offset}`);
  }
}

for (const kind of FS_KINDS) {
  describe(`log cleaner (${kind} fs)`, () => {
    it('keeps the newest record per key at its original offset; the active segment is untouched', async () => {
      const env = makeEnv(kind);
      try {
        const { manager, log } = openManager(env, compactConfig());
        const before = await writeRounds(env, log);
        const activeBase = log.segmentInfos().at(-1)?.baseOffset ?? -1n;
        const activeBytes = env.fs.readFile(segmentLogPath(env, activeBase));
        const sizeBefore = log.sizeBytes;
        const steps = await clean(manager, log, env.clock.nowMs());
        assert.ok(steps.some((s) => s.kind === 'completed'), JSON.stringify(steps));
        const after = await storedRecords(log);
        assertSubsetWithSameOffsets(after, before);
        // Rolled part: one record per key, the last round's.
        const rolled = after.filter((r) => r.offset < activeBase);
        assert.equal(rolled.length, 10);
        for (const r of rolled) assert.equal(r.value, 'r9');
        assert.deepEqual(after.filter((r) => r.offset >= activeBase), before.filter((r) => r.offset >= activeBase));
        assert.ok(env.fs.readFile(segmentLogPath(env, activeBase)).equals(activeBytes), 'active segment bytes unchanged');
        assert.ok(log.sizeBytes < sizeBefore / 3, `log shrank: ${sizeBefore} -> ${log.sizeBytes}`);
        assert.equal(log.logEndOffset, 101n);
        // Segments keep their bounds.
        const infos = log.segmentInfos();
        for (let i = 1; i < infos.length; i++) assert.equal(infos[i]?.baseOffset, infos[i - 1]?.nextOffset);
        // Idempotent: nothing more to do.
        const again = await clean(manager, log, env.clock.nowMs());
        assert.deepEqual(again.map((s) => s.kind), ['idle']);
        manager.close();
        // Reopened: same records, checkpoint kept.
        const reopened = openManager(env, compactConfig());
        assertSubsetWithSameOffsets(await storedRecords(reopened.log), before);
        assert.equal((await storedRecords(reopened.log)).length, after.length);
        assert.equal(reopened.manager.cleaner.firstDirtyOffset(reopened.log), activeBase);
        reopened.manager.close();
      } finally {
        env.cleanup();
      }
    });
  });
}

describe('log cleaner', () => {
  it('writes cleaner-offset-checkpoint (topic partition offset lines)', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig());
    await writeRounds(env, log);
    await clean(manager, log, env.clock.nowMs());
    const text = env.fs.readFile(`${env.root}/${CLEANER_OFFSET_CHECKPOINT}`).toString();
    assert.equal(text, '0\n1\ntopic 0 100\n');
    manager.close();
  });

  it('keeps tombstones until the delete horizon (KIP-534), then removes them', async () => {
    const env = makeEnv('memory');
    const cfg = compactConfig({ deleteRetentionMs: 1000, minCleanableDirtyRatio: 0.01 });
    const { manager, log } = openManager(env, cfg);
    await append(env, log, keys(3, () => 'v1'));
    await append(env, log, [{ key: 'k0', value: null }]);
    log.roll();
    await append(env, log, [{ key: 'k9', value: 'active' }]);
    const t0 = env.clock.nowMs();
    await clean(manager, log, t0);
    let batches = await storedBatches(log);
    let tomb = batches.find((b) => b.records.some((r) => r.key === 'k0'));
    assert.ok(tomb !== undefined);
    assert.deepEqual(tomb.records.map((r) => [r.key, r.value]), [['k0', null]], 'the old k0 went, the tombstone stays');
    assert.ok((tomb.header.attributes & ATTR_DELETE_HORIZON) !== 0, 'delete horizon bit set');
    assert.equal(tomb.header.baseTimestamp, BigInt(t0 + 1000), 'horizon = clean time + delete.retention.ms');
    assert.equal(tomb.records[0]?.timestampMs, BigInt(t0), 'the record keeps its timestamp');

    // A cleaning before the horizon (forced by new dirty data) keeps it.
    env.clock.advance(500);
    await append(env, log, [{ key: 'k1', value: 'v2' }]);
    log.roll();
    await append(env, log, [{ key: 'k9', value: 'active2' }]);
    const early = await clean(manager, log, env.clock.nowMs());
    assert.ok(early.some((s) => s.kind === 'completed'));
    batches = await storedBatches(log);
    tomb = batches.find((b) => b.records.some((r) => r.key === 'k0'));
    assert.ok(tomb !== undefined, 'tombstone survives a cleaning before its horizon');
    assert.equal(tomb.header.baseTimestamp, BigInt(t0 + 1000), 'horizon unchanged');

    // Nothing dirty and the horizon not reached: idle.
    env.clock.advance(499);
    assert.deepEqual((await clean(manager, log, env.clock.nowMs())).map((s) => s.kind), ['idle']);
    // Past the horizon: cleaned again with no dirty data, tombstone gone.
    env.clock.advance(2);
    const late = await clean(manager, log, env.clock.nowMs());
    assert.ok(late.some((s) => s.kind === 'completed'), JSON.stringify(late));
    const left = await storedRecords(log);
    assert.ok(!left.some((r) => r.key === 'k0'), 'tombstone removed after the horizon');
    assert.deepEqual(left.filter((r) => r.key === 'k1').map((r) => r.value), ['v2']);
    assert.deepEqual(left.filter((r) => r.key === 'k2').map((r) => r.value), ['v1']);
    manager.close();
  });

  it('does not compact records newer than min.compaction.lag.ms', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig({ minCompactionLagMs: 10_000, minCleanableDirtyRatio: 0.01 }));
    await append(env, log, keys(5, () => 'a'));
    log.roll();
    env.clock.advance(1000);
    await append(env, log, keys(5, () => 'b'));
    log.roll();
    env.clock.advance(29_000);
    await append(env, log, keys(5, () => 'c'));
    log.roll();
    await append(env, log, [{ key: 'x', value: 'active' }]);
    await clean(manager, log, env.clock.nowMs());
    let values = (await storedRecords(log)).filter((r) => r.key === 'k0').map((r) => r.value);
    assert.deepEqual(values, ['b', 'c'], 'a is compacted away, c is too young to count');
    env.clock.advance(20_000);
    await clean(manager, log, env.clock.nowMs());
    values = (await storedRecords(log)).filter((r) => r.key === 'k0').map((r) => r.value);
    assert.deepEqual(values, ['c']);
    manager.close();
  });

  it('honours min.cleanable.dirty.ratio', async () => {
    const env = makeEnv('memory');
    const cfg = compactConfig({ minCleanableDirtyRatio: 0.6 });
    const { manager, log } = openManager(env, cfg);
    await append(env, log, keys(50, () => 'v'.repeat(50)));
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    assert.ok((await clean(manager, log, env.clock.nowMs())).some((s) => s.kind === 'completed'));
    const firstDirty = manager.cleaner.firstDirtyOffset(log);
    // Little dirty data: dirty / total < 0.6.
    await append(env, log, [{ key: 'k0', value: 'w' }]);
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    assert.deepEqual((await clean(manager, log, env.clock.nowMs())).map((s) => s.kind), ['idle']);
    assert.equal(manager.cleaner.firstDirtyOffset(log), firstDirty);
    assert.equal((await storedRecords(log)).filter((r) => r.key === 'k0').length, 2);
    // Enough dirty data: cleaned.
    for (let i = 0; i < 3; i++) await append(env, log, keys(50, () => `w${i}`.repeat(25)));
    log.roll();
    assert.ok((await clean(manager, log, env.clock.nowMs())).some((s) => s.kind === 'completed'));
    assert.deepEqual((await storedRecords(log)).filter((r) => r.key === 'k0').map((r) => r.value), ['w2'.repeat(25)]);
    manager.close();
  });

  it('max.compaction.lag.ms forces a cleaning whatever the ratio', async () => {
    const env = makeEnv('memory');
    const cfg = compactConfig({ minCleanableDirtyRatio: 1, maxCompactionLagMs: 5000 });
    const { manager, log } = openManager(env, cfg);
    await append(env, log, keys(20, () => 'a'));
    log.roll();
    await clean(manager, log, env.clock.nowMs());
    await append(env, log, [{ key: 'k0', value: 'b' }]);
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    assert.deepEqual((await clean(manager, log, env.clock.nowMs())).map((s) => s.kind), ['idle'], 'ratio < 1');
    env.clock.advance(5001);
    const steps = await clean(manager, log, env.clock.nowMs());
    assert.ok(steps.some((s) => s.kind === 'completed'), JSON.stringify(steps));
    assert.deepEqual((await storedRecords(log)).filter((r) => r.key === 'k0').map((r) => r.value), ['b']);
    manager.close();
  });

  for (const [codec, name] of [[0, 'none'], [1, 'gzip'], [2, 'snappy'], [3, 'lz4'], [4, 'zstd']] as const) {
    it(`cleans ${name} batches, keeping the codec, offsets and a valid CRC`, async () => {
      const env = makeEnv('memory');
      const { manager, log } = openManager(env, compactConfig());
      const before = await writeRounds(env, log, codec);
      await append(env, log, [{ key: 'k1', value: null }], codec);
      await clean(manager, log, env.clock.nowMs());
      const batches = await storedBatches(log); // decodes: CRC and records checked
      for (const b of batches) if (b.header.recordsCount > 0) assert.equal(compressionOf(b.header.attributes), codec);
      const after = batches.flatMap((b) => b.records);
      assertSubsetWithSameOffsets(after, before.concat((await storedRecords(log)).filter((r) => r.value === null)));
      const latest = latestByKey(after.filter((r) => r.offset < 100n));
      assert.equal(latest.size, 10);
      for (const r of latest.values()) assert.equal(r.value, 'r9');
      assert.equal(after.filter((r) => r.offset < 100n).length, 10);
      manager.close();
    });
  }

  it('drops batches whose records all went, but keeps the last batch of a segment (empty) so offsets stay contiguous', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig());
    await append(env, log, [{ key: 'a', value: '1' }]);
    await append(env, log, [{ key: 'b', value: '1' }]);
    log.roll();
    await append(env, log, [{ key: 'a', value: '2' }, { key: 'b', value: '2' }]);
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    const infosBefore = log.segmentInfos();
    await clean(manager, log, env.clock.nowMs());
    const batches = await storedBatches(log);
    assert.deepEqual(batches.map((b) => [b.header.baseOffset, b.header.recordsCount, b.header.lastOffsetDelta]), [
      [1n, 0, 0], // the last batch of segment 0, empty
      [2n, 2, 1],
      [4n, 1, 0],
    ]);
    assert.deepEqual(log.segmentInfos().map((i) => [i.baseOffset, i.nextOffset]), infosBefore.map((i) => [i.baseOffset, i.nextOffset]));
    // Reads inside the gap start at the next batch.
    const r = log.read(0n, 1 << 20);
    assert.ok(r.kind === 'records' && r.sizeBytes > 0);
    manager.close();
    const reopened = openManager(env, compactConfig());
    assert.equal(reopened.log.logEndOffset, 5n);
    assert.equal((await storedRecords(reopened.log)).length, 3);
    reopened.manager.close();
  });

  it('keeps control batches and drops keyless records', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig());
    await append(env, log, [{ key: null, value: 'nokey' }, { key: 'a', value: '1' }]);
    log.append(buildControlBatch({ type: ControlRecordType.Commit, producerId: 7n, producerEpoch: 0, coordinatorEpoch: 1, timestampMs: env.clock.nowMs() }));
    await append(env, log, [{ key: 'a', value: '2' }]);
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    await clean(manager, log, env.clock.nowMs());
    const batches = await storedBatches(log);
    assert.ok(batches.some((b) => (b.header.attributes & 0x20) !== 0 && b.header.baseOffset === 2n), 'control batch kept');
    const data = batches.filter((b) => (b.header.attributes & 0x20) === 0).flatMap((b) => b.records);
    assert.deepEqual(data.map((r) => [r.offset, r.key, r.value]), [[3n, 'a', '2'], [4n, 'z', 'active']]);
    manager.close();
  });

  it('removes the data of aborted transactions (it shadows nothing) and keeps markers and committed transactions', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig());
    const ts = env.clock.nowMs();
    const txn = (producerId: bigint, kvs: [string, string][]) => buildRecordBatchSync({
      records: kvs.map(([key, value]) => ({ key, value })), producerId, producerEpoch: 0, baseSequence: 0, transactional: true, timestampMs: ts,
    });
    const end = (producerId: bigint, commit: boolean) =>
      buildControlBatch({ type: commit ? ControlRecordType.Commit : ControlRecordType.Abort, producerId, producerEpoch: 0, coordinatorEpoch: 0, timestampMs: ts });
    await append(env, log, [{ key: 'a', value: 'committed-1' }]); // 0
    log.append(txn(7n, [['a', 'aborted'], ['x', 'aborted']])); // 1-2
    log.append(txn(8n, [['b', 'in-committed-txn']])); // 3
    log.append(end(7n, false)); // 4
    log.append(end(8n, true)); // 5
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    await clean(manager, log, env.clock.nowMs());
    const batches = await storedBatches(log);
    const markers = batches.filter((b) => (b.header.attributes & 0x20) !== 0).map((b) => b.header.baseOffset);
    assert.deepEqual(markers, [4n, 5n], 'markers kept');
    const data = batches.filter((b) => (b.header.attributes & 0x20) === 0).flatMap((b) => b.records);
    assert.deepEqual(data.map((r) => [r.offset, r.key, r.value]), [[0n, 'a', 'committed-1'], [3n, 'b', 'in-committed-txn'], [6n, 'z', 'active']]);
    assert.deepEqual(log.collectAbortedTransactions(0n, 7n).map((t) => [t.producerId, t.firstOffset, t.lastOffset]), [[7n, 1n, 4n]], 'the index survives the swap');
    manager.close();
  });

  it('runs in bounded steps while appends continue, and aborts when the log is truncated', async () => {
    const env = makeEnv('memory');
    const { manager, log } = openManager(env, compactConfig({ segmentBytes: 4096 }), { stepBytesMax: 300 });
    for (let i = 0; i < 40; i++) await append(env, log, keys(4, () => `v${i}`));
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    log.maybeFlush(env.clock.nowMs());
    let step = await manager.cleaner.cleanOneStep(env.clock.nowMs());
    assert.ok(step.kind === 'mapped' && step.bytesRead <= 600, JSON.stringify(step));
    let kinds: string[] = [step.kind];
    // Appends between steps are fine.
    for (let i = 0; i < 60 && step.kind !== 'completed'; i++) {
      await append(env, log, [{ key: 'z', value: `active${i}` }]);
      step = await manager.cleaner.cleanOneStep(env.clock.nowMs());
      kinds.push(step.kind);
      assert.notEqual(step.kind, 'aborted');
    }
    assert.ok(kinds.includes('cleaned') && kinds.includes('swapped'), kinds.join(','));
    while (step.kind !== 'completed') step = await manager.cleaner.cleanOneStep(env.clock.nowMs());
    const latest = latestByKey(await storedRecords(log));
    for (let k = 0; k < 4; k++) assert.equal(latest.get(`k${k}`)?.value, 'v39');

    // A truncation in the middle of a job discards it (and its temp files).
    for (let i = 0; i < 40; i++) await append(env, log, keys(4, () => `w${i}`));
    log.roll();
    await append(env, log, [{ key: 'z', value: 'active' }]);
    kinds = [];
    log.maybeFlush(env.clock.nowMs());
    do {
      step = await manager.cleaner.cleanOneStep(env.clock.nowMs());
      kinds.push(step.kind);
    } while (step.kind === 'mapped');
    log.truncateTo(log.logEndOffset - 1n);
    step = await manager.cleaner.cleanOneStep(env.clock.nowMs());
    assert.equal(step.kind, 'aborted', kinds.join(','));
    assert.equal(step.reason, 'log truncated');
    assert.deepEqual(env.fs.readdir(`${env.root}/topic-0`).filter((n) => n.endsWith('.cleaned')), []);
    manager.close();
  });

  const points: SwapPoint[] = ['cleaned-written', 'old-indexes-removed', 'log-renamed', 'txnindex-replaced', 'index-renamed', 'timeindex-renamed'];
  for (const point of points) {
    it(`recovers from a crash at ${point} with the old or the new segment`, async () => {
      // The same history twice: once cleaned normally (the "new" state), once crashed.
      const expected = makeEnv('memory');
      const ref = openManager(expected, compactConfig({ indexIntervalBytes: 64 }));
      const before = await writeRounds(expected, ref.log);
      await clean(ref.manager, ref.log, expected.clock.nowMs());
      const cleaned = await storedRecords(ref.log);
      ref.manager.close();

      const env = makeEnv('memory');
      const mem = env.mem;
      assert.ok(mem !== null);
      class Crash extends Error {}
      let swaps = 0;
      const crashAt = (p: SwapPoint): void => {
        if (p === point && ++swaps === 2) {
          mem.crash();
          throw new Crash(p);
        }
      };
      const first = openManager(env, compactConfig({ indexIntervalBytes: 64 }), { onSwapPoint: crashAt });
      await writeRounds(env, first.log);
      first.manager.flushAll();
      await assert.rejects(clean(first.manager, first.log, env.clock.nowMs()), Crash);

      const { manager, log } = openManager(env, compactConfig({ indexIntervalBytes: 64 }));
      // Recovered on first use (storage README, "Recovery", step 8): reading it removes the swap's leftovers.
      const recovered = await storedRecords(log);
      assert.deepEqual(env.fs.readdir(`${env.root}/topic-0`).filter((n) => n.includes('.cleaned') || n.includes('.swap')), []);
      assertSubsetWithSameOffsets(recovered, before);
      assert.equal(log.logEndOffset, 101n);
      // Every key still has its latest value.
      const latest = latestByKey(recovered);
      for (const [k, r] of latestByKey(before)) assert.equal(latest.get(k)?.value, r.value, `latest ${k}`);
      // Segment by segment, each is either the original or the cleaned copy.
      const infos = log.segmentInfos();
      for (const info of infos) {
        const inSeg = (rs: StoredRecord[]): string => JSON.stringify(rs.filter((r) => r.offset >= info.baseOffset && r.offset < info.nextOffset).map((r) => r.offset.toString()));
        const got = inSeg(recovered);
        assert.ok(got === inSeg(before) || got === inSeg(cleaned), `segment ${info.baseOffset}: old or new`);
      }
      // Lookups through the (rebuilt) indexes work at every offset.
      for (let o = 0n; o < log.logEndOffset; o++) assert.equal(log.read(o, 1).kind, 'records');
      await clean(manager, log, env.clock.nowMs());
      assert.deepEqual(await storedRecords(log), cleaned, 'cleaning again reaches the same result');
      manager.close();
    });
  }

  it('compact-only logs are exempt from time and size retention; delete,compact is not', () => {
    for (const policy of [{ delete: false, compact: true }, { delete: true, compact: true }]) {
      const env = makeEnv('memory');
      const { manager, log } = openManager(env, compactConfig({ cleanupPolicy: policy, retentionMs: 1000, retentionBytes: 10 }));
      for (let i = 0; i < 3; i++) {
        log.append(buildRecordBatchSync({ records: [{ key: `k${i}`, value: 'x'.repeat(100) }], timestampMs: env.clock.nowMs() }));
        log.roll();
      }
      env.clock.advance(5000);
      const res = log.applyRetention(env.clock.nowMs());
      assert.equal(res.segmentsDeleted, policy.delete ? 3 : 0, JSON.stringify(policy));
      manager.close();
    }
  });

  it('validates the compaction configs', () => {
    const bad = [
      { minCleanableDirtyRatio: 1.5 },
      { deleteRetentionMs: -1 },
      { minCompactionLagMs: -1 },
      { maxCompactionLagMs: 0 },
      { minCompactionLagMs: 10, maxCompactionLagMs: 5 },
    ];
    for (const b of bad) assert.throws(() => validateLogConfig(compactConfig(b)), /ERR_TRIB_STORAGE_INVALID_CONFIG|must/, JSON.stringify(b));
    assert.doesNotThrow(() => validateLogConfig(compactConfig({ minCompactionLagMs: 5, maxCompactionLagMs: 5 })));
  });

  it('batchHasNullKey inspects every record of any codec', async () => {
    for (const codec of [0, 1, 2, 3, 4]) {
      assert.equal(await batchHasNullKey(await keyedBatch([{ key: 'a', value: '1' }, { key: 'b', value: null }], 0, codec)), false);
      assert.equal(await batchHasNullKey(await keyedBatch([{ key: 'a', value: '1' }, { key: null, value: '2' }], 0, codec)), true);
    }
  });
});
