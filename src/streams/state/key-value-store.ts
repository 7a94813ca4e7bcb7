/**
 * The typed key-value store: serdes over a bytes store, writing each change
 * to the changelog through the task (Kafka's metered + change-logging layers
 * in one). Values are stored serialized, so what is restored from the
 * changelog is byte-for-byte what was written.
 *
 * With caching (Kafka's caching layer, above the logging one), a put only
 * updates the thread's record cache; the store, the changelog and the flush
 * listener (the processor forwarding downstream) see the key's latest value
 * when the cache is flushed (commit) or evicts it. Reads see the cache first;
 * a cached primitive value is returned as is, an object is deserialized
 * again so that callers cannot change what the cache holds.
 */
import { writesUtf8, type Serde } from '../serdes.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { CachingLayer } from './caching-layer.js';
import type { CacheEntry } from './record-cache.js';
import { changelogTopic, type CacheFlushListener, type KeyValueEntry, type KeyValueStore, type StateStoreContext } from './store.js';

/** Restored records written to a persistent store per transaction. */
const RESTORE_FLUSH_RECORDS = 20_000;

/** Immutable values the cache can hand out as they are (no copy needed). */
function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

/** The bytes a primitive value is counted for in the cache (its serialized size for the built-in serdes). */
function primitiveSize(v: unknown): number {
  return typeof v === 'string' ? v.length * 3 : 8;
}

