/**
 * Bounded file descriptors for NodeFileSystem (Kafka has no such bound and
 * dies with "Too many open files" past a few thousand partitions).
 *
 * A `PooledFileHandle` is a file the storage engine holds open; the
 * descriptor behind it is opened on first use and may be closed again by the
 * `FileHandlePool` when more than `openFilesMax` descriptors are open (least
 * recently used first). The next call on that handle reopens the file by
 * path. Every call is synchronous, so a descriptor is never closed while a
 * call on it runs: "evicting a handle in the middle of a read" cannot happen;
 * a later read just reopens it.
 *
 * Reopening by path is only right while the path still names the same file.
 * So when the file system renames over, renames away or unlinks a path that a
 * live handle uses, that handle is *pinned* first: its descriptor is opened
 * (if it was not) and never evicted until the handle is closed, which keeps
 * POSIX semantics (the cleaner's segment swap reads the old segment while its
 * files are being replaced).
 *
 * EMFILE/ENFILE (the process or the system is out of descriptors, e.g. the
 * broker's sockets used them up): the pool closes half of its evictable
 * descriptors and retries once; when that is not enough the call throws
 * StorageError('ERR_TRIB_STORAGE_FILE_LIMIT'), a retriable error for that one
 * request. It never escapes as an uncaught exception from here.
 *
 * fsync through a reopened descriptor flushes what was written through the
 * earlier one: on Linux fsync/fdatasync act on the file (its page cache),
 * not on the descriptor.
 */
import * as nodeFs from 'node:fs';
import { invariant } from '../util/assert.js';
import { StorageError } from './errors.js';
import type { FileHandle } from './fs.js';

/** The default bound when neither the config nor the process limit says otherwise. */
export const OPEN_FILES_MAX_DEFAULT = 1024;
/** Never fewer than this (the metadata log and a few partitions must fit). */
export const OPEN_FILES_MAX_MIN = 8;

/** True for "too many open files" in the process (EMFILE) or the system (ENFILE). */
export function isFileLimitError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

function fileLimitError(path: string, cause: unknown, pool: FileHandlePool): StorageError {
  return new StorageError(
    'ERR_TRIB_STORAGE_FILE_LIMIT',
    `out of file descriptors opening ${path} (${(cause as { code?: string }).code ?? 'EMFILE'}; ${pool.openCount} held by storage, ` +
      `log.open.files.max=${pool.openFilesMax}): raise the limit (ulimit -n) or lower log.open.files.max`,
    { cause },
  );
}

/** The LRU of open descriptors shared by every handle of one NodeFileSystem. */
export class FileHandlePool {
  /** Evictable handles with an open descriptor, least recently used first (Map keeps insertion order). */
  private readonly lru = new Map<PooledFileHandle, true>();
  /**
   * The handle last put at the lru's end. Touching it again while it is still
   * in the lru changes nothing, so touch skips the delete and set (every
   * append and read touches its handle; the Map's churn is garbage).
   */
  private newest: PooledFileHandle | null = null;
  private pinnedOpen = 0;
  /** Descriptors of unpinned handles kept out of the LRU while an async fsync uses them. */
  private heldOpen = 0;
  /** Every live (not closed) handle by path, for pinning on rename/unlink. */
  private readonly byPath = new Map<string, Set<PooledFileHandle>>();
  /** Descriptors closed to stay under the bound (a counter for tests and diagnostics). */
  evictions = 0;

  constructor(readonly openFilesMax: number = OPEN_FILES_MAX_DEFAULT) {
    invariant(Number.isInteger(openFilesMax) && openFilesMax >= OPEN_FILES_MAX_MIN, `openFilesMax must be an integer >= ${OPEN_FILES_MAX_MIN}`);
  }

  /** Descriptors open right now (evictable plus pinned). */
  get openCount(): number {
    return this.lru.size + this.pinnedOpen + this.heldOpen;
  }

