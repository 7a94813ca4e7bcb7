/**
 * The caching layer of a store (Kafka's CachingKeyValueStore,
 * CachingWindowStore and CachingSessionStore share this logic): it sits in
 * front of the store's bytes store and owns the store's named cache in the
 * thread's record cache (record-cache.ts). Puts land in the cache; a flush
 * (commit, or eviction when the budget is exceeded) hands each dirty entry,
 * in the order of its last write, to the store's `write` (bytes store and
 * changelog) and then to `forward` (downstream) with the bytes the store
 * held before, skipping the deletion of what was never stored. Reads go to
 * the cache first; ranges merge the unflushed writes into the bytes
 * store's range (clean cache entries equal what the store holds).
 */
import type { BytesStore } from './bytes-store.js';
import type { CacheEntry, NamedCache, RecordCache } from './record-cache.js';

/** What a store does with the entries a flush writes through. */
export interface CachingHooks {
  /** The serialized value of an entry (null: a deletion). */
  valueBytes(entry: CacheEntry): Buffer | null;
  /** False to drop an entry at the flush (a window expired meanwhile). */
  accept?(entry: CacheEntry): boolean;
  /** Writes the entry to the bytes store and the changelog. */
  write(entry: CacheEntry, valueBytes: Buffer | null): void;
  /** Tells downstream, after the write, with the bytes the key held before. */
  forward(entry: CacheEntry, valueBytes: Buffer | null, oldBytes: Buffer | undefined): void;
  /** After every entry of a flush is written (retention). */
  afterFlush?(): void;
}

/** The cache in front of one store instance; inactive (every call a pass-through) when caching is off. */
export class CachingLayer {
  private cache: NamedCache | null = null;

  constructor(
    private readonly inner: BytesStore,
    private readonly hooks: CachingHooks,
  ) {}

  /** Takes a named cache from the thread's record cache when the store caches and the cache is on. */
  open(recordCache: RecordCache | null, caching: boolean): void {
    if (caching && recordCache?.enabled === true) this.cache = recordCache.create((entries) => this.writeThrough(entries));
  }

  /** Whether writes are cached (false: the store writes through itself). */
  get active(): boolean {
    return this.cache !== null;
  }

  /** Caches a write (dirty until the next flush; `valueBytes` null: serialized at the flush, or a deletion when `value` is null). */
  put(id: string, key: unknown, keyBytes: Buffer, value: unknown, valueBytes: Buffer | null, valueSize: number, timestamp: number): void {
    (this.cache as NamedCache).put(id, key, keyBytes, value, valueBytes, valueSize, timestamp);
  }

  /** Writes a new value for a key already cached; false when it is not (then `put` it). */
  update(id: string, value: unknown, valueBytes: Buffer | null, valueSize: number, timestamp: number): boolean {
    return (this.cache as NamedCache).update(id, value, valueBytes, valueSize, timestamp);
  }

  /** The cached entry of a key (clean or dirty), if any. */
  entry(id: string): CacheEntry | undefined {
    return this.cache?.get(id);
  }

  /** The value bytes of a key: the cache's, else the bytes store's (null or undefined: none). */
  get(keyBytes: Buffer, id: string = keyBytes.toString('latin1')): Buffer | null | undefined {
    const cached = this.cache?.get(id);
    return cached !== undefined ? this.hooks.valueBytes(cached) : this.inner.get(keyBytes);
  }

  /** The entries not written through yet. */
  dirtyEntries(): Iterable<CacheEntry> {
    return this.cache?.dirtyEntries() ?? [];
  }

  /**
   * The bytes store's range [lo, hi] (null: open) restricted to `accept`, with
   * the unflushed writes applied, in key order, deletions left out.
   */
  range(lo: Buffer | null, hi: Buffer | null, accept: (key: Buffer) => boolean = () => true): [Buffer, Buffer][] {
    const stored = this.inner.range(lo, hi);
    const entries = stored.every(([k]) => accept(k)) ? stored : stored.filter(([k]) => accept(k));
    if (this.cache === null || this.cache.dirtyCount === 0) return entries;
    const merged = new Map<string, [Buffer, Buffer | null]>(entries.map((e) => [e[0].toString('latin1'), e]));
    for (const e of this.cache.dirtyEntries()) {
      if ((lo !== null && Buffer.compare(e.keyBytes, lo) < 0) || (hi !== null && Buffer.compare(e.keyBytes, hi) > 0) || !accept(e.keyBytes)) continue;
      merged.set(e.keyBytes.toString('latin1'), [e.keyBytes, this.hooks.valueBytes(e)]);
    }
    return [...merged.keys()].sort().map((k) => merged.get(k) as [Buffer, Buffer | null]).filter((e): e is [Buffer, Buffer] => e[1] !== null);
  }

  /** Writes the dirty entries through (store, changelog, downstream). */
  flush(): void {
    this.cache?.flush();
  }

  /** Drops the cache (the task closes; unflushed writes are reprocessed from the input). */
  clear(): void {
    this.cache?.clear();
    this.cache = null;
  }

  private writeThrough(entries: CacheEntry[]): void {
    const hooks = this.hooks;
    for (const e of entries) {
      const valueBytes = hooks.valueBytes(e);
      const oldBytes = this.inner.get(e.keyBytes);
      if (valueBytes === null && oldBytes === undefined) continue; // written and deleted between two flushes
      if (hooks.accept !== undefined && !hooks.accept(e)) continue;
      hooks.write(e, valueBytes);
      hooks.forward(e, valueBytes, oldBytes);
    }
    hooks.afterFlush?.();
  }
}
