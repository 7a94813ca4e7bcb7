/**
 * RaftMetadataLog as a one-voter log on the MemoryFileSystem, driven by a
 * manual clock and timer (no sockets): it elects itself at start, replays a
 * data dir of the former LocalMetadataLog exactly once, appends with record offsets that
 * continue the old ones, snapshots and restarts from the snapshot; the diff
 * records that move a running image to a snapshot's image; the controller
 * boots on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { SeededRandom } from '../../../../src/util/random.js';
import { MetadataLogError } from '../../../../src/controller/metadata-log.js';
import { writeLegacyMetadataLog } from '../../../helpers/legacy-metadata-log.js';
import type { MetadataBatch } from '../../../../src/controller/metadata/batch.js';
import { MetadataImage } from '../../../../src/controller/metadata/image.js';
import { imageDiffRecords } from '../../../../src/controller/metadata/image-records.js';
import type { MetadataRecord } from '../../../../src/controller/metadata/records.js';
import { RaftMetadataLog, type RaftTimer } from '../../../../src/controller/quorum/raft-metadata-log.js';
import { bootController } from '../../../../src/controller/boot.js';
import { registerBroker, newTopic } from '../fixtures.js';

const DATA = '/data';
const TOPIC_A = 'AAAAAAAAAAAAAAAAAAAAEA';
const TOPIC_B = 'AAAAAAAAAAAAAAAAAAAAIA';

class ManualTimer implements RaftTimer {
  private readonly fns = new Set<() => void>();
  every(_intervalMs: number, fn: () => void): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
  fire(): void {
    for (const f of [...this.fns]) f();
  }
  get active(): number {
    return this.fns.size;
  }
}

function config(i: number): MetadataRecord[] {
  return [{ type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `k${i}`, value: `v${i}` } }];
}

function openLog(fs: MemoryFileSystem, clock: ManualClock, timer: RaftTimer, snapshotIntervalRecords = 0): RaftMetadataLog {
  return RaftMetadataLog.open({
    fs,
    clock,
    random: new SeededRandom(3),
    timer,
    dataDir: DATA,
    nodeId: 1,
    voters: [{ id: 1, host: '127.0.0.1', port: 1 }],
    clusterId: null,
    snapshotIntervalRecords,
  });
}

async function collect(log: RaftMetadataLog): Promise<{ batches: MetadataBatch[]; image: MetadataImage }> {
  const batches: MetadataBatch[] = [];
  const image = new MetadataImage('c');
  await log.start((b) => {
    image.apply(b);
    batches.push(b);
  });
  return { batches, image };
}

const dataOnly = (bs: readonly MetadataBatch[]): string[] => bs.filter((b) => b.records.length > 0).map((b) => `${b.baseOffset}-${b.lastOffset}:${b.records.length}`);

test('one voter: replays a LocalMetadataLog dir once, leads at once, appends continue the record offsets', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp(DATA);
  const clock = new ManualClock();
  writeLegacyMetadataLog(fs, clock, DATA, [[registerBroker(1, 0n)], config(1).concat(config(2))]);

  const timer = new ManualTimer();
  const log = openLog(fs, clock, timer);
  const changes: boolean[] = [];
  log.onLeaderChange((c) => changes.push(c.isLeader));
  const { batches, image } = await collect(log);
  assert.deepEqual(dataOnly(batches), ['0-0:1', '1-2:2'], 'the old batches, each once');
  assert.equal(batches.at(-1)?.records.length, 0, 'then the leader-change control batch of epoch 1');
  assert.equal(batches.at(-1)?.epoch, 1);
  assert.equal(log.isLeader, true);
  assert.equal(log.leaderId, 1);
  assert.deepEqual(changes, [true]);
  assert.equal(timer.active, 1, 'one timer');
  const range = await log.append(config(3));
  assert.deepEqual(range, { baseOffset: 4n, lastOffset: 4n });
  assert.equal(image.configs(4, '').get('k3'), 'v3');
  assert.equal(log.highWatermark, 5n);
  clock.advance(50);
  timer.fire();
  await log.close();
  assert.equal(timer.active, 0);
  await assert.rejects(log.append(config(4)), (err: unknown) => err instanceof MetadataLogError && err.code === 'ERR_TRIB_METADATA_CLOSED');

  // Restart: the same batches again, exactly once, plus a new leader-change entry.
  const again = openLog(fs, clock, new ManualTimer());
  const second = await collect(again);
  assert.deepEqual(dataOnly(second.batches), ['0-0:1', '1-2:2', '4-4:1']);
  assert.equal(second.batches.at(-1)?.epoch, 2);
  assert.deepEqual(second.image.toRecords(), image.toRecords());
  await again.close();
});

test('one voter: snapshots every N records, and a restart starts from the snapshot', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp(DATA);
  const clock = new ManualClock();
  const log = openLog(fs, clock, new ManualTimer(), 3);
  const first = await collect(log);
  for (let i = 0; i < 7; i++) await log.append(config(i));
  const status = log.status();
  assert.ok(status.logStartOffset > 0, `the log prefix went into a snapshot (log start ${status.logStartOffset})`);
  await log.close();

  const again = openLog(fs, clock, new ManualTimer(), 3);
  const second = await collect(again);
  assert.equal(second.batches[0]?.baseOffset, 0n, 'the snapshot comes first, as one batch from offset 0');
  assert.ok(second.batches.length < first.batches.length + 7);
  assert.deepEqual(second.image.toRecords(), first.image.toRecords());
  assert.equal(second.image.lastAppliedOffset, first.image.lastAppliedOffset + 1n, 'plus the new leader-change batch');
  await again.append(config(99));
  await again.close();
});

test('imageDiffRecords moves an image to another: removals first, then what is new or changed', () => {
  const partition = (topicId: string, leaderEpoch: number): MetadataRecord => ({
    type: 'PartitionRecord',
    data: { partitionId: 0, topicId, replicas: [1, 2], isr: [1, 2], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0, leaderEpoch, partitionEpoch: leaderEpoch, eligibleLeaderReplicas: [], lastKnownElr: [] },
  });
  const build = (records: MetadataRecord[], last: bigint): MetadataImage => {
    const image = new MetadataImage('c');
    image.apply({ baseOffset: 0n, lastOffset: last, epoch: 1, timestampMs: 0n, records });
    return image;
  };
  const from = build(
    [
      registerBroker(1, 0n),
      registerBroker(2, 1n),
      registerBroker(3, 2n),
      { type: 'TopicRecord', data: { name: 'a', topicId: TOPIC_A } },
      partition(TOPIC_A, 0),
      { type: 'ConfigRecord', data: { resourceType: 2, resourceName: 'a', name: 'retention.ms', value: '1' } },
      { type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: 'gone', value: 'x' } },
      { type: 'FeatureLevelRecord', data: { name: 'old.feature', featureLevel: 1 } },
    ],
    9n,
  );
  const to = build(
    [
      registerBroker(1, 0n, null, true),
      registerBroker(2, 5n),
      { type: 'TopicRecord', data: { name: 'a', topicId: TOPIC_A } },
      partition(TOPIC_A, 3),
      { type: 'TopicRecord', data: { name: 'b', topicId: TOPIC_B } },
      partition(TOPIC_B, 0),
      { type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: 'kept', value: 'y' } },
      { type: 'FeatureLevelRecord', data: { name: 'metadata.version', featureLevel: 7 } },
    ],
    20n,
  );
  const diff = imageDiffRecords(from, to);
  assert.ok(diff.some((r) => r.type === 'FenceBrokerRecord'), 'broker 1 only changed its fenced state');
  assert.ok(diff.some((r) => r.type === 'UnregisterBrokerRecord'), 'broker 3 is gone');
  // Apply through a fresh copy of `from` so the delta is the image's own.
  const target = new MetadataImage('c');
  target.apply({ baseOffset: 0n, lastOffset: 9n, epoch: 1, timestampMs: 0n, records: from.toRecords() });
  const delta = target.apply({ baseOffset: 10n, lastOffset: 20n, epoch: 1, timestampMs: 0n, records: diff });
  const sorted = (i: MetadataImage): string[] => i.toRecords().map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v))).sort();
  assert.deepEqual(sorted(target), sorted(to));
  assert.deepEqual(delta.topicsCreated.map((t) => t.name), ['b']);
  assert.deepEqual(imageDiffRecords(to, to), [], 'no change, no records');

  // A topic deleted and re-created under the same name keeps the configs the snapshot has.
  const TOPIC_C = 'AAAAAAAAAAAAAAAAAAAAMA';
  const withConfig = (topicId: string): MetadataImage =>
    build([{ type: 'TopicRecord', data: { name: 'a', topicId } }, partition(topicId, 0), { type: 'ConfigRecord', data: { resourceType: 2, resourceName: 'a', name: 'retention.ms', value: '1' } }], 5n);
  const recreated = new MetadataImage('c');
  recreated.apply({ baseOffset: 0n, lastOffset: 5n, epoch: 1, timestampMs: 0n, records: withConfig(TOPIC_A).toRecords() });
  recreated.apply({ baseOffset: 6n, lastOffset: 9n, epoch: 1, timestampMs: 0n, records: imageDiffRecords(withConfig(TOPIC_A), withConfig(TOPIC_C)) });
  assert.equal(recreated.topicByName('a')?.topicId, TOPIC_C);
  assert.equal(recreated.topicConfigs('a').get('retention.ms'), '1');
});

test('the controller boots on a one-voter RaftMetadataLog and creates topics through it', async () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp(DATA);
  const clock = new ManualClock();
  const log = openLog(fs, clock, new ManualTimer());
  const booted = await bootController({ dataDir: DATA, fs, clock, random: new SeededRandom(5), nodeId: 1, numPartitionsDefault: 1, replicationFactorDefault: 1, log, advertisedListeners: [{ name: 'PLAINTEXT', host: 'h', port: 9092, securityProtocol: 0 }] });
  const [created] = await booted.controller.createTopics([newTopic('orders', { numPartitions: 2 })], { validateOnly: false });
  assert.equal(created?.errorCode, 0);
  assert.equal(booted.image().topicByName('orders')?.partitions.size, 2);
  await booted.close();
});
