/**
 * Log cleaner throughput: writes a compacted log of SIZE_MB (default 1024)
 * MB of 1 KiB values with 16-byte keys, where each key is written ~10 times
 * (so 10% of the records are live at the end), then times the cleaner
 * compacting it fully, in the broker's step size, on the real file system
 * (a temp directory, removed afterwards).
 *
 *   node dist/bench/compaction.js
 *   SIZE_MB=256 CODEC=lz4 node dist/bench/compaction.js
 *
 * Env: SIZE_MB (1024), VALUE_BYTES (1024), LIVE_PERCENT (10), BATCH_RECORDS (64),
 * CODEC (none|gzip|snappy|lz4|zstd; none), SEGMENT_MB (128), STEP_MB (2, the cleaner's default).
 * Values are random lowercase text (about 1.6x compressible). Prints MB/s of
 * log cleaned (log size before / time), records/s, and the longest step
 * (how long one cleanOneStep holds the event loop).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecordBatch, buildRecordBatchSync } from '../src/protocol/record-batch/builder.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../src/storage/config.js';
import { NodeFileSystem } from '../src/storage/fs.js';
import { LogManager } from '../src/storage/log-manager.js';
import { systemClock } from '../src/util/clock.js';

const env = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined ? fallback : Number(v);
};
const SIZE_MB = env('SIZE_MB', 1024);
const VALUE_BYTES = env('VALUE_BYTES', 1024);
const LIVE_PERCENT = env('LIVE_PERCENT', 10);
const BATCH_RECORDS = env('BATCH_RECORDS', 64);
const SEGMENT_MB = env('SEGMENT_MB', 128);
const STEP_MB = env('STEP_MB', 2);
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const CODEC = Math.max(0, CODECS.indexOf(process.env.CODEC ?? 'none'));
const MB = 1024 * 1024;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'tributary-compaction-bench-'));
  try {
    const cfg: LogConfig = {
      ...DEFAULT_LOG_CONFIG,
      segmentBytes: SEGMENT_MB * MB,
      cleanupPolicy: { delete: false, compact: true },
      minCleanableDirtyRatio: 0.5,
    };
    const { manager } = LogManager.open({
      fs: new NodeFileSystem(),
      clock: systemClock,
      dataDir: root,
      defaultConfig: cfg,
      cleaner: { stepBytesMax: STEP_MB * MB, backoffMs: 0 },
    });
    const log = manager.getOrCreateLog('bench', 0);
    // Approximate record size on disk, to pick the record count.
    const recordBytes = VALUE_BYTES + 16 + 10;
    const records = Math.ceil((SIZE_MB * MB) / recordBytes);
    const liveKeys = Math.max(1, Math.floor((records * LIVE_PERCENT) / 100));
    // Values are slices of a pool of random lowercase text (compresses about 1.6x), not one repeated byte.
    const pool = Buffer.alloc(VALUE_BYTES + 65536);
    let seed = 12345;
    for (let i = 0; i < pool.length; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      pool[i] = 0x61 + ((seed >>> 16) % 26);
    }
    const valueAt = (i: number): Buffer => pool.subarray(i % 65536, (i % 65536) + VALUE_BYTES);
    const key = (i: number): string => `key-${(i % liveKeys).toString().padStart(12, '0')}`;
    let written = 0;
    const writeStart = performance.now();
    while (written < records) {
      const n = Math.min(BATCH_RECORDS, records - written);
      const batchRecords = Array.from({ length: n }, (_, i) => ({ key: key(written + i), value: valueAt((written + i) * 7919) }));
      const opts = { records: batchRecords, compression: CODEC, timestampMs: Date.now() };
      log.append(CODEC === 4 ? await buildRecordBatch(opts) : buildRecordBatchSync(opts));
      written += n;
    }
    log.roll();
    log.flush();
    const writeS = (performance.now() - writeStart) / 1000;
    const sizeBefore = log.sizeBytes;
    const segments = log.segmentCount - 1;
    console.log(`wrote ${records} records (${liveKeys} live keys, ${VALUE_BYTES} B values, ${BATCH_RECORDS}/batch, codec ${CODECS[CODEC]}): ` +
      `${(sizeBefore / MB).toFixed(0)} MB in ${segments} segments of ${SEGMENT_MB} MB, ${writeS.toFixed(1)} s`);

    const heapBefore = process.memoryUsage().rss;
    const start = performance.now();
    let steps = 0;
    let removed = 0;
    let longestStepMs = 0;
    const longestByKind = new Map<string, number>();
    for (;;) {
      const t = performance.now();
      const r = await manager.cleaner.cleanOneStep(Date.now());
      const ms = performance.now() - t;
      longestStepMs = Math.max(longestStepMs, ms);
      steps++;
      removed += r.recordsRemoved;
      longestByKind.set(r.kind, Math.max(longestByKind.get(r.kind) ?? 0, ms));
      if (r.kind === 'completed' || r.kind === 'idle') break;
      if (r.kind === 'aborted' || r.kind === 'failed') throw new Error(`cleaner ${r.kind}: ${r.reason}`);
    }
    const seconds = (performance.now() - start) / 1000;
    const sizeAfter = log.sizeBytes;
    console.log(`cleaned in ${seconds.toFixed(2)} s, ${steps} steps (longest ${longestStepMs.toFixed(0)} ms): ` +
      `${(sizeBefore / MB / seconds).toFixed(1)} MB/s of log, ${Math.round(records / seconds)} records/s; ` +
      `removed ${removed} records, ${(sizeBefore / MB).toFixed(0)} MB -> ${(sizeAfter / MB).toFixed(0)} MB; ` +
      `rss +${((process.memoryUsage().rss - heapBefore) / MB).toFixed(0)} MB`);
    console.log(`longest step by kind (ms): ${JSON.stringify(Object.fromEntries([...longestByKind].map(([k, v]) => [k, Math.round(v)])))}`);
    manager.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
