/**
 * Crash recovery on first use (src/storage/README.md, "Recovery", step 8):
 * after a crash the LogManager opens each log the checkpoints cover without
 * reading it, and recovers it when it is first used or when `recoverSome`
 * reaches it. These check that a lazily recovered log ends where an eager
 * recovery would have put it (torn tail cut, producer state rebuilt), that
 * the checkpoints stay true meanwhile, and that a stop before every log was
 * recovered is not taken for a clean one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCheckpoint } from '../../../src/storage/checkpoint.js';
import { CLEAN_SHUTDOWN_MARKER, LogManager, RECOVERY_POINT_CHECKPOINT } from '../../../src/storage/log-manager.js';
import type { RecoveryReport } from '../../../src/storage/log-loader.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { simpleBatch } from './batch-fixture.js';
import { batchOffsets, config, FS_KINDS, makeEnv, readAll, withEnv, type FsEnv } from './fs-env.js';
import { idempotentBatch } from './producer-state/fixture.js';

function open(env: FsEnv, reports: RecoveryReport[] = []): ReturnType<typeof LogManager.open> {
  return LogManager.open({
    fs: env.fs,
    clock: env.clock,
    dataDir: join(env.root, 'data'),
    defaultConfig: config({ segmentBytes: 2_000 }),
    onDeferredLoad: (r) => reports.push(r),
  });
}

function logOf(m: LogManager, partition: number): PartitionLog {
  const log = m.getLog('t', partition);
  assert.ok(log !== undefined, `t-${partition} is open`);
  return log;
}

/** Recovery points in the checkpoint file, by partition. */
function checkpointedRecoveryPoints(env: FsEnv): Map<number, bigint> {
  const parsed = parseCheckpoint(env.fs.readFile(join(env.root, 'data', RECOVERY_POINT_CHECKPOINT)).toString());
  assert.ok(Array.isArray(parsed), 'the checkpoint parses');
  return new Map(parsed.map((e) => [e.partition, e.offset]));
}

/** Cuts `bytes` off the end of a file (a write torn by the crash). */
function tearTail(env: FsEnv, path: string, bytes: number): void {
  const f = env.fs.open(path);
  f.truncate(f.size() - bytes);
  f.sync();
  f.close();
}

const PID = 7n;
const seqBatch = (baseSequence: number): Buffer => idempotentBatch({ producerId: PID, epoch: 0, baseSequence, count: 2 });

