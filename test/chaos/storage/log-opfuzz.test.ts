/**
 * Seeded random operations on one partition log (through a LogManager),
 * compared after every step with a model: the list of stored batches with
 * their offsets. Includes restarts and, on MemoryFileSystem, crashes that lose
 * unflushed writes (with torn tails). Seeds (test/helpers/seeds.ts): 40 fixed
 * and 10 rotating per run; LOG_FUZZ_SEED=n replays one, LOG_FUZZ_SEED_BASE=b a
 * rotating block, LOG_FUZZ_SEEDS=n sets the fixed block. The seed is printed
 * on failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Offsets } from '../../../src/protocol/record-batch/header.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { DEFAULT_LOG_CONFIG, FLUSH_NEVER, type LogConfig } from '../../../src/storage/config.js';
import { NodeFileSystem, type FileSystem } from '../../../src/storage/fs.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { buildBatch, type FixtureRecord } from '../../unit/storage/batch-fixture.js';
import { simulationSeeds } from '../../helpers/seeds.js';

const STEPS = 250;

interface MBatch {
  base: bigint;
  last: bigint;
  maxTs: bigint;
  bytes: Buffer;
}

class Model {
  /** Batches physically kept (may start below logStartOffset inside the first segment). */
  batches: MBatch[] = [];
  lso = 0n;
  leo = 0n;

  trimBelow(offset: bigint): void {
    this.batches = this.batches.filter((b) => b.base >= offset || b.last >= offset);
  }

  indexOf(offset: bigint): number {
    return this.batches.findIndex((b) => b.base <= offset && offset <= b.last);
  }

  expectedRead(start: bigint, maxBytes: number, minOne: boolean, hw: bigint | undefined): Buffer | null {
    if (start < this.lso || start > this.leo) return null;
    const bound = hw !== undefined && hw < this.leo ? hw : this.leo;
    if (start >= bound) return Buffer.alloc(0);
    const i = this.indexOf(start);
    assert.ok(i >= 0, `model has a batch containing ${start}`);
    const parts: Buffer[] = [];
    for (let j = i; j < this.batches.length && (this.batches[j] as MBatch).last < bound; j++) parts.push((this.batches[j] as MBatch).bytes);
    const all = Buffer.concat(parts);
    const limit = minOne && parts.length > 0 ? Math.max(maxBytes, (parts[0] as Buffer).length) : maxBytes;
    return all.subarray(0, Math.min(all.length, Math.max(0, limit)));
  }
}

function randomConfig(r: SeededRandom): LogConfig {
  const pick = <T>(xs: T[]): T => xs[r.int(xs.length)] as T;
  return {
    ...DEFAULT_LOG_CONFIG,
    segmentBytes: 200 + r.int(4000),
    segmentMs: 500 + r.int(20_000),
    retentionMs: pick([-1, -1, 1000 + r.int(50_000)]),
    retentionBytes: pick([-1, -1, 2000 + r.int(30_000)]),
    indexIntervalBytes: r.int(600),
    segmentIndexBytes: 48 + r.int(400),
    flushIntervalMessages: pick([FLUSH_NEVER, FLUSH_NEVER, 5 + r.int(100)]),
    flushIntervalMs: pick([FLUSH_NEVER, FLUSH_NEVER, 100 + r.int(5000)]),
  };
}

function randomBatches(r: SeededRandom, nowMs: number): Buffer {
  const parts: Buffer[] = [];
  const n = 1 + (r.next() < 0.2 ? r.int(3) : 0);
  for (let k = 0; k < n; k++) {
    const records: FixtureRecord[] = [];
    const count = 1 + r.int(8);
    const big = r.next() < 0.05;
    for (let i = 0; i < count; i++) {
      const ts = BigInt(nowMs - 500 + r.int(600));
      records.push({ key: r.next() < 0.5 ? null : Buffer.from(`k${r.int(100)}`), value: Buffer.alloc(r.int(big ? 2000 : 200), 120), timestampMs: ts });
    }
    parts.push(buildBatch({ records }));
  }
  return Buffer.concat(parts);
}

