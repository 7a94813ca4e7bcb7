/**
 * The producer state inside a partition log on the MemoryFileSystem: snapshots
 * at roll and close, reload after a clean close or a crash, unusable snapshots
 * ignored, truncation, retention, and Partition.appendClientBatch on top.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../../../src/util/clock.js';
import { MemoryFileSystem } from '../../../../src/storage/memory-fs.js';
import { PartitionLog } from '../../../../src/storage/partition-log.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../../src/storage/config.js';
import { Partition } from '../../../../src/replication/partition.js';
import type { ClientAppendResult } from '../../../../src/replication/partition-results.js';
import { listSnapshots, snapshotFileName } from '../../../../src/storage/producer-state/snapshot.js';
import { SNAPSHOTS_KEPT } from '../../../../src/storage/producer-state/log-producer-state.js';
import { idempotentBatch, headerOf, type IdempotentSpec } from './fixture.js';

const DIR = '/data/t-0';

class Env {
  readonly fs = new MemoryFileSystem();
  readonly clock = new ManualClock(1_700_000_000_000);
  cfg: LogConfig = { ...DEFAULT_LOG_CONFIG, segmentBytes: 600 };
  log!: PartitionLog;
  partition!: Partition;
  report!: ReturnType<typeof PartitionLog.open>['report'];

  constructor() {
    this.fs.mkdirp('/data');
    this.open(true);
  }

  open(clean: boolean): void {
    const { log, report } = PartitionLog.open({ fs: this.fs, clock: this.clock, dir: DIR, topic: 't', partition: 0, config: this.cfg, hadCleanShutdown: clean });
    this.log = log;
    this.report = report;
    this.rewrap();
  }

  /** A fresh Partition over the log (after truncating under it: its high watermark never goes back). */
  rewrap(): void {
    this.partition = new Partition('t', 0, 'id', this.log, 1, { leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] });
  }

  send(spec: IdempotentSpec): ClientAppendResult {
    return this.partition.appendClientBatch(idempotentBatch(spec), headerOf(spec));
  }

  /** Lets the snapshots written in the background at each roll land (MemoryFileSystem's async writes). */
  async settle(): Promise<void> {
    await this.fs.settled();
    // The pruning after each landed write runs one turn later.
    await new Promise((resolve) => setImmediate(resolve));
  }

  snapshots(): bigint[] {
    return listSnapshots(this.fs, DIR);
  }

  corrupt(offset: bigint, how: 'flip' | 'truncate'): void {
    const f = this.fs.open(join(DIR, snapshotFileName(offset)));
    if (how === 'truncate') f.truncate(f.size() - 3);
    else f.write(Buffer.from([0xff]), f.size() - 1);
    f.sync();
    f.close();
  }
}

/** Sends `n` in-sequence single-record batches for producer `pid` from `seq`; returns their offsets. */
function sendMany(env: Env, pid: bigint, seq: number, n: number, epoch = 0): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const r = env.send({ producerId: pid, epoch, baseSequence: seq + i });
    assert.equal(r.kind, 'appended', `batch ${seq + i}`);
    if (r.kind === 'appended') out.push(r.baseOffset);
  }
  return out;
}

function expectDuplicate(env: Env, spec: IdempotentSpec, offset: bigint): void {
  const r = env.send(spec);
  assert.equal(r.kind, 'duplicate', `seq ${spec.baseSequence} is a duplicate`);
  if (r.kind === 'duplicate') assert.equal(r.baseOffset, offset);
}

