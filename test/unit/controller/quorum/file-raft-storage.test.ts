/**
 * FileRaftStorage on the MemoryFileSystem: the RaftStorage durability contract
 * (append durable only after flush; truncate, quorum state and snapshots
 * durable on return), recovery of torn tails after crash(), the record-offset
 * mapping, snapshots with prefix deletion and installs cut short, and
 * data dirs written by the former one-voter LocalMetadataLog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { SeededRandom } from '../../../../src/util/random.js';
import { readBatchHeader } from '../../../../src/protocol/record-batch/index.js';
import { METADATA_DIR_NAME, MetadataLogError } from '../../../../src/controller/metadata-log.js';
import { writeLegacyMetadataLog } from '../../../helpers/legacy-metadata-log.js';
import { decodeMetadataBatch, encodeMetadataBatch } from '../../../../src/controller/metadata/batch.js';
import type { MetadataRecord } from '../../../../src/controller/metadata/records.js';
import { FileRaftStorage, QUORUM_STATE_FILE } from '../../../../src/controller/quorum/file-raft-storage.js';
import { encodeSnapshotPayload } from '../../../../src/controller/quorum/snapshot-format.js';
import type { RaftEntry } from '../../../../src/controller/raft/types.js';

const DATA = '/data';
const clock = new ManualClock();

function fresh(): MemoryFileSystem {
  const fs = new MemoryFileSystem();
  fs.mkdirp(DATA);
  return fs;
}

function open(fs: MemoryFileSystem): FileRaftStorage {
  return new FileRaftStorage({ fs, clock, dataDir: DATA, nodeId: 1, voters: [1, 2, 3] });
}

function config(i: number, count = 1): MetadataRecord[] {
  return Array.from({ length: count }, (_, j) => ({ type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `k${i}.${j}`, value: `v${i}` } }));
}

function dataEntry(epoch: number, i: number, count = 1): RaftEntry {
  return { epoch, kind: 'data', data: encodeMetadataBatch(config(i, count), { timestampMs: 1 }) };
}

const leaderChange = (epoch: number): RaftEntry => ({ epoch, kind: 'leader_change', data: new Uint8Array(0) });

function summary(s: FileRaftStorage): string[] {
  const out: string[] = [];
  for (let o = s.logStartOffset; o < s.endOffset; o++) {
    const e = s.entryAt(o);
    const r = s.recordRange(o);
    out.push(`${o}:${e?.kind}@${e?.epoch}[${r?.baseOffset}-${r?.lastOffset}]`);
  }
  return out;
}

test('entries map to record batches: epochs, kinds and record offsets survive a reopen', () => {
  const fs = fresh();
  const s = open(fs);
  assert.equal(s.endOffset, 0);
  assert.deepEqual(s.readQuorumState(), { epoch: 0, votedFor: null });
  s.append([leaderChange(1), dataEntry(1, 0, 3), dataEntry(1, 1, 2)]);
  s.append([leaderChange(2), dataEntry(2, 2)]);
  s.flush();
  const before = summary(s);
  assert.deepEqual(before, ['0:leader_change@1[0-0]', '1:data@1[1-3]', '2:data@1[4-5]', '3:leader_change@2[6-6]', '4:data@2[7-7]']);
  // The stored bytes carry the epoch as partitionLeaderEpoch and the assigned base offset.
  const header = readBatchHeader(Buffer.from(s.entryAt(2)?.data ?? new Uint8Array(0)));
  assert.equal(header.partitionLeaderEpoch, 1);
  assert.equal(header.baseOffset, 4n);
  assert.deepEqual(decodeMetadataBatch(Buffer.from(s.entryAt(1)?.data ?? new Uint8Array(0))).records, config(0, 3));
  s.close();
  const again = open(fs);
  assert.deepEqual(summary(again), before);
  assert.equal(again.flushedEndOffset, 5);
  assert.equal(again.nextRecordOffset, 8n);
  assert.deepEqual(again.read(3, 10).map((e) => e.kind), ['leader_change', 'data']);
});

test('append is durable only after flush; a crash keeps the flushed prefix', () => {
  const fs = fresh();
  const s = open(fs);
  s.append([leaderChange(1), dataEntry(1, 0)]);
  s.flush();
  s.append([dataEntry(1, 1), dataEntry(1, 2)]);
  assert.equal(s.flushedEndOffset, 2);
  assert.equal(s.endOffset, 4);
  fs.crash();
  const after = open(fs);
  assert.equal(after.endOffset, 2);
  assert.deepEqual(summary(after), ['0:leader_change@1[0-0]', '1:data@1[1-1]']);
});

test('torn tails: whatever prefix of the unflushed bytes survives, reopening yields whole entries above the flushed ones', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const fs = fresh();
    const s = open(fs);
    s.append([leaderChange(1), dataEntry(1, 0, 2)]);
    s.flush();
    s.append([dataEntry(1, 1, 5), dataEntry(1, 2, 1), leaderChange(2), dataEntry(2, 3, 4)]);
    const full = summary(s);
    fs.crash(new SeededRandom(seed));
    const after = open(fs);
    assert.ok(after.endOffset >= 2 && after.endOffset <= 6, `seed ${seed}: end ${after.endOffset}`);
    assert.deepEqual(summary(after), full.slice(0, after.endOffset), `seed ${seed}: a prefix of what was written`);
    // The recovered log takes new entries at the right record offset.
    after.append([dataEntry(3, 9)]);
    after.flush();
    const last = after.recordRange(after.endOffset - 1);
    const prev = after.recordRange(after.endOffset - 2);
    assert.equal(last?.baseOffset, (prev?.lastOffset ?? -1n) + 1n);
  }
});

test('truncateTo is durable at once and cuts whole batches', () => {
  const fs = fresh();
  const s = open(fs);
  s.append([leaderChange(1), dataEntry(1, 0, 2), dataEntry(1, 1, 2), dataEntry(1, 2)]);
  s.flush();
  s.truncateTo(2);
  assert.equal(s.endOffset, 2);
  assert.equal(s.nextRecordOffset, 3n);
  fs.crash();
  const after = open(fs);
  assert.deepEqual(summary(after), ['0:leader_change@1[0-0]', '1:data@1[1-2]']);
  after.append([leaderChange(2)]);
  assert.deepEqual(after.recordRange(2), { baseOffset: 3n, lastOffset: 3n });
});

test('quorum state: durable on write, in KRaft JSON; a damaged file stops the open', () => {
  const fs = fresh();
  const s = open(fs);
  s.writeQuorumState({ epoch: 3, votedFor: 2 });
  fs.crash();
  assert.deepEqual(open(fs).readQuorumState(), { epoch: 3, votedFor: 2 });
  const path = join(DATA, METADATA_DIR_NAME, QUORUM_STATE_FILE);
  assert.deepEqual(JSON.parse(fs.readFile(path).toString()), { leaderId: -1, leaderEpoch: 3, votedId: 2, data_version: 0 });
  open(fs).writeQuorumState({ epoch: 4, votedFor: null });
  assert.deepEqual(open(fs).readQuorumState(), { epoch: 4, votedFor: null });
  fs.writeFileAtomic(path, Buffer.from('{"leaderEpoch": "x"'));
  assert.throws(() => open(fs), (err: unknown) => err instanceof MetadataLogError && err.code === 'ERR_TRIB_METADATA_CORRUPT');
});

function snapshotData(nextRecordOffset: bigint, records: MetadataRecord[]): Uint8Array {
  return encodeSnapshotPayload({ nextRecordOffset, lastRecordOffset: nextRecordOffset - 1n, records }, 1);
}

test('snapshot + deleteBefore: the log restarts after the snapshot, also when a crash interrupted the deletion', () => {
  const fs = fresh();
  const s = open(fs);
  s.append([leaderChange(1), dataEntry(1, 0, 2), dataEntry(1, 1, 2), dataEntry(1, 2)]);
  s.flush();
  const snap = { endOffset: 3, epoch: 1, data: snapshotData(5n, config(0, 2).concat(config(1, 2))) };
  s.writeSnapshot(snap);
  assert.ok(fs.readdir(join(DATA, METADATA_DIR_NAME)).includes('00000000000000000005-0000000001.checkpoint'));
  // Reopen before deleteBefore (a crash between the two): open finishes the deletion.
  const interrupted = open(fs);
  assert.equal(interrupted.logStartOffset, 3);
  assert.deepEqual(summary(interrupted), ['3:data@1[5-5]']);
  assert.deepEqual(interrupted.latestSnapshot(), { endOffset: 3, epoch: 1, data: Buffer.from(snap.data) });
  s.deleteBefore(3);
  assert.equal(s.logStartOffset, 3);
  assert.equal(s.entryAt(2), undefined);
  fs.crash();
  const after = open(fs);
  assert.deepEqual(summary(after), ['3:data@1[5-5]']);
  after.append([leaderChange(2)]);
  assert.deepEqual(after.recordRange(4), { baseOffset: 6n, lastOffset: 6n });
});

test('installSnapshot replaces the log; an install cut short by a crash is finished at open', () => {
  const fs = fresh();
  const s = open(fs);
  s.append([leaderChange(1), dataEntry(1, 0)]);
  s.flush();
  const snap = { endOffset: 10, epoch: 3, data: snapshotData(42n, config(7, 3)) };
  s.installSnapshot(snap);
  assert.equal(s.logStartOffset, 10);
  assert.equal(s.endOffset, 10);
  assert.equal(s.nextRecordOffset, 42n);
  s.append([dataEntry(3, 8)]);
  s.flush();
  assert.deepEqual(summary(open(fs)), ['10:data@3[42-42]']);

  // Crash after the snapshot file is written, before the log is replaced.
  const fs2 = fresh();
  const t = open(fs2);
  t.append([leaderChange(1), dataEntry(1, 0), dataEntry(1, 1)]);
  t.flush();
  t.writeSnapshot(snap);
  const reopened = open(fs2);
  assert.equal(reopened.logStartOffset, 10);
  assert.equal(reopened.endOffset, 10);
  assert.equal(reopened.nextRecordOffset, 42n);
});

test('a damaged snapshot file is ignored (and removed), the previous one is used', () => {
  const fs = fresh();
  const s = open(fs);
  s.append([leaderChange(1), dataEntry(1, 0), dataEntry(1, 1), dataEntry(1, 2)]);
  s.flush();
  s.writeSnapshot({ endOffset: 2, epoch: 1, data: snapshotData(2n, config(0)) });
  s.writeSnapshot({ endOffset: 3, epoch: 1, data: snapshotData(3n, config(0).concat(config(1))) });
  const dir = join(DATA, METADATA_DIR_NAME);
  const newest = join(dir, '00000000000000000003-0000000001.checkpoint');
  const bytes = fs.readFile(newest);
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
  fs.writeFileAtomic(newest, bytes);
  const after = open(fs);
  assert.equal(after.latestSnapshot()?.endOffset, 2);
  assert.equal(after.logStartOffset, 2);
  assert.match(after.warnings.join('\n'), /CRC/);
  assert.ok(!fs.exists(newest));
});

test('a data dir written by the former LocalMetadataLog opens as epoch-0 data entries', async () => {
  const fs = fresh();
  writeLegacyMetadataLog(fs, clock, DATA, [config(0, 2), config(1, 1)]);
  const s = open(fs);
  assert.deepEqual(summary(s), ['0:data@0[0-1]', '1:data@0[2-2]']);
  s.append([leaderChange(1)]);
  assert.deepEqual(s.recordRange(2), { baseOffset: 3n, lastOffset: 3n });
});
