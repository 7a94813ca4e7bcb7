/**
 * The partition log's side of transactions (KIP-98): open transactions in
 * the producer state, the first unstable offset, the per-segment aborted
 * transaction index (`.txnindex`) and its collection for read_committed
 * fetches, and what survives a restart: clean close, a corrupt `.txnindex`
 * and an unclean shutdown rebuild the same index from the log.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FS_KINDS, config, makeEnv, openLog, type FsEnv } from './fs-env.js';
import { marker, txnBatch } from './txn-fixture.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { TXN_INDEX_ENTRY_BYTES, decodeTxnIndex } from '../../../src/storage/txn-index.js';

const A = 100n;
const B = 200n;

/**
 * A log with: A's txn at 0-1 aborted at 4, B's txn at 2-3 committed at 5,
 * an idempotent batch at 6, A's second txn at 7 still open.
 */
function writeMixed(log: PartitionLog): void {
  log.append(txnBatch(A, 0, 2)); // 0-1
  log.append(txnBatch(B, 0, 2)); // 2-3
  log.append(marker(A, false)); // 4: abort A
  log.append(marker(B, true)); // 5: commit B
  log.append(txnBatch(300n, 0, 1, { transactional: false })); // 6
  log.append(txnBatch(A, 2, 1)); // 7: A's next transaction, open
}

const abortedOfA = { producerId: A, firstOffset: 0n, lastOffset: 4n, lastStableOffset: 2n };

