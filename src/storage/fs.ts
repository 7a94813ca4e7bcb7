/**
 * The file system as an injected dependency (CONTRIBUTING.md: determinism at the core). Storage
 * never touches `node:fs` except through this interface, so the same engine
 * runs on disk (NodeFileSystem) and in the seeded simulator
 * (MemoryFileSystem, which can "crash" and lose what was not fsynced).
 *
 * Synchronous on purpose: a write to the page cache takes microseconds, an
 * async round trip through the libuv pool costs more than the write, and sync
 * calls keep the engine's state transitions atomic and deterministic.
 *
 * The exceptions are the calls that wait for the disk (an fsync takes
 * milliseconds, and blocks the event loop for all of them): `syncAsync` and
 * `writeFileAtomicAsync` run their fsyncs on libuv's thread pool, for work
 * that need not hold up requests (periodic checkpoints, producer-state
 * snapshots, the flushes of a graceful stop). Ordering rules: write-order.ts.
 */
import * as nodeFs from 'node:fs';
import { dirname } from 'node:path';
import { FileHandlePool, OPEN_FILES_MAX_DEFAULT } from './file-handle-pool.js';
import { BACKGROUND_WRITES_MAX, ConcurrencyLimit, PathWriteOrder } from './write-order.js';

/** An open file. Positions are byte offsets; all writes are positional. */
export interface FileHandle {
  readonly path: string;
  /** Current length in bytes (including writes not yet fsynced). */
  size(): number;
  /** Writes all of `data` at `position` (may extend the file). */
  write(data: Buffer, position: number): void;
  /** Writes all of `data` at the end of the file; returns where it started. */
  append(data: Buffer): number;
  /** Reads up to `length` bytes at `position` into `buf[bufOffset..]`; returns bytes read (short at EOF). */
  read(buf: Buffer, bufOffset: number, length: number, position: number): number;
  truncate(size: number): void;
  /** fdatasync: data written so far survives a crash once this returns. */
  sync(): void;
  /**
   * fdatasync on the thread pool: data written before the call survives a
   * crash once the promise resolves. The handle may be closed meanwhile
   * (its descriptor stays open until the sync is done).
   */
  syncAsync(): Promise<void>;
  close(): void;
}

export interface FileSystem {
  /** Opens a file for reading and writing; creates it (empty) when `create` and missing. */
  open(path: string, options?: { create?: boolean }): FileHandle;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** mkdir -p. */
  mkdirp(path: string): void;
  /** Entry names (files and directories) of a directory, sorted. */
  readdir(path: string): string[];
  /** Names of the directories directly in a directory, sorted (one call, no stat per entry). */
  subdirectories(path: string): string[];
  /** Atomic rename of a file or directory (replaces an existing file). */
  rename(from: string, to: string): void;
  unlink(path: string): void;
  /** rm -rf: removes a file or a directory tree; no error when missing. */
  rmrf(path: string): void;
  readFile(path: string): Buffer;
  /** Write to `<path>.tmp`, fsync, rename over `path`, fsync the directory. */
  writeFileAtomic(path: string, data: Buffer): void;
  /**
   * writeFileAtomic with the temp file's write and fsync and the directory
   * fsync off the event loop (at most BACKGROUND_WRITES_MAX at once). Until it
   * lands, reads see the previous content. It never lands after a newer
   * change of `path` (a later write, sync or async, a rename, an unlink): then
   * it is dropped. Resolves when the content is in place and durable, or
   * dropped; never rejects: an I/O error goes to the file system's error
   * listener (a checkpoint or snapshot is written again later), and a write
   * into a directory removed meanwhile (a deleted log) is dropped quietly.
   * `data` must not change until it resolves.
   */
  writeFileAtomicAsync(path: string, data: Buffer): Promise<void>;
  /** Resolves once no background write (writeFileAtomicAsync) is pending: a clean shutdown waits for it. */
  settled(): Promise<void>;
}

/** Where read bytes go: a Buffer of exactly `length` bytes (default: a fresh one). */
export type ReadAllocator = (length: number) => Buffer;

/** Reads exactly [position, position + length) or fewer bytes at EOF, into a Buffer from `allocate`. */
export function readRange(file: FileHandle, position: number, length: number, allocate: ReadAllocator = Buffer.allocUnsafe): Buffer {
  const buf = allocate(length);
  const n = file.read(buf, 0, length, position);
  return n === length ? buf : buf.subarray(0, n);
}

/** What NodeFileSystem is built with. */
export interface NodeFileSystemOptions {
  /**
   * At most this many descriptors held open by storage (`log.open.files.max`);
   * files beyond it are closed least recently used first and reopened on use
   * (file-handle-pool.ts). Default OPEN_FILES_MAX_DEFAULT.
   */
  openFilesMax?: number;
  /** Told about a background write that failed (writeFileAtomicAsync never rejects); the broker logs it. */
  onBackgroundWriteError?: (path: string, err: unknown) => void;
}

/**
 * The production file system: node:fs synchronous calls, with descriptors
 * bounded by a FileHandlePool (opened on first use, least recently used
 * closed first), so partitions are not limited by `ulimit -n`.
 */
