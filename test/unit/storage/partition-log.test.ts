import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { batchCrcIsValid } from '../../../src/protocol/record-batch/header.js';
import { FLUSH_NEVER } from '../../../src/storage/config.js';
import { StorageError } from '../../../src/storage/errors.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { buildBatch, simpleBatch } from './batch-fixture.js';
import { batchOffsets, config, FS_KINDS, makeEnv, openLog, readAll, withEnv, type FsEnv } from './fs-env.js';

const T0 = 1_700_000_000_000n;

/** Appends n batches of `records` records each; returns the stored batches (with offsets). */
function fill(log: PartitionLog, n: number, records = 3, valueBytes = 20, ts = (i: number) => T0 + BigInt(i)): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const b = simpleBatch(records, valueBytes, ts(i));
    log.append(b);
    out.push(b);
  }
  return out;
}

for (const kind of FS_KINDS) {
  describe(`PartitionLog on ${kind} fs`, () => {
    it('a read reports an end offset bound from the offset index (read_committed aborted-transaction bound)', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ indexIntervalBytes: 1 })); // every batch but the first indexed
      const size = simpleBatch(2).length;
      for (let i = 0; i < 5; i++) log.append(simpleBatch(2)); // offsets 0-9, batches of 2
      const bound = (offset: bigint, maxBytes: number, max?: bigint): bigint => {
        const r = log.read(offset, maxBytes, { maxOffsetExclusive: max });
        assert.ok(r.kind === 'records');
        return r.endOffsetBound;
      };
      assert.equal(bound(0n, size), 2n, 'one batch: the next one starts at 2');
      assert.equal(bound(2n, size + 10), 6n, 'a cut second batch (4-5) counts: the bound is past it');
      assert.equal(bound(4n, 1 << 20), 10n, 'to the end: the log end offset');
      assert.equal(bound(0n, 1 << 20, 6n), 6n, 'stopped by maxOffsetExclusive');
      const coarse = openLog(env, config({ indexIntervalBytes: 1 << 20 }), { dir: `${env.root}/coarse-0`, topic: 'coarse' }).log;
      for (let i = 0; i < 5; i++) coarse.append(simpleBatch(2));
      const r = coarse.read(0n, size);
      assert.ok(r.kind === 'records');
      assert.equal(r.endOffsetBound, 10n, 'no index entry after the bytes: the segment end');
      coarse.close();
      log.close();
    }));

    it('assigns offsets on append and reads the stored bytes back', withEnv(kind, (env) => {
      const { log, report } = openLog(env, config());
      assert.equal(report.truncations.length, 0);
      assert.equal(log.logEndOffset, 0n);
      const a = simpleBatch(3);
      const r1 = log.append(a);
      assert.deepEqual([r1.baseOffset, r1.lastOffset, r1.position], [0n, 2n, 0]);
      assert.equal(r1.logAppendTimeMs, BigInt(env.clock.nowMs()));
      // Several consecutive batches in one buffer.
      const two = Buffer.concat([simpleBatch(2), simpleBatch(5)]);
      const r2 = log.append(two);
      assert.deepEqual([r2.baseOffset, r2.lastOffset, r2.position], [3n, 9n, a.length]);
      assert.equal(log.logEndOffset, 10n);
      const all = readAll(log, 0n);
      assert.deepEqual(batchOffsets(all), [0n, 3n, 5n]);
      assert.ok(all.equals(Buffer.concat([a, two])));
      assert.ok(batchCrcIsValid(all, 0), 'rewriting the base offset keeps the CRC valid');
      // A read from the middle of a batch starts at that batch.
      assert.deepEqual(batchOffsets(readAll(log, 7n)), [5n]);
      assert.deepEqual(batchOffsets(readAll(log, 4n)), [3n, 5n]);
      log.close();
    }));

    it('answers out of range below the start and past the end, empty at the end', withEnv(kind, (env) => {
      const { log } = openLog(env, config());
      fill(log, 2);
      assert.equal(log.read(6n, 100).kind, 'records');
      const atEnd = log.read(6n, 100);
      assert.ok(atEnd.kind === 'records' && atEnd.chunks.length === 0 && atEnd.sizeBytes === 0);
      const past = log.read(7n, 100);
      assert.deepEqual(past, { kind: 'offset_out_of_range', logStartOffset: 0n, logEndOffset: 6n });
      log.deleteRecordsBefore(3n);
      assert.equal(log.read(2n, 100).kind, 'offset_out_of_range');
      assert.deepEqual(batchOffsets(readAll(log, 3n)), [3n]);
      log.close();
    }));

    it('cuts at maxBytes, returns one whole batch with minOneBatch', withEnv(kind, (env) => {
      const { log } = openLog(env, config());
      const batches = fill(log, 3, 4, 50);
      const size = (batches[0] as Buffer).length;
      const cut = log.read(0n, size + 10);
      assert.ok(cut.kind === 'records');
      assert.equal(cut.sizeBytes, size + 10);
      assert.equal(cut.partialTail, true);
      const exact = log.read(0n, size * 2);
      assert.ok(exact.kind === 'records' && exact.sizeBytes === size * 2 && !exact.partialTail);
      const minOne = log.read(0n, 5, { minOneBatch: true });
      assert.ok(minOne.kind === 'records' && minOne.sizeBytes === size);
      const noMin = log.read(0n, 5, { minOneBatch: false });
      assert.ok(noMin.kind === 'records' && noMin.sizeBytes === 5 && noMin.partialTail);
      const zero = log.read(0n, 0, { minOneBatch: false });
      assert.ok(zero.kind === 'records' && zero.sizeBytes === 0);
      log.close();
    }));

    it('never returns batches at or past maxOffsetExclusive', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 400 }));
      fill(log, 10, 2, 40);
      assert.ok(log.segmentCount > 2);
      for (const hw of [0n, 1n, 2n, 3n, 4n, 9n, 10n, 19n, 20n]) {
        const got = batchOffsets(readAll(log, 0n, 1 << 20, { maxOffsetExclusive: hw }));
        const want = [0n, 2n, 4n, 6n, 8n, 10n, 12n, 14n, 16n, 18n].filter((b) => b + 1n < hw);
        assert.deepEqual(got, want, `hw ${hw}`);
      }
      // The cached bound stays right as the log grows behind it.
      assert.deepEqual(batchOffsets(readAll(log, 4n, 1 << 20, { maxOffsetExclusive: 8n })), [4n, 6n]);
      fill(log, 2, 2, 40);
      assert.deepEqual(batchOffsets(readAll(log, 4n, 1 << 20, { maxOffsetExclusive: 8n })), [4n, 6n]);
      const empty = log.read(8n, 1000, { maxOffsetExclusive: 8n });
      assert.ok(empty.kind === 'records' && empty.sizeBytes === 0);
      log.close();
    }));

    it('rolls by size into 20-digit named segments and reads across them', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 1000 }));
      const batches = fill(log, 20, 5, 30);
      const infos = log.segmentInfos();
      assert.ok(infos.length >= 4, `rolled into ${infos.length}`);
      for (const s of infos.slice(0, -1)) assert.ok(s.sizeBytes <= 1000);
      for (let i = 1; i < infos.length; i++) assert.equal(infos[i]?.baseOffset, infos[i - 1]?.nextOffset);
      const names = env.fs.readdir(log.dir);
      assert.ok(names.includes('00000000000000000000.log'));
      assert.ok(names.includes(`${(infos[1]?.baseOffset ?? 0n).toString().padStart(20, '0')}.timeindex`));
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches)));
      // A batch bigger than a segment still goes in (alone).
      const big = simpleBatch(2, 2000);
      const r = log.append(big);
      assert.equal(r.position, 0);
      assert.deepEqual(batchOffsets(readAll(log, r.baseOffset)), [r.baseOffset]);
      log.close();
    }));

    it('rolls by time from the first batch timestamp (segment.ms)', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentMs: 1000 }));
      log.append(simpleBatch(1, 10, T0));
      log.append(simpleBatch(1, 10, T0 + 1000n));
      assert.equal(log.segmentCount, 1);
      log.append(simpleBatch(1, 10, T0 + 1001n));
      assert.equal(log.segmentCount, 2);
      assert.equal(log.segmentInfos()[1]?.baseOffset, 2n);
      log.close();
    }));

    it('rolls when the index is full', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ indexIntervalBytes: 0, segmentIndexBytes: 48 }));
      fill(log, 30, 1, 5);
      assert.ok(log.segmentCount >= 4, `${log.segmentCount} segments`);
      for (let o = 0n; o < 30n; o++) assert.deepEqual(batchOffsets(readAll(log, o, 1)), [o]);
      log.close();
    }));

    it('finds every offset through the sparse index', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ indexIntervalBytes: 256, segmentBytes: 8000 }));
      const sizes: number[] = [];
      for (let i = 0; i < 120; i++) sizes.push(1 + (i * 7) % 6);
      const bases: bigint[] = [];
      let next = 0n;
      for (const [i, n] of sizes.entries()) {
        bases.push(next);
        log.append(simpleBatch(n, 10 + (i % 50), T0 + BigInt(i)));
        next += BigInt(n);
      }
      log.flush();
      const indexFile = env.fs.open(log.segmentPath(0n, '.index'));
      assert.ok(indexFile.size() > 0 && indexFile.size() % 8 === 0, 'index entries on disk');
      indexFile.close();
      for (let o = 0n; o < next; o++) {
        const want = bases.filter((b) => b <= o).at(-1);
        assert.equal(batchOffsets(readAll(log, o, 1))[0], want, `offset ${o}`);
      }
      log.close();
    }));

    it('looks up offsets by timestamp and reports the max timestamp', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ indexIntervalBytes: 100, segmentBytes: 1500 }));
      assert.equal(log.maxTimestamp(), null);
      assert.equal(log.offsetForTimestamp(0n), null);
      // Timestamps 0, 10, 20, ... except batch 7 (offsets 14-15) which jumps to 5000.
      for (let i = 0; i < 40; i++) {
        const ts = i === 7 ? T0 + 5000n : T0 + BigInt(i * 10);
        log.append(buildBatch({ records: [{ value: Buffer.alloc(30), timestampMs: ts - 1n }, { value: Buffer.alloc(30), timestampMs: ts }] }));
      }
      assert.ok(log.segmentCount > 2);
      assert.deepEqual(log.offsetForTimestamp(T0), { offset: 0n, timestampMs: T0 });
      assert.deepEqual(log.offsetForTimestamp(T0 + 15n), { offset: 4n, timestampMs: T0 + 20n });
      assert.deepEqual(log.offsetForTimestamp(T0 + 70n), { offset: 14n, timestampMs: T0 + 5000n });
      assert.deepEqual(log.offsetForTimestamp(T0 + 390n), { offset: 14n, timestampMs: T0 + 5000n });
      assert.equal(log.offsetForTimestamp(T0 + 5001n), null);
      assert.deepEqual(log.maxTimestamp(), { offset: 15n, timestampMs: T0 + 5000n });
      log.deleteRecordsBefore(20n);
      assert.deepEqual(log.offsetForTimestamp(T0), { offset: 20n, timestampMs: T0 + 100n });
      assert.deepEqual(log.offsetForTimestamp(T0 + 390n), { offset: 78n, timestampMs: T0 + 390n });
      assert.equal(log.offsetForTimestamp(T0 + 391n)?.offset, undefined);
      log.close();
    }));

    it('applies retention by time to rolled segments only', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 500, retentionMs: 1000 }));
      fill(log, 12, 2, 40, (i) => T0 + BigInt(i * 100));
      const before = log.segmentInfos();
      assert.ok(before.length >= 3);
      const cutoff = Number(T0) + 1000 + Number((before[1] as { maxTimestampMs: bigint }).maxTimestampMs - T0);
      const res = log.applyRetention(cutoff + 1);
      assert.equal(res.segmentsDeleted, 2);
      assert.equal(log.logStartOffset, before[2]?.baseOffset);
      assert.equal(log.read(0n, 100).kind, 'offset_out_of_range');
      // Far in the future: everything but the active segment goes.
      log.applyRetention(Number(T0) + 1_000_000);
      assert.equal(log.segmentCount, 1);
      assert.equal(log.logStartOffset, before.at(-1)?.baseOffset);
      assert.equal(log.logEndOffset, 24n);
      log.close();
    }));

    it('applies retention by size', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 500, retentionBytes: 1200 }));
      fill(log, 20, 2, 40);
      log.applyRetention(env.clock.nowMs());
      const infos = log.segmentInfos();
      const total = infos.reduce((s, i) => s + i.sizeBytes, 0);
      assert.ok(total >= 1200, 'never below retention.bytes');
      assert.ok(total - (infos[0]?.sizeBytes ?? 0) < 1200, 'the oldest remaining one is needed');
      assert.equal(log.logStartOffset, infos[0]?.baseOffset);
      log.updateConfig(config({ segmentBytes: 500, retentionBytes: -1 }));
      assert.equal(log.applyRetention(env.clock.nowMs()).segmentsDeleted, 0);
      log.close();
    }));

    it('deleteRecordsBefore moves the start offset and drops whole segments', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 500 }));
      fill(log, 12, 2, 40);
      const infos = log.segmentInfos();
      assert.deepEqual(log.deleteRecordsBefore(25n), { kind: 'offset_out_of_range' });
      const mid = (infos[1]?.baseOffset ?? 0n) + 1n;
      assert.deepEqual(log.deleteRecordsBefore(mid), { kind: 'ok', logStartOffset: mid });
      assert.equal(log.segmentInfos()[0]?.baseOffset, infos[1]?.baseOffset);
      assert.ok(log.recoveryPoint >= mid, 'data below the start offset is flushed');
      assert.deepEqual(log.deleteRecordsBefore(2n), { kind: 'ok', logStartOffset: mid });
      assert.deepEqual(log.deleteRecordsBefore(24n), { kind: 'ok', logStartOffset: 24n });
      assert.equal(log.segmentCount, 1);
      assert.equal(log.sizeBytes, 0);
      log.append(simpleBatch(1));
      assert.deepEqual(batchOffsets(readAll(log, 24n)), [24n]);
      log.close();
    }));

    it('truncateTo removes batches at and after the offset, across segments', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 500, indexIntervalBytes: 50 }));
      const batches = fill(log, 12, 2, 40);
      log.truncateTo(30n);
      assert.equal(log.logEndOffset, 24n, 'beyond the end: no-op');
      log.truncateTo(15n);
      assert.equal(log.logEndOffset, 14n, 'the batch straddling 15 goes whole');
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches.slice(0, 7))));
      assert.ok(log.recoveryPoint <= 14n);
      const r = log.append(simpleBatch(3));
      assert.equal(r.baseOffset, 14n);
      assert.deepEqual(batchOffsets(readAll(log, 10n)), [10n, 12n, 14n]);
      log.truncateTo(0n);
      assert.equal(log.logEndOffset, 0n);
      assert.equal(log.segmentCount, 1);
      log.append(simpleBatch(1));
      assert.equal(log.logEndOffset, 1n);
      log.close();
    }));

    it('a read from any offset starts at the batch holding it, after appends and after a truncation (recent batches and header scans agree)', withEnv(kind, (env) => {
      // One index entry for the whole segment: offsets before the recent batches are found by a header scan, the rest from memory.
      const { log } = openLog(env, config({ indexIntervalBytes: 1 << 20 }));
      const firstBatchAt = (offset: bigint): [bigint, bigint] => {
        const r = log.read(offset, 1 << 20);
        assert.ok(r.kind === 'records' && r.chunks.length > 0, `records at ${offset}`);
        const chunk = r.chunks[0] as Buffer;
        const base = chunk.readBigInt64BE(0);
        return [base, base + BigInt(chunk.readInt32BE(23))];
      };
      const checkAll = (from: bigint): void => {
        for (let o = from; o < log.logEndOffset; o++) {
          const [base, last] = firstBatchAt(o);
          assert.ok(base <= o && o <= last, `offset ${o} read from the batch ${base}-${last}`);
        }
      };
      for (let i = 0; i < 60; i++) log.append(simpleBatch(1 + (i % 4), 10 + i));
      checkAll(0n);
      // Cut inside the recent batches, then append batches of other sizes at the same offsets and positions.
      const cut = log.logEndOffset - 12n;
      log.truncateTo(cut);
      for (let i = 0; i < 8; i++) log.append(simpleBatch(5 - (i % 3), 70 - i));
      checkAll(0n);
      log.close();
    }));

    it('keeps everything across a clean close and reopen', withEnv(kind, (env) => {
      const cfg = config({ segmentBytes: 700, indexIntervalBytes: 100 });
      const first = openLog(env, cfg).log;
      const batches = fill(first, 25, 2, 30);
      first.deleteRecordsBefore(5n);
      first.close();
      const { log, report } = openLog(env, cfg, { recoveryPoint: first.recoveryPoint, logStartOffset: 5n, hadCleanShutdown: true });
      assert.equal(report.indexesRebuilt.length, 0);
      assert.equal(report.segmentsScanned.length, 0, 'after a clean close nothing is scanned; indexes are loaded and checked');
      assert.equal(log.logEndOffset, 50n);
      assert.equal(log.logStartOffset, 5n);
      assert.ok(readAll(log, 5n).equals(Buffer.concat(batches.slice(2))));
      assert.deepEqual(log.maxTimestamp(), first.maxTimestamp());
      assert.deepEqual(log.offsetForTimestamp(T0 + 20n), { offset: 40n, timestampMs: T0 + 20n });
      log.append(simpleBatch(1));
      assert.equal(log.logEndOffset, 51n);
      log.close();
    }));

    it('flushes every flushIntervalMessages and on maybeFlush after flushIntervalMs', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ flushIntervalMessages: 5, flushIntervalMs: 1000 }));
      log.append(simpleBatch(3));
      assert.equal(log.recoveryPoint, 0n);
      log.append(simpleBatch(3));
      assert.equal(log.recoveryPoint, 6n);
      log.append(simpleBatch(1));
      assert.equal(log.maybeFlush(env.clock.nowMs() + 999), false);
      assert.equal(log.recoveryPoint, 6n);
      assert.equal(log.maybeFlush(env.clock.nowMs() + 1000), true);
      assert.equal(log.recoveryPoint, 7n);
      log.updateConfig(config({ flushIntervalMessages: FLUSH_NEVER }));
      log.append(simpleBatch(10));
      assert.equal(log.recoveryPoint, 7n);
      log.close();
    }));

    it('flushes rolled segments from maybeFlush even with the default policy', withEnv(kind, (env) => {
      const { log } = openLog(env, config({ segmentBytes: 300 }));
      fill(log, 6, 2, 40);
      assert.equal(log.recoveryPoint, 0n);
      assert.equal(log.maybeFlush(env.clock.nowMs()), true);
      assert.equal(log.recoveryPoint, log.segmentInfos().at(-1)?.baseOffset);
      log.close();
    }));

    it('rejects bad configs with a typed error', withEnv(kind, (env) => {
      assert.throws(() => openLog(env, config({ segmentBytes: 1 })), (e: unknown) =>
        e instanceof StorageError && e.code === 'ERR_TRIB_STORAGE_INVALID_CONFIG');
      const { log } = openLog(env, config());
      assert.throws(() => log.updateConfig(config({ retentionMs: -2 })), StorageError);
      log.close();
    }));

    it('delete() removes the directory', withEnv(kind, (env) => {
      const { log } = openLog(env, config());
      fill(log, 3);
      log.delete();
      assert.deepEqual(env.fs.readdir(env.root), []);
    }));
  });
}
