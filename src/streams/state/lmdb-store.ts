/**
 * The persistent bytes store, on LMDB (npm `lmdb`, prebuilt binaries) in
 * `<stateDir>/<store>`. Writes collect in an ordered overlay and go to LMDB
 * in one write transaction on `flush()`, which the runtime calls before every
 * commit: one transaction per commit interval instead of one per put, and
 * what is on disk is never ahead of a commit's changelog. Reads see the
 * overlay first. A store that cannot be opened (corrupt files) is wiped and
 * reopened empty; the runtime then restores it fully from the changelog.
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database } from 'lmdb';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { BytesStore } from './bytes-store.js';

/** An overlay entry: the new value, or null for a deletion not yet written. */
type Pending = [Buffer, Buffer | null];

export class LmdbBytesStore implements BytesStore {
  readonly persistent = true;
  private db: Database<Buffer, Buffer> | null = null;
  private readonly pending = new Map<string, Pending>();
  constructor(private readonly name: string) {}

  open(dir: string | null): boolean {
    if (dir === null) throw new StreamsError(StreamsErrorCode.STORE, `persistent store '${this.name}' needs a state directory`);
    const path = join(dir, this.name);
    mkdirSync(dir, { recursive: true });
    // LMDB maps its file into memory and may crash the process on garbage: check the meta page's magic before opening.
    if (!looksLikeLmdb(join(path, 'data.mdb'))) {
      rmSync(path, { recursive: true, force: true });
      this.db = open<Buffer, Buffer>({ path, keyEncoding: 'binary', encoding: 'binary' });
      return true;
    }
    try {
      this.db = open<Buffer, Buffer>({ path, keyEncoding: 'binary', encoding: 'binary' });
      this.db.getCount(); // touches the files: a corrupt store fails here, not on the first read
      return false;
    } catch {
      rmSync(path, { recursive: true, force: true });
      rmSync(`${path}-lock`, { force: true });
      this.db = open<Buffer, Buffer>({ path, keyEncoding: 'binary', encoding: 'binary' });
      return true;
    }
  }

  get(key: Buffer): Buffer | undefined {
    const p = this.pending.get(key.toString('latin1'));
    if (p !== undefined) return p[1] ?? undefined;
    return this.handle().get(key) ?? undefined;
  }

  put(key: Buffer, value: Buffer): void {
    this.pending.set(key.toString('latin1'), [Buffer.from(key), value]);
  }

  delete(key: Buffer): void {
    this.pending.set(key.toString('latin1'), [Buffer.from(key), null]);
  }

  range(from: Buffer | null, to: Buffer | null): [Buffer, Buffer][] {
    const merged = new Map<string, [Buffer, Buffer | null]>();
    const options = from === null ? {} : { start: from };
    for (const { key, value } of this.handle().getRange(options)) {
      if (to !== null && Buffer.compare(key, to) > 0) break;
      merged.set(key.toString('latin1'), [key, value]);
    }
    const lo = from?.toString('latin1') ?? null;
    const hi = to?.toString('latin1') ?? null;
    for (const [k, p] of this.pending) if ((lo === null || k >= lo) && (hi === null || k <= hi)) merged.set(k, p);
    return [...merged.keys()]
      .sort()
      .map((k) => merged.get(k) as [Buffer, Buffer | null])
      .filter((e): e is [Buffer, Buffer] => e[1] !== null);
  }

  size(): number {
    let n = this.handle().getCount();
    for (const [, [key, value]] of this.pending) {
      const stored = this.handle().doesExist(key);
      if (value === null && stored) n--;
      if (value !== null && !stored) n++;
    }
    return n;
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const db = this.handle();
    db.transactionSync(() => {
      for (const [key, value] of this.pending.values()) {
        if (value === null) void db.remove(key);
        else void db.put(key, value);
      }
    });
    this.pending.clear();
  }

  close(): void {
    if (this.db === null) return;
    this.flush();
    void this.db.close();
    this.db = null;
  }

  private handle(): Database<Buffer, Buffer> {
    if (this.db === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open`);
    return this.db;
  }
}

/** LMDB's meta page magic 0xBEEFC0DE (little-endian) at byte 24 of page 0 (lmdb-js's layout); a missing file is fine (new store). */
const LMDB_MAGIC = Buffer.from([0xde, 0xc0, 0xef, 0xbe]);
const LMDB_MAGIC_POSITION = 24;

function looksLikeLmdb(file: string): boolean {
  if (!existsSync(file)) return true;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(LMDB_MAGIC_POSITION + LMDB_MAGIC.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.subarray(LMDB_MAGIC_POSITION).equals(LMDB_MAGIC);
  } finally {
    closeSync(fd);
  }
}
