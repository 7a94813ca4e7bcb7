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

class NodeFileHandle implements FileHandle {
  private fd: number;
  private length: number;

  constructor(readonly path: string, fd: number) {
    this.fd = fd;
    this.length = nodeFs.fstatSync(fd).size;
  }

  size(): number {
    return this.length;
  }

  write(data: Buffer, position: number): void {
    let done = 0;
    while (done < data.length) {
      done += nodeFs.writeSync(this.fd, data, done, data.length - done, position + done);
    }
    if (position + data.length > this.length) this.length = position + data.length;
  }

  append(data: Buffer): number {
    const position = this.length;
    this.write(data, position);
    return position;
  }

  read(buf: Buffer, bufOffset: number, length: number, position: number): number {
    let done = 0;
    while (done < length) {
      const n = nodeFs.readSync(this.fd, buf, bufOffset + done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  truncate(size: number): void {
    nodeFs.ftruncateSync(this.fd, size);
    this.length = size;
  }

  sync(): void {
    nodeFs.fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd < 0) return;
    nodeFs.closeSync(this.fd);
    this.fd = -1;
  }
}

/** The production file system: node:fs synchronous calls. */
export class NodeFileSystem implements FileSystem {
  open(path: string, options: { create?: boolean } = {}): FileHandle {
    const { O_RDWR, O_CREAT } = nodeFs.constants;
    const flags = options.create === true ? O_RDWR | O_CREAT : O_RDWR;
    return new NodeFileHandle(path, nodeFs.openSync(path, flags, 0o644));
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
    return nodeFs.readdirSync(path).sort();
  }

  rename(from: string, to: string): void {
    nodeFs.renameSync(from, to);
    syncDirectory(dirname(to));
  }

  unlink(path: string): void {
    nodeFs.unlinkSync(path);
  }

  rmrf(path: string): void {
    nodeFs.rmSync(path, { recursive: true, force: true });
  }

  readFile(path: string): Buffer {
    return nodeFs.readFileSync(path);
  }

  writeFileAtomic(path: string, data: Buffer): void {
    const tmp = `${path}.tmp`;
    const fd = nodeFs.openSync(tmp, 'w', 0o644);
    try {
      let done = 0;
      while (done < data.length) done += nodeFs.writeSync(fd, data, done, data.length - done);
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
    this.rename(tmp, path);
  }
}

/** fsync a directory so a rename or create in it is durable; not every platform allows it. */
function syncDirectory(path: string): void {
  let fd = -1;
  try {
    fd = nodeFs.openSync(path, 'r');
    nodeFs.fsyncSync(fd);
  } catch {
    // Windows cannot open directories; the rename is still atomic there.
  } finally {
    if (fd >= 0) nodeFs.closeSync(fd);
  }
}