for (const kind of FS_KINDS) {
  describe(`crash recovery on first use (${kind} fs)`, () => {
    it('recovers a log with a torn tail on first use: tail cut, end offset and producer state right, checkpoint untouched until then', withEnv(kind, (env) => {
      const first = open(env);
      const log = first.manager.getOrCreateLog('t', 0);
      for (let s = 0; s < 4; s++) log.append(seqBatch(s * 2));
      log.flush();
      first.manager.checkpoint();
      // Acknowledged but not fsynced (a kill -9 keeps them in the page cache), the last one torn.
      for (let s = 4; s < 7; s++) log.append(seqBatch(s * 2));
      first.manager.getOrCreateLog('t', 1).append(simpleBatch(3));
      first.manager.checkpoint();
      tearTail(env, log.segmentPath(0n, '.log'), 7);

      const reports: RecoveryReport[] = [];
      const after = open(env, reports);
      assert.equal(after.hadCleanShutdown, false);
      assert.equal(after.awaitingRecovery, 2);
      assert.deepEqual(after.reports, [], 'nothing is read before serving');
      const log0 = logOf(after.manager, 0);
      assert.equal(log0.awaitingRecovery, true);
      assert.equal(log0.recoveryPoint, 8n, 'the checkpointed recovery point, known without recovering');
      assert.equal(checkpointedRecoveryPoints(env).get(0), 8n, 'the checkpoint written at start-up keeps it');

      // First use: recovered now, as an eager recovery would have.
      assert.equal(log0.logEndOffset, 12n, 'six whole batches of 2; the torn seventh is gone');
      assert.equal(log0.awaitingRecovery, false);
      assert.equal(reports.length, 1);
      assert.equal(reports[0]?.truncations.length, 1);
      assert.match(reports[0]?.truncations[0]?.reason ?? '', /torn/);
      assert.deepEqual(batchOffsets(readAll(log0, 0n)), [0n, 2n, 4n, 6n, 8n, 10n]);
      // The producer state saw every kept batch: sequence 10 is a duplicate, 12 (lost with the tail) comes next.
      const dup = log0.producerState.check({ producerId: PID, epoch: 0, baseSequence: 10, lastOffsetDelta: 1 });
      assert.equal(dup.kind, 'duplicate');
      assert.equal(dup.kind === 'duplicate' ? dup.batch.firstOffset : -1n, 10n);
      assert.equal(log0.producerState.check({ producerId: PID, epoch: 0, baseSequence: 12, lastOffsetDelta: 1 }).kind, 'append');
      assert.equal(log0.append(seqBatch(12)).baseOffset, 12n);

      // The rest in background slices; the checkpoint is rewritten once all are done.
      assert.equal(logOf(after.manager, 1).awaitingRecovery, true);
      assert.equal(after.manager.recoverSome(16), 0);
      assert.equal(after.manager.awaitingRecovery, 0);
      assert.equal(reports.length, 2);
      assert.equal(logOf(after.manager, 1).logEndOffset, 3n);
      after.manager.close();
      assert.ok(env.fs.exists(join(env.root, 'data', CLEAN_SHUTDOWN_MARKER)));

      const clean = open(env);
      assert.equal(clean.hadCleanShutdown, true);
      assert.equal(logOf(clean.manager, 0).logEndOffset, 14n);
      assert.deepEqual(batchOffsets(readAll(logOf(clean.manager, 0), 0n)), [0n, 2n, 4n, 6n, 8n, 10n, 12n]);
      clean.manager.close();
    }));

    it('a stop before every log was recovered writes no clean-shutdown marker, so the next start recovers them', withEnv(kind, (env) => {
      const first = open(env);
      const log = first.manager.getOrCreateLog('t', 0);
      for (let i = 0; i < 3; i++) log.append(simpleBatch(2, 40));
      log.flush();
      first.manager.checkpoint();
      for (let i = 0; i < 3; i++) log.append(simpleBatch(2, 40));
      tearTail(env, log.segmentPath(0n, '.log'), 5);
      first.manager.getOrCreateLog('t', 1).append(simpleBatch(1));
      first.manager.checkpoint();

      const second = open(env);
      assert.equal(second.awaitingRecovery, 2);
      assert.equal(logOf(second.manager, 1).append(simpleBatch(1)).baseOffset, 1n, 'used, so recovered');
      second.manager.close();
      assert.equal(env.fs.exists(join(env.root, 'data', CLEAN_SHUTDOWN_MARKER)), false, 't-0 was never checked');

      const reports: RecoveryReport[] = [];
      const third = open(env, reports);
      assert.equal(third.hadCleanShutdown, false);
      assert.equal(third.awaitingRecovery, 2);
      assert.equal(third.manager.recoverSome(1), 1, 'a slice of one log');
      assert.equal(third.manager.recoverSome(1), 0);
      assert.equal(logOf(third.manager, 0).logEndOffset, 10n, 'the torn last batch is cut');
      assert.equal(logOf(third.manager, 1).logEndOffset, 2n);
      assert.equal(reports.filter((r) => r.truncations.length > 0).length, 1);
      third.manager.close();
    }));

    it('a tail cut below the checkpointed recovery point rewrites the checkpoint at once', withEnv(kind, (env) => {
      const first = open(env);
      const log = first.manager.getOrCreateLog('t', 0);
      for (let i = 0; i < 6; i++) log.append(simpleBatch(2, 40));
      log.flush();
      first.manager.checkpoint();
      assert.equal(checkpointedRecoveryPoints(env).get(0), 12n);
      // Damage inside what was fsynced (a bad disk): the third batch's last byte.
      const f = env.fs.open(log.segmentPath(0n, '.log'));
      const batchBytes = simpleBatch(2, 40).length;
      f.write(Buffer.from([0xa5]), 3 * batchBytes - 1);
      f.sync();
      f.close();

      const after = open(env);
      const log0 = logOf(after.manager, 0);
      assert.equal(log0.logEndOffset, 4n, 'cut at the corrupt batch');
      assert.ok((checkpointedRecoveryPoints(env).get(0) ?? 99n) <= 4n, 'the file no longer claims offsets recovery removed');
      assert.equal(log0.append(simpleBatch(1)).baseOffset, 4n);
      after.manager.close();
    }));

    it('recoverSome skips logs a request recovered and logs deleted meanwhile', withEnv(kind, (env) => {
      const first = open(env);
      for (let p = 0; p < 5; p++) first.manager.getOrCreateLog('t', p).append(simpleBatch(p + 1));
      first.manager.checkpoint();

      const reports: RecoveryReport[] = [];
      const after = open(env, reports);
      assert.equal(after.awaitingRecovery, 5);
      assert.equal(logOf(after.manager, 3).logEndOffset, 4n, 'a request recovers it first');
      assert.equal(after.manager.deleteLog('t', 4), true);
      assert.equal(after.manager.awaitingRecovery, 3);
      let slices = 0;
      while (after.manager.recoverSome(2) > 0) slices++;
      assert.ok(slices <= 2, `${slices} slices of 2 for 3 logs`);
      assert.equal(after.manager.awaitingRecovery, 0);
      assert.equal(reports.length, 4, 'each remaining log recovered once, the deleted one never');
      for (let p = 0; p < 4; p++) assert.equal(logOf(after.manager, p).logEndOffset, BigInt(p + 1));
      assert.deepEqual([...checkpointedRecoveryPoints(env).keys()].sort(), [0, 1, 2, 3]);
      after.manager.close();
    }));
  });
}
