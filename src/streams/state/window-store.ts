/**
 * The window store: values per (key, window start), kept in a bytes store
 * under the key `<key bytes><start as 8 big-endian bytes>` (Kafka's window
 * store layout without the sequence number), so the windows of one key are
 * adjacent and in time order. Changes go to the changelog like any store.
 * With a retention, windows whose start is more than the retention behind
 * the latest start put are deleted (and their deletion logged), so the store
 * stays bounded; puts and reads of such windows are ignored.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { Retention } from './retention.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

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

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
    retentionMs: number | null = null,
  ) {
    this.retention = retentionMs === null ? null : new Retention(retentionMs, windowStartOf);
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.topic = supplier.name;
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
  }

  /** Sets the value of `key` in the window starting at `windowStart` (null deletes); a window past retention is ignored. */
  put(key: K, value: V | null, windowStart: number): void {
    if (this.retention?.isExpired(windowStart) === true) return;
    const k = this.storeKey(key, windowStart);
    const v = value === null ? null : (this.valueSerde as Serde<V>).serialize(this.topic, value);
    this.write(k, v);
    if (this.retention !== null) for (const old of this.retention.takeExpired()) this.write(old, null, false);
  }

  /** The number of windows held (the retention tracks them; without one, counted by a scan). */
  approximateNumEntries(): number {
    return this.retention?.size ?? this.inner.size();
  }

  private write(k: Buffer, v: Buffer | null, track = true): void {
    if (v === null) this.inner.delete(k);
    else this.inner.put(k, v);
    if (track) this.retention?.track(k, v === null);
    if (this.logging) this.open().logChange(this.name, k, v);
  }

  /** The value of `key` in the window starting at `windowStart`, or null. */
  fetch(key: K, windowStart: number): V | null {
    if (this.retention?.isExpired(windowStart) === true) return null;
    const bytes = this.inner.get(this.storeKey(key, windowStart));
    return bytes === undefined ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, bytes);
  }

  /** The windows of `key` starting in [timeFrom, timeTo], oldest first. */
  fetchRange(key: K, timeFrom: number, timeTo: number): WindowEntry<V>[] {
    const from = this.storeKey(key, Math.max(0, timeFrom, this.retention?.earliestMs ?? 0));
    const prefix = from.subarray(0, from.length - 8);
    return this.inner
      .range(from, this.storeKey(key, timeTo))
      .filter(([k]) => k.length === from.length && k.subarray(0, prefix.length).equals(prefix))
      .map(([k, v]) => ({ windowStart: Number(k.readBigInt64BE(k.length - 8)), value: (this.valueSerde as Serde<V>).deserialize(this.topic, v) as V }));
  }

  /** Makes writes durable (persistent stores). */
  flush(): void {
    this.inner.flush();
  }

  /** Releases the store. */
  close(): void {
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
