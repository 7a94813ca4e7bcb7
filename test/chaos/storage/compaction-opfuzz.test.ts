/**
 * Seeded random keyed writes (with tombstones, committed and aborted
 * transactions and markers of transactions without data here),
 * rolls, cleaner steps, retention, truncation above the high watermark,
 * restarts and crashes (MemoryFileSystem, also in the middle of a segment
 * swap), checked after every step against a model of what was written:
 *   - offsets never change: every record read back is the one written at
 *     its offset, offsets strictly increase; a marker stays while a record
 *     of its transaction does, and until its delete horizon;
 *   - a read_committed consumer (the real decoder, the log's aborted
 *     transactions) sees exactly the committed records present, also after
 *     crashes in the middle of a swap (the `.txnindex` is replaced after the
 *     `.log`); aborted records are gone once everything was cleaned;
 *   - the latest record of every key is readable, unless it is a tombstone
 *     whose delete horizon may have passed;
 *   - the log end offset moves only with appends, truncations and crashes;
 *   - a read from any offset starts at the first batch ending at or after it.
 * Seeds (test/helpers/seeds.ts): 24 fixed, the regression seeds below and 6 rotating per run;
 * COMPACTION_FUZZ_SEED=n replays one, COMPACTION_FUZZ_SEED_BASE=b a rotating
 * block, COMPACTION_FUZZ_SEEDS=n sets the fixed block. The seed is printed on
 * failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildControlBatch, buildRecordBatch, ControlRecordType } from '../../../src/protocol/record-batch/builder.js';
import { ATTR_CONTROL } from '../../../src/protocol/record-batch/header.js';
import { decodeRecordBatch, recordOffset, splitBatches } from '../../../src/protocol/record-batch/reader.js';
import { decodePartition } from '../../../src/client/consumer-decode.js';
import type { SwapPoint } from '../../../src/storage/cleaner/segment-swap.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../src/storage/config.js';
import { NodeFileSystem, type FileSystem } from '../../../src/storage/fs.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import type { PartitionLog } from '../../../src/storage/partition-log.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { simulationSeeds } from '../../helpers/seeds.js';

const STEPS = 160;
const KEYS = 12;

interface Written {
  key: string | null;
  value: string | null;
  control: boolean;
  appendedMs: number;
  /** The transaction a data record or marker belongs to, or null. */
  txn: TxnModel | null;
}

/** A transaction of the fuzz: its data is appended, then at once its marker (or, cut by a crash or truncation, an ABORT). */
interface TxnModel {
  producerId: bigint;
  aborted: boolean;
  /** The offset of its marker while it is in the log, else null. */
  markerOffset: bigint | null;
}

class Crash extends Error {}

/** Over all seeds run: proof that the interesting paths were taken. */
const totals = { swapped: 0, completed: 0, swapCrashes: 0, aborted: 0 };

function randomConfig(r: SeededRandom): LogConfig {
  return {
    ...DEFAULT_LOG_CONFIG,
    segmentBytes: 300 + r.int(3000),
    indexIntervalBytes: r.int(400),
    segmentIndexBytes: 48 + r.int(800),
    retentionMs: r.next() < 0.3 ? 20_000 + r.int(60_000) : -1,
    cleanupPolicy: { compact: true, delete: r.next() < 0.3 },
    deleteRetentionMs: r.int(3) === 0 ? 0 : r.int(20_000),
    minCleanableDirtyRatio: [0, 0.1, 0.5, 0.9][r.int(4)] as number,
    minCompactionLagMs: r.next() < 0.3 ? r.int(5000) : 0,
    maxCompactionLagMs: r.next() < 0.3 ? 5000 + r.int(20_000) : Number.MAX_SAFE_INTEGER,
  };
}

