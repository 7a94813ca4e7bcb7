/**
 * The single-node metadata log: the MetadataLog contract on the one-voter
 * Raft log that bootController opens when no log is given (the code path of
 * every lone broker), on the memory and the real file system: commits in
 * order, replays identically, fsyncs every append before it resolves, refuses
 * misuse, drops a damaged tail, refuses undecodable records, opens data dirs
 * of the former LocalMetadataLog, writes quorum-state and snapshots, and
 * keeps the node's own broker registered through controller ticks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOG_CONFIG, MemoryFileSystem, NodeFileSystem, PartitionLog, type FileSystem } from '../../../src/storage/index.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { MetadataLogError, METADATA_DIR_NAME, type MetadataLog } from '../../../src/controller/metadata-log.js';
import { oneVoterLog } from '../../../src/controller/boot.js';
import { ensureMetaProperties } from '../../../src/controller/meta-properties.js';
import { BROKER_SESSION_TIMEOUT_MS_DEFAULT } from '../../../src/controller/controller.js';
import { QUORUM_STATE_FILE } from '../../../src/controller/quorum/file-raft-storage.js';
import type { RaftMetadataLog } from '../../../src/controller/quorum/raft-metadata-log.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import type { MetadataBatch } from '../../../src/controller/metadata/batch.js';
import type { MetadataRecord } from '../../../src/controller/metadata/records.js';
import { writeLegacyMetadataLog } from '../../helpers/legacy-metadata-log.js';
import { boot, DATA_DIR, newTopic, registerBroker } from './fixtures.js';

const A = 'AAAAAAAAAAAAAAAAAAAAEA';
const NOOP: MetadataRecord = { type: 'NoOpRecord', data: {} };

function records(): MetadataRecord[][] {
  return [
    [registerBroker(1, 0n)],
    [
      { type: 'TopicRecord', data: { name: 't', topicId: A } },
      { type: 'PartitionRecord', data: { partitionId: 0, topicId: A, replicas: [1], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, eligibleLeaderReplicas: [], lastKnownElr: [] } },
      { type: 'ConfigRecord', data: { resourceType: 2, resourceName: 't', name: 'retention.ms', value: '7' } },
    ],
    [{ type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 1 } }],
  ];
}

/** The log bootController opens for a lone node (no timer: a lone voter commits inside append). */
function openLog(fs: FileSystem, dataDir: string, extra: { snapshotIntervalRecords?: number } = {}): RaftMetadataLog {
  return oneVoterLog({ fs, clock: new ManualClock(), dataDir, nodeId: 1, clusterId: 'c', random: new SeededRandom(7), numPartitionsDefault: 1, replicationFactorDefault: 1, ...extra });
}

async function openAndReplay(fs: FileSystem, dataDir: string, extra: { snapshotIntervalRecords?: number } = {}) {
  const log = openLog(fs, dataDir, extra);
  const image = new MetadataImage('c');
  const batches: MetadataBatch[] = [];
  await log.start((b) => {
    batches.push(b);
    image.apply(b);
  });
  return { log, image, batches };
}

/** Data batches as [base, last] (leader-change control batches carry no records). */
const dataRanges = (bs: readonly MetadataBatch[]): [bigint, bigint][] => bs.filter((b) => b.records.length > 0).map((b) => [b.baseOffset, b.lastOffset]);

async function appendAll(log: MetadataLog): Promise<[bigint, bigint][]> {
  const out: [bigint, bigint][] = [];
  for (const r of records()) {
    const range = await log.append(r);
    out.push([range.baseOffset, range.lastOffset]);
  }
  return out;
}