export class NodeFileSystem implements FileSystem {
  readonly handles: FileHandlePool;
  private readonly order = new PathWriteOrder();
  private readonly background = new ConcurrencyLimit(BACKGROUND_WRITES_MAX);
  /** Per directory, an fsync queued and not started yet: later renames in it share that one. */
  private readonly dirSyncsQueued = new Map<string, Promise<void>>();
  private readonly onBackgroundWriteError: (path: string, err: unknown) => void;

  constructor(options: NodeFileSystemOptions = {}) {
    this.handles = new FileHandlePool(options.openFilesMax ?? OPEN_FILES_MAX_DEFAULT);
    this.onBackgroundWriteError = options.onBackgroundWriteError ?? (() => {});
  }

  open(path: string, options: { create?: boolean } = {}): FileHandle {
    return this.handles.open(path, options.create === true);
  }

  exists(path: string): boolean {
    return nodeFs.existsSync(path);
  }

  isDirectory(path: string): boolean {
    try {
      return nodeFs.statSync(path).isDirectory();
    } catch {
      return false;
    }
  }

  mkdirp(path: string): void {
    nodeFs.mkdirSync(path, { recursive: true });
  }

  readdir(path: string): string[] {
    return this.handles.withRelief(path, () => nodeFs.readdirSync(path)).sort();
  }

  subdirectories(path: string): string[] {
    const entries = this.handles.withRelief(path, () => nodeFs.readdirSync(path, { withFileTypes: true }));
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  }

  rename(from: string, to: string): void {
    this.order.issue(from);
    this.order.issue(to);
    const fromIsDir = this.isDirectory(from);
    this.handles.pinUnder(from, fromIsDir);
    this.handles.pinUnder(to, this.isDirectory(to));
    nodeFs.renameSync(from, to);
    this.syncDirectory(dirname(to));
  }

  unlink(path: string): void {
    this.order.issue(path);
    this.handles.pinUnder(path, false);
    nodeFs.unlinkSync(path);
  }

  rmrf(path: string): void {
    this.order.issue(path);
    this.handles.pinUnder(path, this.isDirectory(path));
    nodeFs.rmSync(path, { recursive: true, force: true });
  }

  readFile(path: string): Buffer {
    return this.handles.withRelief(path, () => nodeFs.readFileSync(path));
  }

  writeFileAtomic(path: string, data: Buffer): void {
    const tmp = `${path}.tmp`;
    const fd = this.handles.openFd(tmp, nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT | nodeFs.constants.O_TRUNC);
    try {
      let done = 0;
      while (done < data.length) done += nodeFs.writeSync(fd, data, done, data.length - done);
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
    this.rename(tmp, path);
  }

  writeFileAtomicAsync(path: string, data: Buffer): Promise<void> {
    const n = this.order.issue(path);
    return this.background.run(async () => {
      try {
        await this.writeInstallAndSync(path, data, n);
      } catch (err) {
        // A log deleted meanwhile takes its directory with it: nothing to keep.
        if ((err as { code?: unknown }).code !== 'ENOENT' || nodeFs.existsSync(dirname(path))) this.onBackgroundWriteError(path, err);
      } finally {
        this.order.done(path, n);
      }
    });
  }

  settled(): Promise<void> {
    return this.background.idle();
  }

  /** The steps of writeFileAtomicAsync: each await runs on the thread pool; the checks and the rename on the loop. */
  private async writeInstallAndSync(path: string, data: Buffer, n: number): Promise<void> {
    if (!this.order.isNewest(path, n)) return; // superseded before it started
    // Its own temp name: a sync write of the same path may use `<path>.tmp` meanwhile.
    const tmp = `${path}.${n}.tmp`;
    const file = await nodeFs.promises.open(tmp, 'w', 0o644);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    if (!this.order.isNewest(path, n)) {
      await nodeFs.promises.rm(tmp, { force: true });
      return;
    }
    // The check and the rename happen in one synchronous step, so no newer
    // change can come between them; a rename is metadata only (no disk wait).
    this.handles.pinUnder(path, false);
    nodeFs.renameSync(tmp, path);
    await this.syncDirectoryAsync(dirname(path));
  }

  /** fsync of a directory on the thread pool, shared with every rename in it made before it starts. */
  private syncDirectoryAsync(path: string): Promise<void> {
    const queued = this.dirSyncsQueued.get(path);
    if (queued !== undefined) return queued;
    const sync = (async () => {
      // Yield once so that renames made in the same turn of the loop share it.
      await Promise.resolve();
      this.dirSyncsQueued.delete(path);
      let dir: nodeFs.promises.FileHandle | null = null;
      try {
        dir = await nodeFs.promises.open(path, 'r');
        await dir.sync();
      } catch {
        // As syncDirectory: not every platform can open a directory.
      } finally {
        await dir?.close();
      }
    })();
    this.dirSyncsQueued.set(path, sync);
    return sync;
  }

  /** fsync a directory so a rename or create in it is durable; not every platform allows it. */
  private syncDirectory(path: string): void {
    let fd = -1;
    try {
      fd = this.handles.openFd(path, nodeFs.constants.O_RDONLY);
      nodeFs.fsyncSync(fd);
    } catch {
      // Windows cannot open directories (the rename is still atomic there);
      // out of descriptors, the rename stands and a later fsync of the directory covers it.
    } finally {
      if (fd >= 0) nodeFs.closeSync(fd);
    }
  }
}
