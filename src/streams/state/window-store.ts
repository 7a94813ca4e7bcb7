/**
 * The window store: values per (key, window start), kept in a bytes store
 * under the key `<key bytes><start as 8 big-endian bytes>` (Kafka's window
 * store layout without the sequence number), so the windows of one key are
 * adjacent and in time order. Changes go to the changelog like any store.
 * With a retention, windows whose start is more than the retention behind
 * the latest start put are deleted (and their deletion logged), so the store
 * stays bounded; puts and reads of such windows are ignored.
 *
 * With caching (Kafka's CachingWindowStore; the DSL's windowed aggregations
 * turn it on unless `cachingEnabled: false`), a put only updates the
 * thread's record cache; the store, the changelog and the flush listener
 * (the aggregation's downstream) get each window's latest value when the
 * cache is flushed (commit) or evicts it, and reads see the cache first.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { Retention } from './retention.js';
import { CachingLayer } from './caching-layer.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

/** Told each window a cache flush writes through: the key, the window start, the new and the previous value. */
export type WindowFlushListener<K, V> = (key: K, windowStart: number, newValue: V | null, oldValue: V | null, timestampMs: number) => void;

/** The window start a store key ends with. */
const windowStartOf = (key: Buffer): number => Number(key.readBigInt64BE(key.length - 8));

/** A value of one window of a key. */
export interface WindowEntry<V> {
  windowStart: number;
  value: V;
}

/** Read access to a window store (also what interactive queries get). */
export interface ReadOnlyWindowStore<K, V> {
  /** The value of `key` in the window starting at `windowStart`, or null. */
  fetch(key: K, windowStart: number): V | null;
  /** The windows of `key` starting in [timeFrom, timeTo], oldest first. */
  fetchRange(key: K, timeFrom: number, timeTo: number): WindowEntry<V>[];
}

/** Values per key and window. */
export class WindowStore<K, V> implements StateStore, ReadOnlyWindowStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesStore;
  private context: StateStoreContext | null = null;
  private topic: string;
  private readonly retention: Retention | null;
  private readonly cache: CachingLayer;
  private listener: WindowFlushListener<K, V> | null = null;

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
    retentionMs: number | null = null,
    private readonly caching = false,
  ) {
    this.retention = retentionMs === null ? null : new Retention(retentionMs, windowStartOf);
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.topic = supplier.name;
    this.cache = new CachingLayer(this.inner, {
      valueBytes: (e) => e.valueBytes,
      accept: (e) => this.retention?.isExpired(windowStartOf(e.keyBytes)) !== true,
      write: (e, valueBytes) => this.write(e.keyBytes, valueBytes, true, e.timestamp),
      forward: (e, _valueBytes, oldBytes) => {
        if (this.listener === null) return;
        const oldValue = oldBytes === undefined ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, oldBytes);
        this.listener(e.key as K, windowStartOf(e.keyBytes), e.value as V | null, oldValue, e.timestamp);
      },
      afterFlush: () => this.expire(),
    });
  }

  /** Opens the store for a task (called by the task). */
  init(context: StateStoreContext): void {
    this.context = context;
    this.keySerde ??= context.defaultKeySerde as Serde<K>;
    this.valueSerde ??= context.defaultValueSerde as Serde<V>;
    this.topic = changelogTopic(context.applicationId, this.name);
    if (this.inner.open(context.stateDir)) context.reportWiped(this.name);
    context.registerRestore(this.name, (key, value) => {
      if (value === null) this.inner.delete(key);
      else this.inner.put(key, value);
      this.retention?.track(key, value === null);
    });
    if (this.retention !== null) for (const [key] of this.inner.range(null, null)) this.retention.track(key, false);
    this.cache.open(context.cache, this.caching);
  }

  /** The downstream of a caching store's flushes; false when the store does not cache (the caller forwards itself). */
  setFlushListener(listener: WindowFlushListener<K, V>): boolean {
    this.listener = listener;
    return this.cache.active;
  }

  /**
   * Sets the value of `key` in the window starting at `windowStart` (null
   * deletes); a window past retention is ignored. `timestampMs` is the
   * window's timestamp for the changelog and a cached flush (default: the
   * record being processed).
   */
  put(key: K, value: V | null, windowStart: number, timestampMs?: number): void {
    if (this.retention?.isExpired(windowStart) === true) return;
    const k = this.storeKey(key, windowStart);
    const v = value === null ? null : (this.valueSerde as Serde<V>).serialize(this.topic, value);
    if (this.cache.active) {
      const timestamp = timestampMs ?? this.open().recordTimestampMs();
      this.cache.put(k.toString('latin1'), key, k, value, v, v?.length ?? 0, timestamp);
      return;
    }
    this.write(k, v, true, timestampMs);
    this.expire();
  }

  private expire(): void {
    if (this.retention !== null) for (const old of this.retention.takeExpired()) this.write(old, null, false);
  }

  /** The number of windows held (the retention tracks them; without one, counted by a scan). */
  approximateNumEntries(): number {
    return this.retention?.size ?? this.inner.size();
  }

  private write(k: Buffer, v: Buffer | null, track = true, timestamp?: number): void {
    if (v === null) this.inner.delete(k);
    else this.inner.put(k, v);
    if (track) this.retention?.track(k, v === null);
    if (this.logging) this.open().logChange(this.name, k, v, timestamp);
  }

  /** The value of `key` in the window starting at `windowStart`, or null. */
  fetch(key: K, windowStart: number): V | null {
    if (this.retention?.isExpired(windowStart) === true) return null;
    const k = this.storeKey(key, windowStart);
    const bytes = this.cache.get(k);
    return bytes === undefined || bytes === null ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, bytes);
  }

  /** The windows of `key` starting in [timeFrom, timeTo], oldest first (the cache's unflushed windows included). */
  fetchRange(key: K, timeFrom: number, timeTo: number): WindowEntry<V>[] {
    const from = this.storeKey(key, Math.max(0, timeFrom, this.retention?.earliestMs ?? 0));
    const to = this.storeKey(key, timeTo);
    const prefix = from.subarray(0, from.length - 8);
    const mine = (k: Buffer): boolean => k.length === from.length && k.subarray(0, prefix.length).equals(prefix);
    const serde = this.valueSerde as Serde<V>;
    return this.cache.range(from, to, mine).map(([k, v]) => ({ windowStart: windowStartOf(k), value: serde.deserialize(this.topic, v) as V }));
  }

  /** Writes the cache through (forwarding downstream) without making the store durable. */
  flushCache(): void {
    this.cache.flush();
  }

  /** Writes the cache through, then makes writes durable (persistent stores). */
  flush(): void {
    this.flushCache();
    this.inner.flush();
  }

  /** Releases the store; cached writes not flushed are dropped (the input that made them is processed again). */
  close(): void {
    this.cache.clear();
    this.inner.close();
    this.context = null;
  }

  private storeKey(key: K, windowStart: number): Buffer {
    this.open();
    const k = (this.keySerde as Serde<K>).serialize(this.topic, key);
    if (k === null) throw new StreamsError(StreamsErrorCode.STORE, `window store '${this.name}' does not take null keys`);
    const out = Buffer.allocUnsafe(k.length + 8);
    k.copy(out);
    out.writeBigInt64BE(BigInt(windowStart), k.length);
    return out;
  }

  private open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open`);
    return this.context;
  }
}
