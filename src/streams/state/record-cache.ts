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

/** What a cache entry holds: the typed key and value and their bytes (null value: a deletion). */
export interface CacheEntry {
  key: unknown;
  keyBytes: Buffer;
  value: unknown;
  valueBytes: Buffer | null;
  timestamp: number;
  dirty: boolean;
}

/** Fixed cost counted per entry besides its bytes (Kafka counts its object overhead as well). */
const ENTRY_OVERHEAD_BYTES = 64;

function sizeOf(e: CacheEntry): number {
  return ENTRY_OVERHEAD_BYTES + e.keyBytes.length + (e.valueBytes?.length ?? 0);
}

/** The entries of one store of one task; `flush` writes the dirty ones through. */
export class NamedCache {
  /** Map order is recency order: an entry is re-inserted when used, the first is the eldest. */
  private readonly entries = new Map<string, CacheEntry>();
  private readonly dirty = new Set<string>();

  constructor(
    private readonly owner: RecordCache,
    private readonly flushDirty: (entries: CacheEntry[]) => void,
  ) {}

  get(id: string): CacheEntry | undefined {
    const e = this.entries.get(id);
    if (e !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, e);
    }
    return e;
  }

  /** Adds or replaces an entry (dirty: to be written through at the next flush), then evicts if over budget. */
  put(id: string, entry: CacheEntry): void {
    const old = this.entries.get(id);
    if (old !== undefined) {
      this.owner.sizeBytes -= sizeOf(old);
      this.entries.delete(id);
    }
    this.entries.set(id, entry);
    this.owner.sizeBytes += sizeOf(entry);
    if (entry.dirty) {
      this.dirty.delete(id);
      this.dirty.add(id);
    }
    this.owner.evictFrom(this);
  }

  /** Dirty entries whose key bytes are within [lo, hi] (null: open), for merging into range queries. */
  dirtyEntries(): IterableIterator<CacheEntry> {
    const entries = this.entries;
    const ids = this.dirty.values();
    return (function* () {
      for (const id of ids) yield entries.get(id) as CacheEntry;
    })();
  }

  get dirtyCount(): number {
    return this.dirty.size;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Writes the dirty entries through (in order of last update) and marks them clean. */
  flush(): void {
    if (this.dirty.size === 0) return;
    const out: CacheEntry[] = [];
    for (const id of this.dirty) {
      const e = this.entries.get(id) as CacheEntry;
      e.dirty = false;
      out.push(e);
    }
    this.dirty.clear();
    this.flushDirty(out);
  }

  /** Drops the eldest entry, flushing first if it is dirty; false when empty. */
  evictEldest(): boolean {
    const first = this.entries.keys().next();
    if (first.done === true) return false;
    const e = this.entries.get(first.value) as CacheEntry;
    if (e.dirty) this.flush();
    this.entries.delete(first.value);
    this.owner.sizeBytes -= sizeOf(e);
    return true;
  }

  /** Forgets everything (the task closed or its state is discarded). */
  clear(): void {
    for (const e of this.entries.values()) this.owner.sizeBytes -= sizeOf(e);
    this.entries.clear();
    this.dirty.clear();
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
