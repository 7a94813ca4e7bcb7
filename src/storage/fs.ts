/**
 * The file system as an injected dependency (CONTRIBUTING.md: determinism at the core). Storage
 * never touches `node:fs` except through this interface, so the same engine
 * runs on disk (NodeFileSystem) and in the seeded simulator
 * (MemoryFileSystem, which can "crash" and lose what was not fsynced).
 *
 * Synchronous on purpose: a write to the page cache takes microseconds, an
 * async round trip through the libuv pool costs more than the write, and sync
 * calls keep the engine's state transitions atomic and deterministic.
 */
import * as nodeFs from 'node:fs';
import { dirname } from 'node:path';
import { FileHandlePool, OPEN_FILES_MAX_DEFAULT } from './file-handle-pool.js';

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
}

/**
 * The production file system: node:fs synchronous calls, with descriptors
 * bounded by a FileHandlePool (opened on first use, least recently used
 * closed first), so partitions are not limited by `ulimit -n`.
 */
export class NodeFileSystem implements FileSystem {
  readonly handles: FileHandlePool;

  constructor(options: NodeFileSystemOptions = {}) {
    this.handles = new FileHandlePool(options.openFilesMax ?? OPEN_FILES_MAX_DEFAULT);
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
    const fromIsDir = this.isDirectory(from);
    this.handles.pinUnder(from, fromIsDir);
    this.handles.pinUnder(to, this.isDirectory(to));
    nodeFs.renameSync(from, to);
    this.syncDirectory(dirname(to));
  }

  unlink(path: string): void {
    this.handles.pinUnder(path, false);
    nodeFs.unlinkSync(path);
  }

  rmrf(path: string): void {
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
