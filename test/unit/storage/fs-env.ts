/**
 * Test-only: the same suite runs against MemoryFileSystem and NodeFileSystem
 * (a temp directory under os.tmpdir(), removed by cleanup()), and once more on
 * a NodeFileSystem allowed only OPEN_FILES_MAX_MIN descriptors ('node-lru'),
 * so nearly every call reopens a file the pool closed: lazy opening and LRU
 * eviction under every storage operation (reads of closed old segments,
 * truncation, retention, cleaner swaps, recovery).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/util/clock.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../src/storage/config.js';
import type { FileSystem } from '../../../src/storage/fs.js';
import { NodeFileSystem } from '../../../src/storage/fs.js';
import { OPEN_FILES_MAX_MIN } from '../../../src/storage/file-handle-pool.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { PartitionLog } from '../../../src/storage/partition-log.js';
import type { PartitionLogOptions } from '../../../src/storage/partition-log-state.js';

export type FsKind = 'memory' | 'node' | 'node-lru';
export const FS_KINDS: readonly FsKind[] = ['memory', 'node', 'node-lru'];

export interface FsEnv {
  kind: FsKind;
  fs: FileSystem;
  /** Set for the memory kind. */
  mem: MemoryFileSystem | null;
  root: string;
  clock: ManualClock;
  cleanup(): void;
}

export function makeEnv(kind: FsKind): FsEnv {
  const clock = new ManualClock(1_700_000_000_000);
  if (kind === 'memory') {
    const mem = new MemoryFileSystem();
    mem.mkdirp('/data');
    return { kind, fs: mem, mem, root: '/data', clock, cleanup: () => {} };
  }
  const root = mkdtempSync(join(tmpdir(), 'tributary-storage-'));
  const fs = new NodeFileSystem(kind === 'node-lru' ? { openFilesMax: OPEN_FILES_MAX_MIN } : {});
  return { kind, fs, mem: null, root, clock, cleanup: () => removeTree(root) };
}

/**
 * rm -rf that outlasts a background write: a roll writes its producer
 * snapshot on the thread pool, and one landing while the tree goes makes the
 * last rmdir fail with ENOTEMPTY. The whole removal is retried (rmSync's own
 * retries repeat only the rmdir); the late write then finds no directory,
 * which storage ignores.
 */
function removeTree(root: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      rmSync(root, { recursive: true, force: true });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt >= 100) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

export function config(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

export function openLog(env: FsEnv, cfg: LogConfig, extra: Partial<PartitionLogOptions> = {}): ReturnType<typeof PartitionLog.open> {
  return PartitionLog.open({
    fs: env.fs,
    clock: env.clock,
    dir: join(env.root, 'topic-0'),
    topic: 'topic',
    partition: 0,
    config: cfg,
    ...extra,
  });
}

/** Concatenates a read result's chunks ('' marker for out of range). */
export function readAll(log: PartitionLog, offset: bigint, maxBytes = 1 << 30, opts: Parameters<PartitionLog['read']>[2] = {}): Buffer {
  const r = log.read(offset, maxBytes, opts);
  if (r.kind !== 'records') throw new Error(`read(${offset}) out of range`);
  return Buffer.concat(r.chunks);
}

/** Base offsets of the batches in a buffer of whole batches. */
export function batchOffsets(buf: Buffer): bigint[] {
  const out: bigint[] = [];
  for (let p = 0; p + 12 <= buf.length; p += 12 + buf.readInt32BE(p + 8)) out.push(buf.readBigInt64BE(p));
  return out;
}

/** A test body run on a fresh environment of `kind`, cleaned up afterwards whatever happens. */
export function withEnv(kind: FsKind, fn: (env: FsEnv) => void): () => void {
  return () => {
    const env = makeEnv(kind);
    try {
      fn(env);
    } finally {
      env.cleanup();
    }
  };
}
