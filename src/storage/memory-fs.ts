/**
 * An in-memory FileSystem for tests and the simulator. Each file keeps two
 * versions: the current content (what reads see) and the durable content (as
 * of its last fsync). `crash()` throws away everything not fsynced, optionally
 * keeping a random-length prefix of the unflushed tail (a torn write), and
 * invalidates every open handle, like a power cut followed by a reboot.
 *
 * Directory operations (create, rename, unlink, mkdir) are durable at once;
 * a file created and never fsynced survives a crash empty.
 *
 * The async calls (`syncAsync`, `writeFileAtomicAsync`) complete a few
 * microtasks later, deterministically, after whatever the caller does
 * synchronously: a crash() before then loses them (the simulated process died
 * with the fsync still on the thread pool), and a newer change of the same
 * path drops a pending atomic write (the ordering rule of write-order.ts).
 */
import { dirname, normalize } from 'node:path';
import type { FileHandle, FileSystem } from './fs.js';
import type { Random } from '../util/random.js';
import { PathWriteOrder } from './write-order.js';

interface MemFile {
  data: Buffer;
  length: number;
  durable: Buffer;
  /** Lowest position changed since the last fsync (Infinity when clean). */
  dirtyFrom: number;
}

function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

class MemFileHandle implements FileHandle {
  private closed = false;

  constructor(
    readonly path: string,
    private readonly file: MemFile,
    private readonly owner: MemoryFileSystem,
    private readonly generation: number,
  ) {}

  private check(): MemFile {
    if (this.closed) throw fsError('EBADF', `${this.path} is closed`);
    if (this.generation !== this.owner.generation) throw fsError('EBADF', `${this.path}: handle from before a crash`);
    return this.file;
  }

  size(): number {
    return this.check().length;
  }

  write(data: Buffer, position: number): void {
    const f = this.check();
    const end = position + data.length;
    if (end > f.data.length) {
      const grown = Buffer.alloc(Math.max(end, f.data.length * 2, 256));
      f.data.copy(grown, 0, 0, f.length);
      f.data = grown;
    }
    if (position > f.length) f.data.fill(0, f.length, position);
    data.copy(f.data, position);
    if (end > f.length) f.length = end;
    f.dirtyFrom = Math.min(f.dirtyFrom, position);
    this.owner.bytesWritten += data.length;
  }

  append(data: Buffer): number {
    const position = this.check().length;
    this.write(data, position);
    return position;
  }

  read(buf: Buffer, bufOffset: number, length: number, position: number): number {
    const f = this.check();
    if (position >= f.length) return 0;
    const n = Math.min(length, f.length - position);
    f.data.copy(buf, bufOffset, position, position + n);
    return n;
  }

  truncate(size: number): void {
    const f = this.check();
    if (size < f.length) {
      f.length = size;
      f.dirtyFrom = Math.min(f.dirtyFrom, size);
    } else if (size > f.length) {
      this.write(Buffer.alloc(size - f.length), f.length);
    }
  }

  sync(): void {
    syncFile(this.check());
    this.owner.syncCount++;
  }

  async syncAsync(): Promise<void> {
    const f = this.check();
    const generation = this.generation;
    await this.owner.threadPoolHop();
    // Lost in a crash before it ran; otherwise it covers the file as it is now
    // (a real fdatasync also covers writes made while it was queued).
    if (generation !== this.owner.generation) return;
    syncFile(f);
    this.owner.syncCount++;
  }

  close(): void {
    this.closed = true;
  }
}

function syncFile(f: MemFile): void {
  if (f.dirtyFrom === Infinity && f.durable.length === f.length) return;
  f.durable = Buffer.from(f.data.subarray(0, f.length));
  f.dirtyFrom = Infinity;
}

export class MemoryFileSystem implements FileSystem {
  private readonly files = new Map<string, MemFile>();
  private readonly dirs = new Set<string>(['/']);
  /** Bumped by crash(); handles from an older generation fail. */
  generation = 0;
  syncCount = 0;
  bytesWritten = 0;
  private readonly order = new PathWriteOrder();
  private readonly pending = new Set<Promise<void>>();

  open(path: string, options: { create?: boolean } = {}): FileHandle {
    const p = normalize(path);
    let file = this.files.get(p);
    if (file === undefined) {
      if (options.create !== true) throw fsError('ENOENT', `no such file ${p}`);
      this.requireDir(dirname(p));
      file = { data: Buffer.alloc(0), length: 0, durable: Buffer.alloc(0), dirtyFrom: Infinity };
      this.files.set(p, file);
    }
    return new MemFileHandle(p, file, this, this.generation);
  }

  exists(path: string): boolean {
    const p = normalize(path);
    return this.files.has(p) || this.dirs.has(p);
  }

  isDirectory(path: string): boolean {
    return this.dirs.has(normalize(path));
  }