  /**
   * Opens a file and returns a handle. The descriptor of an existing file is
   * opened on its first use (recovery after a crash opens three files per
   * partition and often never touches two of them: empty indexes); a
   * missing file is created now.
   */
  open(path: string, create: boolean): PooledFileHandle {
    const { O_RDWR, O_CREAT } = nodeFs.constants;
    // A stat first (no exception when missing: an ENOENT or EEXIST error
    // object costs more than the syscall, thousands of times at start-up)
    // gives the size and tells a file created now (nothing to fsync until
    // written) from an existing one. Storage is the only writer of these files.
    const st = nodeFs.statSync(path, { throwIfNoEntry: false });
    let h: PooledFileHandle;
    if (st !== undefined) {
      h = new PooledFileHandle(path, this, -1, st.size, true);
    } else {
      h = new PooledFileHandle(path, this, this.openFd(path, create ? O_RDWR | O_CREAT : O_RDWR), 0, false);
      this.markNewest(h);
    }
    let set = this.byPath.get(path);
    if (set === undefined) this.byPath.set(path, (set = new Set()));
    set.add(h);
    return h;
  }

  /**
   * openSync with room made first: evicts down to the bound, and on
   * EMFILE/ENFILE evicts half the pool and tries once more.
   */
  openFd(path: string, flags: number): number {
    while (this.openCount >= this.openFilesMax && this.lru.size > 0) this.evictOldest();
    return this.withRelief(path, () => nodeFs.openSync(path, flags, 0o644));
  }

  /** Runs `fn` (which opens a descriptor of its own, e.g. readFileSync); on EMFILE/ENFILE relieves the pool and retries once. */
  withRelief<T>(path: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!isFileLimitError(err)) throw err;
      this.relieve();
      try {
        return fn();
      } catch (again) {
        if (isFileLimitError(again)) throw fileLimitError(path, again, this);
        throw again;
      }
    }
  }

  /** Closes half of the evictable descriptors (at least one): room for whoever ran out. */
  relieve(): void {
    let n = Math.max(1, Math.ceil(this.lru.size / 2));
    while (n-- > 0 && this.lru.size > 0) this.evictOldest();
  }

  private evictOldest(): void {
    const oldest = this.lru.keys().next().value as PooledFileHandle;
    this.lru.delete(oldest);
    oldest.dropDescriptor();
    this.evictions++;
  }

  /** A descriptor was (re)opened for `h` or `h` was used: most recently used now. */
  touch(h: PooledFileHandle): void {
    if (h.pinned || h.held || (this.newest === h && this.lru.has(h))) return;
    this.lru.delete(h);
    this.markNewest(h);
  }

  private markNewest(h: PooledFileHandle): void {
    this.lru.set(h, true);
    this.newest = h;
  }

  /** An async fsync is about to use `h`'s descriptor: it must not be evicted until release(). */
  hold(h: PooledFileHandle): void {
    if (h.pinned) return;
    this.lru.delete(h);
    h.held = true;
    this.heldOpen++;
  }

  /** The async fsync on `h` is done: evictable again (unless pinned or closed meanwhile). */
  release(h: PooledFileHandle, closed: boolean): void {
    if (!h.held) return;
    h.held = false;
    this.heldOpen--;
    if (!closed && !h.pinned) this.markNewest(h);
  }

  /** Called by a handle whose descriptor is being closed for good. */
  forget(h: PooledFileHandle, hadDescriptor: boolean): void {
    if (this.newest === h) this.newest = null; // keeps no closed handle alive
    if (h.pinned) {
      if (hadDescriptor) this.pinnedOpen--;
    } else {
      this.lru.delete(h);
    }
    this.unlist(h);
  }

  /** `h` is no longer found by its path (closed; its descriptor may outlive it briefly). */
  unlist(h: PooledFileHandle): void {
    const set = this.byPath.get(h.path);
    if (set !== undefined) {
      set.delete(h);
      if (set.size === 0) this.byPath.delete(h.path);
    }
  }

  /**
   * The path (or, for a directory, everything under it) is about to be
   * renamed over, renamed away or unlinked: live handles on it keep their
   * current file, so their descriptors stay open until they are closed.
   */
  pinUnder(path: string, isDirectory: boolean): void {
    const exact = this.byPath.get(path);
    if (exact !== undefined) for (const h of [...exact]) this.pin(h);
    if (!isDirectory) return;
    const prefix = path.endsWith('/') ? path : `${path}/`;
    for (const [p, set] of [...this.byPath]) if (p.startsWith(prefix)) for (const h of [...set]) this.pin(h);
  }

  private pin(h: PooledFileHandle): void {
    if (h.pinned) return;
    h.ensureDescriptor();
    this.lru.delete(h);
    if (h.held) {
      h.held = false;
      this.heldOpen--;
    }
    h.pinned = true;
    this.pinnedOpen++;
    const set = this.byPath.get(h.path);
    set?.delete(h);
    if (set?.size === 0) this.byPath.delete(h.path);
  }
}

