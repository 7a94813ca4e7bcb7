/**
 * The session store: one aggregate per (key, session window), kept in a
 * bytes store under `<key bytes><end><start>` (Kafka's session key schema),
 * so the sessions of a key are adjacent and ordered by end time and the
 * sessions that may touch a time range are one range scan. Every put and
 * remove goes to the changelog. With a retention (the DSL gives inactivity
 * gap + grace, as Kafka, or Materialized.retentionMs), sessions that ended
 * more than the retention before the latest session end put are deleted
 * (and their deletion logged) a segment at a time, and reads no longer see
 * them, so the store stays bounded however long the input.
 *
 * With caching (Kafka's CachingSessionStore; the DSL's session aggregations
 * turn it on unless `cachingEnabled: false`), puts and removes only update
 * the thread's record cache (caching-layer.ts); the store, the changelog and
 * the flush listener get each session's latest aggregate, or its removal,
 * when the cache is flushed (commit) or evicts it. A session created and
 * merged away between two flushes reaches none of them. Reads see the cache.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import { parseSessionKey, sessionKeyBytes } from '../dsl/session-windows.js';
import type { Window, Windowed } from '../dsl/windows.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { CachingLayer } from './caching-layer.js';
import { Retention } from './retention.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

/** A session key's time for retention: its end. */
const sessionEndOf = (key: Buffer): number => Number(key.readBigInt64BE(key.length - 16));

/** Told each session a cache flush writes through: its new aggregate (null: removed) and the one stored before. */
export type SessionFlushListener<K, V> = (key: Windowed<K>, newValue: V | null, oldValue: V | null, timestampMs: number) => void;

/** A session of a key and its aggregate. */
export interface SessionEntry<K, V> {
  key: Windowed<K>;
  value: V;
}

/** Read access to a session store (also what interactive queries get). */
export interface ReadOnlySessionStore<K, V> {
  /** The aggregate of exactly this session of `key`, or null. */
  fetchSession(key: K, start: number, end: number): V | null;
  /** Sessions of `key` with end >= `earliestSessionEndMs` and start <= `latestSessionStartMs`, by end time. */
  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): SessionEntry<K, V>[];
  /** Every session of `key`, by end time. */
  fetch(key: K): SessionEntry<K, V>[];
}

const MAX_TIME = BigInt.asIntN(64, (1n << 63n) - 1n);