for (const kind of ['memory', 'node'] as const) {
  test(`${kind} fs: append commits in order, and a restart replays the identical image`, async () => {
    const tmp = kind === 'node' ? mkdtempSync(join(tmpdir(), 'trib-meta-')) : '/data';
    const fs: FileSystem = kind === 'node' ? new NodeFileSystem() : new MemoryFileSystem();
    try {
      fs.mkdirp(tmp);
      const first = await openAndReplay(fs, tmp);
      // A new voter elects itself at start: its epoch-1 leader-change batch is record 0.
      assert.equal(first.log.highWatermark, 1n);
      assert.equal(first.log.isLeader, true);
      assert.deepEqual(await appendAll(first.log), [[1n, 1n], [2n, 4n], [5n, 5n]]);
      assert.equal(first.log.highWatermark, 6n);
      assert.equal(first.image.lastAppliedOffset, 5n);
      assert.ok(fs.isDirectory(join(tmp, METADATA_DIR_NAME)));
      await first.log.close();

      const second = await openAndReplay(fs, tmp);
      assert.deepEqual(dataRanges(second.batches), [[1n, 1n], [2n, 4n], [5n, 5n]]);
      assert.deepEqual(second.batches.filter((b) => b.records.length > 0).map((b) => b.records), records());
      assert.deepEqual(second.image.toRecords(), first.image.toRecords());
      assert.equal(second.log.epoch, 2, 'each start is a new epoch');
      assert.equal(second.log.highWatermark, 7n, 'the old log plus the epoch-2 leader change');
      await second.log.append([NOOP]);
      assert.equal(second.log.highWatermark, 8n);
      await second.log.close();
    } finally {
      if (kind === 'node') rmSync(tmp, { recursive: true, force: true });
    }
  });
}

test('every append is fsynced before it resolves: a crash right after append loses nothing', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const first = await openAndReplay(fs, '/d');
  await appendAll(first.log);
  fs.crash(); // no close: whatever was not fsynced is gone
  const second = await openAndReplay(fs, '/d');
  assert.deepEqual(dataRanges(second.batches), [[1n, 1n], [2n, 4n], [5n, 5n]]);
  assert.deepEqual(second.image.toRecords(), first.image.toRecords());
  // The vote survived too (quorum-state is durable on write): the new epoch is 2, not 1 again.
  assert.equal(second.log.epoch, 2);
});