/** A file held open by storage; its descriptor comes and goes with the pool. */
export class PooledFileHandle implements FileHandle {
  /** Kept open until closed: the path may no longer name this file. */
  pinned = false;
  /** Out of the LRU while async fsyncs use the descriptor (FileHandlePool.hold). */
  held = false;
  private closed = false;
  /** Async fsyncs running on the descriptor; close() leaves it open until they finish. */
  private syncsRunning = 0;
  private closeWhenSynced = false;
  /**
   * Written or truncated since the last fsync. At first: true for a file
   * that existed (an earlier process may have left writes or a truncation
   * unsynced); false for one created now (nothing to make durable until
   * written, e.g. the index of a segment too small for an entry).
   */
  private unsynced: boolean;

  constructor(
    readonly path: string,
    private readonly pool: FileHandlePool,
    private fd: number,
    private length: number,
    existed: boolean,
  ) {
    this.unsynced = existed;
  }

  /** Whether a descriptor is open now (tests, diagnostics). */
  get isOpen(): boolean {
    return this.fd >= 0;
  }

  /** The descriptor for one call, reopened by path when the pool closed it. */
  ensureDescriptor(): number {
    if (this.closed) invariant(false, `file ${this.path} used after close`); // message built only on failure (every write and read checks)
    if (this.fd < 0) {
      invariant(!this.pinned, 'a pinned handle keeps its descriptor');
      this.fd = this.pool.openFd(this.path, nodeFs.constants.O_RDWR);
    }
    this.pool.touch(this);
    return this.fd;
  }

  /** The pool evicts this handle's descriptor (the handle stays usable). */
  dropDescriptor(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    nodeFs.closeSync(fd);
  }

  size(): number {
    return this.length;
  }

  write(data: Buffer, position: number): void {
    const fd = this.ensureDescriptor();
    let done = 0;
    while (done < data.length) {
      done += nodeFs.writeSync(fd, data, done, data.length - done, position + done);
    }
    if (position + data.length > this.length) this.length = position + data.length;
    this.unsynced = true;
  }

  append(data: Buffer): number {
    const position = this.length;
    this.write(data, position);
    return position;
  }

  read(buf: Buffer, bufOffset: number, length: number, position: number): number {
    const fd = this.ensureDescriptor();
    let done = 0;
    while (done < length) {
      const n = nodeFs.readSync(fd, buf, bufOffset + done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  truncate(size: number): void {
    nodeFs.ftruncateSync(this.ensureDescriptor(), size);
    this.length = size;
    this.unsynced = true;
  }

  /** fdatasync; nothing to do (and no descriptor reopened) when nothing changed since the last one completed. */
  sync(): void {
    // An async fsync still running may not cover the writes yet: do not trust it.
    if (!this.unsynced && this.syncsRunning === 0) return;
    nodeFs.fdatasyncSync(this.ensureDescriptor());
    this.unsynced = false;
  }

  async syncAsync(): Promise<void> {
    if (!this.unsynced) return;
    const fd = this.ensureDescriptor();
    // Writes made from now on need a later sync; those made before are covered by this one.
    this.unsynced = false;
    if (this.syncsRunning++ === 0) this.pool.hold(this);
    try {
      await new Promise<void>((resolve, reject) => nodeFs.fdatasync(fd, (err) => (err === null ? resolve() : reject(err))));
    } catch (err) {
      this.unsynced = true;
      throw err;
    } finally {
      if (--this.syncsRunning === 0) {
        this.pool.release(this, this.closed);
        if (this.closeWhenSynced) this.finishClose();
      }
    }
  }

  close(): void {
    if (this.closed) return;
    if (this.syncsRunning > 0) {
      // An async fsync still uses the descriptor: usable no more (and no longer
      // found by path, so a rename or unlink does not pin it), closed when it is done.
      this.closed = true;
      this.closeWhenSynced = true;
      this.pool.unlist(this);
      return;
    }
    this.finishClose();
  }

  private finishClose(): void {
    this.closeWhenSynced = false;
    const had = this.fd >= 0;
    this.pool.forget(this, had);
    this.closed = true;
    this.dropDescriptor();
  }
}
