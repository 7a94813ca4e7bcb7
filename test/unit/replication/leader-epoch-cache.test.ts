/**
 * The leader epoch cache (src/replication/leader-epoch-cache.ts), its
 * checkpoint file (src/storage/leader-epoch-checkpoint.ts), and Partition's
 * use of them: entries from the batch headers on append, persisted on
 * change, rebuilt by a header scan when the file is missing or damaged,
 * trimmed to the recovered log, and DeleteRecords / retention moving the
 * first entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LeaderEpochCache } from '../../../src/replication/leader-epoch-cache.js';
import { Partition } from '../../../src/replication/partition.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { PartitionLog } from '../../../src/storage/partition-log.js';
import { LEADER_EPOCH_CHECKPOINT, formatLeaderEpochCheckpoint, parseLeaderEpochCheckpoint, type EpochEntry } from '../../../src/storage/leader-epoch-checkpoint.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { setPartitionLeaderEpoch } from '../../../src/protocol/record-batch/header.js';
import { ManualClock } from '../../../src/util/clock.js';

const e = (epoch: number, startOffset: number): EpochEntry => ({ epoch, startOffset: BigInt(startOffset) });

test('checkpoint format: Kafka text, round trip, malformed files are reported', () => {
  const text = formatLeaderEpochCheckpoint([e(0, 0), e(3, 120)]);
  assert.equal(text, '0\n2\n0 0\n3 120\n');
  assert.deepEqual(parseLeaderEpochCheckpoint(text), [e(0, 0), e(3, 120)]);
  assert.deepEqual(parseLeaderEpochCheckpoint('0\n0\n'), []);
  for (const bad of ['1\n0\n', '0\n2\n0 0\n', '0\n1\nx 1\n', '0\n2\n3 10\n2 20\n', '0\n2\n1 10\n2 10\n', '0\n1\n-1 0\n', '']) {
    assert.equal(typeof parseLeaderEpochCheckpoint(bad), 'string', JSON.stringify(bad));
  }
});

test('assign keeps entries monotonic and persists only changes', () => {
  const writes: EpochEntry[][] = [];
  const cache = new LeaderEpochCache([], { write: (entries) => writes.push([...entries]) });
  assert.equal(cache.latestEpoch, -1);
  assert.equal(cache.assign(0, 0n), true);
  assert.equal(cache.assign(0, 5n), false, 'same epoch, later offset: nothing to record');
  assert.equal(cache.assign(2, 10n), true);
  assert.equal(cache.assign(5, 10n), true, 'an epoch that wrote nothing is replaced by the next at the same offset');
  assert.deepEqual(cache.list(), [e(0, 0), e(5, 10)]);
  assert.equal(cache.assign(3, 8n), true, 'a lower epoch removes what it contradicts (Kafka)');
  assert.deepEqual(cache.list(), [e(0, 0), e(3, 8)]);
  assert.equal(writes.length, 4);
  assert.deepEqual(writes[writes.length - 1], [e(0, 0), e(3, 8)]);
});

test('endOffsetFor answers as Kafka: latest -> LEO, between -> next start, older -> first start, unknown -> -1/-1', () => {
  const cache = new LeaderEpochCache([e(1, 10), e(3, 50), e(4, 70)], null);
  const leo = 90n;
  assert.deepEqual(cache.endOffsetFor(4, leo), { epoch: 4, endOffset: 90n });
  assert.deepEqual(cache.endOffsetFor(3, leo), { epoch: 3, endOffset: 70n });
  assert.deepEqual(cache.endOffsetFor(2, leo), { epoch: 1, endOffset: 50n }, 'an epoch that never wrote: the largest one below it');
  assert.deepEqual(cache.endOffsetFor(1, leo), { epoch: 1, endOffset: 50n });
  assert.deepEqual(cache.endOffsetFor(0, leo), { epoch: 0, endOffset: 10n }, 'older than the first entry: the first start offset');
  assert.deepEqual(cache.endOffsetFor(7, leo), { epoch: -1, endOffset: -1n });
  assert.deepEqual(cache.endOffsetFor(-1, leo), { epoch: -1, endOffset: -1n });
  assert.deepEqual(new LeaderEpochCache([], null).endOffsetFor(0, 5n), { epoch: -1, endOffset: -1n });
});

test('truncateFromStart keeps the epoch holding the new start; truncateFromEnd drops entries past the end', () => {
  const cache = new LeaderEpochCache([e(1, 10), e(3, 50), e(4, 70)], null);
  assert.equal(cache.truncateFromStart(5n), false);
  assert.equal(cache.truncateFromStart(60n), true);
  assert.deepEqual(cache.list(), [e(3, 60), e(4, 70)]);
  assert.equal(cache.truncateFromStart(60n), false);
  assert.equal(cache.truncateFromStart(70n), true);
  assert.deepEqual(cache.list(), [e(4, 70)]);
  const tail = new LeaderEpochCache([e(1, 10), e(3, 50), e(4, 70)], null);
  assert.equal(tail.truncateFromEnd(70n), false, 'an epoch starting exactly at the end stays');
  assert.equal(tail.truncateFromEnd(55n), true);
  assert.deepEqual(tail.list(), [e(1, 10), e(3, 50)]);
});

// ------------------------------------------------------------ Partition

const DIR = '/data/t-0';

function env() {
  const fs = new MemoryFileSystem();
  const clock = new ManualClock();
  fs.mkdirp('/data');
  const open = (leaderEpoch: number): Partition => {
    const { log } = PartitionLog.open({ fs, clock, dir: DIR, topic: 't', partition: 0, config: { ...DEFAULT_LOG_CONFIG, segmentBytes: 1024 } });
    return new Partition('t', 0, 'tid', log, 1, { leader: 1, leaderEpoch: leaderEpoch, partitionEpoch: 0, replicas: [1], isr: [1] });
  };
  return { fs, open };
}

/** Appends `count` single-record batches stamped with the partition's current epoch (as Produce does). */
function produce(p: Partition, count: number): void {
  for (let i = 0; i < count; i++) {
    const batch = buildRecordBatchSync({ records: [{ key: null, value: `v${i}`.repeat(20) }] });
    setPartitionLeaderEpoch(batch, p.leaderEpoch);
    p.appendAsLeader(batch);
  }
}

