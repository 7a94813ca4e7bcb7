/**
 * A Partition opened over a log that awaits recovery after a crash
 * (`PartitionLog.awaitingRecovery`): neither its constructor nor a leader or
 * follower transition reads the log; its high watermark and epoch start are
 * settled when the log is recovered (on first use, or by the log manager's
 * background slices), to what an eager recovery would have given. Each case
 * runs the same steps over an eagerly and a lazily recovered copy of the
 * same crashed directory and compares what replication sees.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Partition, type PartitionState } from '../../../src/replication/partition.js';
import { truncateFollowerTo } from '../../../src/replication/log-truncation.js';
import type { IsrChangeProposal, ReplicationPolicy } from '../../../src/replication/isr-change.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { ManualClock } from '../../../src/util/clock.js';

const NOW = 1_700_000_000_000;
const POLICY: ReplicationPolicy = { minInsyncReplicas: () => 1, replicaLagTimeMaxMs: () => 30_000, isReplicaEligible: () => true };

function batch(records: number): Buffer {
  return buildRecordBatchSync({ records: Array.from({ length: records }, (_, i) => ({ value: Buffer.from(`v${i}`) })) });
}

/** A data dir whose log t-0 has 6 records fsynced and checkpointed, then 4 more acknowledged but not (a kill -9 keeps them). */
function crashedDir(): { fs: MemoryFileSystem; clock: ManualClock } {
  const fs = new MemoryFileSystem();
  const clock = new ManualClock(NOW);
  const { manager } = LogManager.open({ fs, clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG } });
  const log = manager.getOrCreateLog('t', 0);
  log.append(batch(3));
  log.append(batch(3));
  log.flush();
  manager.checkpoint();
  log.append(batch(4));
  return { fs, clock };
}

function reopen(lazy: boolean): { manager: LogManager; fs: MemoryFileSystem } {
  const { fs, clock } = crashedDir();
  const { manager } = LogManager.open({ fs, clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG }, deferCrashRecovery: lazy });
  return { manager, fs };
}

function partitionOn(manager: LogManager, state: PartitionState, proposals: IsrChangeProposal[]): Partition {
  const log = manager.getLog('t', 0);
  assert.ok(log !== undefined);
  const p = new Partition('t', 0, 'id', log, 1, state, POLICY);
  p.onIsrChangeProposed = (_q, proposal) => proposals.push(proposal);
  return p;
}

describe('a Partition over a log awaiting recovery', () => {
  it('one replica: nothing is read until the log is recovered; the high watermark is then its end', () => {
    for (const trigger of ['background', 'read'] as const) {
      const { manager } = reopen(true);
      const state: PartitionState = { leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] };
      const p = partitionOn(manager, state, []);
      p.makeLeader(state, NOW);
      assert.equal(p.log.awaitingRecovery, true, `${trigger}: constructor and makeLeader left the log alone`);
      if (trigger === 'background') assert.equal(manager.recoverSome(8), 0);
      assert.equal(p.highWatermark, 10n, `${trigger}: every acknowledged record is visible`);
      assert.equal(p.log.awaitingRecovery, false);
      assert.equal(p.appendAsLeader(batch(1)).baseOffset, 10n);
      assert.equal(p.highWatermark, 11n);
    }
  });

  it('three replicas: the same high watermark, ISR decisions and epoch start as after an eager recovery', () => {
    const outcomes = [false, true].map((lazy) => {
      const { manager } = reopen(lazy);
      const proposals: IsrChangeProposal[] = [];
      const state: PartitionState = { leader: 1, leaderEpoch: 3, partitionEpoch: 5, replicas: [1, 2, 3], isr: [1, 2] };
      const p = partitionOn(manager, state, proposals);
      p.makeLeader(state, NOW);
      // A new epoch while the log still awaits recovery (lazy case): its start is the recovered end.
      const next: PartitionState = { ...state, leaderEpoch: 4, partitionEpoch: 6 };
      p.makeLeader(next, NOW);
      assert.equal(p.log.awaitingRecovery, lazy, 'transitions do not recover the log');
      assert.equal(p.maybeShrinkIsr(NOW + 1), false);
      const seen: unknown[] = [];
      if (lazy) manager.recoverSome(8);
      seen.push(p.highWatermark);
      // Follower 2 (in the ISR) catches up to 8: the high watermark follows.
      p.updateFollowerFetchState(2, 8n, p.logEndOffset, NOW + 10);
      seen.push(p.highWatermark);
      // Follower 3 reaches the high watermark but not the epoch start (10): not added.
      p.updateFollowerFetchState(3, 8n, p.logEndOffset, NOW + 20);
      seen.push(proposals.length);
      p.updateFollowerFetchState(2, 10n, p.logEndOffset, NOW + 30);
      p.updateFollowerFetchState(3, 10n, p.logEndOffset, NOW + 40);
      seen.push(p.highWatermark, proposals.map((x) => [x.kind, [...x.newIsr]]), p.endOffsetForEpoch(3));
      return seen;
    });
    assert.deepEqual(outcomes[1], outcomes[0]);
    assert.deepEqual(outcomes[0]?.slice(0, 3), [0n, 8n, 0]);
  });

  it('a follower: the log is recovered when the fetcher first asks for its end, and truncation works as after an eager recovery', () => {
    const ends = [false, true].map((lazy) => {
      const { manager } = reopen(lazy);
      const state: PartitionState = { leader: 2, leaderEpoch: 1, partitionEpoch: 1, replicas: [1, 2], isr: [1, 2] };
      const p = partitionOn(manager, state, []);
      p.makeFollower(state);
      assert.equal(p.log.awaitingRecovery, lazy);
      const end = p.logEndOffset;
      const cut = truncateFollowerTo(p, 7n);
      p.updateFollowerHighWatermark(9n);
      return [end, cut, p.logEndOffset, p.highWatermark];
    });
    assert.deepEqual(ends[1], ends[0]);
    assert.deepEqual(ends[0], [10n, 4n, 6n, 6n]);
  });
});