interface Env {
  fs: FileSystem;
  mem: MemoryFileSystem | null;
  dataDir: string;
  cleanup(): void;
}

function runSeed(seed: number, useMemory: boolean): void {
  const r = new SeededRandom(seed);
  const clock = new ManualClock(1_700_000_000_000);
  let env: Env;
  if (useMemory) {
    const mem = new MemoryFileSystem();
    env = { fs: mem, mem, dataDir: '/data', cleanup: () => {} };
  } else {
    const root = mkdtempSync(join(tmpdir(), 'tributary-opfuzz-'));
    env = { fs: new NodeFileSystem(), mem: null, dataDir: join(root, 'data'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
  }
  let cfg = randomConfig(r);
  const openManager = (): { manager: LogManager; log: PartitionLog; truncated: number } => {
    const startup = LogManager.open({ fs: env.fs, clock, dataDir: env.dataDir, defaultConfig: cfg, configFor: () => cfg });
    const truncated = startup.reports.reduce((n, rep) => n + rep.truncations.length + rep.segmentsDropped.length, 0);
    return { manager: startup.manager, log: startup.manager.getOrCreateLog('fuzz', 0), truncated };
  };
  let { manager, log } = openManager();
  manager.getOrCreateLog('idle', 3);
  const m = new Model();
  const trace: string[] = [];

  const check = (): void => {
    assert.equal(log.logEndOffset, m.leo, 'log end offset');
    assert.equal(log.logStartOffset, m.lso, 'log start offset');
    assert.ok(log.recoveryPoint <= log.logEndOffset, 'recovery point <= log end');
    const infos = log.segmentInfos();
    for (let i = 1; i < infos.length; i++) assert.equal(infos[i]?.baseOffset, infos[i - 1]?.nextOffset, 'segments are contiguous');
    assert.ok((infos[0]?.baseOffset ?? 0n) <= m.lso, 'first segment starts at or below the log start');
    m.trimBelow(infos[0]?.baseOffset ?? 0n);
    const got = log.read(m.lso, 1 << 30);
    const want = m.expectedRead(m.lso, 1 << 30, true, undefined);
    assert.ok(got.kind === 'records' && want !== null);
    assert.ok(Buffer.concat(got.chunks).equals(want), 'whole log matches the model');
  };

  /**
   * What retention must do, from the model: the oldest rolled segments go
   * while one of Kafka's rules holds for the first of them (the next segment
   * starts at or below the log start; with cleanup.policy=delete, its newest
   * record is older than retention.ms, or the log without it is still at
   * least retention.bytes). Segment bounds come from the log; sizes and
   * timestamps come from the model's batches in each segment.
   */
  const expectedRetention = (nowMs: number): { segmentsDeleted: number; logStartOffset: bigint } => {
    const infos = log.segmentInfos();
    const inSegment = (i: number): MBatch[] => {
      const seg = infos[i] as (typeof infos)[number];
      return m.batches.filter((b) => b.base >= seg.baseOffset && b.base < seg.nextOffset);
    };
    const sizeOf = (i: number): number => inSegment(i).reduce((n, b) => n + b.bytes.length, 0);
    let total = infos.reduce((n, _, i) => n + sizeOf(i), 0);
    const deletePolicy = cfg.cleanupPolicy?.delete ?? true;
    let deleted = 0;
    while (deleted < infos.length - 1) {
      const batches = inSegment(deleted);
      const size = sizeOf(deleted);
      const belowStart = (infos[deleted + 1] as (typeof infos)[number]).baseOffset <= m.lso;
      // A rolled segment of this fuzz always holds a batch (rolls skip empty
      // segments; truncation leaves the empty one active).
      assert.ok(belowStart || batches.length > 0, `rolled segment ${infos[deleted]?.baseOffset} holds batches`);
      const newestMs = batches.reduce((t, b) => (b.maxTs > t ? b.maxTs : t), -1n);
      const expired = deletePolicy && cfg.retentionMs >= 0 && batches.length > 0 && nowMs - Number(newestMs) > cfg.retentionMs;
      const tooBig = deletePolicy && cfg.retentionBytes >= 0 && total - size >= cfg.retentionBytes;
      if (!belowStart && !expired && !tooBig) break;
      total -= size;
      deleted++;
    }
    const first = (infos[deleted] as (typeof infos)[number]).baseOffset;
    return { segmentsDeleted: deleted, logStartOffset: first > m.lso ? first : m.lso };
  };

  const step = (): string => {
    const x = r.next();
    if (x < 0.38) {
      const buf = randomBatches(r, clock.nowMs());
      const recoveryPoint = log.recoveryPoint;
      const res = log.append(buf);
      assert.equal(res.baseOffset, m.leo);
      let p = 0;
      while (p < buf.length) {
        const size = 12 + buf.readInt32BE(p + 8);
        const bytes = Buffer.from(buf.subarray(p, p + size));
        const base = bytes.readBigInt64BE(0);
        const last = base + BigInt(bytes.readInt32BE(Offsets.lastOffsetDelta));
        m.batches.push({ base, last, maxTs: bytes.readBigInt64BE(Offsets.maxTimestamp), bytes });
        p += size;
      }
      m.leo = res.lastOffset + 1n;
      const due = Number(m.leo - recoveryPoint) >= cfg.flushIntervalMessages;
      assert.equal(log.recoveryPoint, due ? m.leo : recoveryPoint, 'fsync exactly when flush.messages is reached');
      return `append ${res.baseOffset}..${res.lastOffset} (${buf.length} B)`;
    }
    if (x < 0.56) {
      const span = Number(m.leo - m.lso) + 5;
      const start = m.lso - 2n + BigInt(r.int(span));
      const maxBytes = r.int(3000);
      const minOne = r.next() < 0.7;
      const hw = r.next() < 0.5 ? m.lso + BigInt(r.int(span)) : undefined;
      const got = log.read(start, maxBytes, { maxOffsetExclusive: hw, minOneBatch: minOne });
      const want = m.expectedRead(start, maxBytes, minOne, hw);
      const desc = `read ${start} max ${maxBytes} minOne ${minOne} hw ${hw}`;
      if (want === null) assert.equal(got.kind, 'offset_out_of_range', desc);
      else assert.ok(got.kind === 'records' && Buffer.concat(got.chunks).equals(want), desc);
      return desc;
    }
    if (x < 0.61) {
      const ts = BigInt(clock.nowMs() - 30_000 + r.int(31_000));
      const cand = m.batches.find((b) => b.last >= m.lso && b.maxTs >= ts);
      const want = cand === undefined ? null : { offset: cand.base > m.lso ? cand.base : m.lso, timestampMs: cand.maxTs };
      assert.deepEqual(log.offsetForTimestamp(ts), want, `offsetForTimestamp ${ts}`);
      // Like Kafka, the max timestamp is per segment: batches below the log
      // start offset count when they share its segment.
      const infos = log.segmentInfos();
      const fromBase = (infos.find((i) => i.nextOffset > m.lso) ?? infos.at(-1))?.baseOffset ?? 0n;
      let best: { offset: bigint; timestampMs: bigint } | null = null;
      for (const b of m.batches) if (b.base >= fromBase) if (best === null || b.maxTs > best.timestampMs) best = { offset: b.last, timestampMs: b.maxTs };
      assert.deepEqual(log.maxTimestamp(), best, 'maxTimestamp');
      return `timestamps ${ts}`;
    }
    if (x < 0.66) {
      clock.advance(r.int(Math.min(cfg.segmentMs * 2, 40_000)));
      const recoveryPoint = log.recoveryPoint;
      const flushed = log.maybeFlush(clock.nowMs());
      if (!flushed) assert.equal(log.recoveryPoint, recoveryPoint, 'no fsync, no new recovery point');
      return `advance+maybeFlush -> ${flushed}`;
    }
    if (x < 0.69) {
      log.roll();
      return 'roll';
    }
    if (x < 0.72) {
      cfg = randomConfig(r);
      log.updateConfig(cfg);
      return `config ${JSON.stringify(cfg)}`;
    }
    if (x < 0.77) {
      const want = expectedRetention(clock.nowMs());
      const res = log.applyRetention(clock.nowMs());
      assert.equal(res.segmentsDeleted, want.segmentsDeleted, 'segments retention deletes');
      assert.equal(res.logStartOffset, want.logStartOffset, 'log start offset after retention');
      m.lso = want.logStartOffset;
      return `retention -> deleted ${res.segmentsDeleted}, lso ${res.logStartOffset}`;
    }
    if (x < 0.81) {
      const offset = m.lso - 1n + BigInt(r.int(Number(m.leo - m.lso) + 3));
      const res = log.deleteRecordsBefore(offset);
      if (offset > m.leo || offset < 0n) assert.equal(res.kind, 'offset_out_of_range');
      else if (offset > m.lso) {
        m.lso = offset;
        // Data below a new start offset is flushed first.
        assert.ok(log.recoveryPoint >= offset, 'flushed below the new start offset');
      }
      return `deleteRecordsBefore ${offset}`;
    }
    if (x < 0.85) {
      const offset = m.lso - 3n + BigInt(r.int(Number(m.leo - m.lso) + 4));
      const target = offset < 0n ? 0n : offset;
      log.truncateTo(target);
      if (target < m.leo) {
        if (target <= m.lso) {
          m.batches = [];
          m.lso = target;
          m.leo = target;
        } else {
          // The new end is the base of the first batch reaching the target.
          const end = (m.batches.find((b) => b.last >= target) as MBatch).base;
          m.batches = m.batches.filter((b) => b.last < target);
          if (end < m.lso) {
            m.batches = [];
            m.leo = m.lso;
          } else {
            m.leo = end;
          }
        }
      }
      return `truncateTo ${target}`;
    }
    if (x < 0.9) {
      log.flush();
      assert.equal(log.recoveryPoint, m.leo);
      return 'flush';
    }
    if (x < 0.94 || env.mem === null) {
      manager.close();
      const reopened = openManager();
      assert.equal(reopened.truncated, 0, 'a clean restart truncates nothing');
      ({ manager, log } = reopened);
      return 'restart';
    }
    const durable = log.recoveryPoint;
    const torn = r.next() < 0.6;
    env.mem.crash(torn ? r : undefined);
    ({ manager, log } = openManager());
    const leo = log.logEndOffset;
    assert.ok(leo >= durable && leo <= m.leo, `after a crash ${durable} <= ${leo} <= ${m.leo}`);
    m.batches = m.batches.filter((b) => b.last < leo);
    const end = m.batches.length === 0 ? m.lso : (m.batches.at(-1) as MBatch).last + 1n;
    assert.equal(end > m.lso ? end : m.lso, leo, 'the log ends on a model batch boundary');
    m.leo = leo;
    return `crash (torn ${torn}) durable ${durable} -> leo ${leo}`;
  };

  try {
    for (let i = 0; i < STEPS; i++) {
      trace.push(`${step()} [lso ${log.logStartOffset} rp ${log.recoveryPoint}]`);
      check();
    }
    manager.close();
  } catch (err) {
    const tail = trace.slice(-15).map((t, i) => `  ${trace.length - 15 + i}: ${t}`).join('\n');
    throw new Error(`opfuzz seed ${seed} (${useMemory ? 'memory' : 'node'} fs) failed at step ${trace.length}; replay with LOG_FUZZ_SEED=${seed}\n${tail}\ncause: ${err instanceof Error ? err.stack : String(err)}`, { cause: err });
  } finally {
    env.cleanup();
  }
}

const plan = simulationSeeds('LOG_FUZZ', 40, 10);
const seeds = plan.seeds;

describe('storage op-fuzz', () => {
  it(`memory fs, ${seeds.length} seeds, with crashes`, () => {
    console.log(plan.summary);
    for (const seed of seeds) runSeed(seed, true);
  });
  it('node fs, 3 seeds, restarts only', () => {
    for (const seed of seeds.slice(0, 3)) runSeed(seed, false);
  });
});
