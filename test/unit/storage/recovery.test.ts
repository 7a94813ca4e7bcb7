import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../src/util/random.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { simpleBatch } from './batch-fixture.js';
import { batchOffsets, config, FS_KINDS, makeEnv, openLog, readAll, withEnv, type FsEnv } from './fs-env.js';

function fill(log: PartitionLog, n: number, records = 2, valueBytes = 40): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const b = simpleBatch(records, valueBytes, 1_700_000_000_000n + BigInt(i));
    log.append(b);
    out.push(b);
  }
  return out;
}

function mutateFile(env: FsEnv, path: string, fn: (size: number, write: (pos: number, data: Buffer) => void, read: (pos: number) => number, truncate: (n: number) => void) => void): void {
  const f = env.fs.open(path);
  const byte = Buffer.alloc(1);
  fn(f.size(), (pos, data) => f.write(data, pos), (pos) => {
    f.read(byte, 0, 1, pos);
    return byte[0] as number;
  }, (n) => f.truncate(n));
  f.sync();
  f.close();
}

/** A log of 3 segments (5 batches of 155 bytes each, the last has 5 too), cleanly closed. */
function threeSegments(env: FsEnv): { batches: Buffer[]; cfg: ReturnType<typeof config>; bases: bigint[] } {
  const cfg = config({ segmentBytes: 800, indexIntervalBytes: 200 });
  const { log } = openLog(env, cfg);
  const batches = fill(log, 15);
  const bases = log.segmentInfos().map((s) => s.baseOffset);
  assert.deepEqual(bases, [0n, 10n, 20n]);
  log.close();
  return { batches, cfg, bases };
}

for (const kind of FS_KINDS) {
  describe(`recovery on ${kind} fs`, () => {
    it('cuts a torn last batch and keeps the valid prefix', withEnv(kind, (env) => {
      const { batches, cfg } = threeSegments(env);
      const { log: probe } = openLog(env, cfg, { recoveryPoint: 30n, hadCleanShutdown: true });
      const path = probe.segmentPath(20n, '.log');
      probe.close();
      mutateFile(env, path, (size, _w, _r, truncate) => truncate(size - 7));
      const { log, report } = openLog(env, cfg, { recoveryPoint: 30n, hadCleanShutdown: false });
      assert.equal(report.truncations.length, 1);
      assert.match(report.truncations[0]?.reason ?? '', /torn/);
      assert.equal(report.truncations[0]?.truncatedBytes, 155 - 7);
      assert.equal(log.logEndOffset, 28n);
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches.slice(0, 14))));
      log.append(simpleBatch(1));
      assert.deepEqual(batchOffsets(readAll(log, 26n)), [26n, 28n]);
      log.close();
    }));

    it('cuts at a corrupted batch in the middle of the active segment', withEnv(kind, (env) => {
      const { batches, cfg } = threeSegments(env);
      const { log: probe } = openLog(env, cfg, { recoveryPoint: 30n });
      const path = probe.segmentPath(20n, '.log');
      probe.close();
      // Flip a byte inside the third batch of the active segment (offsets 24-25).
      mutateFile(env, path, (_size, write, read) => write(2 * 155 + 100, Buffer.from([read(2 * 155 + 100) ^ 0xff])));
      const { log, report } = openLog(env, cfg, { recoveryPoint: 30n });
      assert.equal(report.truncations.length, 1);
      assert.match(report.truncations[0]?.reason ?? '', /CRC/);
      assert.equal(report.truncations[0]?.validBytes, 2 * 155);
      assert.equal(log.logEndOffset, 24n);
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches.slice(0, 12))));
      log.close();
    }));

    it('without a recovery point scans all segments and drops those after a corrupt one', withEnv(kind, (env) => {
      const { batches, cfg } = threeSegments(env);
      const { log: probe } = openLog(env, cfg, { recoveryPoint: 30n });
      const path = probe.segmentPath(10n, '.log');
      probe.close();
      // Break the length field of the second batch of segment 10.
      mutateFile(env, path, (_size, write) => write(155 + 8, Buffer.from([0x7f, 0, 0, 0])));
      const { log, report } = openLog(env, cfg);
      assert.deepEqual(report.segmentsScanned, [0n, 10n]);
      assert.deepEqual(report.segmentsDropped, [20n]);
      assert.equal(log.logEndOffset, 12n);
      assert.equal(log.segmentCount, 2);
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches.slice(0, 6))));
      assert.equal(env.fs.exists(log.segmentPath(20n, '.log')), false);
      log.close();
    }));

    it('rebuilds missing or garbage index files of rolled segments', withEnv(kind, (env) => {
      const { batches, cfg } = threeSegments(env);
      const { log: probe } = openLog(env, cfg, { recoveryPoint: 30n });
      const dir = probe.dir;
      const idx0 = probe.segmentPath(0n, '.index');
      const tidx10 = probe.segmentPath(10n, '.timeindex');
      const idx10 = probe.segmentPath(10n, '.index');
      probe.close();
      assert.ok(env.fs.open(idx0).size() > 0);
      env.fs.unlink(idx0);
      mutateFile(env, tidx10, (_s, write) => write(0, Buffer.from('garbage!!')));
      mutateFile(env, idx10, (_s, write) => write(0, Buffer.from([0, 0, 0, 9, 0x7f, 0, 0, 0])));
      env.fs.writeFileAtomic(`${dir}/00000000000000000099.index`, Buffer.alloc(8));
      env.fs.writeFileAtomic(`${dir}/00000000000000000000.log.tmp`, Buffer.alloc(8));
      const { log, report } = openLog(env, cfg, { recoveryPoint: 30n, hadCleanShutdown: true });
      assert.deepEqual(report.indexesRebuilt, [0n, 10n]);
      assert.deepEqual(report.truncations, []);
      assert.deepEqual(report.strayFilesDeleted.sort(), ['00000000000000000000.log.tmp', '00000000000000000099.index']);
      for (let o = 0n; o < 30n; o++) {
        assert.equal(batchOffsets(readAll(log, o, 1))[0], o - (o % 2n));
      }
      assert.ok(readAll(log, 0n).equals(Buffer.concat(batches)));
      assert.ok(env.fs.open(idx0).size() > 0, 'index file rewritten');
      assert.deepEqual(log.offsetForTimestamp(1_700_000_000_007n), { offset: 14n, timestampMs: 1_700_000_000_007n });
      log.close();
    }));

    it('starts over at the log start offset when it is past the recovered end', withEnv(kind, (env) => {
      const { cfg } = threeSegments(env);
      const { log, report } = openLog(env, cfg, { recoveryPoint: 30n, logStartOffset: 40n });
      assert.equal(log.logStartOffset, 40n);
      assert.equal(log.logEndOffset, 40n);
      assert.deepEqual(report.segmentsDropped, [0n, 10n, 20n]);
      assert.equal(log.append(simpleBatch(1)).baseOffset, 40n);
      log.close();
    }));
  });
}