async function runSeed(seed: number, useMemory: boolean): Promise<void> {
  const r = new SeededRandom(seed);
  const clock = new ManualClock(1_700_000_000_000);
  let fs: FileSystem;
  let mem: MemoryFileSystem | null = null;
  let dataDir = '/data';
  let cleanup = (): void => {};
  if (useMemory) {
    mem = new MemoryFileSystem();
    fs = mem;
  } else {
    const root = mkdtempSync(join(tmpdir(), 'tributary-compaction-'));
    fs = new NodeFileSystem();
    dataDir = join(root, 'data');
    cleanup = () => rmSync(root, { recursive: true, force: true });
  }
  const cfg = randomConfig(r);
  const stepBytesMax = 100 + r.int(4000);
  const codecs = [0, 0, 1, 2, 3, 4];
  let crashPoint: SwapPoint | null = null;
  /** The recovery point when the last crash happened: a crash never loses what was fsynced. */
  let durableAtCrash = 0n;
  const onSwapPoint = (point: SwapPoint, crashing: PartitionLog): void => {
    if (mem !== null && crashPoint === point) {
      crashPoint = null;
      durableAtCrash = crashing.recoveryPoint;
      mem.crash(r.next() < 0.5 ? r : undefined);
      throw new Crash(point);
    }
  };
  let hw = 0n;
  const open = (): { manager: LogManager; log: PartitionLog } => {
    const { manager } = LogManager.open({
      fs, clock, dataDir, defaultConfig: cfg, configFor: () => cfg,
      // As the broker: nothing at or above the high watermark or the LSO is cleaned.
      cleaner: { backoffMs: 0, stepBytesMax, offsetMapEntriesMax: 2 + r.int(20), onSwapPoint, cleanableBound: (l) => {
        l.producerState.onHighWatermarkUpdated(hw); // the partition does this as its high watermark moves
        const unstable = l.producerState.firstUnstableOffset();
        return unstable !== null && unstable < hw ? unstable : hw;
      } },
    });
    return { manager, log: manager.getOrCreateLog('fuzz', 0) };
  };
  let { manager, log } = open();
  const written = new Map<bigint, Written>();
  let lso = 0n;
  let leo = 0n;
  /** Batch ends: a high watermark is always at one (followers fetch whole batches). */
  let boundaries: bigint[] = [0n];
  const trace: string[] = [];

  const afterCrash = (): void => {
    ({ manager, log } = open());
    // After a crash the log is recovered on first use or by the background slices (storage README, step 8): run them.
    manager.recoverSome(Number.MAX_SAFE_INTEGER);
    const names = fs.readdir(join(dataDir, 'fuzz-0'));
    assert.deepEqual(names.filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap')), [], 'no temp files after recovery');
    assert.ok(log.logEndOffset <= leo, 'a crash loses, never adds');
    assert.ok(log.logEndOffset >= durableAtCrash, `a crash keeps the recovery point ${durableAtCrash} (log end ${log.logEndOffset})`);
    // The model's log start: only retention moves it here, by deleting whole
    // segments, and a crash neither brings them back nor deletes more.
    assert.equal(log.logStartOffset, lso, 'log start offset after a crash');
    leo = log.logEndOffset;
    for (const o of [...written.keys()]) if (o >= leo) written.delete(o);
    boundaries = boundaries.filter((b) => b < leo).concat([leo]);
    if (hw > leo) hw = leo;
    abortCutTransactions();
  };

  /** Appends one batch at the log end and records it in the model. */
  const appendBatch = (batch: Buffer, entries: Omit<Written, 'appendedMs'>[]): bigint => {
    const res = log.append(batch);
    assert.equal(res.baseOffset, leo);
    entries.forEach((w, i) => written.set(res.baseOffset + BigInt(i), { ...w, appendedMs: clock.nowMs() }));
    leo = res.lastOffset + 1n;
    boundaries.push(leo);
    return res.baseOffset;
  };

  const endTxn = (t: TxnModel, commit: boolean): void => {
    t.aborted = !commit;
    const batch = buildControlBatch({ type: commit ? ControlRecordType.Commit : ControlRecordType.Abort, producerId: t.producerId, producerEpoch: 0, coordinatorEpoch: 0, timestampMs: clock.nowMs() });
    t.markerOffset = appendBatch(batch, [{ key: null, value: null, control: true, txn: t }]);
  };

  /** A crash or truncation that cut a transaction's marker but not all its data: the coordinator aborts it (its timeout). */
  function abortCutTransactions(): void {
    const cut = new Set<TxnModel>();
    for (const w of written.values()) if (w.txn !== null && !w.control && (w.txn.markerOffset === null || w.txn.markerOffset >= leo)) cut.add(w.txn);
    for (const t of cut) {
      t.markerOffset = null;
      endTxn(t, false);
    }
  }

  /**
   * Where the log must end after truncateTo(target): after the last batch
   * lying wholly below target, or at the base offset of the segment the cut
   * falls in, if that segment keeps no batch (segments are named by it).
   */
  const endOfLastBatchBelow = async (target: bigint): Promise<bigint> => {
    let end = log.logStartOffset;
    for (const s of log.segmentInfos()) if (s.baseOffset < target && s.baseOffset > end) end = s.baseOffset;
    const res = log.read(log.logStartOffset, 1 << 30);
    if (res.kind !== 'records') return end;
    for (const chunk of res.chunks) {
      for (const batch of splitBatches(chunk)) {
        const { header } = await decodeRecordBatch(batch);
        const last = header.baseOffset + BigInt(header.lastOffsetDelta);
        if (last < target) end = last + 1n;
      }
    }
    return end;
  };

  /** What a read_committed consumer of the whole log sees (the real decoder, with the log's aborted transactions). */
  const readCommitted = async (): Promise<bigint[]> => {
    const res = log.read(log.logStartOffset, 1 << 30);
    assert.ok(res.kind === 'records');
    const target = { topic: 'fuzz', partition: 0, fetchOffset: log.logStartOffset, keyDeserializer: null, valueDeserializer: null };
    const { records } = await decodePartition(target, Buffer.concat(res.chunks), log.collectAbortedTransactions(log.logStartOffset, log.logEndOffset));
    return records.map((rec) => rec.offset);
  };
  const isAborted = (w: Written): boolean => w.txn !== null && w.txn.aborted;

  const check = async (): Promise<void> => {
    assert.equal(log.logEndOffset, leo, 'log end offset');
    assert.equal(log.logStartOffset, lso, 'log start offset');
    const infos = log.segmentInfos();
    for (let i = 1; i < infos.length; i++) assert.equal(infos[i]?.baseOffset, infos[i - 1]?.nextOffset, 'segments are contiguous');
    const res = log.read(lso, 1 << 30);
    assert.ok(res.kind === 'records');
    const seen = new Map<string, bigint>();
    const present = new Set<bigint>();
    let prev = -1n;
    for (const chunk of res.chunks) {
      for (const batch of splitBatches(chunk)) {
        const { header, records } = await decodeRecordBatch(batch);
        if ((header.attributes & ATTR_CONTROL) !== 0) {
          assert.ok(written.get(header.baseOffset)?.control === true, `control batch at ${header.baseOffset}`);
          present.add(header.baseOffset);
          prev = header.baseOffset;
          continue;
        }
        for (const rec of records) {
          const offset = recordOffset(header, rec);
          assert.ok(offset > prev, `offsets increase at ${offset}`);
          prev = offset;
          const w = written.get(offset);
          assert.ok(w !== undefined && !w.control, `record at ${offset} was written`);
          assert.equal(rec.key?.toString() ?? null, w.key, `key at ${offset}`);
          assert.equal(rec.value?.toString() ?? null, w.value, `value at ${offset}`);
          present.add(offset);
          if (offset >= lso && w.key !== null) seen.set(w.key, offset);
        }
      }
    }
    // Control batches below the log start offset's segment may go with retention only.
    const latest = new Map<string, bigint>();
    for (const [o, w] of written) if (o >= lso && w.key !== null && !isAborted(w) && (latest.get(w.key) ?? -1n) < o) latest.set(w.key, o);
    for (const [key, o] of latest) {
      const w = written.get(o) as Written;
      if (present.has(o)) continue;
      const tombstoneMayGo = w.value === null && w.appendedMs + (cfg.deleteRetentionMs ?? 0) <= clock.nowMs();
      assert.ok(tombstoneMayGo, `latest record of ${key} (offset ${o}, ${w.value === null ? 'tombstone' : 'value'}) is readable`);
    }
    // A marker stays while a record of its transaction does, and until its delete horizon (stamped at a cleaning after its append).
    for (const [o, w] of written) {
      if (w.control && o >= lso && w.appendedMs + (cfg.deleteRetentionMs ?? 0) > clock.nowMs()) assert.ok(present.has(o), `control batch ${o} kept`);
      if (!w.control && w.txn !== null && present.has(o)) {
        const m = w.txn.markerOffset;
        assert.ok(m !== null && present.has(m), `marker ${m} of the transaction of ${o} kept while ${o} is there`);
      }
    }
    // read_committed sees exactly the records that are there and not aborted.
    const visible = await readCommitted();
    const expected = [...present].filter((o) => o >= lso && written.get(o)?.control === false && !isAborted(written.get(o) as Written)).sort((a, b) => (a < b ? -1 : 1));
    assert.deepEqual(visible, expected, 'read_committed sees the committed records present');
    if (leo > lso) {
      const at = lso + BigInt(r.int(Number(leo - lso)));
      const one = log.read(at, 1);
      assert.ok(one.kind === 'records' && one.chunks.length > 0, `read at ${at}`);
      const first = one.chunks[0] as Buffer;
      const last = first.readBigInt64BE(0) + BigInt(first.readInt32BE(23));
      assert.ok(last >= at, `read at ${at} starts at a batch ending at ${last}`);
      const later = [...present].filter((o) => o >= at);
      if (later.length > 0) assert.ok(first.readBigInt64BE(0) <= (later.reduce((a, b) => (a < b ? a : b))), `no record between ${at} and the first batch returned`);
    }
  };

  /**
   * After cleaning everything below the log end twice, the second time past
   * every delete horizon: each key keeps only its latest offset, and no
   * tombstone is left. Control batches are not checked here.
   */
  const checkFullyCleaned = async (): Promise<void> => {
    const latest = new Map<string, bigint>();
    for (const [o, w] of written) if (o >= lso && w.key !== null && !isAborted(w) && (latest.get(w.key) ?? -1n) < o) latest.set(w.key, o);
    const res = log.read(lso, 1 << 30);
    assert.ok(res.kind === 'records');
    const kept = new Map<string, bigint>();
    for (const chunk of res.chunks) {
      for (const batch of splitBatches(chunk)) {
        const { header, records } = await decodeRecordBatch(batch);
        if ((header.attributes & ATTR_CONTROL) !== 0) continue;
        for (const rec of records) {
          const offset = recordOffset(header, rec);
          const key = rec.key?.toString() ?? null;
          assert.ok(key !== null, `keyless record at ${offset} after cleaning`);
          assert.ok(!isAborted(written.get(offset) as Written), `aborted record at ${offset} kept after cleaning`);
          assert.equal(latest.get(key), offset, `offset ${offset} of ${key} is superseded by ${latest.get(key)} but was kept`);
          assert.ok(rec.value !== null, `tombstone of ${key} at ${offset} kept past its delete horizon`);
          assert.ok(!kept.has(key), `two records of ${key}`);
          kept.set(key, offset);
        }
      }
    }
    for (const [key, o] of latest) {
      if ((written.get(o) as Written).value !== null) assert.equal(kept.get(key), o, `latest value of ${key} kept`);
    }
  };

  let counter = 0;
  const step = async (): Promise<string> => {
    const x = r.next();
    if (x < 0.4) {
      const n = 1 + r.int(6);
      const records = [];
      const codec = codecs[r.int(codecs.length)] as number;
      for (let i = 0; i < n; i++) {
        const key = `k${r.int(KEYS)}`;
        records.push({ key, value: r.next() < 0.15 ? null : `v${counter++}` });
      }
      const kind = r.next();
      if (kind < 0.05) {
        // A marker of a transaction that wrote nothing here.
        const t: TxnModel = { producerId: 1n, aborted: false, markerOffset: null };
        endTxn(t, true);
        return `append ${t.markerOffset} control (no data)`;
      }
      if (kind < 0.3) {
        // A transaction: its data, then its marker (committed or aborted).
        const t: TxnModel = { producerId: BigInt(11 + r.int(3)), aborted: false, markerOffset: null };
        const batch = await buildRecordBatch({ records, compression: codec, timestampMs: clock.nowMs(), producerId: t.producerId, producerEpoch: 0, baseSequence: 0, transactional: true });
        const base = appendBatch(batch, records.map((rec) => ({ ...rec, control: false, txn: t })));
        const commit = r.next() < 0.6;
        endTxn(t, commit);
        return `append ${base}..${base + BigInt(n - 1)} transactional codec ${codec}, ${commit ? 'COMMIT' : 'ABORT'} at ${t.markerOffset}`;
      }
      const batch = await buildRecordBatch({ records: records.map((rec) => ({ key: rec.key, value: rec.value })), compression: codec, timestampMs: clock.nowMs() });
      const base = appendBatch(batch, records.map((rec) => ({ ...rec, control: false, txn: null })));
      return `append ${base}..${base + BigInt(n - 1)} codec ${codec}`;
    }
    if (x < 0.48) {
      log.roll();
      return 'roll';
    }
    if (x < 0.53) {
      const ahead = boundaries.filter((b) => b >= hw);
      hw = ahead[r.int(ahead.length)] ?? hw;
      return `hw ${hw}`;
    }
    if (x < 0.58) {
      clock.advance(r.int(8000));
      const t = manager.tick(clock.nowMs());
      lso = log.logStartOffset;
      return `advance + tick (deleted ${t.segmentsDeleted})`;
    }
    if (x < 0.83) {
      const n = 1 + r.int(4);
      const kinds: string[] = [];
      if (mem !== null && r.next() < 0.08) crashPoint = (['cleaned-written', 'old-indexes-removed', 'log-renamed', 'txnindex-replaced', 'index-renamed', 'timeindex-renamed'] as const)[r.int(6)] as SwapPoint;
      try {
        for (let i = 0; i < n; i++) kinds.push((await manager.cleaner.cleanOneStep(clock.nowMs())).kind);
      } catch (err) {
        if (!(err instanceof Crash)) throw err;
        totals.swapCrashes++;
        afterCrash();
        return `cleaner steps ${kinds.join(',')} then crash at ${err.message}`;
      }
      crashPoint = null;
      for (const k of kinds) assert.ok(k !== 'failed', 'no corrupt data');
      totals.swapped += kinds.filter((k) => k === 'swapped').length;
      totals.completed += kinds.filter((k) => k === 'completed').length;
      totals.aborted += kinds.filter((k) => k === 'aborted').length;
      return `cleaner steps ${kinds.join(',')}`;
    }
    if (x < 0.87) {
      // Replication truncates at or above the high watermark. The batch holding
      // the target goes whole, so the log ends after the last batch kept: below
      // the high watermark when the cleaner removed every batch between the two
      // (storage README, "Truncation"); the partition then lowers its high
      // watermark to the log end, as here.
      const target = hw + BigInt(r.int(Number(leo - hw) + 1));
      const expectedEnd = await endOfLastBatchBelow(target);
      log.truncateTo(target);
      leo = log.logEndOffset;
      assert.equal(leo, expectedEnd, `truncated to ${target}: the log ends after the last batch kept`);
      assert.ok(leo <= target, `truncated to ${leo}`);
      if (hw > leo) hw = leo;
      for (const o of [...written.keys()]) if (o >= leo) written.delete(o);
      boundaries = boundaries.filter((b) => b < leo).concat([leo]);
      abortCutTransactions();
      return `truncateTo ${target} -> ${leo}`;
    }
    if (x < 0.93 || mem === null) {
      manager.close();
      ({ manager, log } = open());
      assert.equal(log.logEndOffset, leo, 'a clean restart keeps everything');
      return 'restart';
    }
    durableAtCrash = log.recoveryPoint;
    mem.crash(r.next() < 0.6 ? r : undefined);
    afterCrash();
    return `crash -> leo ${leo}`;
  };

  try {
    for (let i = 0; i < STEPS; i++) {
      trace.push(`${await step()} [lso ${log.logStartOffset} leo ${log.logEndOffset} hw ${hw} dirty ${manager.cleaner.firstDirtyOffset(log)}]`);
      await check();
    }
    // Finally: everything gets cleaned, and cleaning removed what it must.
    // The dirty-ratio and lag thresholds go to zero (they decide when, not
    // what), one fresh key makes the log dirty so the first pass runs a job
    // over every segment (setting the delete horizon of every tombstone it
    // keeps), and the second pass runs after that horizon.
    log.updateConfig({ ...cfg, minCleanableDirtyRatio: 0, minCompactionLagMs: 0 });
    const fresh = await buildRecordBatch({ records: [{ key: 'final', value: 'last' }], compression: 0, timestampMs: clock.nowMs() });
    written.set(log.append(fresh).baseOffset, { key: 'final', value: 'last', control: false, appendedMs: clock.nowMs(), txn: null });
    leo = log.logEndOffset;
    hw = leo;
    log.roll();
    log.flush();
    await manager.cleaner.cleanUntilIdle(clock.nowMs());
    await check();
    clock.advance((cfg.deleteRetentionMs ?? 0) + 1);
    await manager.cleaner.cleanUntilIdle(clock.nowMs());
    await check();
    await checkFullyCleaned();
    manager.close();
  } catch (err) {
    const tail = trace.slice(-15).map((t, i) => `  ${trace.length - 15 + i}: ${t}`).join('\n');
    throw new Error(`compaction opfuzz seed ${seed} (${useMemory ? 'memory' : 'node'} fs) failed at step ${trace.length}; replay with COMPACTION_FUZZ_SEED=${seed}\nconfig ${JSON.stringify(cfg)}\n${tail}\ncause: ${err instanceof Error ? err.stack : String(err)}`, { cause: err });
  } finally {
    cleanup();
  }
}

/**
 * Seeds that found bugs:
 *   577752015, 975996988: recovery cut a torn batch without fsyncing the cut;
 *     appends over it, lost in the next crash, let the torn batch's durable
 *     bytes be completed by new ones, and an old record came back at a reused
 *     offset (storage README, "Recovery").
 *   113: a clean restart forgot that a committed transaction's marker was not
 *     below the high watermark; the cleaner compacted with it, and a
 *     truncation then turned it into an abort, losing a key's latest value
 *     (producer-state README, "Snapshots").
 */
const REGRESSION_SEEDS = [113, 577752015, 975996988];
const plan = simulationSeeds('COMPACTION_FUZZ', 24, 6, REGRESSION_SEEDS);
const seeds = plan.seeds;

describe('compaction op-fuzz', () => {
  it(`memory fs, ${seeds.length} seeds, with crashes (also mid-swap)`, async () => {
    console.log(plan.summary);
    for (const seed of seeds) await runSeed(seed, true);
    if (seeds.length >= 10) {
      assert.ok(totals.completed > 0 && totals.swapped > 0 && totals.swapCrashes > 0, JSON.stringify(totals));
    }
    console.log(`compaction op-fuzz totals: ${JSON.stringify(totals)}`);
  });
  it('node fs, 3 seeds, restarts only', async () => {
    for (const seed of seeds.slice(0, 3)) await runSeed(seed, false);
  });
});