  mkdirp(path: string): void {
    let p = normalize(path);
    while (!this.dirs.has(p)) {
      if (this.files.has(p)) throw fsError('EEXIST', `${p} is a file`);
      this.dirs.add(p);
      p = dirname(p);
    }
  }

  readdir(path: string): string[] {
    const p = normalize(path);
    this.requireDir(p);
    const names: string[] = [];
    for (const name of [...this.files.keys(), ...this.dirs]) {
      if (name !== p && dirname(name) === p) names.push(name.slice(p === '/' ? 1 : p.length + 1));
    }
    return names.sort();
  }

  subdirectories(path: string): string[] {
    const p = normalize(path);
    return this.readdir(p).filter((name) => this.dirs.has(p === '/' ? `/${name}` : `${p}/${name}`));
  }

  rename(from: string, to: string): void {
    const src = normalize(from);
    const dst = normalize(to);
    this.order.issue(src);
    this.order.issue(dst);
    this.requireDir(dirname(dst));
    const file = this.files.get(src);
    if (file !== undefined) {
      if (this.dirs.has(dst)) throw fsError('EISDIR', `${dst} is a directory`);
      this.files.delete(src);
      this.files.set(dst, file);
      return;
    }
    if (!this.dirs.has(src)) throw fsError('ENOENT', `no such file or directory ${src}`);
    if (this.exists(dst)) throw fsError('EEXIST', `${dst} exists`);
    for (const [name, f] of [...this.files]) {
      if (name.startsWith(`${src}/`)) {
        this.files.delete(name);
        this.files.set(dst + name.slice(src.length), f);
      }
    }
    for (const name of [...this.dirs]) {
      if (name === src || name.startsWith(`${src}/`)) {
        this.dirs.delete(name);
        this.dirs.add(dst + name.slice(src.length));
      }
    }
  }

  unlink(path: string): void {
    this.order.issue(normalize(path));
    if (!this.files.delete(normalize(path))) throw fsError('ENOENT', `no such file ${path}`);
  }

  rmrf(path: string): void {
    const p = normalize(path);
    this.order.issue(p);
    this.files.delete(p);
    for (const name of [...this.files.keys()]) if (name.startsWith(`${p}/`)) this.files.delete(name);
    for (const name of [...this.dirs]) if (name === p || name.startsWith(`${p}/`)) this.dirs.delete(name);
  }

  readFile(path: string): Buffer {
    const file = this.files.get(normalize(path));
    if (file === undefined) throw fsError('ENOENT', `no such file ${path}`);
    return Buffer.from(file.data.subarray(0, file.length));
  }

  writeFileAtomic(path: string, data: Buffer): void {
    const p = normalize(path);
    this.requireDir(dirname(p));
    this.order.issue(p);
    this.install(p, data);
  }

  writeFileAtomicAsync(path: string, data: Buffer): Promise<void> {
    const p = normalize(path);
    const n = this.order.issue(p);
    const generation = this.generation;
    const write = (async () => {
      await this.threadPoolHop();
      // Dropped when the process "crashed" meanwhile, when a newer change of
      // the path came first, or when its directory is gone (a deleted log).
      if (generation === this.generation && this.order.isNewest(p, n) && this.dirs.has(dirname(p))) this.install(p, data);
      this.order.done(p, n);
    })();
    this.pending.add(write);
    void write.then(() => this.pending.delete(write));
    return write;
  }

  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Stands for the trip through libuv's pool: a few microtasks, so the caller's synchronous work goes first. */
  async threadPoolHop(): Promise<void> {
    for (let i = 0; i < 3; i++) await Promise.resolve();
  }

  private install(p: string, data: Buffer): void {
    const copy = Buffer.from(data);
    this.files.set(p, { data: copy, length: copy.length, durable: Buffer.from(copy), dirtyFrom: Infinity });
    this.syncCount++;
  }

  /**
   * Simulates a power cut: every file reverts to its durable content. With a
   * Random, each file whose content grew past its durable length keeps a
   * random-length prefix of those extra bytes (a torn write). Open handles die.
   */
  crash(random?: Random): void {
    for (const f of this.files.values()) {
      let kept = f.durable;
      if (random !== undefined && f.length > f.durable.length) {
        const extra = random.int(f.length - f.durable.length + 1);
        kept = Buffer.concat([f.durable, f.data.subarray(f.durable.length, f.durable.length + extra)]);
      }
      // What is on the platter after the reboot is, by definition, durable.
      f.data = Buffer.from(kept);
      f.length = kept.length;
      f.durable = Buffer.from(kept);
      f.dirtyFrom = Infinity;
    }
    this.generation++;
  }

  private requireDir(p: string): void {
    if (!this.dirs.has(p)) throw fsError('ENOENT', `no such directory ${p}`);
  }
}