/** Aggregates per key and session. */
export class SessionStore<K, V> implements StateStore, ReadOnlySessionStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesStore;
  private context: StateStoreContext | null = null;
  private topic: string;
  private readonly retention: Retention | null;
  private readonly cache: CachingLayer;
  private listener: SessionFlushListener<K, V> | null = null;

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
    retentionMs: number | null = null,
    private readonly caching = false,
  ) {
    // A session is closed when its end is *before* stream time - gap - grace (Kafka's strict check), so one
    // ending exactly there is still live: the retention keeps one more millisecond than the window store's.
    this.retention = retentionMs === null ? null : new Retention(retentionMs + 1, sessionEndOf);
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.topic = supplier.name;
    this.cache = new CachingLayer(this.inner, {
      valueBytes: (e) => e.valueBytes,
      accept: (e) => this.retention?.isExpired(sessionEndOf(e.keyBytes)) !== true,
      write: (e, valueBytes) => this.write(e.keyBytes, valueBytes, true, e.timestamp),
      forward: (e, _valueBytes, oldBytes) => {
        if (this.listener === null) return;
        const oldValue = oldBytes === undefined ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, oldBytes);
        this.listener(e.key as Windowed<K>, e.value as V | null, oldValue, e.timestamp);
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
  setFlushListener(listener: SessionFlushListener<K, V>): boolean {
    this.listener = listener;
    return this.cache.active;
  }

  /** Sets the aggregate of the session `key.window` of `key.key` (null removes it); a session past retention is ignored. */
  put(key: Windowed<K>, value: V | null): void {
    if (this.retention?.isExpired(key.window.end) === true) return;
    const k = sessionKeyBytes(this.keyBytes(key.key), key.window.start, key.window.end);
    const v = value === null ? null : (this.valueSerde as Serde<V>).serialize(this.topic, value);
    if (this.cache.active) {
      // The windowed key is kept with its own window object: the caller may reuse the one it passed.
      const entryKey: Windowed<K> = { key: key.key, window: { start: key.window.start, end: key.window.end } };
      this.cache.put(k.toString('latin1'), entryKey, k, value, v, v?.length ?? 0, this.open().recordTimestampMs());
      return;
    }
    this.write(k, v);
    this.expire();
  }

  private expire(): void {
    if (this.retention !== null) for (const old of this.retention.takeExpired()) this.write(old, null, false);
  }

  private write(k: Buffer, v: Buffer | null, track = true, timestamp?: number): void {
    if (v === null) this.inner.delete(k);
    else this.inner.put(k, v);
    if (track) this.retention?.track(k, v === null);
    if (this.logging) this.open().logChange(this.name, k, v, timestamp);
  }

  /** The number of sessions held (the retention tracks them; without one, counted by a scan). */
  approximateNumEntries(): number {
    return this.retention?.size ?? this.inner.size();
  }

  /** Removes a session. */
  remove(key: Windowed<K>): void {
    this.put(key, null);
  }

  /** The value of the session [start, end] of `key`, or null when there is none. */
  fetchSession(key: K, start: number, end: number): V | null {
    if (this.retention?.isExpired(end) === true) return null;
    const bytes = this.cache.get(sessionKeyBytes(this.keyBytes(key), start, end));
    return bytes === undefined || bytes === null ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, bytes);
  }

  /** The sessions of `key` that end at or after `earliestSessionEndMs` and start at or before `latestSessionStartMs` (Kafka's findSessions). */
  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): SessionEntry<K, V>[] {
    const kb = this.keyBytes(key);
    const from = sessionKeyBytes(kb, 0, Math.max(0, earliestSessionEndMs, this.retention?.earliestMs ?? 0));
    const to = Buffer.concat([kb, Buffer.alloc(16)]);
    to.writeBigInt64BE(MAX_TIME, kb.length);
    to.writeBigInt64BE(MAX_TIME, kb.length + 8);
    const out: SessionEntry<K, V>[] = [];
    // Longer keys that start with these bytes sort inside the range too.
    const mine = (k: Buffer): boolean => k.length === kb.length + 16 && k.subarray(0, kb.length).equals(kb);
    for (const [k, v] of this.cache.range(from, to, mine)) {
      const { start, end } = parseSessionKey(k);
      if (start > latestSessionStartMs) continue;
      out.push({ key: { key, window: { start, end } satisfies Window }, value: (this.valueSerde as Serde<V>).deserialize(this.topic, v) as V });
    }
    return out;
  }

  /** Every session of `key`, oldest first. */
  fetch(key: K): SessionEntry<K, V>[] {
    return this.findSessions(key, 0, Number.MAX_SAFE_INTEGER);
  }

  /** Writes the cache through (forwarding downstream) without making the store durable. */
  flushCache(): void {
    this.cache.flush();
  }

  /** Writes the cache through, then makes writes durable (persistent stores). */
  flush(): void {
    this.cache.flush();
    this.inner.flush();
  }

  /** Releases the store; cached writes not flushed are dropped (the input that made them is processed again). */
  close(): void {
    this.cache.clear();
    this.inner.close();
    this.context = null;
  }

  private keyBytes(key: K): Buffer {
    this.open();
    const k = (this.keySerde as Serde<K>).serialize(this.topic, key);
    if (k === null) throw new StreamsError(StreamsErrorCode.STORE, `session store '${this.name}' does not take null keys`);
    return k;
  }

  private open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open`);
    return this.context;
  }
}