for (const kind of FS_KINDS) {
  describe(`transactions in the partition log (${kind})`, () => {
    const withEnv = (fn: (env: FsEnv) => void) => () => {
      const env = makeEnv(kind);
      try {
        fn(env);
      } finally {
        env.cleanup();
      }
    };

    it('tracks open transactions, the first unstable offset and aborted ranges', withEnv((env) => {
      const { log } = openLog(env, config());
      assert.equal(log.producerState.firstUnstableOffset(), null);
      log.append(txnBatch(A, 0, 2));
      log.append(txnBatch(B, 0, 2));
      assert.equal(log.producerState.firstUnstableOffset(), 0n);
      log.append(marker(A, false));
      // A closed, but its marker is not below the high watermark yet: still unstable.
      assert.equal(log.producerState.firstUnstableOffset(), 0n);
      log.producerState.onHighWatermarkUpdated(5n);
      assert.equal(log.producerState.firstUnstableOffset(), 2n);
      log.append(marker(B, true));
      log.producerState.onHighWatermarkUpdated(6n);
      assert.equal(log.producerState.firstUnstableOffset(), null);
      // The abort's LSO was B's first offset: B was still open.
      assert.deepEqual(log.collectAbortedTransactions(0n, 6n), [abortedOfA]);
      assert.deepEqual(log.collectAbortedTransactions(5n, 6n), [], 'ranges after the marker see no abort');
      assert.deepEqual(log.collectAbortedTransactions(1n, 2n), [abortedOfA]);
      log.close();
    }));

    it('indexes each abort in the segment holding its marker and finds it from earlier segments', withEnv((env) => {
      const { log } = openLog(env, config());
      log.append(txnBatch(A, 0, 2)); // 0-1
      log.roll();
      log.append(txnBatch(300n, 0, 1, { transactional: false })); // 2
      log.roll();
      log.append(marker(A, false)); // 3
      const segs = log.segmentList();
      assert.deepEqual(segs.map((s) => s.txnIndex.count), [0, 0, 1]);
      assert.deepEqual(log.collectAbortedTransactions(0n, 4n), [{ producerId: A, firstOffset: 0n, lastOffset: 3n, lastStableOffset: 4n }]);
      log.close();
      const file = env.fs.readFile(segs[2]?.txnIndex.path as string);
      assert.equal(file.length, TXN_INDEX_ENTRY_BYTES, 'Kafka\'s 34-byte entry');
      assert.equal(file.readInt16BE(0), 0, 'entry version 0');
      assert.equal(env.fs.exists(segs[0]?.txnIndex.path as string), false, 'no file for segments without aborts');
    }));

    it('keeps open transactions, unreplicated closed ones and the index across a clean restart (snapshot v3)', withEnv((env) => {
      const first = openLog(env, config()).log;
      writeMixed(first);
      first.onHighWatermarkUpdated(5n); // A's marker (4) is replicated, B's (5) not yet
      first.close();
      const { log, report } = openLog(env, config(), { hadCleanShutdown: true, recoveryPoint: 8n });
      assert.equal(log.producerState.firstUnstableOffset(), 2n, 'B\'s transaction stays unstable until its marker is below the high watermark');
      log.onHighWatermarkUpdated(6n);
      assert.equal(log.producerState.firstUnstableOffset(), 7n, 'A\'s open transaction survives');
      assert.equal(log.producerState.get(A)?.coordinatorEpoch, 0);
      assert.deepEqual(log.collectAbortedTransactions(0n, 7n), [abortedOfA]);
      // After a clean shutdown nothing is scanned (as Kafka): the index written at close is trusted, not rebuilt.
      assert.deepEqual(report.txnIndexes?.rebuilt ?? [], []);
      log.close();
    }));

    it('rebuilds a corrupt .txnindex from the log at open', withEnv((env) => {
      const first = openLog(env, config()).log;
      writeMixed(first);
      first.roll();
      first.append(txnBatch(300n, 1, 1, { transactional: false }));
      const path = first.segmentList()[0]?.txnIndex.path as string;
      first.close();
      for (const garbage of [Buffer.from('not an index'), Buffer.alloc(TXN_INDEX_ENTRY_BYTES, 0xff)]) {
        env.fs.writeFileAtomic(path, garbage);
        const { log, report } = openLog(env, config(), { hadCleanShutdown: true, recoveryPoint: 9n });
        assert.deepEqual(report.txnIndexes?.rebuilt, [0n]);
        assert.match(report.txnIndexes?.reasons[0] ?? '', /^0: /);
        assert.deepEqual(log.collectAbortedTransactions(0n, 7n), [abortedOfA]);
        log.close();
        assert.deepEqual(decodeTxnIndex(env.fs.readFile(path), 0n, 8n), [abortedOfA], 'rewritten on disk');
      }
    }));

    it('rebuilds the index of recovered segments after an unclean shutdown', withEnv((env) => {
      const first = openLog(env, config()).log;
      writeMixed(first);
      first.flush();
      // No clean close: no snapshot at the end, no recovery point; the index file goes missing too.
      env.fs.rmrf(first.segmentList()[0]?.txnIndex.path as string);
      const { log, report } = openLog(env, config());
      assert.deepEqual(report.txnIndexes?.rebuilt, [0n]);
      assert.deepEqual(log.collectAbortedTransactions(0n, 8n), [abortedOfA]);
      // Replayed markers count as unreplicated until the partition reports its high watermark.
      log.producerState.onHighWatermarkUpdated(8n);
      assert.equal(log.producerState.firstUnstableOffset(), 7n);
      log.close();
    }));

    it('a log without markers never replays at open, even after an unclean shutdown', withEnv((env) => {
      const first = openLog(env, config()).log;
      first.append(txnBatch(300n, 0, 1, { transactional: false }));
      first.roll();
      first.append(txnBatch(300n, 1, 1, { transactional: false }));
      first.flush();
      const { log, report } = openLog(env, config());
      assert.ok((report.segmentsScanned?.length ?? 0) > 0, 'segments were recovered');
      assert.deepEqual(report.txnIndexes, { rebuilt: [], reasons: [], replayedFrom: null });
      log.close();
    }));

    it('the LSO is the high watermark, or the first unstable offset when lower, never below the log start', withEnv((env) => {
      const { log } = openLog(env, config());
      log.append(txnBatch(300n, 0, 2, { transactional: false })); // 0-1
      log.append(txnBatch(A, 0, 1)); // 2: open
      const s = log.producerState;
      assert.equal(s.lastStableOffset(3n, 0n), 2n);
      assert.equal(s.lastStableOffset(1n, 0n), 1n, 'the high watermark when it is lower');
      assert.equal(s.lastStableOffset(3n, 3n), 3n, 'retention deleted the open transaction\'s start');
      log.close();
    }));

    it('truncation removes index entries past the new end and reopens transactions', withEnv((env) => {
      const { log } = openLog(env, config());
      writeMixed(log);
      log.truncateTo(4n);
      assert.deepEqual(log.collectAbortedTransactions(0n, 4n), []);
      assert.equal(log.producerState.get(A)?.currentTxnFirstOffset, 0n, 'A is open again');
      assert.equal(log.producerState.get(B)?.currentTxnFirstOffset, 2n);
      log.close();
    }));

    it('deletes the .txnindex with its segment', withEnv((env) => {
      const { log } = openLog(env, config({ retentionMs: 1 }));
      log.append(txnBatch(A, 0, 1));
      log.append(marker(A, false));
      log.roll();
      log.append(txnBatch(300n, 0, 1, { transactional: false }));
      const path = log.segmentList()[0]?.txnIndex.path as string;
      assert.equal(env.fs.exists(path), true);
      env.clock.advance(60_000);
      assert.equal(log.applyRetention(env.clock.nowMs()).segmentsDeleted, 1);
      assert.equal(env.fs.exists(path), false);
      log.close();
    }));
  });
}