describe('recovery after a crash (memory fs)', () => {
  it('loses exactly what was not flushed', () => {
    const env = makeEnv('memory');
    const mem = env.mem as MemoryFileSystem;
    const cfg = config({ segmentBytes: 800 });
    const { log } = openLog(env, cfg);
    const batches = fill(log, 8);
    log.flush();
    fill(log, 4);
    assert.equal(log.logEndOffset, 24n);
    mem.crash();
    assert.throws(() => log.append(simpleBatch(1)), /before a crash/);
    const { log: after, report } = openLog(env, cfg, { recoveryPoint: 16n });
    assert.equal(after.logEndOffset, 16n);
    // Segment 20 survived (directory operations are durable) but 16-19 did not: it goes.
    assert.match(report.truncations[0]?.reason ?? '', /next one starts at 20/);
    assert.deepEqual(report.segmentsDropped, [20n]);
    assert.ok(readAll(after, 0n).equals(Buffer.concat(batches)));
    after.close();
  });

  it('a cut made by recovery is durable even when recovery defers its fsyncs: a second crash cannot complete the torn batch with new bytes', () => {
    const env = makeEnv('memory');
    const mem = env.mem as MemoryFileSystem;
    const cfg = config({ segmentBytes: 100_000 });
    const { log } = openLog(env, cfg);
    const kept = fill(log, 4);
    log.flush();
    // Torn: everything of the fifth batch but its last byte (the last record's header count, a zero).
    const torn = simpleBatch(2, 40, 1_700_000_000_100n);
    assert.equal(torn[torn.length - 1], 0);
    log.append(torn);
    mem.crash({ int: (n: number) => n - 2, next: () => 0 });
    const { log: recovered, report } = openLog(env, cfg, { recoveryPoint: 8n, deferRecoveryFlush: true });
    assert.equal(report.truncations[0]?.truncatedBytes, torn.length - 1);
    assert.equal(recovered.logEndOffset, 8n);
    // A batch of the same size over the cut, not flushed; the next crash keeps
    // its first byte past what is durable. Had the cut not been fsynced, that
    // byte (a zero, at the torn batch's last position) would complete it.
    const other = simpleBatch(2, 40, 1_700_000_000_200n);
    assert.equal(other.length, torn.length);
    recovered.append(other);
    mem.crash({ int: () => 1, next: () => 0 });
    const { log: after } = openLog(env, cfg, { recoveryPoint: 8n, deferRecoveryFlush: true });
    assert.equal(after.logEndOffset, 8n);
    assert.ok(readAll(after, 0n).equals(Buffer.concat(kept)));
    after.close();
  });

  it('keeps whole batches of a torn tail and cuts the partial one', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const env = makeEnv('memory');
      const mem = env.mem as MemoryFileSystem;
      const cfg = config({ segmentBytes: 100_000 });
      const { log } = openLog(env, cfg);
      const batches = fill(log, 4);
      log.flush();
      batches.push(...fill(log, 6));
      mem.crash(new SeededRandom(seed));
      const { log: after } = openLog(env, cfg, { recoveryPoint: 8n });
      const end = Number(after.logEndOffset);
      assert.ok(end >= 8 && end <= 20 && end % 2 === 0, `seed ${seed}: end ${end}`);
      assert.ok(readAll(after, 0n).equals(Buffer.concat(batches.slice(0, end / 2))), `seed ${seed}`);
      after.close();
    }
  });
});