test('append before start, after close, and a second start are refused', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const log = openLog(fs, '/d');
  await assert.rejects(log.append([NOOP]), (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_NOT_STARTED');
  await log.start(() => {});
  await assert.rejects(log.start(() => {}), MetadataLogError);
  await log.close();
  await assert.rejects(log.append([NOOP]), (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_CLOSED');
});

test('a batch damaged on disk is dropped by recovery, never applied', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const first = await openAndReplay(fs, '/d');
  await first.log.append([registerBroker(1, 0n)]);
  await first.log.append([{ type: 'TopicRecord', data: { name: 'zzzz', topicId: A } }]);
  await first.log.close();
  // Overwrite a byte of the last batch's record (inside the CRC-covered area) and fix nothing.
  const segment = join('/d', METADATA_DIR_NAME, '00000000000000000000.log');
  const bytes = fs.readFile(segment);
  const at = bytes.indexOf(Buffer.from('zzzz'));
  bytes[at] = 0x00;
  const h = fs.open(segment);
  h.write(bytes, 0);
  h.sync();
  h.close();
  // Recovery truncates the batch whose CRC fails; what precedes it replays.
  const second = await openAndReplay(fs, '/d');
  assert.deepEqual(dataRanges(second.batches), [[1n, 1n]]);
  assert.equal(second.image.topicByName('zzzz'), undefined);
  assert.equal(second.image.broker(1)?.brokerId, 1);
  await second.log.close();
});

test('a well-formed batch holding an unknown record type fails the start with ERR_TRIB_METADATA_CORRUPT', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const clock = new ManualClock();
  const { log: raw } = PartitionLog.open({ fs, clock, dir: join('/d', METADATA_DIR_NAME), topic: '__cluster_metadata', partition: 0, config: DEFAULT_LOG_CONFIG });
  raw.append(buildRecordBatchSync({ records: [{ key: null, value: Buffer.from([1, 99, 0]) }], timestampMs: 0 }));
  raw.flush();
  raw.close();
  const log = openLog(fs, '/d');
  await assert.rejects(
    log.start(() => {}),
    (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_CORRUPT' && /unknown metadata record type 99/.test(e.message),
  );
  await log.close();
});

test('booting a whole controller twice on the same disk gives the same image', async () => {
  const h = await boot();
  await h.booted.controller.createTopics([newTopic('a', { numPartitions: 3, configs: [{ name: 'retention.ms', value: '100' }] }), newTopic('b')], { validateOnly: false });
  await h.booted.controller.createPartitions([{ name: 'b', count: 2, assignments: null }], { validateOnly: false });
  await h.booted.controller.deleteTopics([{ name: 'a', topicId: null }]);
  const before = h.booted.image().toRecords();
  await h.booted.close();
  const again = await boot({ fs: h.fs });
  assert.deepEqual(again.booted.image().toRecords(), before);
  assert.ok(h.fs.exists(join(DATA_DIR, METADATA_DIR_NAME, QUORUM_STATE_FILE)), 'a Raft voter keeps its vote');
  await again.booted.close();
});

test('a data dir of the former LocalMetadataLog boots unchanged, and new writes follow its offsets', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp(DATA_DIR);
  // What the old single node wrote: meta.properties, then plain epoch-0 batches (no quorum-state).
  ensureMetaProperties({ fs, dataDir: DATA_DIR, nodeId: 1, clusterId: undefined, random: new SeededRandom(1) });
  const oldImage = new MetadataImage('c');
  const ranges = writeLegacyMetadataLog(fs, new ManualClock(), DATA_DIR, records());
  assert.deepEqual(ranges, [[0n, 0n], [1n, 3n], [4n, 4n]]);
  records().forEach((r, i) => oldImage.apply({ baseOffset: ranges[i]?.[0] ?? 0n, lastOffset: ranges[i]?.[1] ?? 0n, epoch: 0, timestampMs: 0n, records: r }));

  const h = await boot({ fs, advertisedListeners: undefined });
  assert.deepEqual(h.booted.image().toRecords(), oldImage.toRecords());
  assert.equal(h.booted.image().topicByName('t')?.topicId, A);
  const created = await h.booted.controller.createTopics([newTopic('after')], { validateOnly: false });
  assert.equal(created[0]?.errorCode, ErrorCode.NONE);
  assert.ok(h.booted.image().topicByName('after') !== undefined);
  // Record 5 is the epoch-1 leader change; the topic follows it.
  assert.ok(h.booted.image().lastAppliedOffset > 5n);
  const image = h.booted.image().toRecords();
  await h.booted.close();
  const again = await boot({ fs, advertisedListeners: undefined });
  assert.deepEqual(again.booted.image().toRecords(), image);
  await again.booted.close();
});

test('the single node snapshots its image and restarts from the snapshot', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const first = await openAndReplay(fs, '/d', { snapshotIntervalRecords: 3 });
  await appendAll(first.log);
  for (let i = 0; i < 6; i++) await first.log.append([{ type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `k${i}`, value: `v${i}` } }]);
  assert.ok(first.log.logStartOffset > 0, 'the log prefix went into a snapshot');
  assert.ok(fs.readdir(join('/d', METADATA_DIR_NAME)).some((f) => f.endsWith('.checkpoint')));
  await first.log.close();
  const second = await openAndReplay(fs, '/d', { snapshotIntervalRecords: 3 });
  assert.deepEqual(second.image.toRecords(), first.image.toRecords());
  assert.ok(second.batches.length < first.batches.length, 'the restart started from the snapshot, not the whole log');
  await second.log.close();
});

test("controller ticks on a lone node never fence its own broker; a broker registered over the network is fenced when silent", async () => {
  const h = await boot();
  const controller = h.booted.controller;
  await controller.createTopics([newTopic('t')], { validateOnly: false });
  const remote = await controller.registerBroker({ brokerId: 2, incarnationId: 'AAAAAAAAAAAAAAAAAAAAAw', endpoints: [{ name: 'PLAINTEXT', host: 'b2', port: 9092, securityProtocol: 0 }], rack: null });
  assert.equal(remote.errorCode, ErrorCode.NONE);
  const beat = await controller.brokerHeartbeat({ brokerId: 2, brokerEpoch: remote.brokerEpoch, currentMetadataOffset: h.booted.image().lastAppliedOffset, wantFence: false, wantShutDown: false });
  assert.equal(beat.isFenced, false);
  for (let i = 0; i < 4; i++) {
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT / 2);
    await controller.tick();
  }
  assert.equal(h.booted.image().broker(1)?.fenced, false, 'the in-process broker stays unfenced');
  assert.equal(h.booted.image().topicByName('t')?.partitions.get(0)?.leader, 1);
  assert.equal(h.booted.image().broker(2)?.fenced, true, 'the silent broker was fenced');
  await h.booted.close();
});