describe('producer state in the partition log', () => {
  it('snapshots at every roll, keeps only a few, and the loader leaves them alone', async () => {
    const env = new Env();
    sendMany(env, 1n, 0, 40);
    await env.settle();
    const bases = env.log.segmentInfos().map((s) => s.baseOffset);
    assert.ok(bases.length > SNAPSHOTS_KEPT + 1, 'the log rolled several times');
    assert.deepEqual(env.snapshots(), bases.slice(1).slice(-SNAPSHOTS_KEPT));
    env.log.close();
    const end = env.log.logEndOffset;
    assert.equal(env.snapshots().at(-1), end, 'clean close snapshots the log end');
    env.open(true);
    assert.equal(env.report.producerState?.snapshotLoaded, end);
    assert.equal(env.report.producerState?.batchesScanned, 0);
    assert.equal(env.snapshots().at(-1), end, 'a snapshot at an offset that is no segment base survives loading');
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 39 }, 39n);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 41 }).kind, 'rejected');
    sendMany(env, 1n, 40, 1);
  });

  it('a crash before a roll\'s background snapshot landed loses only that snapshot: the state is replayed from the log', async () => {
    const env = new Env();
    const offsets = sendMany(env, 1n, 0, 20);
    env.log.flush();
    assert.deepEqual(env.snapshots(), [], 'no roll snapshot has landed yet');
    env.fs.crash();
    env.open(false);
    assert.equal(env.report.producerState?.snapshotLoaded, null);
    for (let s = 15; s < 20; s++) expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: s }, offsets[s] as bigint);
    await env.settle();
    assert.deepEqual(env.snapshots(), [env.log.logEndOffset], 'only recovery\'s own snapshot at the log end: the lost writes never land after the crash');
  });

  it('after a crash, rebuilds from the newest snapshot and the log after it', async () => {
    const env = new Env();
    const offsets = sendMany(env, 1n, 0, 20);
    sendMany(env, 2n, 100, 3);
    env.log.flush();
    await env.settle();
    env.fs.crash();
    env.open(false);
    const ps = env.report.producerState;
    assert.ok(ps !== undefined && ps.snapshotLoaded !== null && ps.snapshotLoaded < env.log.logEndOffset);
    assert.ok(ps.batchesScanned > 0);
    for (let s = 15; s < 20; s++) expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: s }, offsets[s] as bigint);
    expectDuplicate(env, { producerId: 2n, epoch: 0, baseSequence: 102 }, 22n);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 14 }).kind, 'rejected', 'older than the last 5');
  });

  it('a crash that loses the tail forgets its batches (a retry of them is appended again) and drops later snapshots', async () => {
    const env = new Env();
    sendMany(env, 1n, 0, 10);
    env.log.flush();
    const durableEnd = env.log.logEndOffset;
    sendMany(env, 1n, 10, 20); // rolls and snapshots past the durable end
    await env.settle();
    assert.ok((env.snapshots().at(-1) ?? 0n) > durableEnd);
    env.fs.crash();
    env.open(false);
    assert.equal(env.log.logEndOffset, durableEnd);
    assert.ok(env.snapshots().every((s) => s <= durableEnd));
    assert.ok((env.report.producerState?.snapshotsBeyondEnd.length ?? 0) > 0);
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 9 }, 9n);
    const retry = env.send({ producerId: 1n, epoch: 0, baseSequence: 10 });
    assert.equal(retry.kind, 'appended');
  });

  for (const how of ['flip', 'truncate'] as const) {
    it(`ignores a ${how === 'flip' ? 'corrupt' : 'truncated'} snapshot and rebuilds from an older one or the log start`, async () => {
      const env = new Env();
      const offsets = sendMany(env, 1n, 0, 30);
      await env.settle();
      env.log.close();
      const snaps = env.snapshots();
      env.corrupt(snaps.at(-1) as bigint, how);
      env.open(true);
      const ps = env.report.producerState;
      assert.equal(ps?.snapshotProblems.length, 1);
      assert.match(ps?.snapshotProblems[0] ?? '', new RegExp(snapshotFileName(snaps.at(-1) as bigint)));
      assert.equal(ps?.snapshotLoaded, snaps.at(-2));
      for (let s = 25; s < 30; s++) expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: s }, offsets[s] as bigint);
      env.log.close();
      for (const s of env.snapshots()) env.corrupt(s, how);
      env.open(true);
      assert.equal(env.report.producerState?.snapshotLoaded, null);
      assert.equal(env.report.producerState?.batchesScanned, 30);
      expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 29 }, 29n);
      sendMany(env, 1n, 30, 1);
    });
  }

  it('with no snapshot file at all: a clean shutdown means no producers (no scan); an unclean one rebuilds from the log start', () => {
    const env = new Env();
    sendMany(env, 1n, 0, 12);
    env.log.close();
    const clear = (): void => {
      for (const s of env.snapshots()) env.fs.unlink(join(DIR, snapshotFileName(s)));
    };
    clear();
    env.open(false);
    assert.equal(env.report.producerState?.snapshotLoaded, null);
    assert.equal(env.report.producerState?.batchesScanned, 12);
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 11 }, 11n);
    env.log.close();
    clear();
    env.open(true);
    assert.equal(env.report.producerState?.batchesScanned, 0);
    assert.equal(env.log.producerState.size, 0);
  });

  it('a truncation while the rolls\' snapshots are still being written: none past the cut lands afterwards', async () => {
    const env = new Env();
    sendMany(env, 1n, 0, 30);
    env.log.truncateTo(12n);
    await env.settle();
    assert.ok(env.snapshots().length > 0, 'the snapshots below the cut landed');
    assert.ok(env.snapshots().every((s) => s <= 12n), `snapshots ${env.snapshots().join(',')} are at or below 12`);
    env.log.flush();
    env.fs.crash();
    env.open(false);
    env.rewrap();
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 11 }, 11n);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 12 }).kind, 'appended');
  });

  it('truncation drops the state beyond the cut and the snapshots past it', () => {
    const env = new Env();
    sendMany(env, 1n, 0, 30);
    env.log.truncateTo(12n);
    env.rewrap();
    assert.equal(env.log.logEndOffset, 12n);
    assert.ok(env.snapshots().every((s) => s <= 12n));
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 11 }, 11n);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 12 }).kind, 'appended');
    env.log.truncateFullyAndStartAt(100n);
    env.rewrap();
    assert.deepEqual(env.snapshots(), []);
    assert.equal(env.log.producerState.size, 0);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 500 }).kind, 'appended', 'unknown again: any sequence');
  });

  it('retention keeps the producer state of deleted records (KIP-360) and prunes snapshots below the log start', () => {
    const env = new Env();
    sendMany(env, 1n, 0, 5);
    sendMany(env, 2n, 0, 40);
    env.log.deleteRecordsBefore(30n);
    env.log.applyRetention(env.clock.nowMs());
    assert.ok(env.log.logStartOffset >= 30n);
    const snaps = env.snapshots();
    assert.ok(snaps.slice(0, -1).every((s) => s >= env.log.logStartOffset));
    env.log.close();
    env.open(true);
    // Producer 1's batches are all below the log start, its state is still there.
    expectDuplicate(env, { producerId: 1n, epoch: 0, baseSequence: 4 }, 4n);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 7 }).kind, 'rejected');
  });

  it('expiry forgets idle producers, and the next snapshot does too', () => {
    const env = new Env();
    sendMany(env, 1n, 0, 2);
    env.clock.advance(1000);
    sendMany(env, 2n, 0, 2);
    assert.equal(env.log.removeExpiredProducers(env.clock.nowMs(), 1000), 1);
    env.log.close();
    env.open(true);
    assert.equal(env.log.producerState.get(1n), undefined);
    assert.notEqual(env.log.producerState.get(2n), undefined);
  });

  it('control batches move the epoch without adding sequences; plain appends feed the state too', () => {
    const env = new Env();
    sendMany(env, 1n, 0, 3);
    env.log.append(idempotentBatch({ producerId: 1n, epoch: 1, baseSequence: -1, control: true }));
    assert.equal(env.log.producerState.get(1n)?.epoch, 1);
    assert.equal(env.send({ producerId: 1n, epoch: 0, baseSequence: 3 }).kind, 'rejected');
    assert.equal(env.send({ producerId: 1n, epoch: 1, baseSequence: 0 }).kind, 'appended');
  });
});