/** A key-value store of typed keys and values. */
export class TypedKeyValueStore<K, V> implements KeyValueStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesStore;
  private context: StateStoreContext | null = null;
  private keySerde: Serde<K> | undefined;
  private valueSerde: Serde<V> | undefined;
  private topic: string;
  private readonly cache: CachingLayer;
  private lastKey: unknown = undefined;
  /** The key serde is Serdes.String: cache ids are the keys themselves (see `stringId`). */
  private utf8Keys = false;
  private lastKeyId: string | null = null;
  private lastKeyBytes: Buffer | null = null;
  private listener: CacheFlushListener<K, V> | null = null;

  constructor(
    supplier: BytesStoreSupplier,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
    private readonly caching = false,
  ) {
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.topic = supplier.name;
    this.cache = new CachingLayer(this.inner, {
      valueBytes: (e) => this.bytesOf(e),
      write: (e, valueBytes) => {
        this.writeInner(e.keyBytes, valueBytes);
        if (this.logging) this.open().logChange(this.name, e.keyBytes, valueBytes, e.timestamp);
      },
      forward: (e, valueBytes, oldBytes) => {
        if (this.listener === null) return;
        const valueSerde = this.serdes()[1];
        const oldValue = oldBytes === undefined ? null : valueSerde.deserialize(this.topic, oldBytes);
        const newValue = valueBytes === null ? null : isPrimitive(e.value) ? (e.value as V) : valueSerde.deserialize(this.topic, valueBytes);
        this.listener(e.key as K, newValue, oldValue, e.timestamp);
      },
    });
  }

  init(context: StateStoreContext): void {
    this.context = context;
    this.keySerde ??= context.defaultKeySerde as Serde<K>;
    this.valueSerde ??= context.defaultValueSerde as Serde<V>;
    this.topic = changelogTopic(context.applicationId, this.name);
    if (this.inner.open(context.stateDir)) context.reportWiped(this.name);
    let restored = 0;
    context.registerRestore(this.name, (key, value) => {
      if (value === null) this.inner.delete(key);
      else this.inner.put(key, value);
      // Restored records are acknowledged changelog records: writing them to disk early is safe, and bounds the overlay of a large restore.
      if (++restored % RESTORE_FLUSH_RECORDS === 0) this.inner.flush();
    });
    this.cache.open(context.cache, this.caching);
    this.utf8Keys = writesUtf8(this.keySerde as Serde<unknown>);
  }

  setFlushListener(listener: CacheFlushListener<K, V>): boolean {
    this.listener = listener;
    return this.cache.active;
  }

  get(key: K): V | null {
    if (this.cache.active) {
      // A cache hit under a string id needs no key bytes at all.
      const stringId = this.stringId(key);
      const keyBytes = stringId === null ? this.serializeKey(key) : null;
      const cached = this.cache.entry(stringId ?? this.keyId(key, keyBytes as Buffer));
      if (cached !== undefined) return isPrimitive(cached.value) ? (cached.value as V | null) : this.serdes()[1].deserialize(this.topic, cached.valueBytes);
      const bytes = this.inner.get(keyBytes ?? this.serializeKey(key));
      return bytes === undefined ? null : this.serdes()[1].deserialize(this.topic, bytes);
    }
    const bytes = this.inner.get(this.serializeKey(key));
    return bytes === undefined ? null : this.serdes()[1].deserialize(this.topic, bytes);
  }

  put(key: K, value: V | null): void {
    if (this.cache.active) {
      // A primitive is kept as is and serialized at the flush (its size estimated); an object is serialized now, so later changes to it do not leak in.
      const primitive = isPrimitive(value);
      const valueBytes = primitive ? null : this.serdes()[1].serialize(this.topic, value);
      const valueSize = primitive ? primitiveSize(value) : (valueBytes?.length ?? 0);
      const timestamp = this.open().recordTimestampMs();
      const stringId = this.stringId(key);
      if (stringId !== null && this.cache.update(stringId, value, valueBytes, valueSize, timestamp)) return;
      const keyBytes = this.serializeKey(key);
      this.cache.put(stringId ?? this.keyId(key, keyBytes), key, keyBytes, value, valueBytes, valueSize, timestamp);
      return;
    }
    const keyBytes = this.serializeKey(key);
    const valueBytes = value === null ? null : this.serdes()[1].serialize(this.topic, value);
    this.writeInner(keyBytes, valueBytes);
    if (this.logging) this.open().logChange(this.name, keyBytes, valueBytes);
  }

  /** The serialized value of a cache entry (null: a deletion). */
  private bytesOf(e: CacheEntry): Buffer | null {
    if (e.value === null) return null;
    return e.valueBytes ?? this.serdes()[1].serialize(this.topic, e.value as V);
  }

  /**
   * Under Serdes.String the key itself is its cache id: its UTF-8 bytes and
   * the string determine each other once lone surrogates are replaced (as the
   * encoder replaces them), so an aggregation's get and put find the entry
   * without encoding the key or making an id from its bytes. Null: the id
   * comes from the key's bytes (`keyId`); one store uses one kind only.
   */
  private stringId(key: K): string | null {
    if (!this.utf8Keys || typeof key !== 'string') return null;
    const s = key as unknown as string & { isWellFormed(): boolean; toWellFormed(): string };
    return s.isWellFormed() ? s : s.toWellFormed();
  }

  /**
   * The cache id of a key. A read-modify-write (an aggregation's get then
   * put) asks twice for the same key: the last id is kept for a primitive key.
   */
  private keyId(key: K, keyBytes: Buffer): string {
    if (key === this.lastKey && keyBytes === this.lastKeyBytes) return (this.lastKeyId ??= keyBytes.toString('latin1'));
    return keyBytes.toString('latin1');
  }

  private writeInner(keyBytes: Buffer, valueBytes: Buffer | null): void {
    if (valueBytes === null) this.inner.delete(keyBytes);
    else this.inner.put(keyBytes, valueBytes);
  }

  putIfAbsent(key: K, value: V): V | null {
    const old = this.get(key);
    if (old === null) this.put(key, value);
    return old;
  }

  delete(key: K): V | null {
    const old = this.get(key);
    if (old !== null) this.put(key, null);
    return old;
  }

  range(from: K | null, to: K | null): KeyValueEntry<K, V>[] {
    const lo = from === null ? null : this.serializeKey(from);
    const hi = to === null ? null : this.serializeKey(to);
    return this.decode(this.cache.range(lo, hi));
  }

  all(): KeyValueEntry<K, V>[] {
    return this.decode(this.cache.range(null, null));
  }

  approximateNumEntries(): number {
    let n = this.inner.size();
    for (const e of this.cache.dirtyEntries()) {
      const stored = this.inner.get(e.keyBytes) !== undefined;
      if (e.value === null && stored) n--;
      if (e.value !== null && !stored) n++;
    }
    return n;
  }

  /** Writes the cache through (forwarding downstream), then makes the store durable. */
  flush(): void {
    this.flushCache();
    this.inner.flush();
  }

  /** Writes the cache through without making the store durable (what the test driver does after each input). */
  flushCache(): void {
    this.cache.flush();
  }

  /** Closes the store; cached writes not flushed are dropped (the input that made them is reprocessed). */
  close(): void {
    this.cache.clear();
    this.inner.close();
    this.context = null;
  }

  private decode(entries: [Buffer, Buffer][]): KeyValueEntry<K, V>[] {
    const [keySerde, valueSerde] = this.serdes();
    return entries.map(([k, v]) => ({ key: keySerde.deserialize(this.topic, k) as K, value: valueSerde.deserialize(this.topic, v) as V }));
  }

  private serializeKey(key: K): Buffer {
    if (key === this.lastKey && this.lastKeyBytes !== null) return this.lastKeyBytes;
    const bytes = this.serdes()[0].serialize(this.topic, key);
    if (bytes === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' does not take null keys`);
    if (isPrimitive(key)) {
      this.lastKey = key;
      this.lastKeyBytes = bytes;
      this.lastKeyId = null;
    }
    return bytes;
  }

  private serdes(): [Serde<K>, Serde<V>] {
    this.open();
    return [this.keySerde as Serde<K>, this.valueSerde as Serde<V>];
  }

  private open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open (closed, or not initialised by its task)`);
    return this.context;
  }
}
