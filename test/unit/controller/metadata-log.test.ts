import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOG_CONFIG, MemoryFileSystem, NodeFileSystem, PartitionLog, type FileSystem } from '../../../src/storage/index.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/index.js';
import { ManualClock } from '../../../src/util/clock.js';
import { LocalMetadataLog, MetadataLogError, METADATA_DIR_NAME } from '../../../src/controller/metadata-log.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import type { MetadataBatch } from '../../../src/controller/metadata/batch.js';
import type { MetadataRecord } from '../../../src/controller/metadata/records.js';
import { boot, newTopic, registerBroker } from './fixtures.js';

const A = 'AAAAAAAAAAAAAAAAAAAAEA';

function records(): MetadataRecord[][] {
  return [
    [registerBroker(1, 0n)],
    [
      { type: 'TopicRecord', data: { name: 't', topicId: A } },
      { type: 'PartitionRecord', data: { partitionId: 0, topicId: A, replicas: [1], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0 } },
      { type: 'ConfigRecord', data: { resourceType: 2, resourceName: 't', name: 'retention.ms', value: '7' } },
    ],
    [{ type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 1 } }],
  ];
}

async function openAndReplay(fs: FileSystem, dataDir: string) {
  const log = LocalMetadataLog.open({ fs, clock: new ManualClock(), dataDir });
  const image = new MetadataImage('c');
  const batches: MetadataBatch[] = [];
  await log.start((b) => {
    batches.push(b);
    image.apply(b);
  });
  return { log, image, batches };
}

for (const kind of ['memory', 'node'] as const) {
  test(`${kind} fs: append commits in order, and a restart replays the identical image`, async () => {
    const tmp = kind === 'node' ? mkdtempSync(join(tmpdir(), 'trib-meta-')) : '/data';
    const fs: FileSystem = kind === 'node' ? new NodeFileSystem() : new MemoryFileSystem();
    try {
      const first = await openAndReplay(fs, tmp);
      assert.equal(first.log.highWatermark, 0n);
      const ranges = [];
      for (const r of records()) ranges.push(await first.log.append(r));
      assert.deepEqual(ranges, [{ baseOffset: 0n, lastOffset: 0n }, { baseOffset: 1n, lastOffset: 3n }, { baseOffset: 4n, lastOffset: 4n }]);
      assert.equal(first.log.highWatermark, 5n);
      assert.equal(first.image.lastAppliedOffset, 4n);
      assert.ok(fs.isDirectory(join(tmp, METADATA_DIR_NAME)));
      await first.log.close();

      const second = await openAndReplay(fs, tmp);
      assert.deepEqual(second.batches.map((b) => [b.baseOffset, b.lastOffset]), [[0n, 0n], [1n, 3n], [4n, 4n]]);
      assert.deepEqual(second.batches.map((b) => b.records), records());
      assert.deepEqual(second.image.toRecords(), first.image.toRecords());
      assert.equal(second.image.lastAppliedOffset, first.image.lastAppliedOffset);
      assert.equal(second.log.highWatermark, 5n);
      await second.log.append([{ type: 'NoOpRecord', data: {} }]);
      assert.equal(second.log.highWatermark, 6n);
      await second.log.close();
    } finally {
      if (kind === 'node') rmSync(tmp, { recursive: true, force: true });
    }
  });
}

test('every append is fsynced: a crash right after append loses nothing', async () => {
  const fs = new MemoryFileSystem();
  const first = await openAndReplay(fs, '/d');
  for (const r of records()) await first.log.append(r);
  fs.crash(); // no close: whatever was not fsynced is gone
  const second = await openAndReplay(fs, '/d');
  assert.equal(second.log.highWatermark, 5n);
  assert.deepEqual(second.image.toRecords(), first.image.toRecords());
});

test('append before start, after close, and a second start are refused', async () => {
  const fs = new MemoryFileSystem();
  const log = LocalMetadataLog.open({ fs, clock: new ManualClock(), dataDir: '/d' });
  await assert.rejects(log.append([{ type: 'NoOpRecord', data: {} }]), (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_NOT_STARTED');
  await log.start(() => {});
  await assert.rejects(log.start(() => {}), MetadataLogError);
  await log.close();
  await assert.rejects(log.append([{ type: 'NoOpRecord', data: {} }]), (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_CLOSED');
});

test('a batch damaged on disk is dropped by recovery, never applied', async () => {
  const fs = new MemoryFileSystem();
  const first = await openAndReplay(fs, '/d');
  await first.log.append([{ type: 'TopicRecord', data: { name: 'zzzz', topicId: A } }]);
  await first.log.close();
  // Overwrite the record's type id (inside the CRC-covered area) and fix nothing: recovery or replay must refuse it.
  const segment = join('/d', METADATA_DIR_NAME, '00000000000000000000.log');
  const bytes = fs.readFile(segment);
  const at = bytes.indexOf(Buffer.from('zzzz'));
  bytes[at] = 0x00;
  const h = fs.open(segment);
  h.write(bytes, 0);
  h.sync();
  h.close();
  const log = LocalMetadataLog.open({ fs, clock: new ManualClock(), dataDir: '/d' });
  // Recovery truncates a batch whose CRC fails; a log that is then shorter replays nothing.
  const seen: MetadataBatch[] = [];
  await log.start((b) => seen.push(b));
  assert.equal(seen.length, 0);
  assert.equal(log.highWatermark, 0n);
  await log.close();
});

test('a well-formed batch holding an unknown record type fails the replay with ERR_TRIB_METADATA_CORRUPT', async () => {
  const fs = new MemoryFileSystem();
  const clock = new ManualClock();
  const { log: raw } = PartitionLog.open({ fs, clock, dir: join('/d', METADATA_DIR_NAME), topic: '__cluster_metadata', partition: 0, config: DEFAULT_LOG_CONFIG });
  raw.append(buildRecordBatchSync({ records: [{ key: null, value: Buffer.from([1, 99, 0]) }], timestampMs: 0 }));
  raw.close();
  const log = LocalMetadataLog.open({ fs, clock, dataDir: '/d' });
  await assert.rejects(
    log.start(() => {}),
    (e: unknown) => e instanceof MetadataLogError && e.code === 'ERR_TRIB_METADATA_CORRUPT' && /unknown metadata record type 99/.test(e.message),
  );
});

test('booting a whole controller twice on the same disk gives the same image', async () => {
  const h = await boot();
  await h.booted.controller.createTopics([newTopic('a', { numPartitions: 3, configs: [{ name: 'retention.ms', value: '100' }] }), newTopic('b')], { validateOnly: false });
  await h.booted.controller.createPartitions([{ name: 'b', count: 2, assignments: null }], { validateOnly: false });
  await h.booted.controller.deleteTopics([{ name: 'a', topicId: null }]);
  const before = h.booted.image().toRecords();
  const offset = h.booted.image().lastAppliedOffset;
  await h.booted.close();
  const again = await boot({ fs: h.fs });
  assert.deepEqual(again.booted.image().toRecords(), before);
  assert.equal(again.booted.image().lastAppliedOffset, offset);
  await again.booted.close();
});
