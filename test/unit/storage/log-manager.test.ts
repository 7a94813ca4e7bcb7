import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCheckpoint, formatCheckpoint } from '../../../src/storage/checkpoint.js';
import {
  CLEAN_SHUTDOWN_MARKER,
  LOG_START_OFFSET_CHECKPOINT,
  LogManager,
  RECOVERY_POINT_CHECKPOINT,
  parsePartitionDirName,
} from '../../../src/storage/log-manager.js';
import type { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import type { RecoveryReport } from '../../../src/storage/log-loader.js';
import { simpleBatch } from './batch-fixture.js';
import { batchOffsets, config, FS_KINDS, makeEnv, readAll, withEnv, type FsEnv } from './fs-env.js';

function open(env: FsEnv, extra: Partial<Parameters<typeof LogManager.open>[0]> = {}): ReturnType<typeof LogManager.open> {
  return LogManager.open({ fs: env.fs, clock: env.clock, dataDir: join(env.root, 'data'), defaultConfig: config({ segmentBytes: 500 }), ...extra });
}

describe('checkpoint files', () => {
  it('round-trip Kafka\'s text format and reject garbage', () => {
    const entries = [{ topic: 'orders', partition: 0, offset: 1234n }, { topic: 'a.b-c', partition: 7, offset: 0n }];
    const text = formatCheckpoint(entries);
    assert.equal(text, '0\n2\norders 0 1234\na.b-c 7 0\n');
    assert.deepEqual(parseCheckpoint(text), entries);
    assert.equal(typeof parseCheckpoint('1\n0\n'), 'string');
    assert.equal(typeof parseCheckpoint('0\n2\norders 0 1\n'), 'string');
    assert.equal(typeof parseCheckpoint('0\n1\norders x 1\n'), 'string');
  });

  it('parse partition directory names', () => {
    assert.deepEqual(parsePartitionDirName('my-topic-12'), { topic: 'my-topic', partition: 12 });
    assert.equal(parsePartitionDirName('my-topic'), null);
    assert.equal(parsePartitionDirName('x y-1'), null);
  });
});

for (const kind of FS_KINDS) {
  describe(`LogManager on ${kind} fs`, () => {
    it('creates logs, checkpoints them, and reopens after a clean shutdown', withEnv(kind, (env) => {
      const first = open(env);
      assert.equal(first.hadCleanShutdown, false);
      const a = first.manager.getOrCreateLog('orders', 0);
      const b = first.manager.getOrCreateLog('orders', 1);
      assert.equal(first.manager.getOrCreateLog('orders', 0), a);
      for (let i = 0; i < 10; i++) a.append(simpleBatch(2, 40));
      b.append(simpleBatch(3));
      a.deleteRecordsBefore(4n);
      first.manager.close();
      const dataDir = first.manager.dataDir;
      const rp = parseCheckpoint(env.fs.readFile(join(dataDir, RECOVERY_POINT_CHECKPOINT)).toString());
      assert.deepEqual(rp, [{ topic: 'orders', partition: 0, offset: 20n }, { topic: 'orders', partition: 1, offset: 3n }]);
      const lso = parseCheckpoint(env.fs.readFile(join(dataDir, LOG_START_OFFSET_CHECKPOINT)).toString());
      assert.deepEqual(lso, [{ topic: 'orders', partition: 0, offset: 4n }, { topic: 'orders', partition: 1, offset: 0n }]);
      assert.ok(env.fs.exists(join(dataDir, CLEAN_SHUTDOWN_MARKER)));

      const second = open(env, { deferCleanLogs: false });
      assert.equal(second.hadCleanShutdown, true);
      assert.equal(env.fs.exists(join(dataDir, CLEAN_SHUTDOWN_MARKER)), false);
      assert.equal(second.reports.length, 2);
      assert.equal(second.deferred, 0);
      // A clean shutdown flushed everything: nothing is scanned (as in Kafka), indexes are loaded and checked.
      for (const r of second.reports) assert.equal(r.segmentsScanned.length, 0);
      const a2 = second.manager.getLog('orders', 0);
      assert.ok(a2 !== undefined);
      assert.equal(a2.logStartOffset, 4n);
      assert.equal(a2.logEndOffset, 20n);
      assert.equal(second.manager.getLog('orders', 1)?.logEndOffset, 3n);
      second.manager.close();
    }));

    it('after a clean shutdown defers every log to its first use, with the same bounds and data', withEnv(kind, (env) => {
      const first = open(env);
      const a = first.manager.getOrCreateLog('orders', 0);
      for (let i = 0; i < 10; i++) a.append(simpleBatch(2, 40));
      a.deleteRecordsBefore(4n);
      first.manager.getOrCreateLog('orders', 1).append(simpleBatch(3));
      const before = readAll(a, 4n);
      first.manager.close();

      const loadedReports: string[] = [];
      const second = open(env, { onDeferredLoad: (r) => loadedReports.push(r.dir) });
      assert.equal(second.reports.length, 0);
      assert.equal(second.deferred, 2);
      const a2 = second.manager.getLog('orders', 0);
      const b2 = second.manager.getLog('orders', 1);
      assert.ok(a2 !== undefined && b2 !== undefined);
      // Bounds from the checkpoints, nothing loaded yet.
      assert.deepEqual([a2.logStartOffset, a2.logEndOffset, a2.recoveryPoint, a2.isLoaded], [4n, 20n, 20n, false]);
      assert.equal(b2.logEndOffset, 3n);
      // A read loads it: the same batches as before the restart.
      assert.deepEqual(readAll(a2, 4n), before);
      assert.equal(a2.isLoaded, true);
      assert.deepEqual(loadedReports, [a2.dir]);
      assert.ok(a2.segmentCount > 1, 'several segments (segment.bytes 500)');
      a2.append(simpleBatch(1));
      assert.equal(a2.logEndOffset, 21n);
      // The unused log closes without being loaded, and keeps its checkpoint entries.
      second.manager.close();
      assert.equal(b2.isLoaded, false);

      const third = open(env);
      assert.equal(third.deferred, 2);
      assert.equal(third.manager.getLog('orders', 0)?.logEndOffset, 21n);
      assert.equal(third.manager.getLog('orders', 1)?.logEndOffset, 3n);
      assert.deepEqual(batchOffsets(readAll(third.manager.getLog('orders', 1) as NonNullable<ReturnType<LogManager['getLog']>>, 0n)), [0n]);
      third.manager.close();
    }));

    it('a crash while logs are still deferred recovers them from the checkpoints they kept', withEnv(kind, (env) => {
      const first = open(env);
      const a = first.manager.getOrCreateLog('orders', 0);
      for (let i = 0; i < 6; i++) a.append(simpleBatch(2, 40));
      first.manager.getOrCreateLog('orders', 1).append(simpleBatch(3));
      first.manager.close();
      const second = open(env);
      assert.equal(second.deferred, 2);
      second.manager.getLog('orders', 1)?.append(simpleBatch(1));
      // Crash: no close; orders-0 never loaded, orders-1 appended to.
      const third = open(env);
      assert.equal(third.hadCleanShutdown, false);
      assert.equal(third.deferred, 2);
      assert.equal(third.awaitingRecovery, 2, 'both are recovered on first use (or by recoverSome)');
      assert.equal(third.manager.getLog('orders', 0)?.logEndOffset, 12n);
      assert.equal(third.manager.getLog('orders', 1)?.logEndOffset, 4n);
      third.manager.close();
    }));

    it('a deferred log whose index was damaged rebuilds it when loaded', withEnv(kind, (env) => {
      const first = open(env);
      const a = first.manager.getOrCreateLog('orders', 0);
      for (let i = 0; i < 10; i++) a.append(simpleBatch(2, 40));
      const before = readAll(a, 0n);
      const firstIndex = a.segmentPath(0n, '.index');
      first.manager.close();
      env.fs.writeFileAtomic(firstIndex, Buffer.from('garbage'));
      const reports: RecoveryReport[] = [];
      const second = open(env, { onDeferredLoad: (r) => reports.push(r) });
      const a2 = second.manager.getLog('orders', 0);
      assert.ok(a2 !== undefined);
      assert.deepEqual(readAll(a2, 0n), before);
      assert.equal(reports.length, 1);
      assert.deepEqual(reports[0]?.indexesRebuilt, [0n]);
      second.manager.close();
    }));

    it('deletes logs through a -delete rename and finishes interrupted deletions', withEnv(kind, (env) => {
      const { manager } = open(env);
      manager.getOrCreateLog('gone', 0).append(simpleBatch(1));
      manager.getOrCreateLog('kept', 0).append(simpleBatch(1));
      assert.equal(manager.deleteLog('gone', 0), true);
      assert.equal(manager.deleteLog('gone', 0), false);
      assert.deepEqual(env.fs.readdir(manager.dataDir).filter((n) => n.includes('gone')), []);
      // A deletion interrupted by a crash, and a directory that is not ours.
      env.fs.mkdirp(join(manager.dataDir, 'old-3.1700000000000-delete'));
      env.fs.mkdirp(join(manager.dataDir, '__cluster_metadata-0'));
      manager.close();
      const again = open(env);
      assert.deepEqual(again.deletionsCompleted, ['old-3.1700000000000-delete']);
      assert.deepEqual(again.manager.allLogs().map((l) => l.topic), ['kept']);
      assert.ok(env.fs.exists(join(manager.dataDir, '__cluster_metadata-0')));
      const rp = parseCheckpoint(env.fs.readFile(join(manager.dataDir, RECOVERY_POINT_CHECKPOINT)).toString());
      assert.deepEqual(rp, [{ topic: 'kept', partition: 0, offset: 1n }]);
      again.manager.close();
    }));

    it('tick runs time flushes and retention in bounded slices, and checkpoints', withEnv(kind, (env) => {
      const { manager } = open(env, {
        defaultConfig: config({ segmentBytes: 300, retentionMs: 1000, flushIntervalMs: 500 }),
        maxLogsPerTick: 1,
        retentionCheckIntervalMs: 100,
        checkpointIntervalMs: 1000,
      });
      const logs = [manager.getOrCreateLog('t', 0), manager.getOrCreateLog('t', 1)];
      const ts = BigInt(env.clock.nowMs());
      for (const log of logs) for (let i = 0; i < 4; i++) log.append(simpleBatch(2, 40, ts));
      env.clock.advance(2000);
      const now = env.clock.nowMs();
      const t1 = manager.tick(now);
      assert.equal(t1.logsVisited, 1);
      assert.equal(t1.flushes, 1);
      assert.equal(t1.segmentsDeleted, 3);
      assert.equal(t1.checkpointed, true);
      assert.equal(logs[0]?.logStartOffset, 6n);
      assert.equal(logs[1]?.logStartOffset, 0n, 'not visited yet');
      const t2 = manager.tick(now);
      assert.equal(t2.segmentsDeleted, 3);
      assert.equal(logs[1]?.logStartOffset, 6n);
      assert.equal(logs[1]?.recoveryPoint, 8n);
      manager.close();
    }));
  });
}

describe('LogManager after a crash (memory fs)', () => {
  it('after kill -9, validates the unflushed segments but fsyncs them only at the next flush (the recovery point stays below them)', () => {
    for (const [flushAfterRestart, deferCrashRecovery] of [[false, false], [true, false], [false, true], [true, true]] as const) {
      const env = makeEnv('memory');
      const mem = env.mem as MemoryFileSystem;
      const { manager } = open(env);
      const log = manager.getOrCreateLog('t', 0);
      for (let i = 0; i < 6; i++) log.append(simpleBatch(2, 40));
      log.flush();
      manager.checkpoint();
      for (let i = 0; i < 6; i++) log.append(simpleBatch(2, 40));
      // kill -9: no close, the page cache (unflushed content) survives.
      const lazyReports: RecoveryReport[] = [];
      const after = open(env, { deferCrashRecovery, onDeferredLoad: (r) => lazyReports.push(r) });
      assert.equal(after.hadCleanShutdown, false);
      assert.equal(after.awaitingRecovery, deferCrashRecovery ? 1 : 0);
      // The background slices (the broker calls them between turns of the event loop).
      assert.equal(after.manager.recoverSome(8), 0);
      const log2 = after.manager.getLog('t', 0) as NonNullable<ReturnType<typeof after.manager.getLog>>;
      assert.equal(log2.logEndOffset, 24n);
      assert.ok(((deferCrashRecovery ? lazyReports : after.reports)[0]?.segmentsScanned.length ?? 0) > 0);
      assert.ok(log2.recoveryPoint <= 12n, `recovery point ${log2.recoveryPoint} not moved over unsynced data`);
      const rp = parseCheckpoint(env.fs.readFile(join(log2.dir, '..', RECOVERY_POINT_CHECKPOINT)).toString());
      assert.ok(Array.isArray(rp) && (rp[0]?.offset ?? 99n) <= 12n, 'the checkpoint says so too');
      if (flushAfterRestart) {
        log2.flush();
        assert.equal(log2.recoveryPoint, 24n);
        after.manager.checkpoint();
      }
      // Power loss now: without the flush, what was never fsynced may go (never below the old recovery point).
      mem.crash();
      const third = open(env);
      const log3 = third.manager.getLog('t', 0) as NonNullable<ReturnType<typeof third.manager.getLog>>;
      if (flushAfterRestart) assert.equal(log3.logEndOffset, 24n);
      else assert.ok(log3.logEndOffset >= 12n && log3.logEndOffset <= 24n);
      assert.deepEqual(batchOffsets(readAll(log3, 0n)).slice(0, 6), [0n, 2n, 4n, 6n, 8n, 10n]);
      third.manager.close();
    }
  });

  it('open rewrites the checkpoints only when they would change (each rewrite is fsyncs on the start path)', () => {
    const env = makeEnv('memory');
    const writes: string[] = [];
    const fs = new Proxy(env.fs, {
      get(target, key, receiver) {
        if (key === 'writeFileAtomic') return (path: string, data: Buffer) => { writes.push(path.slice(path.lastIndexOf('/') + 1)); target.writeFileAtomic(path, data); };
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const checkpointWrites = (): number => writes.filter((w) => w === RECOVERY_POINT_CHECKPOINT || w === LOG_START_OFFSET_CHECKPOINT).length;
    // A new data dir: no logs, no files; nothing to record.
    const first = open({ ...env, fs });
    assert.equal(checkpointWrites(), 0);
    assert.equal(env.fs.exists(join(first.manager.dataDir, RECOVERY_POINT_CHECKPOINT)), false);
    first.manager.getOrCreateLog('t', 0).append(simpleBatch(2));
    first.manager.close();
    // After a clean shutdown the files already hold every log's offsets: not rewritten, the marker still dropped.
    writes.length = 0;
    const second = open({ ...env, fs });
    assert.equal(second.hadCleanShutdown, true);
    assert.equal(checkpointWrites(), 0);
    assert.equal(env.fs.exists(join(second.manager.dataDir, CLEAN_SHUTDOWN_MARKER)), false);
    second.manager.close();
    // A malformed file is rewritten, as is one naming another offset than the log opened has.
    env.fs.writeFileAtomic(join(second.manager.dataDir, LOG_START_OFFSET_CHECKPOINT), Buffer.from('nonsense'));
    writes.length = 0;
    const third = open({ ...env, fs });
    assert.equal(third.checkpointProblems.length, 1);
    assert.equal(checkpointWrites(), 2);
    third.manager.close();
    env.fs.writeFileAtomic(join(third.manager.dataDir, RECOVERY_POINT_CHECKPOINT), Buffer.from(formatCheckpoint([{ topic: 't', partition: 0, offset: 1n }])));
    writes.length = 0;
    const fourth = open({ ...env, fs }, { deferCleanLogs: false });
    assert.equal(checkpointWrites(), 2);
    assert.deepEqual(parseCheckpoint(env.fs.readFile(join(fourth.manager.dataDir, RECOVERY_POINT_CHECKPOINT)).toString()), [{ topic: 't', partition: 0, offset: 2n }]);
    fourth.manager.close();
  });

  it('recovers from the checkpointed recovery point and reports a garbage checkpoint', () => {
    const env = makeEnv('memory');
    const mem = env.mem as MemoryFileSystem;
    const { manager } = open(env);
    const log = manager.getOrCreateLog('t', 0);
    for (let i = 0; i < 6; i++) log.append(simpleBatch(2, 40));
    log.flush();
    manager.checkpoint();
    for (let i = 0; i < 3; i++) log.append(simpleBatch(2, 40));
    mem.crash();
    const after = open(env);
    assert.equal(after.hadCleanShutdown, false);
    const log2 = after.manager.getLog('t', 0);
    assert.equal(log2?.logEndOffset, 12n);
    assert.deepEqual(batchOffsets(readAll(log2 as NonNullable<typeof log2>, 10n)), [10n]);
    after.manager.close();

    env.fs.writeFileAtomic(join(after.manager.dataDir, RECOVERY_POINT_CHECKPOINT), Buffer.from('nonsense'));
    mem.crash();
    const third = open(env);
    assert.equal(third.checkpointProblems.length, 1);
    assert.equal(third.reports[0]?.recoveryPoint, null);
    assert.equal(third.reports[0]?.segmentsScanned.length, third.reports[0]?.segmentsLoaded);
    third.manager.close();
  });
});