function checkpointOf(fs: MemoryFileSystem): unknown {
  return parseLeaderEpochCheckpoint(fs.readFile(join(DIR, LEADER_EPOCH_CHECKPOINT)).toString('utf8'));
}

test('a leader records its epoch before appending, and the file follows every new epoch', async () => {
  const { fs, open } = env();
  const p = open(0);
  // Opened on first use (issue 17: no file read or written per partition at start-up) ...
  assert.equal(fs.exists(join(DIR, LEADER_EPOCH_CHECKPOINT)), false);
  // ... which an append is, before its batch reaches the log. A new partition's
  // first file is written in the background (storage README: a lost one leaves
  // no file, rebuilt from the batch headers); later ones at once.
  produce(p, 1);
  assert.deepEqual(p.leaderEpochs.list(), [e(0, 0)]);
  await fs.settled();
  assert.deepEqual(checkpointOf(fs), [e(0, 0)]);
  produce(p, 4);
  p.makeLeader({ leader: 1, leaderEpoch: 2, partitionEpoch: 0, replicas: [1], isr: [1] });
  produce(p, 3);
  assert.deepEqual(checkpointOf(fs), [e(0, 0), e(2, 5)]);
  assert.deepEqual(p.endOffsetForEpoch(0), { epoch: 0, endOffset: 5n });
  assert.deepEqual(p.endOffsetForEpoch(1), { epoch: 0, endOffset: 5n });
  assert.deepEqual(p.endOffsetForEpoch(2), { epoch: 2, endOffset: 8n });
  // A batch stamped with a newer epoch than the partition knows still lands in the cache.
  const batch = buildRecordBatchSync({ records: [{ key: null, value: 'x' }] });
  setPartitionLeaderEpoch(batch, 4);
  p.appendAsLeader(batch);
  assert.deepEqual(p.leaderEpochs.list(), [e(0, 0), e(2, 5), e(4, 8)]);
});

test('reopening loads the checkpoint; a missing or damaged one is rebuilt from the batch headers', () => {
  const { fs, open } = env();
  let p = open(0);
  produce(p, 4);
  p.makeLeader({ leader: 1, leaderEpoch: 1, partitionEpoch: 0, replicas: [1], isr: [1] });
  produce(p, 4);
  p.makeLeader({ leader: 1, leaderEpoch: 3, partitionEpoch: 0, replicas: [1], isr: [1] });
  produce(p, 2);
  const want = [e(0, 0), e(1, 4), e(3, 8)];
  p.log.close();
  p = open(3);
  assert.deepEqual(p.leaderEpochs.list(), want);

  for (const damage of ['remove', 'garbage', 'non-monotonic']) {
    p.log.close();
    const path = join(DIR, LEADER_EPOCH_CHECKPOINT);
    if (damage === 'remove') fs.unlink(path);
    else fs.writeFileAtomic(path, Buffer.from(damage === 'garbage' ? 'not a checkpoint' : '0\n2\n5 0\n1 4\n'));
    p = open(3);
    assert.deepEqual(p.leaderEpochs.list(), want, damage);
    assert.deepEqual(checkpointOf(fs), want, `${damage}: rewritten`);
  }
});

test('entries past the recovered log end go; DeleteRecords and retention move the first entry', () => {
  const { fs, open } = env();
  let p = open(0);
  produce(p, 6);
  p.makeLeader({ leader: 1, leaderEpoch: 1, partitionEpoch: 0, replicas: [1], isr: [1] });
  produce(p, 6);
  p.log.close();
  // As if a crash lost the tail written in epoch 1 after the checkpoint recorded it.
  fs.writeFileAtomic(join(DIR, LEADER_EPOCH_CHECKPOINT), Buffer.from(formatLeaderEpochCheckpoint([e(0, 0), e(1, 6), e(2, 40)])));
  p = open(1);
  assert.deepEqual(p.leaderEpochs.list(), [e(0, 0), e(1, 6)]);

  assert.deepEqual(p.deleteRecordsBefore(8n), { kind: 'ok', lowWatermark: 8n });
  assert.deepEqual(p.leaderEpochs.list(), [e(1, 8)]);
  assert.deepEqual(p.endOffsetForEpoch(0), { epoch: 0, endOffset: 8n }, 'an epoch wholly deleted ends at the log start');
  assert.equal(p.logStartOffset, 8n);
  assert.deepEqual(p.deleteRecordsBefore(13n), { kind: 'offset_out_of_range' }, 'above the high watermark');
  assert.deepEqual(p.deleteRecordsBefore(-2n), { kind: 'offset_out_of_range' });
  assert.deepEqual(p.deleteRecordsBefore(3n), { kind: 'ok', lowWatermark: 8n }, 'below the start: nothing changes');
  assert.deepEqual(p.deleteRecordsBefore(-1n), { kind: 'ok', lowWatermark: 12n }, '-1 = the high watermark');
  assert.equal(p.highWatermark, 12n);
  p.log.close();
  p = open(1);
  assert.equal(p.logStartOffset, 12n, 'segments below the start are gone, so the reopened log starts there');
});
