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
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import { parseSessionKey, sessionKeyBytes } from '../dsl/session-windows.js';
import type { Window, Windowed } from '../dsl/windows.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { Retention } from './retention.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

/** A session key's time for retention: its end. */
const sessionEndOf = (key: Buffer): number => Number(key.readBigInt64BE(key.length - 16));

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

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
    retentionMs: number | null = null,
  ) {
    // A session is closed when its end is *before* stream time - gap - grace (Kafka's strict check), so one
    // ending exactly there is still live: the retention keeps one more millisecond than the window store's.
    this.retention = retentionMs === null ? null : new Retention(retentionMs + 1, sessionEndOf);
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

  /** Sets the aggregate of the session `key.window` of `key.key` (null removes it); a session past retention is ignored. */
  put(key: Windowed<K>, value: V | null): void {
    if (this.retention?.isExpired(key.window.end) === true) return;
    const k = sessionKeyBytes(this.keyBytes(key.key), key.window.start, key.window.end);
    const v = value === null ? null : (this.valueSerde as Serde<V>).serialize(this.topic, value);
    this.write(k, v);
    if (this.retention !== null) for (const old of this.retention.takeExpired()) this.write(old, null, false);
  }

  private write(k: Buffer, v: Buffer | null, track = true): void {
    if (v === null) this.inner.delete(k);
    else this.inner.put(k, v);
    if (track) this.retention?.track(k, v === null);
    if (this.logging) this.open().logChange(this.name, k, v);
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
    const bytes = this.inner.get(sessionKeyBytes(this.keyBytes(key), start, end));
    return bytes === undefined ? null : (this.valueSerde as Serde<V>).deserialize(this.topic, bytes);
  }

  /** The sessions of `key` that end at or after `earliestSessionEndMs` and start at or before `latestSessionStartMs` (Kafka's findSessions). */
  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): SessionEntry<K, V>[] {
    const kb = this.keyBytes(key);
    const from = sessionKeyBytes(kb, 0, Math.max(0, earliestSessionEndMs, this.retention?.earliestMs ?? 0));
    const to = Buffer.concat([kb, Buffer.alloc(16)]);
    to.writeBigInt64BE(MAX_TIME, kb.length);
    to.writeBigInt64BE(MAX_TIME, kb.length + 8);
    const out: SessionEntry<K, V>[] = [];
    for (const [k, v] of this.inner.range(from, to)) {
      // Longer keys that start with these bytes sort inside the range too.
      if (k.length !== kb.length + 16 || !k.subarray(0, kb.length).equals(kb)) continue;
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

  /** Makes writes durable (persistent stores). */
  flush(): void {
    this.inner.flush();
  }

  /** Releases the store. */
  close(): void {
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
