/**
 * The fsyncs that left the event loop (issue 17, tail latency): atomic writes
 * on the thread pool keep their per-path order, background flushes move the
 * recovery point only once durable, and the overlapped graceful stop leaves
 * the same clean state as close(). On every file system kind.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LogManager, RECOVERY_POINT_CHECKPOINT, CLEAN_SHUTDOWN_MARKER } from '../../../src/storage/log-manager.js';
import { readCheckpointFile } from '../../../src/storage/checkpoint.js';
import { listSnapshots } from '../../../src/storage/producer-state/snapshot.js';
import { config, FS_KINDS, makeEnv, openLog, type FsEnv } from './fs-env.js';
import { simpleBatch } from './batch-fixture.js';

function withEnv(kind: (typeof FS_KINDS)[number], fn: (env: FsEnv) => Promise<void>): () => Promise<void> {
  return async () => {
    const env = makeEnv(kind);
    try {
      await fn(env);
    } finally {
      await env.fs.settled();
      env.cleanup();
    }
  };
}

/** Waits (bounded: 2,000 turns of the loop plus a little time) until `done()` holds. */
async function eventually(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, i < 100 ? 0 : 5));
  assert.ok(done(), what);
}

for (const kind of FS_KINDS) {
  describe(`background fsyncs (${kind} fs)`, () => {
    it('an async atomic write never lands after a newer write, rename or unlink of the same path', withEnv(kind, async (env) => {
      const path = join(env.root, 'checkpoint');
      const first = env.fs.writeFileAtomicAsync(path, Buffer.from('old'));
      env.fs.writeFileAtomic(path, Buffer.from('new, written at once'));
      await first;
      await env.fs.settled();
      assert.equal(env.fs.readFile(path).toString(), 'new, written at once');

      const a = env.fs.writeFileAtomicAsync(path, Buffer.from('a'));
      const b = env.fs.writeFileAtomicAsync(path, Buffer.from('b'));
      await Promise.all([b, a]);
      assert.equal(env.fs.readFile(path).toString(), 'b');

      void env.fs.writeFileAtomicAsync(path, Buffer.from('deleted before it landed'));
      env.fs.unlink(path);
      await env.fs.settled();
      assert.equal(env.fs.exists(path), false);
      assert.deepEqual(env.fs.readdir(env.root).filter((n) => n.endsWith('.tmp')), [], 'no temp file left');
    }));

    it('reads see the previous content until the write lands; settled() waits for it', withEnv(kind, async (env) => {
      const path = join(env.root, 'snap');
      env.fs.writeFileAtomic(path, Buffer.from('v1'));
      const write = env.fs.writeFileAtomicAsync(path, Buffer.from('v2'));
      assert.equal(env.fs.readFile(path).toString(), 'v1');
      await env.fs.settled();
      await write;
      assert.equal(env.fs.readFile(path).toString(), 'v2');
      void env.fs.writeFileAtomicAsync(join(env.root, 'gone', 'x'), Buffer.from('into a missing directory'));
      await env.fs.settled();
      assert.equal(env.fs.exists(join(env.root, 'gone')), false);
    }));

    it('a background flush of rolled segments moves the recovery point only once the fsyncs are done', withEnv(kind, async (env) => {
      const { log } = openLog(env, config({ segmentBytes: 300 }));
      for (let i = 0; i < 8; i++) log.append(simpleBatch(2, 40));
      assert.ok(log.segmentInfos().length > 2);
      assert.equal(log.recoveryPoint, 0n);
      assert.equal(log.maybeFlushInBackground(env.clock.nowMs()), true);
      assert.equal(log.recoveryPoint, 0n, 'not before the fsyncs are done');
      assert.equal(log.maybeFlushInBackground(env.clock.nowMs()), false, 'one at a time');
      const activeBase = log.segmentInfos().at(-1)?.baseOffset ?? -1n;
      await eventually(() => log.recoveryPoint === activeBase, `recovery point reaches the active segment ${activeBase}`);
      if (env.mem !== null) {
        // What the recovery point claims survives a power cut.
        env.mem.crash();
        const again = openLog(env, config({ segmentBytes: 300 }), { recoveryPoint: activeBase, hadCleanShutdown: false });
        assert.ok(again.log.logEndOffset >= activeBase);
        again.log.close();
      } else {
        log.close();
      }
    }));

    it('a synchronous flush while a background flush runs does not trust it: everything is durable when it returns', withEnv(kind, async (env) => {
      const { log } = openLog(env, config({ segmentBytes: 300 }));
      for (let i = 0; i < 8; i++) log.append(simpleBatch(2, 40));
      assert.equal(log.maybeFlushInBackground(env.clock.nowMs()), true);
      log.flush();
      const end = log.logEndOffset;
      assert.equal(log.recoveryPoint, end);
      if (env.mem !== null) {
        const bytes = log.sizeBytes;
        env.mem.crash(); // before the background fsyncs ran
        const dir = join(env.root, 'topic-0');
        const onDisk = env.fs.readdir(dir).filter((n) => n.endsWith('.log')).reduce((sum, n) => sum + env.fs.readFile(join(dir, n)).length, 0);
        assert.equal(onDisk, bytes, 'every segment byte below the recovery point survived the crash');
      } else {
        log.close();
      }
    }));

    it('a truncation while a background flush runs keeps the lowered recovery point', withEnv(kind, async (env) => {
      const { log } = openLog(env, config({ segmentBytes: 300 }));
      for (let i = 0; i < 8; i++) log.append(simpleBatch(2, 40));
      assert.equal(log.maybeFlushInBackground(env.clock.nowMs()), true);
      log.truncateTo(3n);
      for (let i = 0; i < 8; i++) log.append(simpleBatch(2, 40));
      // The flush started before the cut finishes (its fsyncs were queued first) and must not raise the recovery point.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(log.recoveryPoint, 0n, 'the batches appended after the cut were never fsynced');
      log.close();
    }));

    it('a new partition\'s first leader-epoch checkpoint is written in the background; later ones at once', withEnv(kind, async (env) => {
      const { log } = openLog(env, config());
      log.writeLeaderEpochCheckpoint([{ epoch: 0, startOffset: 0n }]);
      const lost = env.mem !== null;
      if (lost) {
        // A crash before it lands leaves no file (not a stale one): the next open rebuilds from the batch headers.
        env.mem?.crash();
        const again = openLog(env, config());
        assert.equal(again.log.readLeaderEpochCheckpoint(), null);
        again.log.writeLeaderEpochCheckpoint([{ epoch: 0, startOffset: 0n }]);
        await env.fs.settled();
        assert.deepEqual(again.log.readLeaderEpochCheckpoint(), [{ epoch: 0, startOffset: 0n }]);
        again.log.append(simpleBatch(2, 40));
        again.log.writeLeaderEpochCheckpoint([{ epoch: 0, startOffset: 0n }, { epoch: 3, startOffset: 2n }]);
        assert.deepEqual(again.log.readLeaderEpochCheckpoint(), [{ epoch: 0, startOffset: 0n }, { epoch: 3, startOffset: 2n }], 'a log with data: written at once');
        again.log.close();
        return;
      }
      await env.fs.settled();
      assert.deepEqual(log.readLeaderEpochCheckpoint(), [{ epoch: 0, startOffset: 0n }]);
      log.close();
    }));

    it('closeAsync leaves what close() leaves: logs flushed, snapshots, checkpoints at the log ends, the marker', withEnv(kind, async (env) => {
      const open = () => LogManager.open({ fs: env.fs, clock: env.clock, dataDir: env.root, defaultConfig: config({ segmentBytes: 400 }) });
      const { manager } = open();
      const ends = new Map<string, bigint>();
      for (let p = 0; p < 12; p++) {
        const log = manager.getOrCreateLog('t', p);
        for (let i = 0; i < 3 + p; i++) log.append(simpleBatch(2, 40));
        ends.set(`t ${p}`, log.logEndOffset);
      }
      await manager.closeAsync();
      assert.equal(env.fs.exists(join(env.root, CLEAN_SHUTDOWN_MARKER)), true);
      const cp = readCheckpointFile(env.fs, join(env.root, RECOVERY_POINT_CHECKPOINT));
      assert.ok(Array.isArray(cp));
      for (const e of cp) assert.equal(e.offset, ends.get(`${e.topic} ${e.partition}`), `${e.topic}-${e.partition} recovery point at its end`);
      for (let p = 0; p < 12; p++) assert.equal(listSnapshots(env.fs, join(env.root, `t-${p}`)).at(-1), ends.get(`t ${p}`));
      // A power cut now loses nothing: everything was fsynced before the marker.
      env.mem?.crash();
      const { manager: again, hadCleanShutdown } = open();
      assert.equal(hadCleanShutdown, true);
      for (let p = 0; p < 12; p++) assert.equal(again.getLog('t', p)?.logEndOffset, ends.get(`t ${p}`));
      again.close();
    }));
  });
}
