/**
 * The record cache of a stream thread (Kafka's ThreadCache): one byte budget
 * (`statestore.cache.max.bytes`) shared by the caching stores of every task
 * the thread runs, each with its own named cache. A caching store keeps its
 * latest writes here, dirty, and writes them through (store, changelog,
 * downstream) only when the task commits or when the budget is exceeded:
 * then the least recently used entry of the store being written is evicted,
 * and if it is dirty the store's dirty entries are all flushed first, in the
 * order of their last update. So consecutive updates of a key between two
 * flushes reach the store, the changelog and downstream once.
 */
import assert from 'node:assert/strict';

/** What a cache entry holds: the typed key and value, the key's bytes and the value's size (null value: a deletion). */
export interface CacheEntry {
  key: unknown;
  keyBytes: Buffer;
  value: unknown;
  /** The serialized value when the store needed it already (an object value); else serialized at flush. */
  valueBytes: Buffer | null;
  /** Bytes counted for the value (its serialized size, or an estimate for a primitive). */
  valueSize: number;
  timestamp: number;
  dirty: boolean;
}

/** Fixed cost counted per entry besides its bytes (Kafka counts its object overhead as well). */
const ENTRY_OVERHEAD_BYTES = 64;

function sizeOf(e: CacheEntry): number {
  return ENTRY_OVERHEAD_BYTES + e.keyBytes.length + e.valueSize;
}

/** The entries of one store of one task; `flush` writes the dirty ones through. */
export class NamedCache {
  /**
   * Map order is the order of first write; recency is the entry's `seq`
   * (bumped on each write). Eviction gives an entry written again since it
   * was placed a second chance (moves it to the end): least recently
   * written goes first without reordering the Map on every write.
   */
  private readonly entries = new Map<string, CacheEntry & { seq: number; placedSeq: number }>();
  private readonly dirty = new Set<string>();
  private seq = 0;
  private lastId: string | null = null;
  private lastEntry: (CacheEntry & { seq: number; placedSeq: number }) | undefined = undefined;

  constructor(
    private readonly owner: RecordCache,
    private readonly flushDirty: (entries: CacheEntry[]) => void,
  ) {}

  /**
   * The entry of `id`. The last one found is remembered: an aggregation gets
   * a key and then puts it, and the put finds the entry by comparing the id
   * with the last one instead of hashing it into the Map again.
   */
  get(id: string): CacheEntry | undefined {
    if (id === this.lastId) return this.lastEntry;
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      this.lastId = id;
      this.lastEntry = entry;
    }
    return entry;
  }

  /**
   * Writes a dirty entry (to be written through at the next flush), then
   * evicts if over budget. A key already cached is updated in place: an
   * aggregation rewrites the same keys over and over, and allocating an
   * entry per write showed up as garbage-collection time.
   */
  put(id: string, key: unknown, keyBytes: Buffer, value: unknown, valueBytes: Buffer | null, valueSize: number, timestamp: number): void {
    if (this.update(id, value, valueBytes, valueSize, timestamp)) return;
    const seq = ++this.seq;
    const entry = { key, keyBytes, value, valueBytes, valueSize, timestamp, dirty: true, seq, placedSeq: seq };
    this.entries.set(id, entry);
    this.owner.sizeBytes += sizeOf(entry);
    this.dirty.add(id);
    if (this.owner.sizeBytes > this.owner.maxBytes) this.owner.evictFrom(this);
  }

  /** Writes a new value for a key already cached (as `put`); false when the key is not cached. */
  update(id: string, value: unknown, valueBytes: Buffer | null, valueSize: number, timestamp: number): boolean {
    const old = id === this.lastId ? this.lastEntry : this.entries.get(id);
    if (old === undefined) return false;
    this.owner.sizeBytes += valueSize - old.valueSize;
    old.value = value;
    old.valueBytes = valueBytes;
    old.valueSize = valueSize;
    old.timestamp = timestamp;
    old.seq = ++this.seq;
    // An entry is dirty exactly while its id is in `dirty`.
    if (!old.dirty) {
      old.dirty = true;
      this.dirty.add(id);
    }
    if (this.owner.sizeBytes > this.owner.maxBytes) this.owner.evictFrom(this);
    return true;
  }

  /** The entries not written through yet. */
  *dirtyEntries(): IterableIterator<CacheEntry> {
    for (const id of this.dirty) yield this.entries.get(id) as CacheEntry;
  }

  get dirtyCount(): number {
    return this.dirty.size;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Writes the dirty entries through, in the order of their last write (as Kafka's), and marks them clean. */
  flush(): void {
    if (this.dirty.size === 0) return;
    const out: (CacheEntry & { seq: number })[] = [];
    for (const id of this.dirty) {
      const e = this.entries.get(id) as CacheEntry & { seq: number };
      e.dirty = false;
      out.push(e);
    }
    this.dirty.clear();
    out.sort((a, b) => a.seq - b.seq);
    this.flushDirty(out);
  }

  /** Drops the least recently written entry, flushing first if it is dirty; false when empty. */
  evictEldest(): boolean {
    for (;;) {
      const first = this.entries.entries().next();
      if (first.done === true) return false;
      const [id, e] = first.value;
      if (e.seq !== e.placedSeq) {
        // Written again since placed: second chance at the end.
        this.entries.delete(id);
        e.placedSeq = e.seq;
        this.entries.set(id, e);
        continue;
      }
      if (e.dirty) this.flush();
      this.entries.delete(id);
      this.forgetLast();
      this.owner.sizeBytes -= sizeOf(e);
      return true;
    }
  }

  /** Forgets everything (the task closed or its state is discarded). */
  clear(): void {
    for (const e of this.entries.values()) this.owner.sizeBytes -= sizeOf(e);
    this.entries.clear();
    this.dirty.clear();
    this.forgetLast();
  }

  private forgetLast(): void {
    this.lastId = null;
    this.lastEntry = undefined;
  }
}

/** One budget for the caching stores of a thread (or of the test driver). */
export class RecordCache {
  /** Bytes held by all named caches. */
  sizeBytes = 0;
  private evicting = false;

  /** `maxBytes` 0 turns caching off: stores then write through at once. */
  constructor(readonly maxBytes: number) {
    assert.ok(Number.isInteger(maxBytes) && maxBytes >= 0, `cache size must be a non-negative integer, got ${maxBytes}`);
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** A named cache for one store of one task; `flushDirty` writes entries through. */
  create(flushDirty: (entries: CacheEntry[]) => void): NamedCache {
    return new NamedCache(this, flushDirty);
  }

  /** Evicts from the cache just written (as Kafka does) until the budget holds. */
  evictFrom(cache: NamedCache): void {
    if (this.evicting) return; // a flush during eviction writes downstream caches: they evict on their next put
    this.evicting = true;
    try {
      while (this.sizeBytes > this.maxBytes && cache.evictEldest());
    } finally {
      this.evicting = false;
    }
  }
}
